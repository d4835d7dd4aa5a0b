"""Real time with a camera: the sample arm, its hand camera made 640x480 at 30 Hz.

Two runs, with a subscriber in another process on every topic, the camera's included:

* paced: the bridge as a user starts it (``python -m body_bridge sim``, real-time factor 1) in
  its own process; the real-time factor kept is the simulated time ``/clock`` advanced over
  the wall time it took, as the subscriber sees it, with the camera's frame rate and the
  bridge process's CPU use;
* as fast as possible: the stepping loop in this process (as the throughput figures), whose
  real-time factor is the headroom (wall time: the renderer's threads work too).
"""

from __future__ import annotations

import sys
from pathlib import Path

from chains import model_path
from figures import timed
from paced import rates, watch_paced
from throughput import bridge_under_test

__all__ = ['run', 'write_overlay']

WIDTH, HEIGHT, RATE = 640, 480, 30.0
CAMERA = 'hand_camera'


def write_overlay(folder: Path) -> Path:
    """A devices file that makes the sample arm's hand camera 640x480 at 30 Hz."""
    path = Path(folder) / 'camera_640x480.yaml'
    path.write_text(f'devices:\n  {CAMERA}: {{ width: {WIDTH}, height: {HEIGHT}, '
                    f'frame_rate: {RATE} }}\n')
    return path


def paced(figures, listener, overlay: Path, window: float, settle: float,
          scratch: Path) -> None:
    """The bridge process at real-time factor 1: what it keeps up over ``window`` [s] of wall
    time, ``settle`` [s] after its camera started."""
    ns = '/bench_realtime'
    cmd = [sys.executable, '-m', 'body_bridge', 'sim', 'sample_arm', '--ros-args',
           '-r', f'__ns:={ns}', '-p', f'devices_file:={overlay}',
           '-p', f'mesh_directory:={scratch / "meshes"}', '-p', 'real_time_factor:=1.0']
    report, cpu = watch_paced(listener, cmd, ns, scratch / 'realtime_bridge.log',
                              f'{ns}/{CAMERA}/image_raw', settle, window, cameras=True)
    rtf, image, depth = rates(report, f'{ns}/{CAMERA}/image_raw', f'{ns}/{CAMERA}/depth/image')
    figures.add('realtime_camera_rtf', rtf, 'x')
    figures.add('realtime_camera_image_rate', image, 'Hz')
    figures.add('realtime_camera_depth_rate', depth, 'Hz')
    figures.add('realtime_camera_bridge_cpu', cpu, 'cores')


def headroom(figures, context, listener, overlay: Path, seconds: float, parameters) -> None:
    """The stepping loop as fast as possible, camera watched: the real-time factor it reaches."""
    params = dict(parameters, devices_file=str(overlay))
    with bridge_under_test(context, model_path('sample_arm'), '/bench_camera_rtf',
                           params) as bridge:
        bridge.listen(listener, cameras=True)
        periods = max(1, round(seconds / bridge.world.period))
        bridge.bridge(3)  # the renderer's first frame (its context) is not counted
        cost = timed(lambda: bridge.bridge(periods))
        listener.send('drop', ns=bridge.namespace)
    figures.add('realtime_camera_max_rtf', periods * bridge.world.period / cost.wall, 'x')


def run(figures, context, listener, quick: bool, scratch: Path, parameters: dict) -> None:
    overlay = write_overlay(scratch)
    headroom(figures, context, listener, overlay, 0.5 if quick else 5.0, parameters)
    paced(figures, listener, overlay, 2.0 if quick else 20.0, 1.5 if quick else 3.0, scratch)
