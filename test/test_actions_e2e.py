"""FollowJointTrajectory over real DDS from this process, as MoveIt would send it, to a
sample-arm bridge in another: success with feedback, each error code, cancel, preemption."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from builtin_interfaces.msg import Duration, Time
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTolerance
from rclpy.action import ActionClient
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectoryPoint

from conftest import SAMPLE_ARM, BridgeProcess
from test_commands_e2e import JOINTS, Controller
from test_end_to_end import STARTUP, stamp

Result = FollowJointTrajectory.Result
PERIOD = 0.01  # [s] the bridge's default control period (control_rate 100 Hz)
CONTROLLERS = [
    '-p', 'controllers.arm.type:=joint_trajectory_controller/JointTrajectoryController',
    '-p', f'controllers.arm.joints:=[{",".join(JOINTS)}]',
    '-p', 'controllers.arm.constraints.goal_time:=0.5',
    '-p', 'controllers.pitch.type:=position_controllers/JointGroupPositionController',
    '-p', 'controllers.pitch.joints:=[shoulder_pitch, elbow_pitch]',
]


@pytest.fixture(scope='module')
def action_bridge(tmp_path_factory):
    proc = BridgeProcess(SAMPLE_ARM, '-r', '__ns:=/act', *CONTROLLERS,
                         tmp_path=tmp_path_factory.mktemp('act'))
    yield proc
    assert proc.stop() in (0, -2)


class Client(Controller):
    """A user's action client beside the Controller's joint_states watch."""

    def __init__(self, rclpy, proc, namespace):
        super().__init__(rclpy, proc, namespace)
        self.action = ActionClient(self.node, FollowJointTrajectory,
                                   'arm/follow_joint_trajectory')
        self.spin_until(lambda: self.action.server_is_ready(), STARTUP, 'the action server')
        self.feedback: list = []

    def send(self, points, names=JOINTS, start: float = 0.0, **fields):
        """Send a goal; the goal handle once accepted."""
        goal = FollowJointTrajectory.Goal(**fields)
        goal.trajectory.joint_names = list(names)
        goal.trajectory.header.stamp = Time(sec=int(start), nanosec=int(start % 1 * 1e9))
        for t, positions in points:
            goal.trajectory.points.append(JointTrajectoryPoint(
                positions=list(positions),
                time_from_start=Duration(sec=int(t), nanosec=int(round(t % 1 * 1e9)))))
        future = self.action.send_goal_async(goal, feedback_callback=self.feedback.append)
        self.spin_until(future.done, 10.0, 'the goal response')
        handle = future.result()
        assert handle.accepted
        return handle

    def result(self, handle, timeout: float = 30.0):
        future = handle.get_result_async()
        self.spin_until(future.done, timeout, 'the result')
        return future.result()

    def position(self, joint: str) -> float:
        msg = self.states[-1]
        return msg.position[list(msg.name).index(joint)]


@pytest.fixture
def client(ros, action_bridge):
    c = Client(ros, action_bridge, '/act')
    c.spin_until(lambda: len(c.states) > 3, STARTUP, 'joint_states')
    c.reset()
    yield c
    c.close()


def test_three_point_goal_succeeds_with_feedback_and_small_final_error(client):
    target = [0.4, -0.3, 0.6, 0.2]
    points = [(0.5, [0.1, -0.1, 0.2, 0.05]), (1.0, [0.25, -0.2, 0.4, 0.1]), (1.5, target)]
    handle = client.send(points)
    answer = client.result(handle)
    assert answer.status == 4, answer  # SUCCEEDED
    assert answer.result.error_code == Result.SUCCESSFUL
    client.wait_sim(0.05)
    final = np.array([client.position(j) for j in JOINTS])
    assert np.max(np.abs(final - target)) < 0.01, final - target
    stamps = np.array([stamp(f.feedback) for f in client.feedback])
    assert len(stamps) > 10 and list(client.feedback[0].feedback.joint_names) == JOINTS
    rate = (len(stamps) - 1) / (stamps[-1] - stamps[0])
    assert rate >= 10.0, rate  # per second of simulated time
    last = client.feedback[-1].feedback
    np.testing.assert_allclose(np.array(last.desired.positions) - last.actual.positions,
                               last.error.positions, atol=1e-12)


@pytest.mark.parametrize('case, code', [
    ('unknown joint', Result.INVALID_JOINTS),
    ('missing joint', Result.INVALID_JOINTS),
    ('times not increasing', Result.INVALID_GOAL),
    ('ends in the past', Result.OLD_HEADER_TIMESTAMP),
])
def test_goal_that_cannot_be_followed_is_aborted_with_its_error_code(client, case, code):
    names, points, start = JOINTS, [(0.5, [0.1] * 4), (1.0, [0.2] * 4)], 0.0
    if case == 'unknown joint':
        names = JOINTS[:3] + ['no_such_joint']
    elif case == 'missing joint':
        names, points = JOINTS[:3], [(0.5, [0.1] * 3)]
    elif case == 'times not increasing':
        points = [(1.0, [0.1] * 4), (1.0, [0.2] * 4)]
    else:
        client.wait_sim(1.5)
        start = 0.2  # simulated time: the trajectory ended at 1.2 s
    before = [client.position(j) for j in JOINTS]
    answer = client.result(client.send(points, names=names, start=start))
    assert answer.status == 6, answer  # ABORTED
    assert answer.result.error_code == code and answer.result.error_string
    client.wait_sim(0.3)
    np.testing.assert_allclose([client.position(j) for j in JOINTS], before, atol=2e-3)


def test_path_tolerance_violation_aborts_and_holds(client):
    tight = [JointTolerance(name='elbow_pitch', position=1e-4)]
    handle = client.send([(0.3, [0.0, 0.0, 1.5, 0.0])], path_tolerance=tight)
    answer = client.result(handle)
    assert answer.status == 6 and answer.result.error_code == Result.PATH_TOLERANCE_VIOLATED
    assert 'elbow_pitch' in answer.result.error_string
    held = client.position('elbow_pitch')
    assert held < 1.0  # stopped well before the end of the path
    client.wait_sim(0.5)
    assert abs(client.position('elbow_pitch') - held) < 0.05


def test_goal_tolerance_violation_after_goal_time(client):
    # 3 rad in 0.1 s is far beyond the velocity limit: the joint is late at the end, and
    # the controller's goal_time (0.5 s) runs out before it arrives within 1e-3 rad.
    tolerance = [JointTolerance(name='shoulder_yaw', position=1e-3)]
    handle = client.send([(0.1, [2.5, 0.0, 0.0, 0.0])], goal_tolerance=tolerance)
    answer = client.result(handle)
    assert answer.status == 6 and answer.result.error_code == Result.GOAL_TOLERANCE_VIOLATED
    assert 'shoulder_yaw' in answer.result.error_string


def test_cancel_stops_within_one_control_period_and_holds(client):
    handle = client.send([(2.0, [1.5, 0.0, 0.0, 0.0])])
    client.spin_until(lambda: client.position('shoulder_yaw') > 0.5, 20.0, 'the motion')
    future = handle.cancel_goal_async()
    client.spin_until(future.done, 10.0, 'the cancel response')
    assert len(future.result().goals_canceling) == 1
    answer = client.result(handle)
    assert answer.status == 5, answer  # CANCELED
    asked = client.now()  # the bridge answered by then: the hold is queued
    client.wait_sim(1.0)
    t, q, v = client.series('shoulder_yaw', asked - 0.05, asked + 1.0)
    # From one period after the cancel was answered, the joint decelerates and then holds.
    after = t >= asked + PERIOD
    moving = abs(v[~after][-1])
    assert moving > 0.5 and np.all(np.abs(v[after]) <= moving + 1e-9)
    assert abs(v[t >= asked + 2 * PERIOD][0]) < 0.1 * moving  # stopped
    settled = t >= asked + 0.3
    assert np.ptp(q[settled]) < 1e-3  # holds ...
    assert abs(q[-1] - q[~after][-1]) < 0.01  # ... where it was when canceled


def test_new_goal_preempts_the_running_one(client):
    first = client.send([(2.0, [1.5, 0.0, 0.0, 0.0])])
    client.wait_sim(0.3)
    second = client.send([(1.0, [-0.5, 0.0, 0.0, 0.0])])
    answer = client.result(first)
    assert answer.status == 6 and 'preempted' in answer.result.error_string
    assert client.result(second).status == 4
    client.wait_sim(0.05)
    assert abs(client.position('shoulder_yaw') + 0.5) < 0.01


def test_a_topic_command_to_its_joints_aborts_the_goal(client):
    handle = client.send([(2.0, [1.0, 0.0, 0.0, 0.0])])
    client.wait_sim(0.2)
    client.publisher(Float64MultiArray, 'pitch/commands').publish(
        Float64MultiArray(data=[0.3, 0.3]))
    answer = client.result(handle)
    assert answer.status == 6 and 'commanded by another source' in answer.result.error_string
