"""FollowJointTrajectory goals as joint_trajectory_controller judges them (no rclpy, no MuJoCo).

A goal is checked before it is followed (:func:`read_goal`): every joint of the controller
named once and no other (``INVALID_JOINTS``), waypoints that can be followed (``INVALID_GOAL``),
a trajectory that does not end before now (``OLD_HEADER_TIMESTAMP``). While it is followed,
:class:`Tolerances` decide each control period (:meth:`Tolerances.judge`): before the last
waypoint's time the path tolerances hold or the goal aborts (``PATH_TOLERANCE_VIOLATED``);
from then on the goal succeeds as soon as the joints are within the goal tolerances, and
aborts (``GOAL_TOLERANCE_VIOLATED``) if they are not by the end time plus the goal time
tolerance (never, when that is 0).

Defaults come from the controller's parameters, named as joint_trajectory_controller names
them (``controllers.<name>.constraints.*``):

* ``goal_time`` [s]: goal time tolerance (0: wait as long as it takes);
* ``stopped_velocity_tolerance`` [rad/s or m/s]: how slow the joints must be at the goal
  (default 0.01);
* ``<joint>.trajectory``, ``<joint>.goal`` [rad or m]: path and goal position tolerances
  (0: not checked).

A goal's own ``path_tolerance`` / ``goal_tolerance`` entries override them per joint (a value
> 0 replaces the default, -1 removes it, 0 keeps it), as does a non-zero
``goal_time_tolerance``. Acceleration tolerances are not checked (the bridge does not
measure accelerations).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import ParameterError
from ...sim.control.trajectory import JointTrajectory, TrajectoryError

__all__ = ['SUCCESSFUL', 'INVALID_GOAL', 'INVALID_JOINTS', 'OLD_HEADER_TIMESTAMP',
           'PATH_TOLERANCE_VIOLATED', 'GOAL_TOLERANCE_VIOLATED', 'GoalRejected',
           'Constraints', 'read_constraints', 'Tolerances', 'read_goal']

# FollowJointTrajectory result codes.
SUCCESSFUL = 0
INVALID_GOAL = -1
INVALID_JOINTS = -2
OLD_HEADER_TIMESTAMP = -3
PATH_TOLERANCE_VIOLATED = -4
GOAL_TOLERANCE_VIOLATED = -5


class GoalRejected(ValueError):
    """A goal that cannot be followed: ``code`` is the result's error code."""

    def __init__(self, code: int, text: str):
        super().__init__(text)
        self.code = code


@dataclass(frozen=True)
class Constraints:
    """A trajectory controller's default tolerances, per joint in the controller's order.

    Attributes:
        goal_time: goal time tolerance [s] (0: unlimited).
        stopped_velocity: speed under which a joint counts as stopped at the goal [/s].
        trajectory: (n,) path position tolerances [rad or m] (0: not checked).
        goal: (n,) goal position tolerances [rad or m] (0: not checked).
    """

    goal_time: float
    stopped_velocity: float
    trajectory: np.ndarray
    goal: np.ndarray


def _number(key: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value) or value < 0:
        raise ParameterError(key, f'must be a number >= 0, not {value!r}')
    return float(value)


def read_constraints(controller) -> Constraints:
    """The defaults a controller's ``constraints.*`` parameters give.

    Raises:
        ParameterError: an unknown key, a joint not in the controller, a negative value.
    """
    prefix = f'controllers.{controller.name}.constraints'
    joints = list(controller.joints)
    goal_time, stopped = 0.0, 0.01
    path, goal = np.zeros(len(joints)), np.zeros(len(joints))
    for full, value in controller.options:
        if not full.startswith('constraints.'):
            continue
        key = full[len('constraints.'):]
        name = f'{prefix}.{key}'
        joint, _, what = key.rpartition('.')
        if key == 'goal_time':
            goal_time = _number(name, value)
        elif key == 'stopped_velocity_tolerance':
            stopped = _number(name, value)
        elif what in ('trajectory', 'goal') and joint in joints:
            (path if what == 'trajectory' else goal)[joints.index(joint)] = _number(name, value)
        elif what in ('trajectory', 'goal') and joint:
            raise ParameterError(name, f'{joint!r} is not one of this controller\'s joints '
                                 f'({", ".join(joints)})')
        else:
            raise ParameterError(name, 'not a constraint: goal_time, '
                                 'stopped_velocity_tolerance, <joint>.trajectory, <joint>.goal')
    return Constraints(goal_time, stopped, path, goal)


def _override(defaults: np.ndarray, given: float) -> float:
    return defaults if given == 0 else (0.0 if given < 0 else float(given))


@dataclass
class Tolerances:
    """A goal's tolerances, per joint in the controller's order (0: not checked).

    Attributes:
        path_position, path_velocity: (n,) during the motion [rad or m, /s].
        goal_position, goal_velocity: (n,) at the goal [rad or m, /s].
        goal_time: how long after the last waypoint's time the goal may be reached [s]
            (0: unlimited).
    """

    path_position: np.ndarray
    path_velocity: np.ndarray
    goal_position: np.ndarray
    goal_velocity: np.ndarray
    goal_time: float

    @staticmethod
    def of(constraints: Constraints, joints, path=(), goal=(), goal_time: float = 0.0
           ) -> Tolerances:
        """A goal's tolerances: the defaults with the goal's overrides.

        Args:
            constraints: the controller's defaults.
            joints: the controller's joints.
            path, goal: (name, position, velocity) of the goal's tolerance entries.
            goal_time: the goal's goal_time_tolerance [s] (0: the default).

        Raises:
            GoalRejected: a tolerance for a joint the controller does not have.
        """
        joints = list(joints)
        n = len(joints)
        tol = Tolerances(constraints.trajectory.copy(), np.zeros(n), constraints.goal.copy(),
                         np.full(n, constraints.stopped_velocity),
                         constraints.goal_time if goal_time == 0 else max(goal_time, 0.0))
        for entries, pos, vel, what in ((path, tol.path_position, tol.path_velocity, 'path'),
                                        (goal, tol.goal_position, tol.goal_velocity, 'goal')):
            for name, position, velocity in entries:
                if name not in joints:
                    raise GoalRejected(INVALID_JOINTS, f'{what}_tolerance names joint {name!r}, '
                                       f'not one of {", ".join(joints)}')
                i = joints.index(name)
                pos[i] = _override(pos[i], position)
                vel[i] = _override(vel[i], velocity)
        return tol

    def judge(self, t: float, start: float, end: float, error: np.ndarray,
              velocity_error: np.ndarray, joints) -> tuple[int, str] | None:
        """The goal's outcome at simulated time ``t`` [s], or None while it goes on.

        Args:
            t, start, end: now, when the trajectory starts and when its last waypoint is due.
            error: desired minus actual positions [rad or m], per joint.
            velocity_error: desired minus actual velocities [/s], per joint.
            joints: the joints' names, for the message.
        """
        if t < end:
            if t < start:
                return None
            bad = _beyond(error, self.path_position) or _beyond(velocity_error,
                                                                self.path_velocity, 'velocity')
            return None if bad is None else (PATH_TOLERANCE_VIOLATED,
                                             f'path tolerance violated: {bad(joints)}')
        bad = _beyond(error, self.goal_position) or _beyond(velocity_error, self.goal_velocity,
                                                            'velocity')
        if bad is None:
            return SUCCESSFUL, ''
        if self.goal_time > 0 and t > end + self.goal_time:
            return GOAL_TOLERANCE_VIOLATED, (f'goal tolerance violated {t - end:.3f} s after '
                                             f'the trajectory\'s end: {bad(joints)}')
        return None


def _beyond(error: np.ndarray, tolerance: np.ndarray, what: str = 'position'):
    """A describer of the first joint whose |error| exceeds its (non-zero) tolerance."""
    over = np.flatnonzero((tolerance > 0) & (np.abs(error) > tolerance))
    if not len(over):
        return None
    i = int(over[0])
    return lambda joints: (f'joint {joints[i]!r} {what} error {error[i]:.6g} exceeds '
                           f'{tolerance[i]:.6g}')


def read_goal(joints, names, times, positions, velocities, accelerations,
              multi_dof: bool) -> JointTrajectory:
    """A goal's trajectory for a controller's joints, checked.

    Args:
        joints: the controller's joints.
        names: the goal's joint names.
        times: time_from_start of each point [s].
        positions, velocities, accelerations: per point, lists as in the message.
        multi_dof: the goal has a multi-DOF trajectory.

    Raises:
        GoalRejected: INVALID_JOINTS or INVALID_GOAL, with the reason.
    """
    joints, names = list(joints), list(names)
    if multi_dof:
        raise GoalRejected(INVALID_JOINTS, 'multi-DOF joint trajectories are not served')
    unknown = [n for n in names if n not in joints]
    if unknown:
        raise GoalRejected(INVALID_JOINTS, f'joint {unknown[0]!r} is not one of this '
                           f'controller\'s joints ({", ".join(joints)})')
    missing = [j for j in joints if j not in names]
    if missing:
        raise GoalRejected(INVALID_JOINTS, f'the goal leaves out joint(s) '
                           f'{", ".join(missing)}: it must name all of {", ".join(joints)}')
    if not len(times):
        raise GoalRejected(INVALID_GOAL, 'the trajectory has no points')
    try:
        return JointTrajectory.from_points(names, times, positions, velocities, accelerations)
    except TrajectoryError as err:
        code = INVALID_JOINTS if 'named twice' in str(err) else INVALID_GOAL
        raise GoalRejected(code, str(err)) from None
