"""GripperCommand goals in this process (ros/control/grippers.py): the grippers a model and the
parameter file declare, and goals handed to the servers as rclpy hands them over, a
Simulation stand-in whose fingers the test moves. What a client sees over DDS is in
test_grippers_e2e.py; how a grip is judged, in the sim tests of sim/control/grip.py."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from conftest import ROS_MISSING
from ros_standins import GoalHandle, sim_node

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from control_msgs.action import GripperCommand
from rclpy.action import CancelResponse

from body_bridge.errors import ParameterError
from body_bridge.ros.control.commands import Controller
from body_bridge.ros.control.grippers import Gripper, GripperServers, find_grippers
from body_bridge.sim.names import CommandRejected, Mode

ACTION = 'hand/gripper_command'


def test_grippers_of_the_manipulators_and_of_the_parameters():
    model = SimpleNamespace(manipulators=[
        SimpleNamespace(name='left', gripper_joints=['l1', 'l2', 'spread', 'l3'],
                        closing_direction=[0.5, -2.0, 0.0, 1.0]),
        SimpleNamespace(name='right', gripper_joints=['r1'], closing_direction=[1.0])])
    controllers = [
        Controller('arm', 'trajectory', Mode.POSITION, ('a',)),
        Controller('hand', 'gripper', Mode.POSITION, ('f1', 'f2'),
                   (('closing_direction', [1, -1]),)),
        Controller('pinch', 'gripper', Mode.POSITION, ('f3',)),
        Controller('one', 'gripper', Mode.POSITION, ('f4',), (('closing_direction', -1),))]
    found = find_grippers(model, controllers, {'l1', 'l2', 'spread', 'f1'})
    assert found == [Gripper('left_gripper', ('l1', 'l2'), (1.0, -1.0)),
                     Gripper('hand', ('f1', 'f2'), (1.0, -1.0)),
                     Gripper('pinch', ('f3',), (1.0,)),
                     Gripper('one', ('f4',), (-1.0,))]


@pytest.mark.parametrize('given', [[1], [1, 0], [1, 2], 'x'])
def test_a_bad_closing_direction_is_one_line(given):
    hand = Controller('hand', 'gripper', Mode.POSITION, ('f1', 'f2'),
                      (('closing_direction', given),))
    with pytest.raises(ParameterError) as err:
        find_grippers(SimpleNamespace(manipulators=[]), [hand], set())
    assert str(err.value) == ('parameter controllers.hand.closing_direction: must be one +1 '
                              f'or -1 per joint, not {given if isinstance(given, list) else [given]!r}')


class Sim:
    """Fingers f1 (closing +1) and f2 (closing -1), range [-1, 1], effort limit 5."""

    period = 0.01
    joint_names = ['f1', 'f2', 'x']

    def __init__(self):
        self.time, self.command_hooks, self.reset_hooks = 0.0, [], []
        self.q, self.efforts = np.zeros(3), np.array([0.5, -2.0, 9.0])
        self.set, self.calls, self.refuse, self.notes = {'f1': 0.0, 'f2': 0.0}, [], None, []

    def joint_positions(self):
        return self.q.copy()

    def joint_velocities(self):
        return np.zeros(3)

    def joint_efforts(self):
        return self.efforts.copy()

    def joint_range(self, names):
        return np.full(len(names), -1.0), np.full(len(names), 1.0)

    def joint_limits(self, names):
        return np.full(len(names), 2.0), np.full(len(names), 5.0)

    def setpoints(self):
        return dict(self.set)

    def limit_efforts(self, names, limits):
        self.calls.append(('limit', list(names), list(limits)))

    def command(self, mode, names, values, source=None):
        if self.refuse:
            raise CommandRejected(self.refuse)
        self.calls.append(('command', mode, list(names), [float(v) for v in values]))
        for hook in self.command_hooks:
            hook(mode, list(names))
        return self.notes


@pytest.fixture
def servers():
    with sim_node('grip', Sim()) as node:
        yield GripperServers(node, [Gripper('hand', ('f1', 'f2'), (1.0, -1.0))])


def send(servers, position, max_effort=0.0):
    goal = GripperCommand.Goal()
    goal.command.position, goal.command.max_effort = position, max_effort
    handle = GoalHandle(goal)
    servers._accepted('hand', handle)
    return handle


def outcome(servers, handle):
    servers._deliver()
    assert handle.executed == 1
    return servers._end(handle)


def step(servers, sim):
    sim.time += sim.period
    servers.period(None)


def test_a_goal_drives_each_finger_in_its_closing_direction(servers):
    sim = servers.sim
    assert [s.served_as for s in servers.servers] == [ACTION]
    send(servers, 0.5, max_effort=3.0)
    assert sim.calls == [('limit', ['f1', 'f2'], [3.0, 3.0]),
                         ('command', Mode.POSITION, ['f1', 'f2'], [0.5, -0.5])]
    assert servers.node.warnings == [] and 'hand' in servers._goals


def test_a_goal_that_reaches_its_position_succeeds(servers):
    sim = servers.sim
    handle = send(servers, 0.5)
    sim.q = np.array([0.5, -0.495, 0.0])
    step(servers, sim)
    result = outcome(servers, handle)
    assert result == GripperCommand.Result(position=0.4975, effort=2.0, stalled=False,
                                           reached_goal=True)
    assert handle.status == 'succeeded'


def test_fingers_held_by_an_object_stall(servers):
    sim = servers.sim
    handle = send(servers, 0.5, max_effort=2.0)
    sim.q, sim.efforts = np.array([0.2, -0.2, 0.0]), np.array([1.9, -1.95, 0.0])
    sim.set = {'f1': 0.3, 'f2': -0.3}
    for _ in range(30):
        step(servers, sim)
        if servers._goals == {}:
            break
    result = outcome(servers, handle)
    assert (result.stalled, result.reached_goal, handle.status) == (True, False, 'succeeded')
    assert result.position == pytest.approx(0.2) and result.effort == pytest.approx(1.95)


def test_feedback_while_the_fingers_move(servers):
    sim = servers.sim
    handle = send(servers, 0.5)
    sim.q = np.array([0.1, -0.3, 0.0])
    servers._every = 2
    step(servers, sim)
    servers._deliver()
    assert handle.feedback == []
    step(servers, sim)
    servers._deliver()
    assert handle.feedback == [GripperCommand.Feedback(position=0.2, effort=2.0,
                                                       stalled=False, reached_goal=False)]


@pytest.mark.parametrize('position, effort', [(float('nan'), 1.0), (0.5, float('inf')),
                                              (0.5, -1.0)])
def test_a_goal_that_is_not_finite_is_refused_with_the_fingers_state(servers, position, effort):
    sim = servers.sim
    sim.q = np.array([0.25, -0.75, 0.0])
    handle = send(servers, position, effort)
    assert sim.calls == []
    assert servers.node.warnings == [f'{ACTION}: refused: position {position} and max_effort '
                                     f'{effort} must be finite, max_effort >= 0']
    assert outcome(servers, handle) == GripperCommand.Result(position=0.5, effort=2.0)


def test_a_goal_the_simulation_refuses_is_one_warning(servers):
    servers.sim.refuse = "'f1' is driven by a mimic"
    handle = send(servers, 0.5)
    assert servers.node.warnings == [f"{ACTION}: refused: 'f1' is driven by a mimic"]
    assert outcome(servers, handle).reached_goal is False and servers._goals == {}


def test_notes_and_a_position_beyond_the_range_are_warnings(servers):
    servers.sim.notes = ['f1: position target beyond its range [-1, 1]: clipped']
    send(servers, 1.5)
    assert servers.node.warnings == [
        f'{ACTION}: f1: position target beyond its range [-1, 1]: clipped',
        f"{ACTION}: position 1.5 is beyond the fingers' range: they go to its end and the "
        'goal ends stalled, not reached']


def test_a_position_within_the_range_is_no_warning(servers):
    send(servers, 0.995)
    assert servers.node.warnings == []


def test_a_stopped_goal_says_why_unless_cancelled(servers):
    sim = servers.sim
    first = send(servers, 0.5)
    sim.q = np.array([0.3, -0.1, 0.0])
    second = send(servers, 0.2)  # preempts the first
    assert servers.node.warnings == [f'{ACTION}: preempted by a newer goal']
    assert outcome(servers, first) == GripperCommand.Result(position=0.2, effort=2.0)
    assert servers._cancel(second) == CancelResponse.ACCEPT
    assert servers.node.warnings == [f'{ACTION}: preempted by a newer goal']
    assert sim.calls[-1] == ('command', Mode.POSITION, ['f1', 'f2'], [0.3, -0.1])


def test_another_command_to_a_finger_aborts_the_goal(servers):
    sim = servers.sim
    handle = send(servers, 0.5)
    sim.command(Mode.VELOCITY, ['f2'], [0.1])
    step(servers, sim)
    assert servers.node.warnings == [f'{ACTION}: aborted: its joints were commanded by another '
                                     'source']
    assert outcome(servers, handle).reached_goal is False
