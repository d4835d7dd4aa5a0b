"""Commands over real DDS from this process, acting as a user's controller, to a bridge in
another: joint_commands in every mode, controller groups, trajectories, bad commands."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from builtin_interfaces.msg import Duration, Time
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from body_bridge.ros.stream import qos

from conftest import SAMPLE_ARM, BridgeProcess
from pendulum_model import AXIS_INERTIA, write_pendulum
from test_end_to_end import STARTUP, spin_until, stamp

JOINTS = ['shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch']
CONTROLLERS = [
    '-p', 'controllers.arm.type:=joint_trajectory_controller/JointTrajectoryController',
    '-p', f'controllers.arm.joints:=[{",".join(JOINTS)}]',
    '-p', 'controllers.wrist.type:=velocity_controllers/JointGroupVelocityController',
    '-p', 'controllers.wrist.joints:=[wrist_pitch]',
    '-p', 'controllers.pitch.type:=position_controllers/JointGroupPositionController',
    '-p', 'controllers.pitch.joints:=[shoulder_pitch, elbow_pitch]',
]


class Controller:
    """A user's controller: publishes commands, watches joint_states."""

    def __init__(self, rclpy, proc, namespace):
        self.rclpy, self.proc = rclpy, proc
        self.node = rclpy.create_node('controller', namespace=namespace)
        self.states: list[JointState] = []
        self.node.create_subscription(JointState, 'joint_states', self.states.append,
                                      qos.JOINT_STATES)
        self.pubs = {}

    def publisher(self, msg_type, topic):
        if topic not in self.pubs:
            pub = self.node.create_publisher(msg_type, topic, qos.COMMANDS)
            self.spin_until(lambda: pub.get_subscription_count() > 0, 20.0, f'{topic} to match')
            self.pubs[topic] = pub
        return self.pubs[topic]

    def spin_until(self, predicate, timeout, what):
        spin_until(self.rclpy, self.node, predicate, timeout, what, self.proc)

    def now(self) -> float:
        """Simulated time of the latest joint_states."""
        return stamp(self.states[-1])

    def wait_sim(self, seconds: float) -> None:
        end = self.now() + seconds
        self.spin_until(lambda: self.now() >= end, 10.0 + 4.0 * seconds,
                        f'{seconds} s of simulated time')

    def series(self, joint: str, start: float, end: float):
        """(t, q, v) of a joint in the states stamped in (start, end]."""
        rows = [m for m in self.states if start < stamp(m) <= end]
        k = list(rows[0].name).index(joint)
        return (np.array([stamp(m) for m in rows]), np.array([m.position[k] for m in rows]),
                np.array([m.velocity[k] for m in rows]))

    def reset(self) -> None:
        client = self.node.create_client(Trigger, 'body_bridge/reset')
        self.spin_until(client.service_is_ready, 20.0, 'the reset service')
        future = client.call_async(Trigger.Request())
        self.spin_until(future.done, 10.0, 'the reset response')
        assert future.result().success
        self.node.destroy_client(client)
        self.spin_until(lambda: any(stamp(m) < 0.005 for m in self.states), 10.0,
                        'the state after the reset')
        first = next(k for k, m in enumerate(self.states) if stamp(m) < 0.005)
        del self.states[:first]  # only what happened since the reset

    def close(self):
        self.node.destroy_node()


@pytest.fixture(scope='module')
def arm_bridge(tmp_path_factory):
    """One sample-arm bridge with controller groups for the module; each test resets it."""
    proc = BridgeProcess(SAMPLE_ARM, '-r', '__ns:=/arm', *CONTROLLERS,
                         tmp_path=tmp_path_factory.mktemp('arm'))
    yield proc
    assert proc.stop() in (0, -2)


@pytest.fixture
def arm(ros, arm_bridge):
    c = Controller(ros, arm_bridge, '/arm')
    c.spin_until(lambda: len(c.states) > 3, STARTUP, 'joint_states')
    c.reset()
    yield c
    c.close()


def test_position_step_settles_within_2_percent_in_1_s_under_the_velocity_limit(arm):
    step, limit = 1.2, math.pi
    pub = arm.publisher(JointState, 'joint_commands')
    start = arm.now()
    pub.publish(JointState(name=['elbow_pitch'], position=[step]))
    arm.wait_sim(1.5)
    t, q, v = arm.series('elbow_pitch', start, start + 1.5)
    outside = np.flatnonzero(np.abs(q - step) > 0.02 * step)
    assert len(outside) and t[outside[-1]] - start < 1.0, 'did not settle within 1 s'
    assert np.max(np.abs(v)) <= limit * (1 + 1e-12)
    assert np.max(np.abs(v)) > 0.95 * limit


def test_velocity_command_holds_the_velocity_within_2_percent(arm):
    pub = arm.publisher(JointState, 'joint_commands')
    start = arm.now()
    pub.publish(JointState(name=['shoulder_yaw'], velocity=[1.0]))
    arm.wait_sim(1.5)
    _, _, v = arm.series('shoulder_yaw', start + 0.5, start + 1.5)
    assert len(v) > 50
    np.testing.assert_allclose(v, 1.0, rtol=0.02)


def test_effort_on_a_free_pendulum_gives_tau_over_inertia(ros, bridge, tmp_path):
    proc = bridge(write_pendulum(tmp_path), '-r', '__ns:=/pendulum')
    c = Controller(ros, proc, '/pendulum')
    try:
        c.spin_until(lambda: len(c.states) > 3, STARTUP, 'joint_states')
        tau = 1.3
        c.publisher(JointState, 'joint_commands').publish(
            JointState(name=['bob'], effort=[tau]))
        c.spin_until(lambda: sum(m.velocity[0] > 0 for m in c.states) >= 3, 20.0,
                     'the pendulum to move')
        first = next(k for k, m in enumerate(c.states) if m.velocity[0] > 0)
        assert first > 0, [(stamp(m), m.velocity[0]) for m in c.states[:5]]
        before, moving = c.states[first - 1], c.states[first:first + 3]
        assert before.velocity[0] == 0.0
        for a, b in zip([before, *moving], moving):
            acceleration = (b.velocity[0] - a.velocity[0]) / (stamp(b) - stamp(a))
            assert acceleration == pytest.approx(tau / AXIS_INERTIA, rel=0.02)
        assert moving[0].effort[0] == pytest.approx(tau)
    finally:
        c.close()


def trajectory(names, points, start: Time | None = None, velocities=None):
    msg = JointTrajectory(joint_names=names)
    if start is not None:
        msg.header.stamp = start
    for k, (t, p) in enumerate(points):
        duration = Duration(sec=int(t), nanosec=int(t % 1 * 1e9))
        point = JointTrajectoryPoint(positions=p, time_from_start=duration)
        if velocities is not None:
            point.velocities = velocities[k]
        msg.points.append(point)
    return msg


def test_three_point_trajectory_is_followed(arm):
    pub = arm.publisher(JointTrajectory, 'arm/joint_trajectory')
    points = [(1.0, [0.3, 0.5, -0.5, 0.2]), (2.0, [-0.2, 1.0, 0.3, 0.0]),
              (3.0, [0.0, 0.2, 0.8, -0.4])]
    begin = math.ceil(arm.now()) + 1.0  # stamped: starts at a known simulated time
    pub.publish(trajectory(JOINTS, points, Time(sec=int(begin))))
    arm.wait_sim(begin + 3.2 - arm.now())
    for t, point in points:
        state = next(m for m in arm.states if stamp(m) >= begin + t - 1e-6)
        assert stamp(state) == pytest.approx(begin + t, abs=1e-6)
        np.testing.assert_allclose(state.position, point, atol=0.02)


def test_trajectory_stamped_zero_starts_now_and_a_new_one_replaces_it(arm):
    pub = arm.publisher(JointTrajectory, 'arm/joint_trajectory')
    pub.publish(trajectory(['elbow_pitch'], [(2.0, [1.5])]))
    arm.wait_sim(0.6)
    t0 = arm.now()
    q0 = arm.series('elbow_pitch', t0 - 0.011, t0)[1][-1]
    assert 0.2 < q0 < 0.8  # on its way
    pub.publish(trajectory(['elbow_pitch'], [(0.5, [-0.3])], velocities=[[0.0]]))
    arm.wait_sim(1.0)
    t, q, v = arm.series('elbow_pitch', t0, t0 + 1.0)
    assert np.max(np.abs(np.diff(v))) < 1.0  # no jump in velocity where it was replaced
    assert q[-1] == pytest.approx(-0.3, abs=2e-3)


def test_forward_command_groups(arm):
    vel = arm.publisher(Float64MultiArray, 'wrist/commands')
    pos = arm.publisher(Float64MultiArray, 'pitch/commands')
    start = arm.now()
    vel.publish(Float64MultiArray(data=[0.5]))
    pos.publish(Float64MultiArray(data=[0.4, -0.6]))
    arm.wait_sim(1.0)
    vel.publish(Float64MultiArray(data=[float('nan')]))  # all NaN: no command
    arm.wait_sim(0.3)
    _, q, _ = arm.series('shoulder_pitch', start + 0.9, start + 1.3)
    np.testing.assert_allclose(q, 0.4, atol=2e-3)
    _, _, v = arm.series('wrist_pitch', start + 0.5, start + 1.3)
    np.testing.assert_allclose(v, 0.5, rtol=0.02)


def test_bad_commands_are_rejected_and_the_last_valid_command_holds(arm):
    proc = arm.proc
    joint_commands = arm.publisher(JointState, 'joint_commands')
    group = arm.publisher(Float64MultiArray, 'pitch/commands')
    trajectories = arm.publisher(JointTrajectory, 'arm/joint_trajectory')
    joint_commands.publish(JointState(name=['elbow_pitch'], position=[0.5]))
    arm.wait_sim(1.0)
    nan, inf = float('nan'), float('inf')
    bad = [
        (joint_commands, JointState(name=['elbow_pitch'], position=[nan])),
        (joint_commands, JointState(name=['elbow_pitch'], velocity=[inf])),
        (joint_commands, JointState(name=['knee'], position=[0.0])),
        (joint_commands, JointState(name=['elbow_pitch', 'wrist_pitch'], position=[0.0])),
        (joint_commands, JointState(name=['elbow_pitch'], position=[0.0], velocity=[0.0])),
        (group, Float64MultiArray(data=[0.1])),
        (group, Float64MultiArray(data=[0.1, inf])),
        (group, Float64MultiArray(data=[nan, 0.1])),
        (trajectories, trajectory(['elbow_pitch'], [(1.0, [0.0]), (1.0, [0.1])])),
        (trajectories, trajectory(['knee'], [(1.0, [0.0])])),
        (trajectories, trajectory(['elbow_pitch'], [(1.0, [nan])])),
    ]
    for pub, msg in bad:
        pub.publish(msg)
    start = arm.now()
    arm.wait_sim(1.0)
    _, q, _ = arm.series('elbow_pitch', start, start + 1.0)
    np.testing.assert_allclose(q, 0.5, atol=2e-3)
    assert proc.proc.poll() is None
    expected = [
        "/arm/joint_commands: rejected: a value is NaN or infinite",
        "/arm/joint_commands: rejected: unknown joint 'knee'",
        "/arm/joint_commands: rejected: 2 joint names but 1 values",
        "/arm/joint_commands: rejected: a command must fill exactly one of position, velocity, "
        "effort (this one fills 2)",
        "/arm/pitch/commands: rejected: 1 values for 2 joints",
        "/arm/pitch/commands: rejected: a value is NaN or infinite",
        "/arm/arm/joint_trajectory: rejected: time_from_start is not strictly increasing at "
        "point 1",
        "/arm/arm/joint_trajectory: rejected: joint 'knee' is not one of this controller's joints",
        "/arm/arm/joint_trajectory: rejected: a position value is NaN or infinite",
    ]
    out = proc.output()
    for line in expected:
        assert line in out, f'missing warning: {line}'
    # each distinct warning once per second: the two NaN commands to joint_commands give one
    assert out.count('/arm/joint_commands: rejected: a value is NaN or infinite') == 1


def test_limits_clip_with_a_warning_naming_the_joint(arm):
    pub = arm.publisher(JointState, 'joint_commands')
    pub.publish(JointState(name=['elbow_pitch'], position=[4.0]))
    arm.wait_sim(1.5)
    q = arm.series('elbow_pitch', arm.now() - 0.05, arm.now())[1]
    np.testing.assert_allclose(q, math.radians(150), atol=2e-3)
    assert ('/arm/joint_commands: elbow_pitch: position target beyond its range '
            '[-2.61799, 2.61799]: clipped') in arm.proc.output()
