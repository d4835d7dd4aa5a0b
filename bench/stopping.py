"""Stopping the bridge: a signal at any moment of its life, and many start/stop cycles.

    nice -n 10 .venv/bin/python bench/stopping.py --cycles 300            # camera subscribed
    nice -n 10 .venv/bin/python bench/stopping.py --spread                # signals at 0.05-2 s

``--cycles N`` starts ``python -m body_bridge sim sample_arm`` N times, one after the other,
subscribes to its hand camera's images from this process, waits for the first image, lets
it run a random 0 to 1 s more and sends SIGINT (every third cycle SIGTERM). ``--spread``
sends the signal at fixed delays after the start instead (the model loading, rclpy
initialising, the first periods). Each process runs with ``PYTHONFAULTHANDLER=1``, so a crash
prints every thread's stack; the report counts exits that were not 0 or 130 (a crash is
-11, SIGSEGV), tracebacks on standard error, and stops slower than the bound, and keeps the
standard error of each bad one under ``--keep DIR``. Prints ``name value unit`` lines.

Not part of the test suite (``test/test_stopping.py`` runs a short spread): a few hundred
cycles take tens of minutes. Runs one bridge at a time, so it does not hog a shared machine.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: A stop must end the process within this many seconds of the signal.
BOUND = 2.0
#: Statuses of a clean stop: 0, or 130 (128 + SIGINT, as shells report Ctrl-C).
CLEAN = (0, 130)


@dataclass
class Stop:
    """One bridge process stopped by a signal."""

    delay: float        # [s] from the start to the signal
    signum: int
    status: int | None  # None: it did not end within the wait
    seconds: float      # [s] from the signal to the end
    stderr: str

    @property
    def clean(self) -> bool:
        return self.status in CLEAN and not self.stderr.startswith('ended before') and \
            'Traceback' not in self.stderr and 'Fatal Python error' not in self.stderr


def environment(domain: int | None = None) -> dict:
    env = dict(os.environ, PYTHONFAULTHANDLER='1', ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    if domain is not None:
        env['ROS_DOMAIN_ID'] = str(domain)
    return env


def command(models: list[str], entry: str = 'cli') -> list[str]:
    """The command line of a bridge: ``python -m body_bridge sim`` (cli) or the ``bridge``
    entry point (``ros2 run body_bridge bridge``)."""
    if entry == 'cli':
        return [sys.executable, '-m', 'body_bridge', 'sim', *models]
    script = 'import sys; from body_bridge.ros.process.launcher import main; main()'
    return [sys.executable, '-c', script, *models]


def start(models: list[str], entry: str = 'cli', env: dict | None = None,
          folder: str | None = None) -> tuple[subprocess.Popen, Path]:
    """A bridge process, its standard output thrown away, its standard error in a file."""
    folder = Path(folder or tempfile.mkdtemp(prefix='stopping_'))
    err = folder / f'stderr_{time.monotonic_ns()}.txt'
    with open(err, 'w') as f:
        proc = subprocess.Popen(command(models, entry), cwd=REPO, env=env or environment(),
                                stdout=subprocess.DEVNULL, stderr=f)
    return proc, err


def stop(proc: subprocess.Popen, err: Path, signum: int, delay: float,
         wait: float = 20.0) -> Stop:
    """Send ``signum`` and wait for the end (killed after ``wait`` seconds)."""
    sent = time.monotonic()
    proc.send_signal(signum)
    try:
        status = proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        status = None
    seconds = time.monotonic() - sent
    text = err.read_text(errors='replace')
    err.unlink()
    try:
        err.parent.rmdir()  # the folder start() made (a folder given keeps its other files)
    except OSError:
        pass
    return Stop(delay, signum, status, seconds, text)


def interrupt(models: list[str], delay: float, signum: int = signal.SIGINT,
              entry: str = 'cli', env: dict | None = None) -> Stop:
    """Start a bridge, send ``signum`` ``delay`` seconds later, wait for its end."""
    proc, err = start(models, entry, env)
    time.sleep(max(0.0, delay - 0.0))
    if proc.poll() is not None:  # it ended by itself: that is a failure of its own
        text = err.read_text(errors='replace')
        return Stop(delay, signum, proc.returncode, 0.0, 'ended before the signal\n' + text)
    return stop(proc, err, signum, delay)


def _camera_cycle(rclpy, node, rng, wait_image: float) -> Stop:
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import Image
    images = []
    sub = node.create_subscription(Image, '/hand_camera/image_raw', images.append,
                                   qos_profile_sensor_data)
    proc, err = start(['sample_arm'])
    begin = time.monotonic()
    try:
        while not images and time.monotonic() - begin < wait_image and proc.poll() is None:
            rclpy.spin_once(node, timeout_sec=0.05)
        end = time.monotonic() + rng.uniform(0.0, 1.0)
        while time.monotonic() < end:
            rclpy.spin_once(node, timeout_sec=0.05)
    finally:
        node.destroy_subscription(sub)
    signum = signal.SIGTERM if rng.random() < 1 / 3 else signal.SIGINT
    if proc.poll() is not None:
        return Stop(0.0, signum, proc.returncode, 0.0, 'ended before the signal\n' +
                    err.read_text(errors='replace'))
    result = stop(proc, err, signum, time.monotonic() - begin)
    if not images:
        result.stderr = 'no image arrived\n' + result.stderr
    return result


def _report(name: str, stops: list[Stop], keep: str | None) -> int:
    bad = [s for s in stops if not s.clean or s.seconds > BOUND]
    crashes = sum(1 for s in stops if s.status is not None and s.status < 0)
    print(f'{name}_runs {len(stops)} count')
    print(f'{name}_crashes {crashes} count')
    print(f'{name}_not_clean {sum(1 for s in stops if not s.clean)} count')
    print(f'{name}_slower_than_bound {sum(1 for s in stops if s.seconds > BOUND)} count')
    if stops:
        print(f'{name}_stop_seconds_max {max(s.seconds for s in stops):.2f} s')
    if keep and bad:
        os.makedirs(keep, exist_ok=True)
        for i, s in enumerate(bad):
            Path(keep, f'{name}_{i}.txt').write_text(
                f'delay {s.delay:.2f} s, {signal.Signals(s.signum).name}, status {s.status}, '
                f'{s.seconds:.2f} s\n{s.stderr}')
    for s in bad:
        lines = s.stderr.strip().splitlines()
        print(f'# {name}: delay {s.delay:.2f} s {signal.Signals(s.signum).name}: status '
              f'{s.status} after {s.seconds:.2f} s: {lines[-1] if lines else ""}',
              file=sys.stderr)
    return len(bad)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--cycles', type=int, default=0,
                        help='start/stop cycles with the hand camera subscribed')
    parser.add_argument('--spread', action='store_true',
                        help='signals at delays from 0.05 to 2 s, each entry and signal')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--keep', help='folder for the standard error of bad stops')
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    domain = rng.randint(101, 200)
    os.environ.update(environment(domain))
    bad = 0
    if args.spread:
        delays = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.5, 2.0]
        for entry, models in (('cli', ['sample_arm']), ('bridge', ['sample_arm']),
                              ('cli', ['a=sample_arm', 'b=sample_arm'])):
            for signum in (signal.SIGINT, signal.SIGTERM):
                stops = [interrupt(models, d, signum, entry) for d in delays]
                name = f'{entry}_{len(models)}_{signal.Signals(signum).name.lower()}'
                bad += _report(name, stops, args.keep)
    if args.cycles:
        import rclpy
        rclpy.init()
        node = rclpy.create_node('stopping_probe')
        stops = []
        try:
            for i in range(args.cycles):
                stops.append(_camera_cycle(rclpy, node, rng, wait_image=60.0))
                last = stops[-1]
                print(f'# cycle {i}: {"clean" if last.clean else "NOT CLEAN"}, status '
                      f'{last.status}, {last.seconds:.2f} s', file=sys.stderr, flush=True)
        finally:
            node.destroy_node()
            rclpy.shutdown()
        bad += _report('camera_cycles', stops, args.keep)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
