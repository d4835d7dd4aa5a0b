"""cmd_vel and odom of a tracked model, from another process over DDS, as a navigation stack
sees them (test/data/choreonoid/tracked.body: no corpus needed)."""

from __future__ import annotations

import collections
import math

import numpy as np
import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from tf2_msgs.msg import TFMessage

from body_bridge.ros.stream import qos

from conftest import REPO
from test_end_to_end import STARTUP, Probe

TRACKED = REPO / 'test' / 'data' / 'choreonoid' / 'tracked.body'
SEPARATION = 0.5  # tracked.body: tracks at y = +-0.25 m


def _key(stamp) -> int:
    return stamp.sec * 1_000_000_000 + stamp.nanosec


class MobileProbe(Probe):
    def __init__(self, rclpy):
        super().__init__(rclpy, 'mobile_probe')
        self.odom: dict[int, Odometry] = {}
        self.chassis: dict[int, object] = {}
        self.node.create_subscription(Odometry, 'odom', self._on_odom, qos.JOINT_STATES)
        self.node.create_subscription(TFMessage, '/tf', self._on_tf, qos.TF)
        self.cmd = self.node.create_publisher(Twist, 'cmd_vel', qos.COMMANDS)

    def _on_odom(self, msg):
        self.odom[_key(msg.header.stamp)] = msg

    def _on_tf(self, msg):
        for t in msg.transforms:
            if t.child_frame_id == 'CHASSIS':
                self.chassis[_key(t.header.stamp)] = t

    def speeds(self) -> dict[str, float]:
        """The joints' velocities in the latest joint_states (NaN before the first arrives)."""
        if not self.states:
            return collections.defaultdict(lambda: math.nan)
        state = self.states[-1]
        return dict(zip(state.name, state.velocity))


def _twist(linear=0.0, angular=0.0, sideways=0.0) -> Twist:
    msg = Twist()
    msg.linear.x, msg.linear.y, msg.angular.z = linear, sideways, angular
    return msg


def _angle(q1, q2) -> float:
    dot = abs(q1.w * q2.w + q1.x * q2.x + q1.y * q2.y + q1.z * q2.z)
    return 2.0 * math.acos(min(1.0, dot))


def test_cmd_vel_drives_the_tracks_and_odom_agrees_with_tf(bridge, ros):
    probe = MobileProbe(ros)
    try:
        proc = bridge(TRACKED, '-p', 'odom_tf:=true', '-p', 'real_time_factor:=2.0',
                      '-p', 'cmd_vel_timeout:=0.0')
        probe.spin_until(lambda: len(probe.odom) > 5, STARTUP, 'odom', proc)
        probe.spin_until(lambda: probe.cmd.get_subscription_count() > 0, 10.0, 'cmd_vel', proc)
        probe.spin_until(lambda: probe.tf.get('CHASSIS') == 'odom', 5.0, 'odom -> CHASSIS', proc)
        probe.spin_until(lambda: probe.tf_static.get('odom') == 'world', 5.0, 'world -> odom',
                         proc)
        last = next(reversed(probe.odom.values()))
        assert last.header.frame_id == 'odom' and last.child_frame_id == 'CHASSIS'
        assert last.pose.covariance[0] == 1e-9 and last.twist.covariance[35] == 1e-9

        # Forward: both tracks at the speed asked, and the base moving at it.
        probe.cmd.publish(_twist(linear=0.5))
        probe.spin_until(lambda: abs(probe.speeds()['TRACK_L'] - 0.5) < 1e-3, 10.0,
                         'the tracks at 0.5 m/s', proc)
        probe.spin_until(lambda: abs(next(reversed(probe.odom.values())).twist.twist.linear.x
                                     - 0.5) < 0.025, 10.0, 'odom at 0.5 m/s', proc)
        assert abs(probe.speeds()['TRACK_R'] - 0.5) < 1e-3

        # Turning: the tracks at -+ w B / 2, as direct track commands of those speeds.
        probe.cmd.publish(_twist(angular=0.5))
        half = 0.5 * SEPARATION / 2
        probe.spin_until(lambda: abs(probe.speeds()['TRACK_R'] - half) < 1e-3 and
                         abs(probe.speeds()['TRACK_L'] + half) < 1e-3, 10.0,
                         'the tracks turning', proc)
        # ... and the base turning at the rate asked for, within 15 % (sim/mechanics/tracks.py).
        probe.spin_until(lambda: abs(next(reversed(probe.odom.values())).twist.twist.angular.z
                                     - 0.5) < 0.075, 10.0, 'odom turning left at 0.5 rad/s',
                         proc)

        # Sideways and NaN are refused with one line; the last command stays.
        probe.cmd.publish(_twist(sideways=0.3))
        probe.cmd.publish(_twist(linear=math.nan))
        probe.spin_until(lambda: 'cmd_vel: rejected: a value is NaN' in proc.output(), 10.0,
                         'the NaN rejected', proc)
        assert 'cmd_vel: rejected: a base on tracks moves along linear.x' in proc.output()
        assert abs(probe.speeds()['TRACK_R'] - half) < 1e-3

        # odom and the TF of the root link: the same pose at the same stamp.
        probe.spin_until(lambda: len(set(probe.odom) & set(probe.chassis)) > 100, 10.0,
                         'odom and TF of 100 periods', proc)
        common = sorted(set(probe.odom) & set(probe.chassis))
        worst_pos = worst_rot = 0.0
        for key in common:
            pose, tf = probe.odom[key].pose.pose, probe.chassis[key].transform
            p, t = pose.position, tf.translation
            worst_pos = max(worst_pos, float(np.linalg.norm([p.x - t.x, p.y - t.y, p.z - t.z])))
            worst_rot = max(worst_rot, _angle(pose.orientation, tf.rotation))
        assert worst_pos < 1e-3 and worst_rot < 1e-3
        assert proc.proc.poll() is None
    finally:
        probe.close()


def test_the_base_stops_when_cmd_vel_goes_quiet(bridge, ros):
    probe = MobileProbe(ros)
    try:
        proc = bridge(TRACKED, '-p', 'cmd_vel_timeout:=0.3', '-p', 'real_time_factor:=2.0')
        probe.spin_until(lambda: len(probe.odom) > 5, STARTUP, 'odom', proc)
        probe.spin_until(lambda: probe.cmd.get_subscription_count() > 0, 10.0, 'cmd_vel', proc)
        probe.cmd.publish(_twist(linear=0.5))
        probe.spin_until(lambda: probe.speeds()['TRACK_L'] > 0.4, 10.0, 'the tracks moving',
                         proc)
        probe.spin_until(lambda: abs(probe.speeds()['TRACK_L']) < 1e-3, 10.0,
                         'the tracks stopped', proc)
        assert 'cmd_vel: nothing for 0.3 s: the base stops (cmd_vel_timeout)' in proc.output()
    finally:
        probe.close()


def test_a_velocity_controller_group_drives_the_tracks(bridge, ros):
    from std_msgs.msg import Float64MultiArray
    probe = MobileProbe(ros)
    try:
        proc = bridge(TRACKED, '-p', 'real_time_factor:=2.0',
                      '-p', 'controllers.tracks.type:=velocity_controllers/'
                            'JointGroupVelocityController',
                      '-p', 'controllers.tracks.joints:=[TRACK_L, TRACK_R]')
        probe.spin_until(lambda: len(probe.odom) > 5, STARTUP, 'odom', proc)
        pub = probe.node.create_publisher(Float64MultiArray, 'tracks/commands', qos.COMMANDS)
        probe.spin_until(lambda: pub.get_subscription_count() > 0, 10.0, 'tracks/commands', proc)
        pub.publish(Float64MultiArray(data=[0.3, 0.3]))
        probe.spin_until(lambda: abs(next(reversed(probe.odom.values())).twist.twist.linear.x
                                     - 0.3) < 0.015, 10.0, 'the base at 0.3 m/s', proc)
        probe.spin_until(lambda: abs(probe.speeds()['TRACK_L'] - 0.3) < 1e-3, 10.0,
                         'the left track at 0.3 m/s', proc)
    finally:
        probe.close()


def test_cmd_vel_turns_tracks_added_in_a_sub_body(bridge, ros):
    """crawler.body adds its AGX tracks under a SubBody's elements (test_subbody_tracks.py):
    a 0.5 rad/s turn of cmd_vel turns it at 0.5 rad/s within 15 %, as the tracks of
    tracked.body above."""
    crawler = REPO / 'test' / 'data' / 'choreonoid' / 'subbody' / 'crawler.body'
    probe = MobileProbe(ros)
    try:
        proc = bridge(crawler, '-p', 'real_time_factor:=2.0', '-p', 'cmd_vel_timeout:=0.0')
        probe.spin_until(lambda: len(probe.odom) > 5, STARTUP, 'odom', proc)
        probe.spin_until(lambda: probe.cmd.get_subscription_count() > 0, 10.0, 'cmd_vel', proc)
        assert ('root: free (as the model file says); cmd_vel drives tracks TRACK_L (left) '
                'and TRACK_R (right)') in proc.output()
        assert "'elements' is not supported" not in proc.output()
        probe.cmd.publish(_twist(angular=0.5))
        probe.spin_until(lambda: abs(probe.speeds()['TRACK_R'] - 0.11) < 1e-3, 10.0,
                         'the tracks turning', proc)
        t0 = next(reversed(probe.odom))  # the odom messages by stamp [ns]
        probe.spin_until(lambda: next(reversed(probe.odom)) > t0 + 2_000_000_000, 20.0,
                         '2 s of odom', proc)
        turning = [m.twist.twist.angular.z for k, m in probe.odom.items()
                   if t0 + 500_000_000 <= k <= t0 + 2_000_000_000]
        assert float(np.mean(turning)) == pytest.approx(0.5, rel=0.15)
    finally:
        probe.close()
