"""Commands to a Simulation: by name in a mode, or a trajectory to follow (any thread).

:class:`Commanding` is the command half of :class:`~body_bridge.sim.simulation.Simulation`:
commands are checked and clipped to the joints' limits here and queued; the stepping thread
applies them at the start of the next control period. Positions [rad or m], velocities
[rad/s or m/s], efforts [N m or N].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .names import CommandRejected, Mode
from .trajectory import JointTrajectory, segment_speeds

__all__ = ['Commanding']


class Commanding:
    """Accepts commands from any thread; the stepping thread applies them."""

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

    def command(self, mode: Mode, names: Sequence[str], values) -> list[str]:
        """Queue targets for named joints; applied at the next control period.

        Args:
            mode: what the values are: positions [rad or m], velocities [/s] or efforts
                [N m or N].
            names: the joints (any subset of ``actuated``).
            values: one per name.

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

    def follow(self, trajectory: JointTrajectory, start: float | None = None) -> list[str]:
        """Queue a trajectory for its joints, replacing what they were doing.

        Args:
            trajectory: the waypoints (an empty one stops the joints where they are).
            start: simulated time its ``time_from_start`` counts from [s]; None: the next
                control period.

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
        return notes

