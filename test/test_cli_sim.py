"""What ``python -m body_bridge sim`` prints while it runs: the table, the status lines."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from sensor_msgs.msg import JointState

from body_bridge.ros.stream import qos
from body_bridge.ros.console import STATUS_PERIOD

from conftest import REPO, SAMPLE_ARM
from test_end_to_end import STARTUP, spin_until

STATUS = re.compile(r'sim time (\d+\.\d+) s, real-time factor (\d+\.\d+), commands '
                    r'(\d+\.\d)/s, warnings (\d+)')


def row(text: str, *cells: str) -> bool:
    """Whether a table line holds these cells in order, separated by spaces."""
    return re.search(r'\s+'.join(re.escape(c) for c in cells), text) is not None


def wait_for(proc, predicate, timeout: float, what: str) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = proc.output()
        if predicate(out):
            return out
        assert proc.proc.poll() is None, f'the bridge exited while waiting for {what}:\n{out}'
        time.sleep(0.2)
    raise AssertionError(f'timed out waiting for {what}:\n{proc.output()}')


def test_start_table_then_status_lines_with_command_rate_and_warnings(ros, bridge):
    proc = bridge(SAMPLE_ARM)
    out = wait_for(proc, lambda o: 'topics and services:' in o and '(sensor topics' in o,
                   STARTUP, 'the table')
    assert row(out, '/joint_states', 'sensor_msgs/msg/JointState', '100 Hz',
               'reliable, volatile, depth 10')
    assert row(out, '/robot_description', 'std_msgs/msg/String', 'latched',
               'reliable, transient local, depth 1')
    assert row(out, '/tf_static', 'tf2_msgs/msg/TFMessage', 'latched')
    assert row(out, '/hand_camera/image_raw', 'sensor_msgs/msg/Image', '15 Hz',
               'best effort, volatile, depth 5')
    assert row(out, '/base_scan/scan', 'sensor_msgs/msg/LaserScan', '10 Hz')
    assert row(out, '/joint_commands', 'sensor_msgs/msg/JointState',
               'reliable, volatile, depth 10')
    assert row(out, '/body_bridge/reset', 'std_srvs/srv/Trigger')
    assert 'describe_parameters' not in out and '/parameter_events' not in out
    import importlib.util
    if importlib.util.find_spec('simulation_interfaces') is not None:  # the simulator API's
        out = wait_for(proc, lambda o: re.search(r'/unload_world\s', o), STARTUP, 'its table')
        assert '[sim]: topics and services:\nserves:\n' in out
        assert row(out, '/spawn_entity', 'simulation_interfaces/srv/SpawnEntity')
        assert row(out, '/step_simulation', 'simulation_interfaces/srv/StepSimulation')
        assert row(out, '/simulate_steps', 'simulation_interfaces/action/SimulateSteps')
    # Commands at 40 Hz for a while, one in ten naming a joint the arm does not have.
    node = ros.create_node('status_probe')
    pub = node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)
    spin_until(ros, node, lambda: pub.get_subscription_count() > 0, 20.0, 'the bridge', proc)
    lines = len(STATUS.findall(proc.output()))
    sent, end = 0, time.monotonic() + 2.5 * STATUS_PERIOD
    while time.monotonic() < end:
        name = 'nope' if sent % 10 == 9 else 'elbow_pitch'
        pub.publish(JointState(name=[name], position=[0.3]))
        sent += 1
        ros.spin_once(node, timeout_sec=0.0)
        time.sleep(0.025)
    node.destroy_node()
    during = len(STATUS.findall(proc.output()))
    status = STATUS.findall(wait_for(proc, lambda o: len(STATUS.findall(o)) > during,
                                     2 * STATUS_PERIOD, 'a status line after the commands'))
    assert during >= lines + 2
    _, factor, rate, warnings = status[-1]
    assert 0.9 <= float(factor) <= 1.1
    full = status[lines + 1]  # an interval with commands from start to end
    assert 30.0 <= float(full[2]) <= 42.0  # commands per second (40 sent, some sleep jitter)
    assert int(warnings) == sent // 10  # every rejected command counts, shown or not
    times = [float(s[0]) for s in status]
    assert all(b - a > 0.8 * STATUS_PERIOD for a, b in zip(times, times[1:]))


def test_log_level_warn_leaves_only_warnings(bridge):
    proc = bridge(SAMPLE_ARM, '--log-level', 'warn', '-p', 'nonsense:=1')
    out = wait_for(proc, lambda o: 'nonsense' in o, STARTUP, 'the warning')
    time.sleep(STATUS_PERIOD + 1.0)
    out = proc.output()
    assert 'parameter nonsense is not a body_bridge parameter; ignored' in out
    assert 'topics and services' not in out and not STATUS.search(out) and '[INFO]' not in out


def test_quiet_is_warn(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / 'cache'))
    log = tmp_path / 'quiet.log'
    with open(log, 'w') as f:
        proc = subprocess.Popen([sys.executable, '-m', 'body_bridge', 'sim', '--quiet',
                                 'sample_arm', '--ros-args', '-p', 'nonsense:=1'],
                                cwd=REPO, env=env, stdout=f, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + STARTUP
            while 'nonsense' not in log.read_text() and time.monotonic() < deadline:
                assert proc.poll() is None, log.read_text()
                time.sleep(0.2)
            time.sleep(STATUS_PERIOD + 1.0)
        finally:
            proc.send_signal(2)
            proc.wait(timeout=10)
    out = log.read_text()
    assert 'parameter nonsense is not a body_bridge parameter; ignored' in out
    assert '[INFO]' not in out and not STATUS.search(out) and 'Traceback' not in out
    assert proc.returncode == 0
