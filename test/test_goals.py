"""FollowJointTrajectory goals judged as joint_trajectory_controller does (no ROS)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # body_bridge.ros imports rclpy
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.errors import ParameterError
from body_bridge.ros.control import goals as G
from body_bridge.ros.control.commands import read_controllers

JOINTS = ['a', 'b']
JTC = 'joint_trajectory_controller/JointTrajectoryController'


def controller(**constraints):
    values = {'arm.type': JTC, 'arm.joints': JOINTS}
    values.update({f'arm.constraints.{k}': v for k, v in constraints.items()})
    (c,), warnings = read_controllers(values, JOINTS)
    assert not warnings
    return c


def test_constraints_read_as_joint_trajectory_controller_names_them():
    c = G.read_constraints(controller(**{'goal_time': 0.5, 'stopped_velocity_tolerance': 0.02,
                                         'b.trajectory': 0.1, 'a.goal': 0.01}))
    assert c.goal_time == 0.5 and c.stopped_velocity == 0.02
    np.testing.assert_array_equal(c.trajectory, [0.0, 0.1])
    np.testing.assert_array_equal(c.goal, [0.01, 0.0])


@pytest.mark.parametrize('key, value, match', [
    ('goal_time', -1.0, 'must be a number >= 0'),
    ('c.goal', 0.1, "'c' is not one of this controller's joints"),
    ('a.speed', 0.1, 'not a constraint'),
])
def test_bad_constraints_are_refused_at_start(key, value, match):
    with pytest.raises(ParameterError, match=match):
        controller(**{key: value})


def test_goal_tolerances_override_the_defaults():
    defaults = G.read_constraints(controller(**{'a.trajectory': 0.1, 'a.goal': 0.05}))
    tol = G.Tolerances.of(defaults, JOINTS, path=[('a', -1.0, 0.0), ('b', 0.2, 0.5)],
                          goal=[('b', 0.0, 0.3)], goal_time=2.0)
    np.testing.assert_array_equal(tol.path_position, [0.0, 0.2])  # -1 erases, >0 replaces
    np.testing.assert_array_equal(tol.path_velocity, [0.0, 0.5])
    np.testing.assert_array_equal(tol.goal_position, [0.05, 0.0])  # 0 keeps the default
    np.testing.assert_array_equal(tol.goal_velocity, [0.01, 0.3])
    assert tol.goal_time == 2.0
    with pytest.raises(G.GoalRejected) as err:
        G.Tolerances.of(defaults, JOINTS, goal=[('z', 0.1, 0.0)])
    assert err.value.code == G.INVALID_JOINTS


def test_judge_path_goal_and_goal_time():
    tol = G.Tolerances.of(G.read_constraints(controller(**{'goal_time': 0.5,
                                                           'a.trajectory': 0.1,
                                                           'a.goal': 0.01})), JOINTS)
    zero = np.zeros(2)
    assert tol.judge(0.5, 0.0, 1.0, np.array([0.05, 9.0]), zero, JOINTS) is None
    code, text = tol.judge(0.5, 0.0, 1.0, np.array([0.2, 0.0]), zero, JOINTS)
    assert code == G.PATH_TOLERANCE_VIOLATED and "'a' position error 0.2" in text
    assert tol.judge(-1.0, 0.0, 1.0, np.array([0.2, 0.0]), zero, JOINTS) is None  # not begun
    assert tol.judge(1.2, 0.0, 1.0, np.array([0.02, 0.0]), zero, JOINTS) is None  # late
    assert tol.judge(1.2, 0.0, 1.0, np.array([0.005, 0.0]), zero, JOINTS) == (0, '')
    code, _ = tol.judge(1.6, 0.0, 1.0, np.array([0.02, 0.0]), zero, JOINTS)
    assert code == G.GOAL_TOLERANCE_VIOLATED
    code, text = tol.judge(1.6, 0.0, 1.0, zero, np.array([0.0, 0.5]), JOINTS)
    assert code == G.GOAL_TOLERANCE_VIOLATED and "'b' velocity" in text  # not stopped


@pytest.mark.parametrize('names, times, positions, multi, code', [
    (['a', 'z'], [1.0], [[0, 0]], False, G.INVALID_JOINTS),
    (['a'], [1.0], [[0]], False, G.INVALID_JOINTS),
    (['a', 'a', 'b'], [1.0], [[0, 0, 0]], False, G.INVALID_JOINTS),
    (['a', 'b'], [1.0], [[0, 0]], True, G.INVALID_JOINTS),
    (['a', 'b'], [], [], False, G.INVALID_GOAL),
    (['a', 'b'], [1.0, 1.0], [[0, 0], [1, 1]], False, G.INVALID_GOAL),
    (['a', 'b'], [1.0], [[0, float('nan')]], False, G.INVALID_GOAL),
    (['a', 'b'], [1.0], [[0]], False, G.INVALID_GOAL),
])
def test_goals_that_cannot_be_followed(names, times, positions, multi, code):
    with pytest.raises(G.GoalRejected) as err:
        G.read_goal(JOINTS, names, times, positions, [[]] * len(times), [[]] * len(times),
                    multi)
    assert err.value.code == code


def test_a_goal_in_another_joint_order_is_followed():
    traj = G.read_goal(JOINTS, ['b', 'a'], [0.5, 1.0], [[1, 2], [3, 4]], [[], []], [[], []],
                       False)
    assert traj.names == ('b', 'a') and traj.duration == 1.0
