"""examples/drive_tank.py against a bridge running the Tank in another process."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import time

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from nav_msgs.msg import Odometry

from body_bridge.ros import qos

from conftest import REPO, shared_model
from test_end_to_end import STARTUP, spin_until

EXAMPLE = REPO / 'examples' / 'drive_tank.py'
TANK = shared_model('choreonoid/share/model/Tank/Tank.body')
END = re.compile(r'ended at x ([-+]\d+\.\d+) m, y ([-+]\d+\.\d+) m, yaw ([-+]\d+\.\d+) deg: '
                 r'(\d+\.\d+) m and (\d+\.\d+) deg from the start')


@pytest.mark.corpus
def test_drive_tank_goes_round_a_square_and_back_to_its_start(ros, bridge):
    proc = bridge(TANK, '-p', 'real_time_factor:=4.0')
    node = ros.create_node('drive_watch')
    seen: list[Odometry] = []
    node.create_subscription(Odometry, 'odom', seen.append, qos.JOINT_STATES)
    spin_until(ros, node, lambda: len(seen) > 0, STARTUP, 'odom', proc)
    example = subprocess.Popen([sys.executable, str(EXAMPLE), '--wait', str(STARTUP)],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    deadline = time.monotonic() + STARTUP + 120.0
    while example.poll() is None and time.monotonic() < deadline:
        ros.spin_once(node, timeout_sec=0.05)
    if example.poll() is None:
        example.kill()
    out, err = example.communicate(timeout=10)
    node.destroy_node()
    assert example.returncode == 0, out + err + proc.output()
    match = END.search(out)
    assert match, out
    assert float(match.group(4)) < 0.05 and float(match.group(5)) < 2.0
    # Seen from here: the Tank went about 1 m along x and along y, and came back.
    xs = [m.pose.pose.position.x for m in seen]
    ys = [m.pose.pose.position.y for m in seen]
    assert math.isclose(max(xs) - min(xs), 1.0, abs_tol=0.05)
    assert math.isclose(max(ys) - min(ys), 1.0, abs_tol=0.05)


def test_drive_tank_says_so_when_no_bridge_runs():
    proc = subprocess.run([sys.executable, str(EXAMPLE), '--wait', '1'], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith('no odom from a bridge within 1 s')
