"""FollowJointTrajectory goals in this process (ros/control/actions.py, ros/control/action_servers.py): each
goal handed to the servers as rclpy hands it over, a Simulation stand-in whose joints the
test moves, a real rclpy node for the action servers. What a client sees over DDS is in
test_goals.py."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from conftest import ROS_MISSING
from ros_standins import GoalHandle, sim_node

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTolerance
from rclpy.action import CancelResponse, GoalResponse
from trajectory_msgs.msg import JointTrajectoryPoint, MultiDOFJointTrajectoryPoint

from body_bridge.ros.control import goals as G
from body_bridge.ros.control.action_servers import FEEDBACK_RATE
from body_bridge.ros.control.actions import FollowTrajectoryServers, _duration
from body_bridge.ros.control.commands import Controller
from body_bridge.sim.names import CommandRejected, Mode

ACTION = 'arm/follow_joint_trajectory'


class Sim:
    """The joints a, b, c: what the servers command is recorded, and the command hooks run
    as the Simulation runs them."""

    period = 0.001
    joint_names = ['a', 'b', 'c']

    def __init__(self):
        self.time, self.command_hooks, self.reset_hooks = 1.0, [], []
        self.q, self.v = np.array([0.1, 0.2, 0.3]), np.zeros(3)
        self.desired, self.rate = np.array([0.1, 0.2, 0.3]), np.zeros(3)
        self.calls, self.notes, self.refuse = [], [], None

    def joint_positions(self):
        return self.q.copy()

    def joint_velocities(self):
        return self.v.copy()

    def desired_state(self, names):
        rows = [self.joint_names.index(n) for n in names]
        return self.desired[rows], self.rate[rows], [None] * len(rows)

    def follow(self, trajectory, start, source=None):
        if self.refuse:
            raise CommandRejected(self.refuse)
        self.calls.append(('follow', list(trajectory.names), start, source))
        for hook in self.command_hooks:
            hook(Mode.POSITION, list(trajectory.names))
        return self.notes

    def command(self, mode, names, values, source=None):
        self.calls.append(('command', mode, list(names), [float(v) for v in values]))
        for hook in self.command_hooks:
            hook(mode, list(names))
        return []


@pytest.fixture
def node():
    with sim_node('act', Sim(), namespace='/r') as made:
        yield made


ARM = Controller('arm', 'trajectory', Mode.POSITION, ('a', 'b'),
                 (('constraints.a.trajectory', 0.05), ('constraints.b.goal', 0.01),
                  ('constraints.goal_time', 0.5)))


class Wakeups:
    """The servers' guard condition, counting how often the executor is woken."""

    def __init__(self, guard):
        self.guard, self.count = guard, 0

    def trigger(self):
        self.count += 1
        self.guard.trigger()


@pytest.fixture
def servers(node):
    made = FollowTrajectoryServers(node, [ARM, Controller('hand', 'gripper', Mode.POSITION,
                                                          ('c',))])
    made._guard = Wakeups(made._guard)
    return made


def request(points, names=('a', 'b'), stamp=(0, 0), path=(), goal=()):
    msg = FollowJointTrajectory.Goal()
    msg.trajectory.joint_names = list(names)
    msg.trajectory.header.stamp.sec, msg.trajectory.header.stamp.nanosec = stamp
    for seconds, positions in points:
        point = JointTrajectoryPoint(positions=list(positions))
        point.time_from_start.sec = int(seconds)
        point.time_from_start.nanosec = int(round(seconds % 1 * 1e9))
        msg.trajectory.points.append(point)
    msg.path_tolerance = [JointTolerance(name=n, position=p) for n, p in path]
    msg.goal_tolerance = [JointTolerance(name=n, position=p) for n, p in goal]
    return msg


def send(servers, msg):
    handle = GoalHandle(msg)
    assert servers._on_goal(msg) == GoalResponse.ACCEPT
    servers._accepted('arm', handle)
    return handle


def result(servers, handle):
    """The result a client gets once the goal's outcome is delivered."""
    servers._deliver()
    assert handle.executed == 1
    return servers._end(handle)


def step(servers, sim, dt=0.25):
    sim.time += dt
    servers.period(SimpleNamespace(sec=int(sim.time)))


def test_a_server_for_each_trajectory_controller(node, servers):
    assert [s.served_as for s in servers.servers] == [ACTION]
    assert node.period_outputs == [servers.period]
    assert servers.sim.command_hooks == [servers._on_command]
    assert servers.sim.reset_hooks == [servers._on_reset]
    assert servers.joints == {'arm': ['a', 'b']}
    assert servers._every == round(1.0 / (FEEDBACK_RATE * Sim.period)) == 20


def test_no_trajectory_controller_no_server(node):
    servers = FollowTrajectoryServers(node, [])
    assert servers.servers == [] and node.period_outputs == []
    assert node.sim.command_hooks == [] and node.sim.reset_hooks == []
    servers.period(None)  # nothing to judge


def test_a_goal_is_followed_from_the_next_period_and_succeeds(node, servers):
    handle = send(servers, request([(0.5, [0.0, 0.0]), (1.0, [0.1, 0.2])]))
    assert node.sim.calls == [('follow', ['a', 'b'], 1.0, ACTION)]
    assert node.commands_received == 1
    goal = servers._goals['arm']
    assert (goal.start, goal.end, goal.live_from) == (1.0, 2.0, 1.0)
    node.sim.q = np.array([0.5, 0.2, 0.3])  # far from the path, but the goal is not live yet
    servers.period(None)  # the period the goal was accepted in: not judged yet
    assert goal.outcome is None and servers._count == 1
    node.sim.q = np.array([0.1, 0.2, 0.3])
    step(servers, node.sim, 1.0)  # t = end, at the desired positions
    assert handle.executed == 0
    servers._deliver()
    assert handle.executed == 1
    assert servers._end(handle) == FollowJointTrajectory.Result(error_code=0, error_string='')
    assert handle.status == 'succeeded' and 'arm' not in servers._goals
    servers._deliver()
    assert handle.executed == 1  # delivered once


def test_a_stamped_goal_starts_at_its_stamp(node, servers):
    send(servers, request([(1.0, [0.1, 0.2])], stamp=(3, 500_000_000)))
    assert node.sim.calls[0][2] == 3.5
    assert (servers._goals['arm'].start, servers._goals['arm'].end) == (3.5, 4.5)


def test_a_goal_that_ends_before_now_is_aborted_with_its_code(node, servers):
    node.sim.time = 2.0
    handle = send(servers, request([(1.25, [0.1, 0.2])], stamp=(0, 500_000_000)))
    assert node.sim.calls == [] and servers._goals == {}
    assert result(servers, handle) == FollowJointTrajectory.Result(
        error_code=G.OLD_HEADER_TIMESTAMP,
        error_string='the trajectory ends at 1.75 s, before the current simulated time 2 s')
    assert handle.status == 'aborted'


def test_a_goal_that_ends_now_is_followed(node, servers):
    node.sim.time = 2.0
    send(servers, request([(1.5, [0.1, 0.2])], stamp=(0, 500_000_000)))
    assert len(node.sim.calls) == 1


@pytest.mark.parametrize('msg, code, text', [
    (request([(1.0, [0.1])], names=['a']), G.INVALID_JOINTS, 'the goal leaves out joint(s) b'),
    (request([(1.0, [0.1, 0.2])], path=[('c', 0.1)]), G.INVALID_JOINTS,
     "path_tolerance names joint 'c'"),
    (request([(1.0, [0.1, 0.2])], goal=[('z', 0.1)]), G.INVALID_JOINTS,
     "goal_tolerance names joint 'z'"),
    (request([]), G.INVALID_GOAL, 'the trajectory has no points'),
])
def test_a_goal_that_cannot_be_followed_is_aborted_with_its_reason(node, servers, msg, code,
                                                                   text):
    handle = send(servers, msg)
    answer = result(servers, handle)
    assert answer.error_code == code and answer.error_string.startswith(text)
    assert node.sim.calls == []


def test_multi_dof_goals_are_refused(node, servers):
    msg = request([(1.0, [0.1, 0.2])])
    msg.multi_dof_trajectory.joint_names = ['base']
    assert result(servers, send(servers, msg)).error_code == G.INVALID_JOINTS
    msg = request([(1.0, [0.1, 0.2])])
    msg.multi_dof_trajectory.points = [MultiDOFJointTrajectoryPoint()]
    assert result(servers, send(servers, msg)).error_code == G.INVALID_JOINTS


def test_a_goal_the_simulation_refuses_is_an_invalid_goal(node, servers):
    node.sim.refuse = "unknown joint 'a'"
    answer = result(servers, send(servers, request([(1.0, [0.1, 0.2])])))
    assert (answer.error_code, answer.error_string) == (G.INVALID_GOAL, "unknown joint 'a'")


def test_the_simulation_s_notes_are_warnings_of_the_action(node, servers):
    node.sim.notes = ['a: trajectory point beyond its range: clipped']
    send(servers, request([(1.0, [0.1, 0.2])]))
    assert node.warnings == [f'{ACTION}: a: trajectory point beyond its range: clipped']


def test_a_newer_goal_preempts_and_a_refused_one_does_not(node, servers):
    first = send(servers, request([(1.0, [0.1, 0.2])]))
    refused = send(servers, request([]))
    assert servers._goals['arm'].handle is first
    second = send(servers, request([(2.0, [0.1, 0.2])]))
    assert servers._goals['arm'].handle is second
    servers._deliver()
    assert (first.executed, refused.executed, second.executed) == (1, 1, 0)
    assert servers._end(first) == FollowJointTrajectory.Result(
        error_code=G.INVALID_GOAL, error_string='preempted by a newer goal')
    assert first.status == 'aborted'


def test_feedback_every_few_periods_with_desired_actual_and_error(node, servers):
    sim = node.sim
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    sim.desired = np.array([0.12, 0.2, 0.3])
    sim.rate, sim.v = np.array([0.5, 0.0, 0.0]), np.array([0.25, 0.0, 0.0])
    for _ in range(servers._every - 1):
        step(servers, sim, 0.001)
    servers._deliver()
    assert handle.feedback == []
    step(servers, sim, 0.001)
    servers._deliver()
    (msg,) = handle.feedback
    assert list(msg.joint_names) == ['a', 'b'] and msg.header.stamp.sec == 1
    np.testing.assert_allclose(msg.desired.positions, [0.12, 0.2])
    np.testing.assert_allclose(msg.actual.positions, [0.1, 0.2])
    np.testing.assert_allclose(msg.error.positions, [0.02, 0.0], atol=1e-12)
    np.testing.assert_allclose(msg.error.velocities, [0.25, 0.0])
    for point in (msg.desired, msg.actual, msg.error):
        assert (point.time_from_start.sec, point.time_from_start.nanosec) == (0, 20_000_000)
    assert servers._goals['arm'].feedback is None  # handed over once
    servers._deliver()
    assert len(handle.feedback) == 1


def test_feedback_of_an_inactive_handle_is_not_published(node, servers):
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    servers._every = 1
    handle.is_active = False
    step(servers, node.sim, 0.001)
    servers._deliver()
    assert handle.feedback == []


def test_a_path_violation_aborts_and_the_joints_hold(node, servers):
    sim = node.sim
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    sim.q = np.array([0.2, 0.2, 0.3])  # a is 0.1 from where it should be, tolerance 0.05
    step(servers, sim)
    assert sim.calls[-1] == ('command', Mode.POSITION, ['a', 'b'], [0.2, 0.2])
    answer = result(servers, handle)
    assert answer.error_code == G.PATH_TOLERANCE_VIOLATED
    assert answer.error_string == "path tolerance violated: joint 'a' position error -0.1 " \
        'exceeds 0.05'
    assert handle.status == 'aborted'


def test_a_goal_not_reached_in_its_goal_time_aborts(node, servers):
    sim = node.sim
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    sim.q = np.array([0.1, 0.25, 0.3])
    step(servers, sim, 1.25)  # 0.25 s after the end: within goal_time 0.5
    assert servers._goals['arm'].outcome is None
    step(servers, sim, 0.5)
    answer = result(servers, handle)
    assert answer.error_code == G.GOAL_TOLERANCE_VIOLATED
    assert answer.error_string.startswith('goal tolerance violated 0.750 s after')


def test_another_command_to_the_joints_aborts_the_goal(node, servers):
    sim = node.sim
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    sim.command(Mode.VELOCITY, ['c'], [1.0])  # another joint: goes on
    step(servers, sim, 0.001)
    assert 'arm' in servers._goals
    sim.command(Mode.VELOCITY, ['b'], [1.0])
    step(servers, sim, 0.001)
    assert result(servers, handle) == FollowJointTrajectory.Result(
        error_code=G.INVALID_GOAL,
        error_string='aborted: its joints were commanded by another source')


def test_a_reset_aborts_the_goal(node, servers):
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    for hook in node.sim.reset_hooks:
        hook(node.sim)
    step(servers, node.sim, 0.001)
    answer = result(servers, handle)
    assert (answer.error_code, answer.error_string) == (G.INVALID_GOAL,
                                                        'aborted: the simulation was reset')


def test_cancel_holds_the_joints_and_ends_canceled(node, servers):
    sim = node.sim
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    sim.q = np.array([0.05, 0.15, 0.3])
    assert servers._cancel(GoalHandle(None)) == CancelResponse.REJECT
    assert servers._cancel(handle) == CancelResponse.ACCEPT
    assert sim.calls[-1] == ('command', Mode.POSITION, ['a', 'b'], [0.05, 0.15])
    assert servers._goals == {}
    handle.is_cancel_requested = True
    assert result(servers, handle) == FollowJointTrajectory.Result(
        error_code=G.SUCCESSFUL, error_string='canceled: the joints hold their positions')
    assert handle.status == 'canceled'


@pytest.mark.parametrize('seconds, sec, nanosec', [(-1.0, 0, 0), (2.25, 2, 250_000_000),
                                                   (0.9999999999, 0, 999_999_999)])
def test_feedback_durations(seconds, sec, nanosec):
    msg = SimpleNamespace()
    _duration(msg, seconds)
    assert (msg.sec, msg.nanosec) == (sec, nanosec)


def test_a_goal_whose_joints_still_move_is_not_reached(node, servers):
    sim = node.sim
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    sim.v = np.array([0.0, 0.02, 0.0])  # faster than the stopped velocity, 0.01
    step(servers, sim, 1.75)
    answer = result(servers, handle)
    assert answer.error_code == G.GOAL_TOLERANCE_VIOLATED
    assert answer.error_string.endswith("joint 'b' velocity error -0.02 exceeds 0.01")


def test_the_executor_is_woken_only_when_there_is_something_to_deliver(node, servers):
    sim, wakeups = node.sim, servers._guard
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    assert wakeups.count == 1  # the accepted goal
    send(servers, request([]))
    assert wakeups.count == 2  # a refused goal's result
    for _ in range(servers._every - 1):
        step(servers, sim, 0.001)
    assert wakeups.count == 2  # judged, no feedback due
    step(servers, sim, 0.001)
    assert wakeups.count == 3  # feedback
    servers._deliver()
    sim.q = np.array([0.5, 0.2, 0.3])
    step(servers, sim, 0.001)
    assert wakeups.count == 4 and servers._goals == {}  # the goal's end
    servers._deliver()
    assert handle.status is None and handle.executed == 1
    assert servers._cancel(GoalHandle(None)) == CancelResponse.REJECT and wakeups.count == 4


def test_the_guard_delivers_when_the_executor_spins(node, servers):
    from rclpy.executors import SingleThreadedExecutor
    executor = SingleThreadedExecutor(context=node.context)
    executor.add_node(node)
    handle = send(servers, request([]))
    executor.spin_once(timeout_sec=1.0)
    assert handle.executed == 1
    executor.shutdown()


def test_a_goal_of_another_controller_on_its_joints_aborts_it(node):
    wrist = Controller('wrist', 'trajectory', Mode.POSITION, ('b',))
    servers = FollowTrajectoryServers(node, [ARM, wrist])
    arm_goal = send(servers, request([(1.0, [0.1, 0.2])]))
    wrist_goal = GoalHandle(request([(1.0, [0.3])], names=['b']))
    servers._accepted('wrist', wrist_goal)
    step(servers, node.sim, 0.001)
    assert result(servers, arm_goal) == FollowJointTrajectory.Result(
        error_code=G.INVALID_GOAL,
        error_string='aborted: its joints were commanded by another source')
    assert list(servers._goals) == ['wrist']  # its own command does not abort it
    assert servers._cancel(wrist_goal) == CancelResponse.ACCEPT  # holding: its own command


@pytest.mark.parametrize('method, args', [('start', (None, None)),
                                          ('judge', (None, 0.0, None, None, None)),
                                          ('stopped', (None, '', 'abort'))])
def test_a_server_kind_must_say_how_it_starts_judges_and_stops_goals(node, method, args):
    from body_bridge.ros.control.action_servers import GoalServers
    with pytest.raises(NotImplementedError):
        getattr(GoalServers(node, {}), method)(*args)


def test_a_slow_control_period_gives_feedback_every_period(node):
    node.sim.period = 0.05  # 20 Hz: slower than FEEDBACK_RATE
    servers = FollowTrajectoryServers(node, [ARM])
    assert servers._every == 1
    handle = send(servers, request([(1.0, [0.1, 0.2])]))
    step(servers, node.sim, 0.05)
    servers._deliver()
    assert len(handle.feedback) == 1
