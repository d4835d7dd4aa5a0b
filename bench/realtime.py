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

import os
import subprocess
import sys
import time
from pathlib import Path

from chains import model_path
from figures import REPO, timed
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


def _cpu_seconds(pid: int) -> float:
    with open(f'/proc/{pid}/stat') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def _wait_for(listener, topic: str, timeout: float, proc=None,
              log: Path | None = None) -> None:
    """Until the listener has heard ``topic``; the error says what it heard instead, and the
    last lines of the bridge's output ``log``."""
    deadline = time.monotonic() + timeout
    while listener.send('report')['counts'].get(topic, 0) == 0:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f'the bridge exited with status {proc.returncode}')
        if time.monotonic() > deadline:
            report = listener.send('report')
            heard = {t: n for t, n in report['counts'].items() if n}
            tail = '' if log is None else '; the bridge said:\n' + '\n'.join(
                log.read_text(errors='replace').splitlines()[-15:])
            raise TimeoutError(f'nothing on {topic} within {timeout} s; the listener heard '
                               f'{heard or "nothing"}, subscribed to '
                               f'{report["subscriptions"]}{tail}')
        time.sleep(0.1)


def paced(figures, listener, overlay: Path, window: float, settle: float,
          scratch: Path) -> None:
    """The bridge process at real-time factor 1: what it keeps up over ``window`` [s] of wall
    time, ``settle`` [s] after its camera started."""
    ns = '/bench_realtime'
    cmd = [sys.executable, '-m', 'body_bridge', 'sim', 'sample_arm', '--ros-args',
           '-r', f'__ns:={ns}', '-p', f'devices_file:={overlay}',
           '-p', f'mesh_directory:={scratch / "meshes"}', '-p', 'real_time_factor:=1.0']
    with open(scratch / 'realtime_bridge.log', 'w') as log:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    try:
        listener.send('add', ns=ns, cameras=True)
        _wait_for(listener, f'{ns}/{CAMERA}/image_raw', 60.0, proc,
                  scratch / 'realtime_bridge.log')
        # Past the start: the first frames (the renderer's context) put the bridge behind,
        # and it catches up (the pacing's deadlines are absolute).
        time.sleep(settle)
        listener.send('reset')
        cpu0, wall0 = _cpu_seconds(proc.pid), time.monotonic()
        time.sleep(window)
        report = listener.send('report')
        cpu = (_cpu_seconds(proc.pid) - cpu0) / (time.monotonic() - wall0)
    finally:
        listener.send('drop', ns=ns)
        proc.send_signal(2)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    sim0, wall0, sim1, wall1 = report['clock']
    counts = report['counts']
    span = wall1 - wall0
    figures.add('realtime_camera_rtf', (sim1 - sim0) / span, 'x')
    figures.add('realtime_camera_image_rate', counts.get(f'{ns}/{CAMERA}/image_raw', 0) / span,
                'Hz')
    figures.add('realtime_camera_depth_rate',
                counts.get(f'{ns}/{CAMERA}/depth/image', 0) / span, 'Hz')
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
