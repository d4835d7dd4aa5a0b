"""What every benchmark shares: the figures it reports, side-by-side timing, a DDS domain of
its own.

A *figure* is one ``name value unit`` line. Ratios are measured side by side: the two sides
run alternately, repetition after repetition, and each side's median is taken, so that a
burst of load from other processes on this shared machine hits both sides alike.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


class Figures:
    """The figures of one run, printed as they come and kept for the JSON file."""

    def __init__(self, out=sys.stdout):
        self.rows: list[dict] = []
        self._out = out

    def add(self, name: str, value: float, unit: str) -> None:
        """Record and print one figure (``value`` rounded to 4 significant digits)."""
        if name in self.names():
            raise ValueError(f'figure {name} reported twice')
        value = float(value)
        finite = math.isfinite(value)
        shown = f'{value:.4g}' if finite else str(value)
        # JSON has no infinity: null (the printed line says inf).
        self.rows.append({'name': name, 'value': float(shown) if finite else None,
                          'unit': unit})
        print(f'{name} {shown} {unit}', file=self._out, flush=True)

    def names(self) -> list[str]:
        return [row['name'] for row in self.rows]


def isolate_dds() -> None:
    """A DDS domain of our own, on this machine only (before rclpy is imported); the bridge
    and listener processes started later inherit it."""
    if 'ROS_DOMAIN_ID' not in os.environ:
        os.environ['ROS_DOMAIN_ID'] = str(random.Random(os.getpid()).randint(101, 200))
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ.pop('ROS_LOCALHOST_ONLY', None)
    os.environ.setdefault('MUJOCO_GL', 'egl')
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from body_bridge.ros.process.transport import use_bundled_fastdds_profile
    use_bundled_fastdds_profile()  # camera images need the large shared-memory segment


def side_by_side(sides: dict[str, Callable[[], Cost]], repeats: int) -> dict[str, Cost]:
    """Run each side once per repetition, alternating; the median of what each returns.

    Args:
        sides: name -> a function that runs one repetition and returns its cost.
        repeats: repetitions of every side.
    """
    costs: dict[str, list[Cost]] = {name: [] for name in sides}
    for k in range(repeats):
        order = list(sides.items())
        if k % 2:
            order.reverse()  # neither side always runs first
        for name, run in order:
            costs[name].append(run())
    return {name: Cost(statistics.median(c.wall for c in values),
                       statistics.median(c.cpu for c in values),
                       statistics.median(c.process for c in values))
            for name, values in costs.items()}


@dataclass(frozen=True)
class Cost:
    """What a piece of work cost: wall time [s], CPU time of the thread that did it [s] (its
    own work, without the time other processes took the core or it waited), and CPU time of
    the whole process meanwhile [s] (its other threads' too: the middleware's, the
    renderer's)."""

    wall: float
    cpu: float
    process: float = 0.0

    def __truediv__(self, n: float) -> Cost:
        return Cost(self.wall / n, self.cpu / n, self.process / n)


def timed(function: Callable[[], object]) -> Cost:
    """What one call costs."""
    wall, cpu, process = time.perf_counter(), time.thread_time(), time.process_time()
    function()
    return Cost(time.perf_counter() - wall, time.thread_time() - cpu,
                time.process_time() - process)


def percentile(values, fraction: float) -> float:
    """The value at ``fraction`` (0..1) of the sorted values (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def rss_mb(pid: int | None = None) -> float:
    """Resident set size [MB] of a process (this one by default), from /proc."""
    with open(f'/proc/{pid or "self"}/status') as status:
        for line in status:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError(f'no VmRSS for process {pid}')


def have_corpus() -> bool:
    """Whether the real model corpus is there (``$BODY_BRIDGE_MODELS`` or ../shared/models,
    looked up as the test suite does: ``body_bridge.corpus``)."""
    from body_bridge import corpus
    return corpus.present(corpus.models_dir())


def shared_model(relative: str) -> Path:
    """A file of the real model corpus, by its path in the corpus."""
    from body_bridge import corpus
    folder = corpus.models_dir()
    if not corpus.present(folder):
        raise FileNotFoundError(corpus.REASON)
    path = folder / relative
    if not path.exists():
        raise FileNotFoundError(f'{path}: not in the real model corpus at {folder}')
    return path
