"""The differential-drive robot with welded ball casters (test/data/openrave/diffbot.robot.xml)
in a bridge of its own, driven over DDS: the start-up lines say why the root is free, what
cmd_vel drives and what to set for the casters; with ``casters`` set, odom follows cmd_vel
within 2 % in speed and turn rate."""

from __future__ import annotations

import math

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry

from body_bridge.ros.stream import qos

from conftest import REPO
from test_end_to_end import STARTUP, Probe

DIFFBOT = REPO / 'test' / 'data' / 'openrave' / 'diffbot.robot.xml'
ROOT_LINE = ('root: free (its wheels carry it (wheel_left, wheel_right) with ball casters '
             'caster_front, caster_back); cmd_vel drives wheels wheel_left (left) and '
             'wheel_right (right)')
DRAG_LINE = ('ball casters caster_front, caster_back drag: the file welds their ball joints '
             '(disabled), so they slide on the ground and hold the robot back; set '
             'casters:="caster_front caster_back" to let them roll')


class OdomProbe(Probe):
    def __init__(self, rclpy):
        super().__init__(rclpy, 'caster_probe')
        self.odom: list[Odometry] = []
        self.node.create_subscription(Odometry, 'odom', self.odom.append, qos.JOINT_STATES)
        self.cmd = self.node.create_publisher(Twist, 'cmd_vel', qos.COMMANDS)

    def drive(self, linear: float, angular: float, proc) -> tuple[float, float]:
        """Mean forward speed [m/s] along the path and yaw rate [rad/s] that odom shows over
        1.5 s of simulated time, from 1 s after the twist was sent."""
        msg = Twist()
        msg.linear.x, msg.angular.z = linear, angular
        self.cmd.publish(msg)
        start = len(self.odom)
        t = _stamp(self.odom[-1])
        self.spin_until(lambda: _stamp(self.odom[-1]) > t + 2.5, 30.0, 'odom for 2.5 s', proc)
        window = [m for m in self.odom[start:] if t + 1.0 <= _stamp(m) <= t + 2.5]
        path = sum(math.dist(_xy(a), _xy(b)) for a, b in zip(window, window[1:]))
        yaws = [_yaw(m) for m in window]
        turn = sum((b - a + math.pi) % (2 * math.pi) - math.pi for a, b in zip(yaws, yaws[1:]))
        span = _stamp(window[-1]) - _stamp(window[0])
        return path / span, turn / span


def _stamp(msg) -> float:
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


def _xy(msg) -> tuple[float, float]:
    return msg.pose.pose.position.x, msg.pose.pose.position.y


def _yaw(msg) -> float:
    q = msg.pose.pose.orientation
    return math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))


def test_the_start_says_why_and_what_to_set(bridge, ros):
    proc = bridge(DIFFBOT, '-p', 'start_paused:=true')
    probe = Probe(ros)
    try:
        probe.spin_until(lambda: DRAG_LINE in proc.output(), STARTUP, 'the caster line', proc)
        out = proc.output()
        assert ROOT_LINE in out and 'cmd_vel drives wheels wheel_left (left) and wheel_right ' \
            '(right), 0.52 m apart' in out
    finally:
        probe.node.destroy_node()


def test_with_rolling_casters_it_drives_as_commanded(bridge, ros):
    probe = OdomProbe(ros)
    try:
        proc = bridge(DIFFBOT, '-p', 'casters:=[caster_front, caster_back]',
                      '-p', 'real_time_factor:=2.0', '-p', 'cmd_vel_timeout:=0.0')
        probe.spin_until(lambda: len(probe.odom) > 5, STARTUP, 'odom', proc)
        probe.spin_until(lambda: probe.cmd.get_subscription_count() > 0, 10.0, 'cmd_vel', proc)
        out = proc.output()
        assert 'ball casters caster_front, caster_back roll (their contacts are frictionless: ' \
            'the casters parameter)' in out
        assert 'drag' not in out
        speed, turn = probe.drive(0.3, 0.0, proc)
        assert speed == pytest.approx(0.3, rel=0.02) and abs(turn) < 0.01
        speed, turn = probe.drive(0.0, 1.0, proc)
        assert turn == pytest.approx(1.0, rel=0.02) and speed < 0.01
        speed, turn = probe.drive(0.2, 0.5, proc)
        assert speed == pytest.approx(0.2, rel=0.02) and turn == pytest.approx(0.5, rel=0.02)
        assert proc.proc.poll() is None
    finally:
        probe.node.destroy_node()
