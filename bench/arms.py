"""Many robots in one world at real time: sample arms side by side in one world file.

The bridge as a user starts it (``python -m body_bridge sim WORLD``, real-time factor 1) in a
process of its own, with a subscriber in another process on every arm's ``joint_states``, on
``/tf`` and on ``/clock`` (with the publishers' own QoS: reliable), as ``robot_state_publisher``
and rviz would be. The arms hold their start positions (their servos at work, nobody
commanding). For each count of arms, in rising order, the real-time factor kept is the
simulated time ``/clock`` advanced over the wall time it took; the counting stops at the first
count that falls below real time.

    world_arms_<N>_rtf        the real-time factor kept with N arms
    world_arms_real_time      the most arms measured that kept real time (>= 0.98)
"""

from __future__ import annotations

import sys
from pathlib import Path

from paced import rates, watch_paced

__all__ = ['KEPT', 'run', 'write_world']

#: A real-time factor at or above this keeps real time (the /clock span over a window of whole
#: control periods loses up to a period at each end).
KEPT = 0.98
SPACING = 1.5  # [m] between neighbouring bases: an arm reaches 0.7 m, so none can touch
PER_ROW = 6


def write_world(folder: Path, count: int) -> Path:
    """A world file with ``count`` sample arms, ``arm0`` ..., in rows of six."""
    lines = [f'world: arms{count}', f'description: {count} sample arms in rows of {PER_ROW}',
             'models:']
    for k in range(count):
        x, y = (k % PER_ROW) * SPACING, (k // PER_ROW) * SPACING
        lines += [f'  - name: arm{k}', '    file: sample_arm', f'    pose: [{x}, {y}, 0.0]']
    path = Path(folder) / f'arms{count}.world.yaml'
    path.write_text('\n'.join(lines) + '\n')
    return path


def paced_rtf(listener, count: int, settle: float, window: float, scratch: Path) -> float:
    """The real-time factor the world of ``count`` arms keeps, everything subscribed."""
    world = write_world(scratch, count)
    cmd = [sys.executable, '-m', 'body_bridge', 'sim', str(world), '--quiet', '--ros-args',
           '-p', f'mesh_directory:={scratch / "meshes"}', '-p', 'real_time_factor:=1.0']
    topics = [[f'/arm{k}/joint_states', 'sensor_msgs/msg/JointState', True]
              for k in range(count)]
    topics += [['/tf', 'tf2_msgs/msg/TFMessage', True],
               ['/clock', 'rosgraph_msgs/msg/Clock', True]]
    report, _ = watch_paced(listener, cmd, '/bench_arms', scratch / f'arms{count}.log',
                            f'/arm{count - 1}/joint_states', settle, window, topics=topics)
    return rates(report)[0]


def run(figures, listener, quick: bool, scratch: Path) -> None:
    counts = (2,) if quick else (8, 16, 24, 30)  # a world holds at most 30 models
    kept = 0
    for count in counts:
        rtf = paced_rtf(listener, count, 1.5 if quick else 3.0, 2.0 if quick else 10.0,
                        scratch)
        figures.add(f'world_arms_{count}_rtf', rtf, 'x')
        if rtf < KEPT:
            break
        kept = count
    figures.add('world_arms_real_time', kept, 'arms')
