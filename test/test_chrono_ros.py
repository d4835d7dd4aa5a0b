"""A Chrono model as a live ROS robot: its bodies on TF, its motors in joint_states, its
external controllers on their topics; observed and driven from this process over real DDS."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from geometry_msgs.msg import Vector3, Wrench
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64
from tf2_msgs.msg import TFMessage

from body_bridge.ros.stream import qos
from body_bridge.ros.control.chrono_controllers import topic_name

STARTUP = 60.0  # [s] wall time allowed for the bridge process to come up
MODEL = Path(__file__).parent / 'data' / 'chrono' / 'controllers.yaml'


class Observer:
    def __init__(self, rclpy):
        self.rclpy = rclpy
        self.node = rclpy.create_node('chrono_probe')
        self.states: list[JointState] = []
        self.frames: dict[str, str] = {}
        self.node.create_subscription(JointState, 'joint_states', self.states.append,
                                      qos.JOINT_STATES)
        for topic, profile in (('/tf', qos.TF), ('/tf_static', qos.TF_STATIC)):
            self.node.create_subscription(TFMessage, topic, self._frames, profile)

    def _frames(self, msg: TFMessage) -> None:
        for t in msg.transforms:
            self.frames[t.child_frame_id] = t.header.frame_id

    def position(self, joint: str) -> float:
        state = self.states[-1]
        return state.position[list(state.name).index(joint)]

    def velocity(self, joint: str) -> float:
        state = self.states[-1]
        return state.velocity[list(state.name).index(joint)]

    def wait(self, predicate, timeout: float, what: str, proc) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.rclpy.spin_once(self.node, timeout_sec=0.05)
            if self.states and predicate():
                return
            if proc.proc.poll() is not None:
                pytest.fail(f'the bridge exited while waiting for {what}:\n{proc.output()}')
        pytest.fail(f'timed out waiting for {what}\nbridge output:\n{proc.output()}')


@pytest.fixture
def observer(ros):
    obs = Observer(ros)
    yield obs
    obs.node.destroy_node()


def test_topic_names_are_valid_ros_names():
    assert topic_name('cart_force', 'setpoint') == 'cart_force/setpoint'
    assert topic_name('motor A-1', 'setpoint') == 'motor_A_1/setpoint'
    assert topic_name('2nd', 'wrench') == '_2nd/wrench'


def test_controllers_take_their_inputs_from_ros(bridge, observer):
    proc = bridge(MODEL)
    observer.wait(lambda: len(observer.states) > 3, STARTUP, 'joint_states', proc)
    assert set(observer.states[-1].name) == {'wheel_axle', 'cart_force', 'arm_angle'}
    observer.wait(lambda: {'ground', 'cart', 'arm', 'wheel'} <= set(observer.frames), 10.0,
                  'a TF frame for every body', proc)
    assert observer.frames['ground'] == 'world' and observer.frames['cart'] == 'ground'
    out = proc.output()
    for topic in ('cart_force/setpoint', 'arm_angle/setpoint', 'wheel_torque/wrench'):
        assert f'listens on {topic}' in out

    node = observer.node
    force = node.create_publisher(Float64, 'cart_force/setpoint', qos.COMMANDS)
    angle = node.create_publisher(Float64, 'arm_angle/setpoint', qos.COMMANDS)
    torque = node.create_publisher(Wrench, 'wheel_torque/wrench', qos.COMMANDS)
    observer.wait(lambda: min(p.get_subscription_count() for p in (force, angle, torque)) > 0,
                  10.0, 'the controller topics to match', proc)
    force.publish(Float64(data=4.0))  # 2 m/s^2 on 2 kg
    angle.publish(Float64(data=0.6))
    torque.publish(Wrench(torque=Vector3(x=0.0, y=0.0, z=0.05)))
    angle.publish(Float64(data=float('nan')))  # rejected; 0.6 stays
    observer.wait(lambda: observer.position('cart_force') > 0.25 and
                  abs(observer.position('arm_angle') - 0.6) < 1e-3 and
                  observer.velocity('wheel_axle') > 0.5, 20.0,
                  'the cart, the arm and the wheel to answer', proc)
    assert 'arm_angle/setpoint: rejected: the value is not finite' in proc.output()

    # A command for a motor's joint takes over from the motor.
    commands = node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)
    observer.wait(lambda: commands.get_subscription_count() > 0, 10.0, 'joint_commands', proc)
    commands.publish(JointState(name=['arm_angle'], position=[-0.4]))
    observer.wait(lambda: abs(observer.position('arm_angle') + 0.4) < 0.01, 20.0,
                  'the arm to follow the command', proc)
    angle.publish(Float64(data=0.6))
    count = len(observer.states)
    observer.wait(lambda: len(observer.states) > count + 20, 10.0, 'more states', proc)
    assert abs(observer.position('arm_angle') + 0.4) < 0.01  # the motor no longer drives it
