"""Commands for a recorded run, from a file: a joint trajectory and/or a ``cmd_vel`` profile.

YAML::

    trajectory:                 # followed as a JointTrajectory (sim/control/trajectory.py)
      joints: [shoulder, elbow]
      points:
        - {time: 1.0, positions: [0.5, -0.3]}       # time from the start [s]
        - {time: 2.0, positions: [0.0, 0.8], velocities: [0, 0]}
    cmd_vel:                    # each twist holds from its time to the next one's
      - {time: 0.0, linear: 0.3, angular: 0.0}      # [s], [m/s], [rad/s]
      - {time: 4.0, linear: 0.0, angular: 0.5}

CSV (a trajectory, positions only)::

    time,shoulder,elbow
    1.0,0.5,-0.3
    2.0,0.0,0.8

The trajectory starts at simulated time 0 from the initial state and is interpolated as the
joint trajectory topic interpolates (linear with positions only, cubic with velocities).
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass

import yaml

from ...errors import ModelError
from ...sim.control.trajectory import JointTrajectory, TrajectoryError

__all__ = ['Commands', 'Twist', 'read_commands']


@dataclass(frozen=True)
class Twist:
    """A base velocity from ``time`` on [s]: ``linear`` [m/s] along x, ``angular`` [rad/s]
    about z."""

    time: float
    linear: float
    angular: float


@dataclass(frozen=True)
class Commands:
    """What a recorded run is commanded to do."""

    trajectory: JointTrajectory | None = None
    twists: tuple[Twist, ...] = ()

    def twist_at(self, t: float) -> Twist | None:
        """The twist in force at simulated time ``t`` [s] (None before the first)."""
        current = None
        for twist in self.twists:
            if twist.time <= t:
                current = twist
        return current


def read_commands(path: str) -> Commands:
    """Read a commands file (``.csv``: a trajectory; otherwise YAML).

    Raises:
        ModelError: the file cannot be read, or says something that cannot be followed
            (``path: what``).
    """
    try:
        with open(path, encoding='utf-8') as f:
            text = f.read()
    except OSError as err:
        raise ModelError(path, None, f'cannot be read ({err.strerror})') from err
    try:
        if path.lower().endswith('.csv'):
            return Commands(trajectory=_csv_trajectory(text))
        return _yaml_commands(text)
    except (TrajectoryError, ValueError, TypeError, KeyError) as err:
        raise ModelError(path, getattr(err, 'line', None), _text(err)) from err
    except yaml.YAMLError as err:
        mark = getattr(err, 'problem_mark', None)
        raise ModelError(path, mark.line + 1 if mark else None,
                         f'not YAML: {getattr(err, "problem", err)}') from err


def _text(err: Exception) -> str:
    return f'missing key {err}' if isinstance(err, KeyError) else str(err)


def _csv_trajectory(text: str) -> JointTrajectory:
    rows = [r for r in csv.reader(text.splitlines()) if r and any(c.strip() for c in r)]
    if not rows:
        raise ValueError('empty: a header "time,<joint>,..." and rows of numbers expected')
    header = [c.strip() for c in rows[0]]
    if header[0] != 'time' or len(header) < 2:
        raise ValueError('the header must be "time,<joint>,<joint>..."')
    times, positions = [], []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ValueError(f'line {number}: {len(row)} values for {len(header)} columns')
        try:
            values = [float(c) for c in row]
        except ValueError:
            raise ValueError(f'line {number}: a value is not a number') from None
        times.append(values[0])
        positions.append(values[1:])
    return JointTrajectory.from_points(header[1:], times, positions)


def _yaml_commands(text: str) -> Commands:
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not set(data) <= {'trajectory', 'cmd_vel'} or not data:
        raise ValueError('expected a mapping with trajectory and/or cmd_vel')
    trajectory = None
    if 'trajectory' in data:
        t = data['trajectory']
        points = t['points']
        if not isinstance(points, list):
            raise ValueError('trajectory.points must be a list')
        trajectory = JointTrajectory.from_points(
            t['joints'], [p['time'] for p in points], [p['positions'] for p in points],
            [p.get('velocities', []) for p in points]
            if any('velocities' in p for p in points) else None)
    twists = []
    for item in data.get('cmd_vel') or []:
        twist = Twist(float(item['time']), float(item.get('linear', 0.0)),
                      float(item.get('angular', 0.0)))
        if not all(math.isfinite(v) for v in (twist.time, twist.linear, twist.angular)):
            raise ValueError('cmd_vel: a value is NaN or infinite')
        if twists and twist.time <= twists[-1].time:
            raise ValueError(f'cmd_vel: times must increase ({twist.time:g} after '
                             f'{twists[-1].time:g})')
        twists.append(twist)
    return Commands(trajectory, tuple(twists))
