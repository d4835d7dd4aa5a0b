"""examples/scenario.py against a sample-arm bridge in another process: every step answers as
expected and the crate it spawns 5 cm above the floor rests on it."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)
pytest.importorskip('simulation_interfaces', reason='simulation_interfaces is not built here')

from conftest import REPO, SAMPLE_ARM
from test_end_to_end import STARTUP

EXAMPLE = REPO / 'examples' / 'scenario.py'
STATE = re.compile(r'  crate at \((\S+), (\S+), (\S+)\) m')


def test_the_scenario_runs_with_the_standard_services_only(bridge):
    proc = bridge(SAMPLE_ARM, '-r', '__ns:=/scn')
    run = subprocess.run([sys.executable, str(EXAMPLE), '--wait', str(STARTUP),
                          '--ros-args', '-r', '__ns:=/scn'],
                         cwd=REPO, capture_output=True, text=True, timeout=STARTUP + 180)
    assert run.returncode == 0, run.stdout + run.stderr + proc.output()
    out = run.stdout
    for line in ('pause: ok', 'spawn crate (crate.body) at (0.35, 0.15, 0.1): ok',
                 'spawn can (can.kinbody.xml) at (0.35, -0.1, 0.11): ok',
                 'delete crate: ok',
                 'delete can: ok', 'scenario done'):
        assert line in out, out
    # Feedback comes after each step; a client that reads slowly may miss some (the
    # feedback topic keeps the last 10), never all.
    count = re.search(r'simulate 200 steps \((\d+) feedback messages\): ok', out)
    assert count and 0 < int(count.group(1)) <= 200, out
    rested, teleported, dropped = [tuple(map(float, m)) for m in STATE.findall(out)]
    assert rested == pytest.approx((0.35, 0.15, 0.05), abs=1e-3)  # half its 0.1 m on the floor
    assert teleported == pytest.approx((0.45, 0.0, 0.30), abs=1e-6)
    assert dropped[2] < 0.30  # it played: the crate fell from there
    assert 'body, ' in out and 'kinbody.xml' in out
