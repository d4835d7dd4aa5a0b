"""Recording: what a bag costs the run, and whether recording slows the running bridge.

    python bench/recording.py [--quick] [--seconds S]

* ``record``: ``python -m body_bridge record SR1 --duration 60`` (every device of SR1, its two
  cameras included, every topic written), and the same without the cameras' topics, against
  raw ``mj_step`` of the same compiled model over the same simulated time (measured between
  and around them, the median taken). The ratio is raw CPU time over the recording's CPU time
  while it steps (the command's own figure: every thread of the process, the renderer's and
  the bag writer's included, without its start-up); wall-time ratios beside; the bags' sizes.
  Without the real model corpus, the sample arm.
* ``live``: the bridge at real-time factor 1 (the sample arm), once recording (``record:=DIR``,
  so every device is computed and written) and once not, alternately: the command-to-state
  latency from another process (``bench/latency.py``) and the real-time factor of its status
  lines. The hand camera is off on both sides: rendering costs the same for any consumer (a
  DDS subscriber, the bag, Foxglove; ``realtime`` and ``throughput`` measure it), and with it
  on, a side that records renders and one that does not, does not.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import REPO, Figures, have_corpus, isolate_dds, percentile, shared_model

__all__ = ['run']


def _model() -> tuple[str, str]:
    if have_corpus():
        return 'sr1', str(shared_model('choreonoid/share/model/SR1/SR1.body'))
    return 'sample_arm', 'sample_arm'


def raw_seconds(model: str, seconds: float) -> tuple[float, float]:
    """(wall, CPU) time of raw ``mj_step`` over ``seconds`` of simulated time [s]."""
    import mujoco

    from body_bridge.formats import load_model
    from body_bridge.paths import resolve_model
    from body_bridge.sim.simulation import SimOptions, Simulation
    sim = Simulation(load_model(resolve_model(model)), SimOptions())
    world = sim.world
    data = mujoco.MjData(world.mj)
    mujoco.mj_copyData(data, world.mj, world.data)
    steps = int(round(seconds / world.mj.opt.timestep))
    start, cpu = time.perf_counter(), time.thread_time()
    mujoco.mj_step(world.mj, data, nstep=steps)
    return time.perf_counter() - start, time.thread_time() - cpu


def record_seconds(model: str, seconds: float, bag: Path,
                   topics=()) -> tuple[float, float, int, int]:
    """(stepping wall time [s], its CPU time, all threads [s], bag size [bytes], messages)
    of one ``record`` run."""
    cmd = [sys.executable, '-m', 'body_bridge', 'record', model, '-o', str(bag),
           '--duration', str(seconds)]
    if topics:
        cmd += ['--topics', *topics]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f'record failed: {done.stderr}')
    found = re.search(r'(\d+) messages, [\d.]+ s simulated in ([\d.]+) s \(CPU ([\d.]+) s\)',
                      done.stdout)
    size = sum(p.stat().st_size for p in bag.iterdir())
    shutil.rmtree(bag)
    return float(found.group(2)), float(found.group(3)), size, int(found.group(1))


def _without_cameras(model: str) -> list[str]:
    """Every topic of the model but its cameras'."""
    from body_bridge.formats import load_model
    from body_bridge.paths import resolve_model
    from body_bridge.ros.devices.graph import device_topics
    topics = ['/joint_states', '/tf', '/tf_static', '/clock', '/robot_description']
    for entry in device_topics(load_model(resolve_model(model))):
        topics += ['/' + t.name for t in entry.topics
                   if t.type not in ('sensor_msgs/msg/Image', 'sensor_msgs/msg/CameraInfo')]
    return topics


def record(figures: Figures, quick: bool, scratch: Path) -> None:
    name, model = _model()
    seconds = 5.0 if quick else 60.0
    raws = [raw_seconds(model, seconds)]
    wall, cpu, size, count = record_seconds(model, seconds, scratch / 'bag')
    raws.append(raw_seconds(model, seconds))
    nwall, ncpu, nsize, _ = record_seconds(model, seconds, scratch / 'bag',
                                           _without_cameras(model))
    raws.append(raw_seconds(model, seconds))
    raw_wall = statistics.median(r[0] for r in raws)
    raw_cpu = statistics.median(r[1] for r in raws)
    figures.add(f'record_{name}_simulated', seconds, 's')
    figures.add(f'record_{name}_raw_cpu', raw_cpu, 's')
    figures.add(f'record_{name}_cpu', cpu, 's')
    figures.add(f'record_{name}_ratio', raw_cpu / cpu, 'x')
    figures.add(f'record_{name}_ratio_wall', raw_wall / wall, 'x')
    figures.add(f'record_{name}_bag_size', size / 1e6, 'MB')
    figures.add(f'record_{name}_messages', count, 'count')
    figures.add(f'record_{name}_no_cameras_cpu', ncpu, 's')
    figures.add(f'record_{name}_no_cameras_ratio', raw_cpu / ncpu, 'x')
    figures.add(f'record_{name}_no_cameras_ratio_wall', raw_wall / nwall, 'x')
    figures.add(f'record_{name}_no_cameras_bag_size', nsize / 1e6, 'MB')


def _live(samples: int, bag: Path | None) -> tuple[list[float], list[float]]:
    """Latencies [ms] and the status lines' real-time factors of one bridge run."""
    sys.path.insert(0, str(REPO / 'bench'))
    import latency
    args = latency._arguments(['--samples', str(samples)])
    with tempfile.TemporaryFile('w+') as log:
        cmd = [sys.executable, '-m', 'body_bridge', 'sim', args.model, '--ros-args',
               '-r', '__ns:=/latency_bench', '-p', 'real_time_factor:=1.0',
               '-p', 'devices.hand_camera.on:=false']
        if bag is not None:
            cmd += ['-p', f'record:={bag}']
        bridge = subprocess.Popen(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
        try:
            ms = [1e3 * x for x in latency.measure(args)]
            time.sleep(5.5)  # one more status line
        finally:
            bridge.send_signal(2)
            bridge.wait(timeout=30)
        log.seek(0)
        text = log.read()
    factors = [float(x) for x in re.findall(r'real-time factor ([\d.]+)', text)][1:]
    if bag is not None and 'messages dropped' in text:
        raise RuntimeError('the recording dropped messages')
    return ms, factors


def live(figures: Figures, quick: bool, scratch: Path, samples: int | None = None) -> None:
    samples, rounds = (30, 1) if quick else (samples or 300, 2)
    results = {'off': ([], []), 'on': ([], [])}
    for k in range(rounds):
        for side in (('off', 'on') if k % 2 == 0 else ('on', 'off')):
            bag = scratch / f'live{k}' if side == 'on' else None
            ms, factors = _live(samples, bag)
            results[side][0].extend(ms)
            results[side][1].extend(factors)
            if bag is not None:
                shutil.rmtree(bag)
    for side, (ms, factors) in results.items():
        name = 'recording' if side == 'on' else 'not_recording'
        figures.add(f'live_{name}_latency_median', percentile(ms, 0.5), 'ms')
        figures.add(f'live_{name}_latency_p99', percentile(ms, 0.99), 'ms')
        figures.add(f'live_{name}_real_time_factor',
                    statistics.median(factors) if factors else float('nan'), 'x')


def run(figures: Figures, quick: bool, scratch: Path) -> None:
    record(figures, quick, scratch)
    live(figures, quick, scratch)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='briefly')
    parser.add_argument('--only', choices=('record', 'live'))
    parser.add_argument('--samples', type=int, help='commands timed per live run (300)')
    args = parser.parse_args(argv)
    isolate_dds()
    figures = Figures()
    with tempfile.TemporaryDirectory(prefix='body_bridge_bench_') as scratch:
        if args.only != 'live':
            record(figures, args.quick, Path(scratch))
        if args.only != 'record':
            live(figures, args.quick, Path(scratch), args.samples)
    return 0


if __name__ == '__main__':
    sys.exit(main())
