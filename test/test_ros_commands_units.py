"""Command topics in this process: each subscription's callback called with the message a
client sends, a recording Simulation stand-in, a real rclpy node for the names and QoS.
What the bridge does with commands over DDS is in the end-to-end tests."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import ROS_MISSING
from ros_standins import own_node

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rclpy.qos import ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from body_bridge.errors import ParameterError
from body_bridge.ros.stream import qos
from body_bridge.ros.control.commands import CommandTopics, Controller, read_controllers
from body_bridge.sim.names import CommandRejected, Mode

JOINTS = ['a', 'b', 'c']
TRAJ = 'joint_trajectory_controller/JointTrajectoryController'


class Sim:
    """Records what the topics command; ``refuse`` makes the next call raise."""

    def __init__(self):
        self.calls, self.time, self.refuse, self.notes = [], 10.0, None, []

    def command(self, mode, names, values, source=None):
        return self._take(('command', mode, list(names), [float(v) for v in values], source))

    def follow(self, trajectory, start, source=None):
        return self._take(('follow', trajectory, start, source))

    def _take(self, call):
        if self.refuse:
            raise CommandRejected(self.refuse)
        self.calls.append(call)
        return self.notes


@pytest.fixture
def topics():
    with own_node('cmd', namespace='/r') as node:
        node.params = {'joint_commands_topic': 'joint_commands', 'joint_commands_depth': 3,
                       'joint_commands_reliability': 'best_effort'}
        node.warnings = []
        node.warn_throttled = node.warnings.append
        controllers = [Controller('arm', 'trajectory', Mode.POSITION, ('a', 'b')),
                       Controller('vel', 'commands', Mode.VELOCITY, ('c', 'a')),
                       Controller('hand', 'gripper', Mode.POSITION, ('b',))]
        made = CommandTopics(node, Sim(), controllers)
        made.sim.node = node
        yield made


def test_the_subscriptions_names_and_qos(topics):
    names = [s.topic_name for s in topics.subscriptions]
    assert names == ['/r/joint_commands', '/r/arm/joint_trajectory', '/r/vel/commands']
    assert [s.msg_type for s in topics.subscriptions] == [JointState, JointTrajectory,
                                                          Float64MultiArray]
    first = topics.subscriptions[0].qos_profile
    assert (first.depth, first.reliability) == (3, ReliabilityPolicy.BEST_EFFORT)
    group = topics.subscriptions[2].qos_profile
    assert (group.depth, group.reliability) == (qos.COMMANDS.depth, qos.COMMANDS.reliability)
    assert [c.name for c in topics.controllers] == ['arm', 'vel']  # the gripper is an action


def _joint_state(names, position=(), velocity=(), effort=()):
    return JointState(name=list(names), position=list(position), velocity=list(velocity),
                      effort=list(effort))


@pytest.mark.parametrize('field, mode', [('position', Mode.POSITION),
                                         ('velocity', Mode.VELOCITY), ('effort', Mode.EFFORT)])
def test_joint_commands_take_the_one_field_filled(topics, field, mode):
    topics._on_joint_commands(_joint_state(['c', 'a'], **{field: [0.5, -1.0]}))
    assert topics.sim.calls == [('command', mode, ['c', 'a'], [0.5, -1.0], '/r/joint_commands')]
    assert topics.node.warnings == [] and topics.node.commands_received == 1


@pytest.mark.parametrize('fields, count', [({}, 0), ({'position': [1.0], 'velocity': [1.0]}, 2),
                                           ({'velocity': [1.0], 'effort': [2.0]}, 2)])
def test_joint_commands_filling_not_one_field_are_rejected(topics, fields, count):
    topics._on_joint_commands(_joint_state(['a'], **fields))
    assert topics.sim.calls == []
    assert topics.node.warnings == [
        '/r/joint_commands: rejected: a command must fill exactly one of position, velocity, '
        f'effort (this one fills {count})']


def test_a_command_the_simulation_refuses_is_one_warning(topics):
    topics.sim.refuse = "unknown joint 'x'"
    topics._on_joint_commands(_joint_state(['x'], position=[0.0]))
    assert topics.node.warnings == ["/r/joint_commands: rejected: unknown joint 'x'"]


def test_the_simulation_s_notes_are_warnings_of_the_topic(topics):
    topics.sim.notes = ['a: position target beyond its range [-1, 1]: clipped', 'b: too']
    topics._on_group(topics.controllers[1], Float64MultiArray(data=[9.0, 1.0]))
    assert topics.node.warnings == [
        '/r/vel/commands: a: position target beyond its range [-1, 1]: clipped',
        '/r/vel/commands: b: too']


def test_a_group_command_goes_to_its_joints_in_order(topics):
    topics._on_group(topics.controllers[1], Float64MultiArray(data=[0.25, math.nan]))
    (call,) = topics.sim.calls
    assert call[:3] == ('command', Mode.VELOCITY, ['c', 'a'])
    assert call[3][0] == 0.25 and math.isnan(call[3][1]) and call[4] == '/r/vel/commands'
    assert topics.node.commands_received == 1


def test_a_group_command_of_all_nan_is_no_command(topics):
    topics._on_group(topics.controllers[1], Float64MultiArray(data=[math.nan, math.nan]))
    assert topics.sim.calls == [] and topics.node.warnings == []
    assert topics.node.commands_received == 1


@pytest.mark.parametrize('values', [[1.0], [1.0, 2.0, 3.0]])
def test_a_group_command_of_the_wrong_length_is_rejected(topics, values):
    topics._on_group(topics.controllers[1], Float64MultiArray(data=values))
    assert topics.sim.calls == []
    assert topics.node.warnings == [f'/r/vel/commands: rejected: {len(values)} values for 2 '
                                    'joints']


def _trajectory(names, points, stamp=(0, 0)):
    msg = JointTrajectory(joint_names=list(names))
    msg.header.stamp.sec, msg.header.stamp.nanosec = stamp
    for seconds, positions, *rest in points:
        point = JointTrajectoryPoint(positions=list(positions))
        point.time_from_start.sec = int(seconds)
        point.time_from_start.nanosec = int(round((seconds % 1) * 1e9))
        if rest:
            point.effort = list(rest[0])
        msg.points.append(point)
    return msg


def test_a_trajectory_is_followed_from_its_stamp(topics):
    topics._on_trajectory(topics.controllers[0], _trajectory(
        ['b', 'a'], [(0.5, [0.1, 0.2]), (1.25, [0.3, 0.4])], stamp=(12, 500_000_000)))
    ((what, trajectory, start, source),) = topics.sim.calls
    assert (what, start, source) == ('follow', 12.5, '/r/arm/joint_trajectory')
    assert list(trajectory.names) == ['b', 'a']
    np.testing.assert_allclose(trajectory.times, [0.5, 1.25])
    np.testing.assert_allclose(trajectory.positions, [[0.1, 0.2], [0.3, 0.4]])
    assert topics.node.warnings == [] and topics.node.commands_received == 1


def test_a_trajectory_without_a_stamp_starts_at_the_next_period(topics):
    topics._on_trajectory(topics.controllers[0], _trajectory(['a'], [(1.0, [0.1])]))
    assert topics.sim.calls[0][2] is None


def test_a_trajectory_s_efforts_are_ignored_with_a_warning(topics):
    topics._on_trajectory(topics.controllers[0], _trajectory(['a'], [(1.0, [0.1], [3.0])]))
    assert len(topics.sim.calls) == 1
    assert topics.node.warnings == ['/r/arm/joint_trajectory: effort values of trajectory '
                                    'points are ignored (position command interface)']


@pytest.mark.parametrize('names, points, message', [
    ([], [(1.0, [])], 'rejected: no joint names'),
    (['a', 'c'], [(1.0, [0.0, 0.0])],
     "rejected: joint 'c' is not one of this controller's joints (a, b)"),
    (['a'], [(1.0, [0.0, 1.0])], 'rejected: '),
])
def test_bad_trajectories_are_one_warning(topics, names, points, message):
    topics._on_trajectory(topics.controllers[0], _trajectory(names, points))
    assert topics.sim.calls == []
    (warning,) = topics.node.warnings
    assert warning.startswith(f'/r/arm/joint_trajectory: {message}') and '\n' not in warning
    assert len(warning) > len('/r/arm/joint_trajectory: rejected: ')


def test_a_trajectory_far_in_the_future_is_followed_with_a_warning(topics):
    topics._on_trajectory(topics.controllers[0], _trajectory(['a'], [(1.0, [0.1])],
                                                             stamp=(3611, 0)))
    assert topics.sim.calls[0][2] == 3611.0
    assert topics.node.warnings == ['/r/arm/joint_trajectory: the trajectory starts 3601 s from '
                                    'now in simulated time (is the sender running with '
                                    'use_sim_time?)']
    topics.node.warnings.clear()
    topics._on_trajectory(topics.controllers[0], _trajectory(['a'], [(1.0, [0.1])],
                                                             stamp=(3610, 0)))
    assert topics.node.warnings == []


def test_a_trajectory_the_simulation_refuses_is_one_warning(topics):
    topics.sim.refuse = 'the trajectory ends at 1 s, before the current simulated time 10 s'
    topics._on_trajectory(topics.controllers[0], _trajectory(['a'], [(1.0, [0.1])]))
    assert topics.node.warnings == ['/r/arm/joint_trajectory: rejected: the trajectory ends at '
                                    '1 s, before the current simulated time 10 s']


def test_an_incompatible_publisher_is_named_with_its_policy(topics):
    from types import SimpleNamespace
    from rclpy.qos import QoSPolicyKind
    topics._incompatible('/r/joint_commands', SimpleNamespace(
        last_policy_kind=QoSPolicyKind.RELIABILITY.value))
    topics._incompatible('/r/vel/commands', SimpleNamespace(last_policy_kind=999))
    first, second = topics.node.warnings
    assert first.startswith('/r/joint_commands: a publisher offers QoS incompatible with this '
                            'subscription (RELIABILITY); none of its messages are received')
    assert second.startswith('/r/vel/commands: a publisher offers QoS incompatible with this '
                             'subscription (999)')


def test_each_subscription_reports_its_own_incompatible_publishers(topics):
    # what rclpy calls when a publisher's QoS cannot match: the warning names the topic as
    # resolved ('joint_commands' in /r), whichever subscription it is
    from types import SimpleNamespace
    from rclpy.qos import QoSPolicyKind
    info = SimpleNamespace(last_policy_kind=QoSPolicyKind.DURABILITY.value)
    for sub in topics.subscriptions:
        (handler,) = [h for h in sub.event_handlers
                      if h.event_type.name.endswith('REQUESTED_INCOMPATIBLE_QOS')]
        handler.callback(info)
    assert [w.split(':')[0] for w in topics.node.warnings] == [
        '/r/joint_commands', '/r/arm/joint_trajectory', '/r/vel/commands']
    assert all('(DURABILITY)' in w for w in topics.node.warnings)


def test_gripper_controllers_take_their_joint_and_closing_direction():
    controllers, warnings = read_controllers({
        'hand.type': 'position_controllers/GripperActionController', 'hand.joint': 'b',
        'hand.closing_direction': -1, 'hand.max_effort': 3.0,
        'vel.type': 'forward_command_controller/ForwardCommandController',
        'vel.joints': ['c'], 'vel.interface_name': 'effort'}, JOINTS)
    hand, vel = controllers
    assert (hand.kind, hand.mode, hand.joints) == ('gripper', Mode.POSITION, ('b',))
    assert hand.options == (('closing_direction', -1),)
    assert (vel.kind, vel.mode, vel.options) == ('commands', Mode.EFFORT, ())
    assert warnings == ['parameter controllers.hand.max_effort is not used by body_bridge']


def test_trajectory_controllers_keep_their_constraints():
    (arm,), warnings = read_controllers({
        'arm.type': TRAJ, 'arm.joints': ['a', 'b'], 'arm.constraints.goal_time': 2.0,
        'arm.constraints.a.goal': 0.1, 'arm.interface_name': 'position'}, JOINTS)
    assert arm.options == (('constraints.a.goal', 0.1), ('constraints.goal_time', 2.0))
    assert warnings == ['parameter controllers.arm.interface_name is not used by body_bridge']


@pytest.mark.parametrize('values, message', [
    ({'x.type': 'position_controllers/JointGroupPositionController', 'x.joints': ['a', 'a']},
     'parameter controllers.x.joints: a joint is named twice'),
    ({'x.type': 'position_controllers/JointGroupPositionController', 'x.joints': ['a', 3]},
     'parameter controllers.x.joints: must be a non-empty list of joint names'),
    ({'x.type': 'position_controllers/JointGroupPositionController', 'x.joints': ['z']},
     "parameter controllers.x.joints: 'z' is not a joint with a servo (one of a, b, c)"),
    ({'x_1.type': TRAJ, 'x_1.joints': ['a'], 'x_1.constraints.goal_time': -1.0},
     'parameter controllers.x_1.constraints.goal_time'),
])
def test_bad_groups_are_refused_in_one_line(values, message):
    with pytest.raises(ParameterError) as err:
        read_controllers(values, JOINTS)
    assert str(err.value).startswith(message) and '\n' not in str(err.value)


def test_no_joint_with_a_servo_is_named_none():
    with pytest.raises(ParameterError, match=r"'a' is not a joint with a servo \(one of none\)"):
        read_controllers({'x.type': TRAJ, 'x.joints': ['a']}, [])


def test_kinematic_models_take_position_and_velocity_groups():
    controllers, _ = read_controllers({
        'p.type': TRAJ, 'p.joints': ['a'],
        'v.type': 'velocity_controllers/JointGroupVelocityController', 'v.joints': ['b']},
        JOINTS, kinematic=True)
    assert [c.mode for c in controllers] == [Mode.POSITION, Mode.VELOCITY]
