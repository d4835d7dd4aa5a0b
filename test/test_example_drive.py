"""examples/drive_tank.py against a bridge running the Tank in another process."""

from __future__ import annotations

import math
import re

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from nav_msgs.msg import Odometry

from body_bridge.ros.stream import qos

from conftest import REPO, shared_model
from example_runner import run_example, watch, without_bridge

EXAMPLE = REPO / 'examples' / 'drive_tank.py'
TANK = shared_model('choreonoid/share/model/Tank/Tank.body')
END = re.compile(r'ended at x ([-+]\d+\.\d+) m, y ([-+]\d+\.\d+) m, yaw ([-+]\d+\.\d+) deg: '
                 r'(\d+\.\d+) m and (\d+\.\d+) deg from the start')


@pytest.mark.corpus
def test_drive_tank_goes_round_a_square_and_back_to_its_start(ros, bridge):
    proc = bridge(TANK, '-p', 'real_time_factor:=4.0')
    node, seen = watch(ros, proc, 'drive_watch', Odometry, 'odom', qos.JOINT_STATES)
    out = run_example(ros, node, proc, EXAMPLE, 120.0)
    match = END.search(out)
    assert match, out
    assert float(match.group(4)) < 0.05 and float(match.group(5)) < 2.0
    # Seen from here: the Tank went about 1 m along x and along y, and came back.
    xs = [m.pose.pose.position.x for m in seen]
    ys = [m.pose.pose.position.y for m in seen]
    assert math.isclose(max(xs) - min(xs), 1.0, abs_tol=0.05)
    assert math.isclose(max(ys) - min(ys), 1.0, abs_tol=0.05)


def test_drive_tank_says_so_when_no_bridge_runs():
    proc = without_bridge(EXAMPLE)
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith('no odom from a bridge within 1 s')
