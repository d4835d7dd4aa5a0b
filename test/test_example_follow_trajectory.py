"""examples/follow_trajectory.py against a sample-arm bridge in another process, watched from
this one."""

from __future__ import annotations

import re

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from sensor_msgs.msg import JointState

from body_bridge.cli import main
from body_bridge.ros.stream import qos

from conftest import REPO, SAMPLE_ARM
from example_runner import run_example, watch, without_bridge

EXAMPLE = REPO / 'examples' / 'follow_trajectory.py'
JOINTS = ['shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch']
FEEDBACK = re.compile(r'feedback t +(\d+\.\d+) s  desired \[(.*?)\]  actual \[(.*?)\]  '
                      r'largest error (\d+\.\d+) rad$')


def test_follow_trajectory_prints_feedback_and_success(ros, bridge, tmp_path):
    # As the example's instructions say: the controller from the SRDF command's file.
    assert main(['srdf', 'sample_arm', '-o', str(tmp_path / 'arm.srdf'), '--samples', '0']) == 0
    proc = bridge(SAMPLE_ARM, '-p', 'real_time_factor:=2.0', '--params-file',
                  str(tmp_path / 'arm.bridge.yaml'))
    node, seen = watch(ros, proc, 'example_watch', JointState, 'joint_states',
                       qos.JOINT_STATES)
    out = run_example(ros, node, proc, EXAMPLE, 60.0, settle=20)  # and the last states
    lines = [FEEDBACK.match(line) for line in out.splitlines() if line.startswith('feedback')]
    assert len(lines) >= 10 and all(lines), out
    times = [float(m.group(1)) for m in lines]
    assert times == sorted(times) and times[-1] > 2.5
    assert 'result: SUCCEEDED, error code 0 (SUCCESSFUL)' in out
    final = seen[-1]
    positions = [final.position[list(final.name).index(j)] for j in JOINTS]
    assert max(abs(q - r) for q, r in zip(positions, [0.0, 0.2, 0.4, 0.2])) < 0.01


def test_follow_trajectory_says_so_when_no_server_answers():
    proc = without_bridge(EXAMPLE)
    assert proc.returncode == 2
    assert ('no action server sample_arm_controller/follow_joint_trajectory within 1 s'
            in proc.stderr)
