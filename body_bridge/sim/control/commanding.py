"""Commands to a Simulation: by name in a mode, or a trajectory to follow (any thread).

:class:`Commanding` is the command half of :class:`~body_bridge.sim.simulation.Simulation`:
commands are checked and clipped to the joints' limits here and queued; the stepping thread
applies them at the start of the next control period. Positions [rad or m], velocities
[rad/s or m/s], efforts [N m or N].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..names import CommandRejected, Mode
from .trajectory import JointTrajectory, segment_speeds

__all__ = ['Commanding']


class Commanding:
    """Accepts commands from any thread; the stepping thread applies them.

    Attributes:
        recent_commands: the latest accepted commands that came from outside, for a
            divergence report (a deque made by the Simulation, see ``sim/control/watchdog.py``).
    """

    def _rows_of(self, names: Sequence[str]) -> np.ndarray:
        rows = []
        for name in names:
            if name not in self._rows:
                if name in self._index:
                    raise CommandRejected(f'joint {name!r} follows another joint and takes '
                                          'no command')
                raise CommandRejected(f'unknown joint {name!r}')
            rows.append(self._rows[name])
        if len(set(rows)) != len(rows):
            dup = next(n for n in names if list(names).count(n) > 1)
            raise CommandRejected(f'joint {dup!r} is named twice')
        return np.array(rows, dtype=int)

    def _remember(self, source: str | None, what: str, names, values) -> None:
        """Keep an accepted command for a divergence report (``source`` None: not kept)."""
        if source is not None:
            self.recent_commands.append((self.time, source, what, list(names),
                                         [float(v) for v in values]))

    def command(self, mode: Mode, names: Sequence[str], values,
                source: str | None = None) -> list[str]:
        """Queue targets for named joints; applied at the next control period.

        Args:
            mode: what the values are: positions [rad or m], velocities [/s] or efforts
                [N m or N].
            names: the joints (any subset of ``actuated``).
            values: one per name.
            source: where the command came from (a topic, an action), named by a divergence
                report; None: an internal command, not named.

        Returns:
            One warning per joint whose target was clipped to its limits.

        Raises:
            CommandRejected: an unknown or driven joint, a joint named twice, a length
                mismatch, a value not finite, an effort for a kinematic model.
        """
        values = np.asarray(values, dtype=float).reshape(-1)
        if len(names) != len(values):
            raise CommandRejected(f'{len(names)} joint names but {len(values)} values')
        rows = self._rows_of(names)
        if not np.all(np.isfinite(values)):
            raise CommandRejected('a value is NaN or infinite')
        mode = Mode(mode)
        if self.kinematic and mode == Mode.EFFORT:
            raise CommandRejected('the model is kinematic: it takes position and velocity '
                                  'commands, not efforts')
        if mode == Mode.EFFORT and self.tracks_named.intersection(names):
            track = next(n for n in names if n in self.tracks_named)
            raise CommandRejected(f'{track!r} is a track: it takes a surface speed (velocity '
                                  '[m/s]) or a travel (position [m]), not an effort')
        values, notes = self._clip(mode, rows, values)
        for hook in self.command_hooks:
            hook(mode, list(names))
        with self._lock:
            self._pending.append(('set', mode, rows, values))
        self._remember(source, mode.name.lower(), names, values)
        return notes

    def _clip(self, mode: Mode, rows: np.ndarray, values: np.ndarray):
        if mode == Mode.POSITION:
            lo, hi, what = self._lower[rows], self._upper[rows], 'range'
        elif mode == Mode.VELOCITY:
            lo, hi, what = -self._vlim[rows], self._vlim[rows], 'velocity limit'
        else:
            lo, hi, what = -self._effort[rows], self._effort[rows], 'effort limit'
        clipped = np.clip(values, lo, hi)
        notes = [f'{self.actuated[row]}: {mode.name.lower()} target beyond its {what} '
                 f'[{lo[i]:.6g}, {hi[i]:.6g}]: clipped'
                 for i, row in enumerate(rows) if clipped[i] != values[i]]
        return clipped, notes

    def follow(self, trajectory: JointTrajectory, start: float | None = None,
               source: str | None = None) -> list[str]:
        """Queue a trajectory for its joints, replacing what they were doing.

        Args:
            trajectory: the waypoints (an empty one stops the joints where they are).
            start: simulated time its ``time_from_start`` counts from [s]; None: the next
                control period.
            source: where it came from, as for :meth:`command`.

        Returns:
            Warnings: waypoints clipped to a joint's range, segments faster than a joint's
            velocity limit (followed at the limit).

        Raises:
            CommandRejected: unknown joints, or a trajectory that ends before now.
        """
        rows = self._rows_of(trajectory.names)
        if start is not None and len(trajectory.times) and \
                start + trajectory.duration < self.time:
            raise CommandRejected(f'the trajectory ends at {start + trajectory.duration:.6g} s, '
                                  f'before the current simulated time {self.time:.6g} s')
        notes = []
        if len(trajectory.times):
            lo, hi = self._lower[rows], self._upper[rows]
            positions = np.clip(trajectory.positions, lo, hi)
            for col in np.flatnonzero(np.any(positions != trajectory.positions, axis=0)):
                notes.append(f'{self.actuated[rows[col]]}: trajectory point beyond its range '
                             f'[{lo[col]:.6g}, {hi[col]:.6g}]: clipped')
            trajectory = JointTrajectory(trajectory.names, trajectory.times, positions,
                                         trajectory.velocities, trajectory.accelerations)
            speeds = segment_speeds(trajectory, self.data.qpos[self._qa[rows]])
            for col in np.flatnonzero(np.any(speeds > self._vlim[rows] * (1 + 1e-9), axis=0)):
                notes.append(f'{self.actuated[rows[col]]}: trajectory faster than its velocity '
                             f'limit {self._vlim[rows[col]]:.6g}: followed at the limit')
        for hook in self.command_hooks:
            hook(Mode.POSITION, list(trajectory.names))
        with self._lock:
            self._pending.append(('follow', trajectory, rows, start))
        if len(trajectory.times):  # an empty one stops the joints: nothing to name
            self._remember(source, 'trajectory to', trajectory.names, trajectory.positions[-1])
        return notes


    def limit_efforts(self, names: Sequence[str], limits) -> None:
        """Cap the force of joints' servos from the next control period on (any thread).

        Args:
            names: the joints.
            limits: one per joint [N m or N]; 0 or infinite: the joint's own effort limit
                (a larger value is lowered to it). A reset restores every joint's own limit.

        Raises:
            CommandRejected: unknown joints, a length mismatch, a negative or NaN limit.
        """
        rows = self._rows_of(names)
        limits = np.asarray(limits, dtype=float).reshape(-1)
        if len(limits) != len(rows):
            raise CommandRejected(f'{len(rows)} joint names but {len(limits)} effort limits')
        if np.any(np.isnan(limits)) or np.any(limits < 0):
            raise CommandRejected('an effort limit is negative or NaN')
        own = self._effort[rows]
        limits = np.where((limits > 0) & (limits < own), limits, own)
        with self._lock:
            self._pending.append(('limit', None, rows, limits))

    def _force_limits(self, rows: np.ndarray, limits: np.ndarray) -> None:
        """Servo force ranges [N m or N] (infinite: none), stepping thread."""
        act = self._act[rows]
        finite = np.isfinite(limits)
        self.mj.actuator_forcelimited[act] = finite
        self.mj.actuator_forcerange[act] = np.where(finite, limits, 0.0)[:, None] * [-1.0, 1.0]

    def joint_range(self, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper position limits of joints [rad or m] (infinite: none)."""
        rows = self._rows_of(names)
        return self._lower[rows].copy(), self._upper[rows].copy()

    def joint_limits(self, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Velocity [rad/s or m/s] and effort [N m or N] limits of joints (infinite: none);
        the velocity limit is ``default_velocity_limit`` where the model gives none."""
        rows = self._rows_of(names)
        return self._vlim[rows].copy(), self._effort[rows].copy()

    def desired_state(self, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list]:
        """What joints in position mode are asked to be at now (stepping thread).

        Args:
            names: joints in position mode.

        Returns:
            Desired positions [rad or m] and velocities [/s] at the current simulated time
            (a trajectory being followed is sampled; a held target has zero velocity), and
            for each joint the :class:`JointTrajectory` it follows (None: it holds a target).
        """
        rows = self._rows_of(names)
        pos = np.minimum(np.maximum(self._target[rows], self._lower[rows]), self._upper[rows])
        vel = np.zeros(len(rows))
        following: list = [None] * len(rows)
        for i, row in enumerate(rows):
            entry = self._runs[row]
            if entry is None:
                continue
            run, col = entry
            p, v = run.sample(self.time)
            pos[i], vel[i], following[i] = p[col], v[col], run.trajectory
        return pos, vel, following
