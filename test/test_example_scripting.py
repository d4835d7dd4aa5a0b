"""examples/scripting.py against a sample-arm bridge in another process: every answer as
expected, the crate it spawns 5 cm above the floor rests on it, and the parameter it sets
takes effect (the base IMU, watched from this process, comes at 50 Hz afterwards)."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)
pytest.importorskip('simulation_interfaces', reason='simulation_interfaces is not built here')

from sensor_msgs.msg import Imu  # noqa: E402

from body_bridge.ros.stream import qos  # noqa: E402

from conftest import REPO, SAMPLE_ARM  # noqa: E402
from example_runner import watch  # noqa: E402
from test_end_to_end import STARTUP  # noqa: E402

EXAMPLE = REPO / 'examples' / 'scripting.py'
STATE = re.compile(r'  crate at \((\S+), (\S+), (\S+)\) m, moving \((\S+), (\S+), (\S+)\) '
                   r'm/s in world')


def test_the_script_spawns_steps_reads_moves_sets_and_deletes(ros, bridge):
    proc = bridge(SAMPLE_ARM, '-r', '__ns:=/scripted')
    node, imu = watch(ros, proc, 'scripting_watch', Imu, '/scripted/base_imu', qos.SENSOR)
    run = subprocess.Popen([sys.executable, str(EXAMPLE), '--wait', str(STARTUP),
                            '--ros-args', '-r', '__ns:=/scripted'], cwd=REPO,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + STARTUP + 120
    while run.poll() is None and time.monotonic() < deadline:
        ros.spin_once(node, timeout_sec=0.05)
    if run.poll() is None:
        run.kill()
    out, err = run.communicate(timeout=10)
    assert run.returncode == 0, out + err + proc.output()
    for line in ('pause: ok', 'spawn crate at (0.35, 0.15, 0.1): ok',
                 'step 100 control periods: ok', 'move crate to (0.45, 0, 0.3): ok',
                 'set devices.base_imu.rate to 50.0: ok', '  devices.base_imu.rate is now 50',
                 'delete crate: ok', 'play: ok', 'script done'):
        assert line in out.splitlines(), out
    rested, moved = [tuple(map(float, m)) for m in STATE.findall(out)]
    assert rested[:3] == pytest.approx((0.35, 0.15, 0.05), abs=1e-3)  # on the floor
    assert max(map(abs, rested[3:])) < 0.01  # at rest after 1 s
    assert moved[:3] == pytest.approx((0.45, 0.0, 0.30), abs=1e-6)
    # Played again: the IMU comes at the rate the script set, 50 Hz of simulated time
    count = len(imu)
    end = time.monotonic() + 30
    while len(imu) < count + 10 and time.monotonic() < end:
        ros.spin_once(node, timeout_sec=0.05)
    node.destroy_node()
    stamps = [m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec for m in imu[count:]]
    gaps = {round(b - a, 6) for a, b in zip(stamps, stamps[1:])}
    assert len(stamps) >= 10 and gaps == {0.02}, gaps


def test_the_script_says_so_when_no_bridge_runs():
    run = subprocess.run([sys.executable, str(EXAMPLE), '--wait', '1', '--ros-args', '-r',
                          '__ns:=/nobody_here'], cwd=REPO, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1
    assert run.stderr.strip() == ('set_simulation_state: nobody serves it: is the bridge '
                                  'running (python -m body_bridge sim sample_arm)?')
