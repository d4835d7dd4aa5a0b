"""The bridge in its own process, observed and commanded from this one over real DDS."""

from __future__ import annotations

import time

import pytest
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from urdf_parser_py import urdf

from body_bridge.ros import qos

from conftest import SAMPLE_ARM

STARTUP = 60.0  # [s] wall time allowed for the bridge process to come up


def spin_until(rclpy, node, predicate, timeout: float, what: str, proc=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.05)
        if predicate():
            return
        if proc is not None and proc.proc.poll() is not None:
            pytest.fail(f'the bridge exited ({proc.proc.returncode}) while waiting for {what}:\n'
                        f'{proc.output()}')
    pytest.fail(f'timed out after {timeout} s waiting for {what}'
                + (f'\nbridge output:\n{proc.output()}' if proc else ''))


class Probe:
    """What a user's tools would see of the bridge."""

    def __init__(self, rclpy, name='probe'):
        self.rclpy = rclpy
        self.node = rclpy.create_node(name)
        self.states: list[JointState] = []
        self.clock: list[float] = []
        self.tf: dict[str, str] = {}
        self.tf_static: dict[str, str] = {}
        self.description: list[str] = []
        n = self.node
        n.create_subscription(JointState, 'joint_states', self.states.append, qos.JOINT_STATES)
        n.create_subscription(Clock, '/clock', lambda m: self.clock.append(
            m.clock.sec + 1e-9 * m.clock.nanosec), qos.CLOCK)
        n.create_subscription(TFMessage, '/tf', lambda m: self._frames(m, self.tf), qos.TF)
        n.create_subscription(TFMessage, '/tf_static', lambda m: self._frames(m, self.tf_static),
                              qos.TF_STATIC)

    @staticmethod
    def _frames(msg, into):
        for t in msg.transforms:
            into[t.child_frame_id] = t.header.frame_id

    def subscribe_description(self):
        self.node.create_subscription(String, 'robot_description',
                                      lambda m: self.description.append(m.data), qos.LATCHED)

    def spin_until(self, predicate, timeout, what, proc=None):
        spin_until(self.rclpy, self.node, predicate, timeout, what, proc)

    def close(self):
        self.node.destroy_node()


@pytest.fixture
def probe(ros):
    p = Probe(ros)
    yield p
    p.close()


def stamp(msg) -> float:
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


def test_sample_arm_end_to_end(bridge, probe, tmp_path, check_urdf):
    proc = bridge(SAMPLE_ARM)
    probe.spin_until(lambda: len(probe.states) > 5, STARTUP, 'joint_states', proc)

    # robot_description reaches a late joiner and is a URDF that check_urdf accepts.
    probe.subscribe_description()
    probe.spin_until(lambda: probe.description, 10.0, 'robot_description (late joiner)', proc)
    path = tmp_path / 'description.urdf'
    path.write_text(probe.description[0])
    ok, out = check_urdf(path)
    assert ok, out
    robot = urdf.URDF.from_xml_string(probe.description[0])

    # /tf_static and /tf cover every link of that URDF, rooted in the world frame.
    links = {link.name for link in robot.links}
    probe.spin_until(lambda: links <= set(probe.tf) | set(probe.tf_static) | {'world'}, 10.0,
                     'TF frames for every link', proc)
    assert probe.tf_static[robot.get_root()] == 'world'
    moving = {j.child for j in robot.joints if j.type != 'fixed'}
    assert moving <= set(probe.tf)

    # joint_states names every non-fixed joint.
    assert set(probe.states[-1].name) == {j.name for j in robot.joints if j.type != 'fixed'}

    # /clock advances.
    probe.spin_until(lambda: len(probe.clock) > 10, 10.0, '/clock', proc)
    assert probe.clock[-1] > probe.clock[0]

    # A position target is reached within 0.01 rad within 2 s of simulated time.
    pub = probe.node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)
    probe.spin_until(lambda: pub.get_subscription_count() > 0, 10.0, 'joint_commands match', proc)
    start = stamp(probe.states[-1])
    pub.publish(JointState(name=['elbow_pitch'], position=[0.5]))
    probe.spin_until(lambda: stamp(probe.states[-1]) > start + 2.0, 20.0, '2 s of simulated time',
                     proc)
    after = [m for m in probe.states if start < stamp(m) <= start + 2.0]
    reached = [stamp(m) - start for m in after
               if abs(m.position[list(m.name).index('elbow_pitch')] - 0.5) < 0.01]
    assert reached, 'elbow_pitch never came within 0.01 rad of 0.5 within 2 s'
    final = after[-1].position[list(after[-1].name).index('elbow_pitch')]
    assert abs(final - 0.5) < 0.01


def test_reset_service_and_bad_commands(bridge, probe):
    proc = bridge(SAMPLE_ARM, '-p', 'real_time_factor:=2.0')
    probe.spin_until(lambda: len(probe.states) > 5, STARTUP, 'joint_states', proc)
    pub = probe.node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)
    probe.spin_until(lambda: pub.get_subscription_count() > 0, 10.0, 'joint_commands match', proc)
    pub.publish(JointState(name=['no_such_joint'], position=[0.5]))
    pub.publish(JointState(name=['shoulder_yaw'], position=[float('nan')]))
    pub.publish(JointState(name=['shoulder_yaw'], position=[1.0]))
    q = lambda: probe.states[-1].position[0]  # noqa: E731
    probe.spin_until(lambda: abs(q() - 1.0) < 0.01, 20.0, 'shoulder_yaw at 1.0', proc)

    client = probe.node.create_client(Trigger, 'body_bridge/reset')
    probe.spin_until(lambda: client.service_is_ready(), 10.0, 'the reset service', proc)
    future = client.call_async(Trigger.Request())
    probe.spin_until(future.done, 10.0, 'reset response', proc)
    assert future.result().success
    count = len(probe.states)
    probe.spin_until(lambda: len(probe.states) > count + 3, 10.0, 'state after reset', proc)
    assert abs(q()) < 0.05
    assert stamp(probe.states[-1]) < 1.0  # simulated time restarted

    out = proc.output()
    assert "joint_commands: rejected: unknown joint 'no_such_joint'" in out
    assert 'joint_commands: rejected: a value is NaN or infinite' in out
    assert proc.proc.poll() is None  # still running


def test_bad_model_fails_with_one_line(bridge, tmp_path):
    bad = tmp_path / 'bad.body'
    bad.write_text('format: ChoreonoidBody\nlinks:\n  - name: a\n    joint_type: warp\n')
    proc = bridge(bad)
    assert proc.proc.wait(timeout=STARTUP) == 2
    out = proc.output().strip().splitlines()
    assert out == [f"{bad}:3: joint_type 'warp' is not one of fixed, free, revolute, prismatic, "
                   'pseudo_continuous_track']
