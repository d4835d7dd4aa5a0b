"""The goals of the benchmark figures, in one place: what each figure must stay at or beyond.

``bench/run.py --against REV`` fails when a figure that met its goal in REV misses it in the
working tree (see ``against.py``). The goals are those of issue 29's table (the Tank with its
Kinect at real time, the tracks' cost, the command-to-state latency, the sample arm with a
640x480 camera, the stepping loop against raw physics with a subscriber).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

__all__ = ['Goal', 'GOALS', 'meets']


@dataclass(frozen=True)
class Goal:
    """A figure's bound: ``value >= bound`` (``at_least``) or ``value <= bound``."""

    bound: float
    at_least: bool
    why: str

    def describe(self) -> str:
        return f'{">=" if self.at_least else "<="} {self.bound:g}'


#: Figure name (as ``run.py`` prints it) -> its goal.
GOALS: dict[str, Goal] = {
    'tracks_tank_kinect_rtf': Goal(1.0, True, 'the Tank with its Kinect keeps real time'),
    # 30 Hz, less what counting whole frames over a 20 s window can lose at its two ends.
    'tracks_tank_kinect_image_rate': Goal(29.5, True, 'the Kinect colour at 30 Hz'),
    'tracks_tank_kinect_depth_rate': Goal(29.5, True, 'the Kinect depth at 30 Hz'),
    'tracks_ratio': Goal(1.5, False, 'the tracks cost at most half a fixed-track Tank again'),
    'command_to_state_latency_median': Goal(6.0, False, 'a command shows within 6 ms [ms]'),
    'realtime_camera_rtf': Goal(0.98, True, 'the arm with a 640x480 camera at real time'),
    'realtime_camera_max_rtf': Goal(1.5, True, 'and its headroom'),
    'throughput_sample_arm_ratio': Goal(0.25, True, 'stepping loop against raw physics'),
    'throughput_chain30_ratio': Goal(0.5, True, 'stepping loop against raw physics'),
    'throughput_sr1_ratio': Goal(0.6, True, 'stepping loop against raw physics'),
}


def meets(name: str, value: float | None) -> bool | None:
    """Whether a figure meets its goal (None: it has no goal, or no value)."""
    goal = GOALS.get(name)
    if goal is None or value is None:
        return None
    compare = operator.ge if goal.at_least else operator.le
    return bool(compare(value, goal.bound))
