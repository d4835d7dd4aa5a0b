"""FollowJointTrajectory goals at the edges of joint_trajectory_controller's rules (no ROS
graph): the result codes a client reads, the error_string it reads, goals naming one joint too
many, tolerances exactly at their bound, and the times at which a goal is judged."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # body_bridge.ros imports rclpy
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.errors import ParameterError
from body_bridge.ros.control import goals as G
from body_bridge.ros.control.commands import Controller
from body_bridge.sim.names import Mode

JOINTS = ['a', 'b']


def controller(*options):
    return Controller('arm', 'trajectory', Mode.POSITION, tuple(JOINTS), tuple(options))


def test_result_codes_are_control_msgs_values():
    # control_msgs/action/FollowJointTrajectory Result: what a client compares error_code to
    assert (G.SUCCESSFUL, G.INVALID_GOAL, G.INVALID_JOINTS, G.OLD_HEADER_TIMESTAMP,
            G.PATH_TOLERANCE_VIOLATED, G.GOAL_TOLERANCE_VIOLATED) == (0, -1, -2, -3, -4, -5)
    try:
        from control_msgs.action import FollowJointTrajectory
    except ImportError:
        return
    result = FollowJointTrajectory.Result
    for name in ('SUCCESSFUL', 'INVALID_GOAL', 'INVALID_JOINTS', 'OLD_HEADER_TIMESTAMP',
                 'PATH_TOLERANCE_VIOLATED', 'GOAL_TOLERANCE_VIOLATED'):
        assert getattr(G, name) == getattr(result, name), name


def test_constraints_default_to_joint_trajectory_controllers_defaults():
    c = G.read_constraints(controller())
    assert c.goal_time == 0.0 and c.stopped_velocity == 0.01
    np.testing.assert_array_equal(c.trajectory, [0.0, 0.0])
    np.testing.assert_array_equal(c.goal, [0.0, 0.0])
    with pytest.raises(dataclasses.FrozenInstanceError):   # a controller's: shared by goals
        c.goal_time = 1.0
    other = G.read_constraints(controller(('state_publish_rate', 50.0),
                                          ('constraints.a.goal', 0)))
    np.testing.assert_array_equal(other.goal, [0.0, 0.0])   # 0 is a value, other keys ignored


@pytest.mark.parametrize('value', [True, '0.1', None, math.nan, math.inf, -0.1, [0.1]])
def test_a_constraint_must_be_a_finite_number_not_below_zero(value):
    with pytest.raises(ParameterError, match='must be a number >= 0') as err:
        G.read_constraints(controller(('constraints.stopped_velocity_tolerance', value)))
    assert 'controllers.arm.constraints.stopped_velocity_tolerance' in str(err.value)


@pytest.mark.parametrize('key, match', [
    ('constraints.c.trajectory', "'c' is not one of this controller's joints (a, b)"),
    ('constraints.goal', 'not a constraint: goal_time, stopped_velocity_tolerance'),
    ('constraints.a.velocity', 'not a constraint'),
])
def test_unknown_constraints_name_the_parameter(key, match):
    with pytest.raises(ParameterError) as err:
        G.read_constraints(controller((key, 0.1)))
    assert match in str(err.value) and f'controllers.arm.{key}' in str(err.value)


def test_a_goals_goal_time_tolerance():
    c = G.read_constraints(controller(('constraints.goal_time', 0.5)))
    assert G.Tolerances.of(c, JOINTS).goal_time == 0.5               # 0: the default
    assert G.Tolerances.of(c, JOINTS, goal_time=2.0).goal_time == 2.0
    assert G.Tolerances.of(c, JOINTS, goal_time=-1.0).goal_time == 0.0   # negative: unlimited
    tol = G.Tolerances.of(c, JOINTS, path=[('b', 0.3, -1.0)], goal=[('a', -1.0, 0.2)])
    np.testing.assert_array_equal(tol.path_position, [0.0, 0.3])
    np.testing.assert_array_equal(tol.path_velocity, [0.0, 0.0])
    np.testing.assert_array_equal(tol.goal_position, [0.0, 0.0])
    np.testing.assert_array_equal(tol.goal_velocity, [0.2, 0.01])


@pytest.mark.parametrize('what', ['path', 'goal'])
def test_a_tolerance_for_a_joint_the_controller_lacks_is_refused(what):
    c = G.read_constraints(controller())
    with pytest.raises(G.GoalRejected) as err:
        G.Tolerances.of(c, JOINTS, **{what: [('a', 0.1, 0.0), ('z', 0.1, 0.0)]})
    assert err.value.code == G.INVALID_JOINTS
    assert str(err.value) == f"{what}_tolerance names joint 'z', not one of a, b"


def _tol(goal_time=0.5):
    c = G.read_constraints(controller(('constraints.goal_time', goal_time),
                                      ('constraints.b.trajectory', 0.1),
                                      ('constraints.b.goal', 0.01)))
    return G.Tolerances.of(c, JOINTS)


def test_path_tolerances_hold_from_the_start_to_before_the_end():
    tol, zero = _tol(), np.zeros(2)
    far = np.array([0.0, 0.2])
    assert tol.judge(0.99, 1.0, 2.0, far, zero, JOINTS) is None          # before the start
    code, text = tol.judge(1.0, 1.0, 2.0, far, zero, JOINTS)             # at the start
    assert code == G.PATH_TOLERANCE_VIOLATED
    assert text == "path tolerance violated: joint 'b' position error 0.2 exceeds 0.1"
    edge = np.array([5.0, 0.1])                     # 'a' unchecked, 'b' exactly at its bound
    assert tol.judge(1.5, 1.0, 2.0, edge, zero, JOINTS) is None
    assert tol.judge(1.5, 1.0, 2.0, -edge, zero, JOINTS) is None
    code, _ = tol.judge(1.5, 1.0, 2.0, np.array([0.0, -0.2]), zero, JOINTS)  # |error|
    assert code == G.PATH_TOLERANCE_VIOLATED


def test_path_velocity_tolerances_name_the_velocity():
    c = G.read_constraints(controller())
    tol = G.Tolerances.of(c, JOINTS, path=[('a', 0.0, 0.5)])
    code, text = tol.judge(0.5, 0.0, 1.0, np.zeros(2), np.array([-0.7, 9.0]), JOINTS)
    assert code == G.PATH_TOLERANCE_VIOLATED
    assert text == "path tolerance violated: joint 'a' velocity error -0.7 exceeds 0.5"


def test_the_goal_is_judged_from_the_last_waypoints_time():
    tol, zero = _tol(), np.zeros(2)
    near = np.array([9.0, 0.01])                    # 'a' unchecked, 'b' exactly at its bound
    assert tol.judge(2.0, 1.0, 2.0, near, zero, JOINTS) == (G.SUCCESSFUL, '')
    assert tol.judge(1.99, 1.0, 2.0, near, zero, JOINTS) is None          # still on the path
    late = np.array([0.0, 0.02])
    assert tol.judge(2.5, 1.0, 2.0, late, zero, JOINTS) is None           # exactly at the limit
    code, text = tol.judge(2.6, 1.0, 2.0, late, zero, JOINTS)
    assert code == G.GOAL_TOLERANCE_VIOLATED
    assert text == ("goal tolerance violated 0.600 s after the trajectory's end: joint 'b' "
                    'position error 0.02 exceeds 0.01')
    moving = np.array([0.0, 0.011])
    code, text = tol.judge(2.6, 1.0, 2.0, zero, moving, JOINTS)
    assert code == G.GOAL_TOLERANCE_VIOLATED and "'b' velocity error 0.011 exceeds 0.01" in text
    assert tol.judge(2.6, 1.0, 2.0, zero, np.array([-0.01, 0.01]), JOINTS) == (G.SUCCESSFUL, '')


def test_without_a_goal_time_a_goal_waits_as_long_as_it_takes():
    tol, zero = _tol(goal_time=0.0), np.zeros(2)
    assert tol.judge(1000.0, 1.0, 2.0, np.array([0.0, 0.5]), zero, JOINTS) is None


def test_the_first_joint_beyond_its_tolerance_is_named():
    c = G.read_constraints(controller(('constraints.a.goal', 0.1), ('constraints.b.goal', 0.1)))
    tol = G.Tolerances.of(c, JOINTS, goal_time=0.1)
    _, text = tol.judge(5.0, 0.0, 1.0, np.array([0.0, 0.3]), np.zeros(2), JOINTS)
    assert "joint 'b' position error 0.3" in text
    _, text = tol.judge(5.0, 0.0, 1.0, np.array([0.2, 0.3]), np.zeros(2), JOINTS)
    assert "joint 'a' position error 0.2" in text


def _goal(names, times=(1.0,), positions=None, multi=False):
    positions = positions if positions is not None else [[0.0] * len(names)] * len(times)
    return G.read_goal(JOINTS, names, list(times), positions, [[]] * len(times),
                       [[]] * len(times), multi)


@pytest.mark.parametrize('names, positions, code, text', [
    (['a', 'b', 'c'], None, G.INVALID_JOINTS,
     "joint 'c' is not one of this controller's joints (a, b)"),
    (['c', 'a', 'b'], None, G.INVALID_JOINTS,
     "joint 'c' is not one of this controller's joints (a, b)"),
    (['b'], None, G.INVALID_JOINTS,
     'the goal leaves out joint(s) a: it must name all of a, b'),
    ([], None, G.INVALID_JOINTS,
     'the goal leaves out joint(s) a, b: it must name all of a, b'),
    (['a', 'b', 'a'], None, G.INVALID_JOINTS, "joint 'a' is named twice"),
    (['a', 'b'], [[0.0, math.inf]], G.INVALID_GOAL, 'a position value is NaN or infinite'),
    (['a', 'b'], [[0.0]], G.INVALID_GOAL, 'point 0 has 1 positions for 2 joints'),
])
def test_a_rejected_goal_says_why_in_its_error_string(names, positions, code, text):
    with pytest.raises(G.GoalRejected) as err:
        _goal(names, positions=positions)
    assert err.value.code == code
    assert str(err.value) == text


def test_goals_without_points_or_with_multi_dof_are_refused_with_their_code():
    with pytest.raises(G.GoalRejected) as err:
        _goal(['a', 'b'], times=())
    assert (err.value.code, str(err.value)) == (G.INVALID_GOAL, 'the trajectory has no points')
    with pytest.raises(G.GoalRejected) as err:
        _goal(['a', 'b'], multi=True)
    assert err.value.code == G.INVALID_JOINTS
    assert str(err.value) == 'multi-DOF joint trajectories are not served'


def test_a_good_goal_is_the_trajectory_asked_for():
    traj = _goal(['a', 'b'], times=(0.5, 1.5), positions=[[1.0, 2.0], [3.0, 4.0]])
    assert traj.names == ('a', 'b') and traj.duration == 1.5
