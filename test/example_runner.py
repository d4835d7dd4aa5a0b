"""Running an example program beside a bridge: the example in its own process, its topic
watched from this one while it runs, and the example's exit status and output checked."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO
from test_end_to_end import STARTUP, spin_until


def watch(ros, proc, name: str, msg_type, topic: str, qos) -> tuple[object, list]:
    """A node of this process recording ``topic``; returns once the bridge ``proc`` publishes
    on it (the test fails if it exits or stays silent for STARTUP)."""
    node = ros.create_node(name)
    seen: list = []
    node.create_subscription(msg_type, topic, seen.append, qos)
    spin_until(ros, node, lambda: len(seen) > 0, STARTUP, topic, proc)
    return node, seen


def run_example(ros, node, proc, example: Path, seconds: float, settle: int = 0) -> str:
    """Run ``example --wait STARTUP`` to its end (killed after STARTUP + ``seconds``), the
    watching ``node`` spinning meanwhile and ``settle`` turns after, which also destroys it.

    Returns:
        What the example printed on standard output (the test has failed if its status is
        not 0: the message holds its output and the bridge's).
    """
    run = subprocess.Popen([sys.executable, str(example), '--wait', str(STARTUP)], cwd=REPO,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + STARTUP + seconds
    while run.poll() is None and time.monotonic() < deadline:
        ros.spin_once(node, timeout_sec=0.05)
    if run.poll() is None:
        run.kill()
    out, err = run.communicate(timeout=10)
    for _ in range(settle):
        ros.spin_once(node, timeout_sec=0.05)
    node.destroy_node()
    assert run.returncode == 0, out + err + proc.output()
    return out


def without_bridge(example: Path) -> subprocess.CompletedProcess:
    """The example run with no bridge to talk to, waiting 1 s for one."""
    return subprocess.run([sys.executable, str(example), '--wait', '1'], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
