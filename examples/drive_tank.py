#!/usr/bin/env python3
"""Drive the Tank around a square with cmd_vel, steering by odom, and print where it ended.

A minimal rclpy base controller for the bridge. Start the bridge with the Tank, then this:

    .venv/bin/python -m body_bridge sim ../shared/models/choreonoid/share/model/Tank/Tank.body
    .venv/bin/python examples/drive_tank.py                 # another terminal

Every 20 ms of simulated time (it runs on /clock) it sends a geometry_msgs/Twist on
``cmd_vel``: along each side of the square it drives forward, holding its heading; at each
corner it turns in place by a quarter turn. It steers by ``odom`` (nav_msgs/Odometry), as a
navigation stack would: tracks slip when they turn, so the turns are closed on the measured
heading rather than timed. Twice a second it prints the time, the pose and the command; at the
end where the Tank ended, and how far from its start (status 0; 1 when no bridge answered).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import rclpy
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile

SPEED = 0.4  # forward speed along a side [m/s]
TURN = 0.8  # largest yaw rate asked at a corner [rad/s]
GAIN = 3.0  # heading gain [1/s]


def yaw_of(q) -> float:
    """Heading [rad] of a quaternion message."""
    return math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))


def wrap(angle: float) -> float:
    """The angle in [-pi, pi) [rad]."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


class DriveSquare:
    """Drives the legs of the square one after the other, from odom."""

    def __init__(self, node, side: float):
        self.node, self.side = node, side
        self.cmd = node.create_publisher(Twist, 'cmd_vel', QoSProfile(depth=10))
        node.create_subscription(Odometry, 'odom', self._on_odom, QoSProfile(depth=10))
        self.odom: Odometry | None = None
        self.last_odom = 0.0  # wall time of the latest odom [s]
        self.start = None  # (x, y, yaw) at the start
        self.leg = 0  # 0, 2, 4, 6: sides; 1, 3, 5, 7: corners; 8: done
        self.leg_start = None  # (x, y) where the side began
        self.heading = 0.0  # heading of the current side [rad]
        self.twist = Twist()
        self.next_print = 0.0
        node.create_timer(0.02, self._tick)  # simulated time (use_sim_time)

    def _on_odom(self, msg):
        self.odom = msg
        self.last_odom = time.monotonic()

    def pose(self) -> tuple[float, float, float]:
        p = self.odom.pose.pose
        return p.position.x, p.position.y, yaw_of(p.orientation)

    def now(self) -> float:
        return self.node.get_clock().now().nanoseconds * 1e-9

    @property
    def done(self) -> bool:
        return self.leg >= 8

    def _tick(self):
        if self.odom is None or self.done:
            return
        x, y, yaw = self.pose()
        if self.start is None:
            self.start, self.heading, self.leg_start = (x, y, yaw), yaw, (x, y)
        twist = Twist()
        if self.leg % 2 == 0:  # a side: forward, holding the heading
            left = self.side - math.hypot(x - self.leg_start[0], y - self.leg_start[1])
            twist.linear.x = min(SPEED, max(0.05, 2.0 * left))
            twist.angular.z = GAIN * wrap(self.heading - yaw)
            if left <= 0.0:
                self.leg, self.heading = self.leg + 1, wrap(self.heading + math.pi / 2)
                twist = Twist()
        else:  # a corner: turn in place to the next heading
            error = wrap(self.heading - yaw)
            twist.angular.z = max(-TURN, min(TURN, GAIN * error))
            if abs(error) < math.radians(1.0):
                self.leg, self.leg_start = self.leg + 1, (x, y)
                twist = Twist()
        self.twist = twist
        self.cmd.publish(twist)
        if self.now() >= self.next_print:
            self.next_print = self.now() + 0.5
            print(self.line(), flush=True)

    def line(self) -> str:
        x, y, yaw = self.pose()
        return (f't {self.now():6.2f} s  leg {self.leg}  x {x:+.3f} m  y {y:+.3f} m  '
                f'yaw {math.degrees(yaw):+7.2f} deg  cmd_vel ({self.twist.linear.x:+.2f} m/s, '
                f'{self.twist.angular.z:+.2f} rad/s)')


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--namespace', default='', help="the bridge's namespace")
    parser.add_argument('--side', type=float, default=1.0, help='side of the square [m]')
    parser.add_argument('--wait', type=float, default=30.0,
                        help='seconds to wait for the bridge [s]')
    args = parser.parse_args(argv)
    rclpy.init()
    node = rclpy.create_node('drive_tank', namespace=args.namespace, parameter_overrides=[
        Parameter('use_sim_time', Parameter.Type.BOOL, True)])
    square = DriveSquare(node, args.side)
    try:
        waited = 0.0
        while square.odom is None and waited < args.wait:
            rclpy.spin_once(node, timeout_sec=0.1)
            waited += 0.1
        if square.odom is None:
            print(f'no odom from a bridge within {args.wait:g} s: is it running with a '
                  'tracked or wheeled model (python -m body_bridge sim .../Tank.body)?',
                  file=sys.stderr)
            return 1
        while not square.done:
            rclpy.spin_once(node, timeout_sec=0.1)
            if time.monotonic() - square.last_odom > args.wait:
                print(f'the bridge stopped publishing odom for {args.wait:g} s', file=sys.stderr)
                return 1
        square.cmd.publish(Twist())
        x, y, yaw = square.pose()
        x0, y0, yaw0 = square.start
        print(f'ended at x {x:+.3f} m, y {y:+.3f} m, yaw {math.degrees(yaw):+.2f} deg: '
              f'{math.hypot(x - x0, y - y0):.3f} m and '
              f'{abs(math.degrees(wrap(yaw - yaw0))):.2f} deg from the start')
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        node.destroy_node()
        rclpy.shutdown()


if __name__ == '__main__':
    sys.exit(main())
