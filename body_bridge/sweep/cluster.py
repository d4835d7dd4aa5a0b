"""The runs of a sweep on a Dask cluster (``--cluster ADDRESS``: a ``dask scheduler``).

Each run is one Dask task. The worker runs it in a process of its own
(``python -m body_bridge.sweep.remote``: its own ROS domain, as on one machine), in a
temporary folder, and returns the run's files; they are written here into ``-o DIR`` as a
local run writes them, ``result.json`` last. A task whose process dies, or whose worker is
lost, is retried by Dask (``retries``); one that fails every time is *lost* in the table. The
workers need body_bridge installed and the sweep file's folder and models at the same paths
(a shared file system, or the same checkout on every machine).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from .pool import Progress, run_folder
from .run import RESULT, write_whole
from .targets import Plan

__all__ = ['run_cluster', 'remote_run']


def remote_run(path: str, text: str, index: int, timeout: float) -> dict[str, bytes]:
    """On a worker: run ``index`` of the sweep (its ``text``, read as if at ``path``); the
    run folder's files, by path relative to it.

    Raises:
        RuntimeError: the run's process ended without a result (Dask retries the task).
    """
    with tempfile.TemporaryDirectory(prefix='body_bridge_sweep_') as tmp:
        text_file = os.path.join(tmp, 'sweep.yaml')
        with open(text_file, 'w', encoding='utf-8') as f:
            f.write(text)
        folder = os.path.join(tmp, 'run')
        os.makedirs(folder)
        with open(os.path.join(folder, 'run.log'), 'wb') as log:
            proc = subprocess.run(
                [sys.executable, '-m', 'body_bridge.sweep.remote', text_file, path, str(index),
                 folder], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                timeout=timeout)
        if proc.returncode != 0 or not os.path.exists(os.path.join(folder, RESULT)):
            with open(os.path.join(folder, 'run.log'), encoding='utf-8', errors='replace') as f:
                tail = ' '.join(f.read().split()[-40:])
            raise RuntimeError(f'run {index}: its process ended with status {proc.returncode}'
                               f' and no result: {tail}')
        files = {}
        for root, _, names in os.walk(folder):
            for name in names:
                full = os.path.join(root, name)
                with open(full, 'rb') as f:
                    files[os.path.relpath(full, folder)] = f.read()
        return files


def _write(folder: str, files: dict[str, bytes]) -> None:
    os.makedirs(folder, exist_ok=True)
    for rel in sorted(files, key=lambda r: r == RESULT):  # result.json last
        full = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        write_whole(full, files[rel])


def run_cluster(plan: Plan, out_dir: str, todo: list[int], address: str, progress: Progress,
                retries: int = 2, timeout: float | None = None) -> tuple[list[int], bool]:
    """Run ``todo`` on the Dask scheduler at ``address``; (indices lost, interrupted)."""
    import json

    from distributed import Client, as_completed
    sweep = plan.sweep
    limit = timeout or max(600.0, 50.0 * sweep.duration)
    lost, interrupted = [], False
    with Client(address, timeout=10) as client:
        if todo:
            progress.update()
        futures = {client.submit(remote_run, sweep.path, sweep.text, index, limit, pure=False,
                                 retries=retries, key=f'body_bridge-{sweep.name}-{index}-'
                                 f'{os.getpid()}'): index for index in todo}
        try:
            for future in as_completed(futures):
                index = futures[future]
                try:
                    files = future.result()
                except Exception:  # noqa: BLE001 - every retry failed: the run is lost
                    lost.append(index)
                    progress.update(passed=False)
                    continue
                _write(run_folder(out_dir, index), files)
                progress.update(passed=json.loads(files[RESULT]).get('passed', False))
        except KeyboardInterrupt:
            interrupted = True
            client.cancel(list(futures))
    return lost, interrupted
