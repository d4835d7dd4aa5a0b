"""Memory: the resident size of a bridge process after loading each model and after running.

Every model runs in its own bridge process (``python -m body_bridge sim``, real-time factor 1,
all at once), with a subscriber in another process on every topic (cameras included), as in
use. Resident sizes [MB] from ``/proc``: when the bridge has published its first
``joint_states`` (the model loaded, the URDF written, the world compiled: ``loaded``; the
cameras are subscribed to after that, so that they render only from then on), after a
warm-up, and at the end of the run (``after_run``, 60 s of running). ``growth`` is the end
less the warm-up: what running adds once everything is allocated, 0 when nothing leaks.
``memory_python_baseline`` is a process that has imported rclpy, mujoco and the bridge and
loaded nothing.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from chains import model_path, real_models, write_chain
from figures import REPO, rss_mb

__all__ = ['run']

_BASELINE = ('import sys; sys.path.insert(0, sys.argv[1]); import mujoco, numpy, rclpy; '
             'import body_bridge.ros.node.node, body_bridge.sim.simulation; '
             'from figures import rss_mb; print(rss_mb())')


def _baseline() -> float:
    out = subprocess.run([sys.executable, '-c', _BASELINE, str(REPO / 'bench')], cwd=REPO,
                         capture_output=True, text=True, check=True, timeout=120)
    return float(out.stdout.split()[-1])


def _start(name: str, model, scratch: Path) -> subprocess.Popen:
    cmd = [sys.executable, '-m', 'body_bridge', 'sim', str(model), '--ros-args',
           '-r', f'__ns:=/bench_memory_{name}', '-p', f'mesh_directory:={scratch / "meshes"}']
    log = open(scratch / f'memory_{name}.log', 'w')
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    return proc


def run(figures, listener, quick: bool, scratch: Path) -> None:
    warm_up, length = (2.0, 6.0) if quick else (10.0, 60.0)
    models = {name: model_path(name) for name in real_models()}
    models['chain30'] = write_chain(scratch, 30, imus=1, force_sensor=True)
    models['sample_arm'] = model_path('sample_arm')
    figures.add('memory_python_baseline', _baseline(), 'MB')
    procs = {name: _start(name, model, scratch) for name, model in models.items()}
    loaded: dict[str, float] = {}
    try:
        for name in procs:  # cameras once every model is loaded: not in 'loaded'
            listener.send('add', ns=f'/bench_memory_{name}', cameras=False)
        deadline = time.monotonic() + 120.0
        while len(loaded) < len(procs):
            counts = listener.send('report')['counts']
            for name, proc in procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f'the {name} bridge exited with status '
                                       f'{proc.returncode} (log: {scratch}/memory_{name}.log)')
                if name not in loaded and counts.get(f'/bench_memory_{name}/joint_states'):
                    loaded[name] = rss_mb(proc.pid)
            if time.monotonic() > deadline:
                raise TimeoutError(f'bridges not started: {sorted(set(procs) - set(loaded))}')
            time.sleep(0.05)
        for name in procs:
            listener.send('add', ns=f'/bench_memory_{name}', cameras=True)
        start = time.monotonic()
        time.sleep(warm_up)
        warm = {name: rss_mb(proc.pid) for name, proc in procs.items()}
        time.sleep(max(0.0, length - (time.monotonic() - start)))
        end = {name: rss_mb(proc.pid) for name, proc in procs.items()}
    finally:
        for name, proc in procs.items():
            listener.send('drop', ns=f'/bench_memory_{name}')
            proc.send_signal(2)
        for proc in procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    figures.add('memory_run_time', length, 's')
    for name in models:
        figures.add(f'memory_{name}_loaded', loaded[name], 'MB')
        figures.add(f'memory_{name}_after_run', end[name], 'MB')
        figures.add(f'memory_{name}_growth', end[name] - warm[name], 'MB')
