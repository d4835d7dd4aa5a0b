"""Joint trajectories as joint_trajectory_controller follows them (no ROS, no MuJoCo).

A :class:`JointTrajectory` is a validated message: joint names and waypoints, each with a
``time_from_start`` [s], positions and optionally velocities and accelerations. A
:class:`TrajectoryRun` is one being followed: it starts at a simulated time from the joints'
current desired state, and is sampled once per control period.

Interpolation between two waypoints, as joint_trajectory_controller does it: linear when the
waypoints carry positions only, cubic (Hermite) with velocities, quintic with velocities and
accelerations. The first segment goes from the state the joints were in when the run started
(position and velocity) to the first waypoint. Before the start the joints hold that state;
after the last waypoint they hold its position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ['JointTrajectory', 'TrajectoryRun', 'TrajectoryError']


class TrajectoryError(ValueError):
    """A trajectory message that cannot be followed (the text says why)."""


def _matrix(rows, n: int, what: str, required: bool) -> np.ndarray | None:
    """Stack per-waypoint value lists into a (k, n) array; None if every list is empty."""
    if not required and all(len(r) == 0 for r in rows):
        return None
    for index, row in enumerate(rows):
        if len(row) != n:
            raise TrajectoryError(f'point {index} has {len(row)} {what} for {n} joints')
    out = np.array([list(r) for r in rows], dtype=float).reshape(len(rows), n)
    if not np.all(np.isfinite(out)):
        raise TrajectoryError(f'a {what[:-1]} value is NaN or infinite')
    return out


@dataclass(frozen=True)
class JointTrajectory:
    """Waypoints for a set of joints.

    Attributes:
        names: the joints, in the order of every waypoint's values.
        times: (k,) time from the start of each waypoint [s], strictly increasing, >= 0.
        positions: (k, n) [rad or m].
        velocities: (k, n) [rad/s or m/s], or None.
        accelerations: (k, n) [rad/s^2 or m/s^2], or None (only with velocities).
    """

    names: tuple[str, ...]
    times: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray | None = None
    accelerations: np.ndarray | None = None

    @staticmethod
    def from_points(names, times, positions, velocities=None,
                    accelerations=None) -> JointTrajectory:
        """Validate a trajectory given as per-waypoint lists.

        Args:
            names: joint names (no duplicates).
            times: time from start of each waypoint [s].
            positions: per waypoint, one position per joint.
            velocities: per waypoint, one velocity per joint or an empty list (all waypoints
                alike); None for none.
            accelerations: as velocities.

        Raises:
            TrajectoryError: duplicate names, lengths that do not match, values that are not
                finite, times that are negative or not strictly increasing.
        """
        names = tuple(names)
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise TrajectoryError(f'joint {dup!r} is named twice')
        n, k = len(names), len(times)
        if len(positions) != k:
            raise TrajectoryError(f'{k} times but {len(positions)} points')
        times = np.array(times, dtype=float).reshape(k)
        if not np.all(np.isfinite(times)):
            raise TrajectoryError('a time_from_start is NaN or infinite')
        if k and times[0] < 0.0:
            raise TrajectoryError('time_from_start of point 0 is negative')
        if k > 1 and not np.all(np.diff(times) > 0.0):
            index = int(np.argmin(np.diff(times) > 0.0)) + 1
            raise TrajectoryError(f'time_from_start is not strictly increasing at point {index}')
        pos = _matrix(positions, n, 'positions', required=True)
        vel = _matrix(velocities or [[]] * k, n, 'velocities', required=False)
        acc = _matrix(accelerations or [[]] * k, n, 'accelerations', required=False)
        if acc is not None and vel is None:
            raise TrajectoryError('points have accelerations but no velocities')
        return JointTrajectory(names, times, pos, vel, acc)

    @property
    def duration(self) -> float:
        """Time from start of the last waypoint [s] (0 for an empty trajectory)."""
        return float(self.times[-1]) if len(self.times) else 0.0


def _segment(t: float, h: float, p0, v0, a0, p1, v1, a1, order: int):
    """Position and velocity at ``t`` in [0, h] on one segment of a spline."""
    if h <= 0.0:
        return p1.copy(), (v1.copy() if v1 is not None else np.zeros_like(p1))
    if order == 1:
        rate = (p1 - p0) / h
        return p0 + rate * t, rate
    if order == 3:
        # Hermite: p(t) = p0 + v0 t + c2 t^2 + c3 t^3
        c2 = (3.0 * (p1 - p0) - (2.0 * v0 + v1) * h) / h ** 2
        c3 = (2.0 * (p0 - p1) + (v0 + v1) * h) / h ** 3
        return p0 + v0 * t + c2 * t ** 2 + c3 * t ** 3, v0 + 2.0 * c2 * t + 3.0 * c3 * t ** 2
    # Quintic with position, velocity and acceleration at both ends.
    d = p1 - p0
    c3 = (20.0 * d - (8.0 * v1 + 12.0 * v0) * h - (3.0 * a0 - a1) * h ** 2) / (2.0 * h ** 3)
    c4 = (-30.0 * d + (14.0 * v1 + 16.0 * v0) * h + (3.0 * a0 - 2.0 * a1) * h ** 2) \
        / (2.0 * h ** 4)
    c5 = (12.0 * d - 6.0 * (v1 + v0) * h - (a0 - a1) * h ** 2) / (2.0 * h ** 5)
    p = p0 + v0 * t + 0.5 * a0 * t ** 2 + c3 * t ** 3 + c4 * t ** 4 + c5 * t ** 5
    v = v0 + a0 * t + 3.0 * c3 * t ** 2 + 4.0 * c4 * t ** 3 + 5.0 * c5 * t ** 4
    return p, v


class TrajectoryRun:
    """A trajectory being followed from a start time and a start state.

    Args:
        trajectory: the waypoints.
        start: simulated time at which ``time_from_start`` counts from [s].
        position: the joints' desired positions when the run starts [rad or m]; they hold
            them until then.
        velocity: the joints' desired velocities when the run starts [/s] (zero for a run
            that starts later than now).
    """

    def __init__(self, trajectory: JointTrajectory, start: float, position, velocity):
        self.trajectory = trajectory
        self.start = float(start)
        self.end = self.start + trajectory.duration
        n = len(trajectory.names)
        self._p0 = np.array(position, dtype=float).reshape(n)
        self._v0 = np.array(velocity, dtype=float).reshape(n)
        vel, acc = trajectory.velocities, trajectory.accelerations
        self._order = 5 if acc is not None else 3 if vel is not None else 1

    def sample(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """Desired positions and velocities of the joints at simulated time ``t`` [s]."""
        traj = self.trajectory
        rel = t - self.start
        if rel <= 0.0 or not len(traj.times):
            return self._p0.copy(), self._v0.copy()
        if rel >= traj.duration:
            return traj.positions[-1].copy(), np.zeros_like(self._p0)
        k = int(np.searchsorted(traj.times, rel, side='right'))  # waypoint k is next
        vel, acc = traj.velocities, traj.accelerations
        zero = np.zeros_like(self._p0)
        if k == 0:
            t0, p0, v0, a0 = 0.0, self._p0, self._v0, zero
        else:
            t0, p0 = float(traj.times[k - 1]), traj.positions[k - 1]
            v0 = vel[k - 1] if vel is not None else zero
            a0 = acc[k - 1] if acc is not None else zero
        p1 = traj.positions[k]
        v1 = vel[k] if vel is not None else zero
        a1 = acc[k] if acc is not None else zero
        return _segment(rel - t0, float(traj.times[k]) - t0, p0, v0, a0, p1, v1, a1,
                        self._order)

    def finished(self, t: float) -> bool:
        return t >= self.end


def segment_speeds(trajectory: JointTrajectory, position) -> np.ndarray:
    """Mean speed of each joint on each segment [/s], (k, n); the first from ``position``."""
    times = np.concatenate([[0.0], trajectory.times])
    points = np.vstack([np.asarray(position, dtype=float), trajectory.positions])
    dt = np.diff(times)
    with np.errstate(divide='ignore', invalid='ignore'):
        speeds = np.abs(np.diff(points, axis=0)) / dt[:, None]
    speeds[~np.isfinite(speeds)] = math.inf
    speeds[(dt[:, None] <= 0.0) & (np.diff(points, axis=0) == 0.0)] = 0.0
    return speeds
