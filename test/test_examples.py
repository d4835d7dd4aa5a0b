"""examples/move_arm.py against a bridge in another process, watched from this one."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from sensor_msgs.msg import JointState

from body_bridge.ros import qos

from conftest import REPO, SAMPLE_ARM
from test_end_to_end import STARTUP, spin_until

EXAMPLE = REPO / 'examples' / 'move_arm.py'
LINE = re.compile(r't +(\d+\.\d+) s  joints \[(.*?)\] rad  base_imu acc \((.*?)\) m/s\^2  '
                  r'forearm_gyro \((.*?)\) rad/s')


def test_move_arm_follows_its_path_and_prints_the_imu(ros, bridge):
    # Real time, as a user runs it: at twice real time a loaded machine made the example's
    # commands late enough to count in the tracking error (0.24 rad once, 0.07 alone).
    proc = bridge(SAMPLE_ARM, '-p', 'real_time_factor:=1.0')
    node = ros.create_node('example_watch')
    seen: list[JointState] = []
    node.create_subscription(JointState, 'joint_states', seen.append, qos.JOINT_STATES)
    spin_until(ros, node, lambda: len(seen) > 0, STARTUP, 'joint_states', proc)
    example = subprocess.Popen([sys.executable, str(EXAMPLE), '--wait', str(STARTUP)],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    deadline = time.monotonic() + STARTUP + 60.0
    while example.poll() is None and time.monotonic() < deadline:
        ros.spin_once(node, timeout_sec=0.05)
    if example.poll() is None:
        example.kill()
    out, err = example.communicate(timeout=10)
    node.destroy_node()
    assert example.returncode == 0, out + err + proc.output()
    lines = [LINE.match(line) for line in out.splitlines() if line.startswith('t ')]
    assert len(lines) >= 13 and all(lines), out
    for match in lines:
        ax, ay, az = (float(v) for v in match.group(3).split(','))
        assert (ax, ay, az) == pytest.approx((0.0, 0.0, 9.81), abs=0.02)  # the fixed base
    gyro = [max(abs(float(v)) for v in m.group(4).split(',')) for m in lines]
    assert max(gyro) > 1.0  # the forearm turns
    error = float(re.search(r'largest tracking error (\d+\.\d+) rad', out).group(1))
    assert error < 0.1
    # Seen from here: shoulder_yaw went to +0.8 rad, to -0.8 rad and back to 0.
    yaw = [m.position[list(m.name).index("shoulder_yaw")] for m in seen]
    assert max(yaw) == pytest.approx(0.8, abs=0.02) and min(yaw) == pytest.approx(-0.8, abs=0.02)
    assert abs(yaw[-1]) < 0.02


def test_move_arm_says_so_when_no_bridge_runs():
    proc = subprocess.run([sys.executable, str(EXAMPLE), '--wait', '1'], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip() == ('no joint_states from a bridge within 1 s: is it running '
                                   '(python -m body_bridge sim sample_arm)?')
