"""Sweep throughput: runs per minute of the example sweep with one job and with two, side by
side in one run, and what a run costs beyond its own stepping.

    nice -n 0 .venv/bin/python bench/sweep.py [--runs 8] [--repeats 2]

Each repeat runs ``examples/sweep/crate_push.sweep.yaml`` (``runs`` changed) into a new folder
with ``--jobs 1`` and then ``--jobs 2``, each as ``python -m body_bridge sweep`` from a fresh
process, as a user runs it. Printed, one ``name value unit`` line each (best of the repeats):

* ``sweep_jobs1_runs_per_minute``, ``sweep_jobs2_runs_per_minute`` and their ``speedup``;
* ``sweep_run_stepping``: a run's stepping alone (its ``wall`` in ``result.json``, the median);
* ``sweep_run_overhead``: what a run's process spends beyond its stepping (the median of its
  ``wall_total`` less its ``wall``): the world's build, the nodes, the bag's close, the checks;
  forking it costs about a millisecond more;
* ``sweep_start``: reading, checking and resolving the sweep file and writing the table (the
  sweep's wall time less the runs' own, with one job);
* ``machine_load_average_start`` / ``_end``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / 'examples' / 'sweep' / 'crate_push.sweep.yaml'


def one(sweep: Path, jobs: int, out: Path) -> tuple[float, list[dict]]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, '-m', 'body_bridge', 'sweep', str(sweep), '-o',
                           str(out), '--jobs', str(jobs)], cwd=REPO, capture_output=True,
                          text=True)
    wall = time.monotonic() - started
    if done.returncode not in (0, 1):
        sys.exit(f'the sweep failed: {done.stderr.strip()}')
    results = [json.loads(p.read_text()) for p in sorted(out.glob('runs/*/result.json'))]
    return wall, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=8)
    parser.add_argument('--repeats', type=int, default=2)
    args = parser.parse_args()
    print(f'machine_load_average_start {os.getloadavg()[0]:.2f} 1')
    data = yaml.safe_load(EXAMPLE.read_text())
    data['runs'] = args.runs
    sweep = EXAMPLE.parent / f'.bench_{os.getpid()}.sweep.yaml'
    sweep.write_text(yaml.safe_dump(data, sort_keys=False))
    walls = {1: [], 2: []}
    stepping, overhead, start = [], [], []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for repeat in range(args.repeats):
                for jobs in (1, 2):
                    wall, results = one(sweep, jobs, Path(tmp) / f'{repeat}_{jobs}')
                    assert len(results) == args.runs
                    walls[jobs].append(wall)
                    if jobs == 1:
                        steps = [r['wall'] for r in results]
                        totals = [r['wall_total'] for r in results]
                        stepping.append(statistics.median(steps))
                        overhead.append(statistics.median(t - s for t, s in zip(totals, steps)))
                        start.append(wall - sum(totals))
    finally:
        sweep.unlink()
    best = {jobs: min(w) for jobs, w in walls.items()}
    for jobs in (1, 2):
        print(f'sweep_jobs{jobs}_runs_per_minute {60 * args.runs / best[jobs]:.1f} runs/min')
    print(f'sweep_speedup {best[1] / best[2]:.2f} 1')
    print(f'sweep_run_stepping {min(stepping):.3f} s')
    print(f'sweep_run_overhead {min(overhead):.3f} s')
    print(f'sweep_start {min(start):.3f} s')
    print(f'machine_load_average_end {os.getloadavg()[0]:.2f} 1')


if __name__ == '__main__':
    main()
