"""``python -m body_bridge sweep FILE -o DIR [--jobs N] [--cluster ADDRESS]``.

Reads and checks the sweep file and its world (one line and exit status 2 on anything wrong,
before any run starts), runs what ``DIR`` does not hold yet, writes the table and prints one
summary line. Exit status: 0 when every run passed, 1 when some did not, 2 on bad input, 130
when interrupted (the same command again runs what is missing).
"""

from __future__ import annotations

import os
import sys

__all__ = ['sweep_command', 'default_jobs']


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def sweep_command(path: str, out_dir: str, jobs: int | None = None,
                  cluster: str | None = None, retries: int = 2, stream=None) -> int:
    import signal

    from ..errors import BodyBridgeError
    from ..ros.process.stopping import restore
    from .pool import Progress, prepare, run_local
    from .spec import read_sweep
    from .table import collect, summary_line, write_table
    from .targets import resolve
    stream = stream or sys.stderr
    # Ctrl-C interrupts the runs (pool.py stops them and the table is written), not the
    # bridge's quick exit (ros/process/stopping.py): this process runs no ROS itself.
    restore()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        sweep = read_sweep(path)
        plan = resolve(sweep)
        todo = prepare(plan, out_dir)
    except BodyBridgeError as err:
        print(err, file=sys.stderr)
        return 2
    progress = Progress(sweep.runs, sweep.runs - len(todo), stream)
    if todo and not cluster:
        progress.update()
    if cluster:
        from .cluster import run_cluster
        try:
            lost, interrupted = run_cluster(plan, out_dir, todo, cluster, progress, retries)
        except OSError as err:
            print(f'--cluster {cluster}: no Dask scheduler answers ({err})', file=sys.stderr)
            return 2
        except ValueError as err:  # not an address
            print(f'--cluster {cluster}: {err}', file=sys.stderr)
            return 2
    else:
        lost, interrupted = run_local(plan, out_dir, todo, jobs or default_jobs(), progress,
                                      retries)
    progress.close()
    rows = collect(sweep, out_dir, lost)
    written = write_table(sweep, out_dir, rows)
    print(f'{summary_line(rows)}; table: {", ".join(written)}')
    if interrupted:
        print('interrupted: the same command again runs the runs that are missing',
              file=sys.stderr)
        return 130
    return 0 if all(r['passed'] for r in rows) else 1
