"""The runs of a sweep over this machine's cores: one process per run, resumable, safe to
interrupt.

Each run is a child forked from this process (which imported numpy, MuJoCo and rclpy once,
and never initialised ROS): it takes a free ROS domain (:func:`domain_lock`), writes its
output into its own folder and exits. A child that dies without its ``result.json`` (killed,
out of memory) is run again, up to ``retries`` times; a folder without ``result.json`` left by
an earlier, interrupted sweep is removed and its run started again. Ctrl-C (SIGINT) or SIGTERM
stops every child (each stops the nodes it started), writes the table of what finished and
returns 130; the same command again runs only what is missing.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time

from ..errors import ModelError
from .run import NODES_PID, RESULT, isolate, run_one
from .targets import Plan

__all__ = ['run_local', 'prepare', 'run_folder', 'domain_lock', 'time_limit', 'Progress', 'DOMAINS']

#: The ROS domains runs take (each held by one run at a time on this machine).
DOMAINS = range(100, 200)
#: How often the pool looks for runs that ended or hang [s].
POLL = 0.02
_STAMP = 'sweep.json'


def run_folder(out_dir: str, index: int) -> str:
    return os.path.join(out_dir, 'runs', f'{index:05d}')


def domain_lock(domains=DOMAINS):
    """(domain, open lock file) of a ROS domain no other run on this machine holds; the lock
    goes with the file (or the process)."""
    folder = os.path.join(tempfile.gettempdir(), 'body_bridge_domains')
    os.makedirs(folder, exist_ok=True)
    for domain in domains:
        f = open(os.path.join(folder, f'{domain}.lock'), 'w')
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return domain, f
        except OSError:
            f.close()
    raise RuntimeError(f'every ROS domain {domains.start}..{domains.stop - 1} is held')


def prepare(plan: Plan, out_dir: str) -> list[int]:
    """The output folder made (or checked to hold this same sweep) and the indices of the
    runs still to do; folders of unfinished runs are removed.

    Raises:
        ModelError: ``out_dir`` holds the runs of a different sweep file.
    """
    sweep = plan.sweep
    digest = hashlib.sha256(sweep.text.encode()).hexdigest()
    os.makedirs(os.path.join(out_dir, 'runs'), exist_ok=True)
    stamp = os.path.join(out_dir, _STAMP)
    if os.path.exists(stamp):
        with open(stamp, encoding='utf-8') as f:
            old = json.load(f)
        if old.get('sha256') != digest:
            raise ModelError(sweep.path, None, f'{out_dir} holds the runs of '
                             f'{old.get("path")} as it was then; the sweep file differs '
                             '(give another -o, or remove that folder)')
    else:
        with open(stamp, 'w', encoding='utf-8') as f:
            json.dump({'path': sweep.path, 'sha256': digest, 'runs': sweep.runs}, f)
    todo = []
    for index in range(sweep.runs):
        folder = run_folder(out_dir, index)
        if os.path.exists(os.path.join(folder, RESULT)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        todo.append(index)
    return todo


class Progress:
    """One line of progress on standard error: runs done, failed, estimated time left."""

    def __init__(self, total: int, already: int, stream=None):
        self.total, self.done, self.failed, self.again = total, already, 0, 0
        self.stream = stream or sys.stderr
        self.started, self.first = time.monotonic(), already
        self.tty = hasattr(self.stream, 'isatty') and self.stream.isatty()

    def update(self, passed: bool | None = None, again: bool = False) -> None:
        if again:
            self.again += 1
        elif passed is not None:
            self.done += 1
            self.failed += not passed
        ran = self.done - self.first
        left = ''
        if ran:
            rate = (time.monotonic() - self.started) / ran
            left = f', about {rate * (self.total - self.done):.0f} s left'
        width = 24
        filled = int(width * self.done / self.total)
        line = (f'[{"#" * filled}{"." * (width - filled)}] {self.done}/{self.total} runs, '
                f'{self.failed} failed' + (f', {self.again} run again' if self.again else '')
                + left)
        self.stream.write(('\r' + line + '   ') if self.tty else line + '\n')
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write('\n')
            self.stream.flush()


def _child(plan: Plan, index: int, out_dir: str) -> None:
    """The body of a forked child: never returns."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us (SIGTERM)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        folder = run_folder(out_dir, index)
        os.makedirs(folder, exist_ok=True)
        log = os.open(os.path.join(folder, 'run.log'), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(log, 1)
        os.dup2(log, 2)
        domain, _held = domain_lock()
        isolate(domain, bool(plan.sweep.nodes))
        run_one(plan, index, folder)
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # noqa: BLE001 - said in the run's log; the parent re-runs it
        import traceback
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def time_limit(plan: Plan) -> float:
    """Wall time a run may take before it is killed and run again [s]: ten times its
    simulated duration at its pace (or at 1 as fast as it can), and a minute more."""
    sweep = plan.sweep
    return 60.0 + 10.0 * sweep.duration / (sweep.real_time_factor or 1.0)


def _stop_nodes_of(folder: str) -> None:
    """The nodes alongside a run that was killed: ended with their process group."""
    try:
        with open(os.path.join(folder, NODES_PID), encoding='utf-8') as f:
            os.killpg(int(f.read()), signal.SIGKILL)
    except (OSError, ValueError):
        pass


def run_local(plan: Plan, out_dir: str, todo: list[int], jobs: int, progress: Progress,
              retries: int = 2, limit: float | None = None) -> tuple[list[int], bool]:
    """Run ``todo`` with at most ``jobs`` children at once; (indices lost after
    ``retries`` re-runs, whether it was interrupted). A run past ``limit`` seconds of wall
    time (default :func:`time_limit`) is killed and counts as dead."""
    queue, running, attempts, lost = list(todo), {}, {}, []
    limit = limit or time_limit(plan)
    started: dict[int, float] = {}
    # Ctrl-C and SIGTERM only raise a flag the loop reads: an exception raised by a handler
    # can land inside code that swallows it (logging's at-fork handlers, run around each
    # fork, print "Exception ignored" and go on), and the sweep would run on.
    stop: list[int] = []
    parent = os.getpid()

    def on_signal(signum, _frame):
        if os.getpid() != parent:  # a child before its own handlers: it stops at once
            os._exit(128 + signum)
        stop.append(signum)
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while (queue or running) and not stop:
            while queue and len(running) < jobs and not stop:
                index = queue.pop(0)
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    _child(plan, index, out_dir)
                running[pid], started[pid] = index, time.monotonic()
            pid, _ = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                late = [p for p in running if time.monotonic() - started[p] > limit]
                for p in late:
                    os.kill(p, signal.SIGKILL)  # hung: reaped next turn, run again
                time.sleep(POLL)
                continue
            index = running.pop(pid, None)
            if index is None:
                continue
            result = os.path.join(run_folder(out_dir, index), RESULT)
            if os.path.exists(result):
                with open(result, encoding='utf-8') as f:
                    progress.update(passed=json.load(f).get('passed', False))
                continue
            attempts[index] = attempts.get(index, 0) + 1
            _stop_nodes_of(run_folder(out_dir, index))
            shutil.rmtree(run_folder(out_dir, index), ignore_errors=True)
            if attempts[index] <= retries:
                queue.insert(0, index)
                progress.update(again=True)
            else:
                lost.append(index)
                progress.update(passed=False)
        if stop:
            for pid in running:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            for pid in running:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return lost, bool(stop)
