"""examples/follow_trajectory.py against a sample-arm bridge in another process, watched from
this one."""

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

from body_bridge.cli import main
from body_bridge.ros import qos

from conftest import REPO, SAMPLE_ARM
from test_end_to_end import STARTUP, spin_until

EXAMPLE = REPO / 'examples' / 'follow_trajectory.py'
JOINTS = ['shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch']
FEEDBACK = re.compile(r'feedback t +(\d+\.\d+) s  desired \[(.*?)\]  actual \[(.*?)\]  '
                      r'largest error (\d+\.\d+) rad$')


def test_follow_trajectory_prints_feedback_and_success(ros, bridge, tmp_path):
    # As the example's instructions say: the controller from the SRDF command's file.
    assert main(['srdf', 'sample_arm', '-o', str(tmp_path / 'arm.srdf'), '--samples', '0']) == 0
    proc = bridge(SAMPLE_ARM, '-p', 'real_time_factor:=2.0', '--params-file',
                  str(tmp_path / 'arm.bridge.yaml'))
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
    for _ in range(20):  # the last states
        ros.spin_once(node, timeout_sec=0.05)
    node.destroy_node()
    assert example.returncode == 0, out + err + proc.output()
    lines = [FEEDBACK.match(line) for line in out.splitlines() if line.startswith('feedback')]
    assert len(lines) >= 10 and all(lines), out
    times = [float(m.group(1)) for m in lines]
    assert times == sorted(times) and times[-1] > 2.5
    assert 'result: SUCCEEDED, error code 0 (SUCCESSFUL)' in out
    final = seen[-1]
    positions = [final.position[list(final.name).index(j)] for j in JOINTS]
    assert max(abs(q - r) for q, r in zip(positions, [0.0, 0.2, 0.4, 0.2])) < 0.01


def test_follow_trajectory_says_so_when_no_server_answers():
    proc = subprocess.run([sys.executable, str(EXAMPLE), '--wait', '1'], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert ('no action server sample_arm_controller/follow_joint_trajectory within 1 s'
            in proc.stderr)
