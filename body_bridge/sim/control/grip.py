"""A gripper goal judged at each control period: reached, stalled, or still on its way.

Positions are measured in each finger's closing direction ``d`` (+1: closing raises the
joint's position, -1: lowers it): a finger at joint position ``q`` is at ``d q``.

As ros2_controllers' GripperActionController does, a goal is *reached* only when every finger
is within ``GOAL_TOLERANCE`` of the position asked for, not of that position clipped into the
finger's range: the fingers are driven to the clipped target, and a goal beyond the range ends
*stalled* there, ``reached_goal`` false (GripperActionController accepts such goals too).

A finger has *stalled* when it has made no progress (moved less than ``STALL_DISTANCE``) over
a window that scales with its speed: ``STALL_TIME`` at least, and long enough for the slowest
finger to cover ``STALL_DISTANCE / STALL_SPEED_SHARE`` at its velocity limit, so a finger that
moves slowly but steadily never looks stalled; and, during that window, its servo could do no
more: it pushes at its effort cap (``EFFORT_AT_CAP`` of ``max_effort``, or of its own limit),
or its setpoint, which moves at the finger's velocity limit, has arrived at the target (the
finger is held short of it by an object or the other fingers, or sits at the end of its range
that the goal lies beyond). The goal stalls when every finger that has not reached the
position has stalled.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

__all__ = ['GripGoal', 'GOAL_TOLERANCE', 'STALL_DISTANCE', 'STALL_TIME', 'STALL_SPEED_SHARE',
           'EFFORT_AT_CAP', 'SETTLED']

#: A finger within this of the position asked for has reached it [rad or m].
GOAL_TOLERANCE = 0.01
#: A finger that moves less than this [rad or m] over its window makes no progress.
STALL_DISTANCE = 0.005
#: The shortest window [s of simulated time].
STALL_TIME = 0.2
#: The window lets the slowest finger cover STALL_DISTANCE / this at its velocity limit.
STALL_SPEED_SHARE = 0.25
#: Share of its effort cap at which a finger counts as pushing.
EFFORT_AT_CAP = 0.9
#: A setpoint this close to the target [rad or m] has arrived there.
SETTLED = 1e-6


class GripGoal:
    """One GripperCommand goal on a Simulation's fingers.

    Args:
        sim: the Simulation (its ``period``, ``joint_range`` and ``joint_limits``).
        joints: the finger joints.
        directions: their closing directions (+1 or -1).
        position: the position asked for, in the closing direction [rad or m].
        max_effort: the effort cap [N m or N] (0: each joint's own limit).
    """

    def __init__(self, sim, joints, directions, position: float, max_effort: float):
        self.directions = np.asarray(directions, dtype=float)
        self.position = float(position)
        lo, hi = sim.joint_range(joints)
        d = self.directions
        #: where the fingers are driven, in their closing direction
        self.target = d * np.clip(d * self.position, lo, hi)
        self.clipped = np.abs(self.target - self.position) > GOAL_TOLERANCE
        speed, own = sim.joint_limits(joints)
        self.cap = np.where((max_effort > 0) & (max_effort < own), max_effort, own)
        slowest = float(np.min(speed)) if len(speed) else math.inf
        window = STALL_TIME
        if 0 < slowest < math.inf:
            window = max(window, STALL_DISTANCE / (STALL_SPEED_SHARE * slowest))
        self.window = window
        self._steps = max(2, round(window / sim.period) + 1)
        self._history: deque = deque(maxlen=self._steps)
        self._busy = np.zeros(len(d), dtype=int)  # periods since the servo last had more to do

    def judge(self, q, efforts, desired) -> str:
        """``'reached'``, ``'stalled'`` or ``''`` (still on its way), from the fingers'
        joint positions [rad or m], efforts [N m or N] and servo setpoints [rad or m]
        (``Simulation.setpoints``) after a control period."""
        closing = self.directions * np.asarray(q, dtype=float)
        open_ = np.abs(closing - self.position) > GOAL_TOLERANCE
        if not open_.any():
            return 'reached'
        self._history.append(closing)
        pushing = np.abs(np.asarray(efforts, dtype=float)) >= EFFORT_AT_CAP * self.cap
        settled = np.abs(self.directions * np.asarray(desired, dtype=float) - self.target) \
            <= SETTLED
        self._busy = np.where(pushing | settled, self._busy + 1, 0)
        if len(self._history) < self._steps:
            return ''
        still = np.ptp(np.array(self._history), axis=0) < STALL_DISTANCE
        stalled = still & (self._busy >= self._steps)
        return 'stalled' if np.all(stalled[open_]) else ''
