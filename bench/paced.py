"""A bridge in a process of its own, paced at real time, watched by the listener process.

:func:`watch_paced` starts ``python -m body_bridge sim ...``, has the listener subscribe, waits
until the first message of a topic arrives, lets the bridge settle, then measures a window of
wall time: what the listener heard (its report: message counts, the first and last ``/clock``
with the wall times they arrived) and the CPU the bridge's process used. ``realtime.py``,
``tracks.py`` and ``sensor_costs.py`` measure their paced figures with it.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from figures import REPO

__all__ = ['cpu_seconds', 'wait_for', 'watch_paced', 'rates']


def cpu_seconds(pid: int) -> float:
    """CPU time a process has used so far (user and system, every thread) [s]."""
    with open(f'/proc/{pid}/stat') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def wait_for(listener, topic: str, timeout: float, proc=None, log: Path | None = None) -> None:
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


def watch_paced(listener, cmd: list[str], ns: str, log: Path, first: str, settle: float,
                window: float, started: Callable[[], None] | None = None,
                **subscribe) -> tuple[dict, float]:
    """Run the bridge ``cmd`` (its namespace ``ns``, its output into ``log``) and watch it.

    Args:
        first: the topic whose first message says the bridge is up.
        settle: wall time [s] after that before the window starts (the first frames put the
            bridge behind, and it catches up: its pacing's deadlines are absolute).
        window: the wall time measured [s].
        started: called once the bridge is up, before settling (to start driving it).
        subscribe: the listener's ``add`` request (``cameras=...`` or ``topics=...``).

    Returns:
        (the listener's report at the window's end, the bridge's CPU use [cores]).

    Raises:
        RuntimeError: the bridge exited, or the listener heard no ``/clock`` from it in the
            window (the error holds what it heard and the end of the bridge's output).
        TimeoutError: nothing on ``first``, or on ``/clock``, within 60 s.
    """
    with open(log, 'w') as out:
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    try:
        listener.send('add', ns=ns, **subscribe)
        wait_for(listener, first, 60.0, proc, log)
        wait_for(listener, '/clock', 60.0, proc, log)  # the window's span is measured on it
        if started is not None:
            started()
        time.sleep(settle)
        listener.send('reset')
        cpu0, wall0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(window)
        report = listener.send('report')
        for _ in range(30):  # a loaded machine can hold the listener's first /clock back
            if report.get('clock') is not None:
                break
            time.sleep(1.0)
            report = listener.send('report')
        cpu = (cpu_seconds(proc.pid) - cpu0) / (time.monotonic() - wall0)
    finally:
        listener.send('drop', ns=ns)
        proc.send_signal(2)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if report.get('clock') is None:
        heard = {t: n for t, n in report['counts'].items() if n}
        tail = '\n'.join(log.read_text(errors='replace').splitlines()[-15:])
        raise RuntimeError(f'{ns}: the listener heard no /clock from the bridge in the window '
                           f'(it heard {heard or "nothing"}); the bridge said:\n{tail}')
    return report, cpu


def rates(report: dict, *topics: str) -> tuple[float, ...]:
    """The real-time factor the listener saw on ``/clock``, then each topic's rate [Hz]."""
    sim0, wall0, sim1, wall1 = report['clock']
    span = wall1 - wall0
    return ((sim1 - sim0) / span, *(report['counts'].get(t, 0) / span for t in topics))
