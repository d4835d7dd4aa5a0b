#!/usr/bin/env python3
"""Move the sample arm along a trajectory and print what its inertial sensors read.

A minimal rclpy controller for the bridge. Start the bridge, then this script:

    .venv/bin/python -m body_bridge sim sample_arm          # terminal 1
    .venv/bin/python examples/move_arm.py                   # terminal 2

Every 20 ms of simulated time (it runs on /clock) it sends joint positions on
``joint_commands``, following a smooth path through a few waypoints; twice a second it prints
the time, the joints, the base IMU (proper acceleration: +9.81 m/s^2 up at rest) and the
forearm gyro. At the end it prints how closely the arm followed and exits (status 0; 1 when
no bridge answered).
"""

from __future__ import annotations

import argparse
import sys
import time

import rclpy
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, qos_profile_sensor_data
from sensor_msgs.msg import Imu, JointState

JOINTS = ['shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch']
#: (time [s], joint positions [rad]) the arm passes through.
WAYPOINTS = [(0.0, [0.0, 0.0, 0.0, 0.0]),
             (2.0, [0.8, 0.5, 1.0, 0.6]),
             (4.0, [-0.8, 0.5, 1.0, 0.6]),
             (6.0, [0.0, 0.0, 0.0, 0.0])]


def setpoint(t: float) -> list[float]:
    """The path at time ``t`` [s]: minimum-jerk segments between the waypoints [rad]."""
    if t <= WAYPOINTS[0][0]:
        return list(WAYPOINTS[0][1])
    for (t0, q0), (t1, q1) in zip(WAYPOINTS, WAYPOINTS[1:]):
        if t <= t1:
            s = (t - t0) / (t1 - t0)
            blend = s ** 3 * (10 - 15 * s + 6 * s * s)
            return [a + (b - a) * blend for a, b in zip(q0, q1)]
    return list(WAYPOINTS[-1][1])


class MoveArm:
    """Sends the path on joint_commands and watches joint_states and two sensors."""

    def __init__(self, node):
        self.node = node
        self.commands = node.create_publisher(JointState, 'joint_commands', QoSProfile(depth=10))
        self.state: JointState | None = None
        self.last_state = 0.0  # wall time of the latest joint_states [s]
        self.imu: Imu | None = None
        self.gyro: Imu | None = None
        node.create_subscription(JointState, 'joint_states', self._on_state, QoSProfile(depth=10))
        node.create_subscription(Imu, 'base_imu', self._on_imu, qos_profile_sensor_data)
        node.create_subscription(Imu, 'forearm_gyro', self._on_gyro, qos_profile_sensor_data)
        self.start: float | None = None
        self.worst = 0.0  # largest tracking error after the first second [rad]
        self.next_print = 0.0
        self.ready = False  # main() sets it once the state and the sensors have arrived
        self.timer = node.create_timer(0.02, self._tick)  # simulated time (use_sim_time)

    def _on_state(self, msg):
        self.state = msg
        self.last_state = time.monotonic()

    def _on_imu(self, msg):
        self.imu = msg

    def _on_gyro(self, msg):
        self.gyro = msg

    def now(self) -> float:
        return self.node.get_clock().now().nanoseconds * 1e-9

    def elapsed(self) -> float:
        return 0.0 if self.start is None else self.now() - self.start

    def _positions(self) -> list[float]:
        names = list(self.state.name)
        return [self.state.position[names.index(j)] for j in JOINTS]

    def _tick(self):
        if not self.ready:
            return
        if self.start is None:
            self.start = self.now()
        t = self.elapsed()
        self.commands.publish(JointState(name=JOINTS, position=setpoint(t)))
        if t >= 1.0:
            error = max(abs(q - r) for q, r in zip(self._positions(), setpoint(t - 0.02)))
            self.worst = max(self.worst, error)
        if t >= self.next_print:
            self.next_print += 0.5
            print(self.line(t), flush=True)

    def line(self, t: float) -> str:
        joints = ' '.join(f'{q:+.2f}' for q in self._positions())
        text = f't {t:5.2f} s  joints [{joints}] rad'
        if self.imu is not None:
            a = self.imu.linear_acceleration
            text += f'  base_imu acc ({a.x:+.2f}, {a.y:+.2f}, {a.z:+.2f}) m/s^2'
        if self.gyro is not None:
            w = self.gyro.angular_velocity
            text += f'  forearm_gyro ({w.x:+.2f}, {w.y:+.2f}, {w.z:+.2f}) rad/s'
        return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--namespace', default='', help="the bridge's namespace")
    parser.add_argument('--wait', type=float, default=30.0,
                        help='seconds to wait for the bridge [s]')
    args = parser.parse_args(argv)
    rclpy.init()
    node = rclpy.create_node('move_arm', namespace=args.namespace, parameter_overrides=[
        Parameter('use_sim_time', Parameter.Type.BOOL, True)])
    arm = MoveArm(node)
    try:
        waited = 0.0  # for joint_states and the sensors it prints (these publish on demand)
        while any(x is None for x in (arm.state, arm.imu, arm.gyro)) and waited < args.wait:
            rclpy.spin_once(node, timeout_sec=0.1)
            waited += 0.1
        if arm.state is None:
            print(f'no joint_states from a bridge within {args.wait:g} s: is it running '
                  '(python -m body_bridge sim sample_arm)?', file=sys.stderr)
            return 1
        arm.ready = True
        end = WAYPOINTS[-1][0] + 0.5
        while arm.start is None or arm.elapsed() < end:
            rclpy.spin_once(node, timeout_sec=0.1)
            if time.monotonic() - arm.last_state > args.wait:
                print(f'the bridge stopped publishing joint_states for {args.wait:g} s',
                      file=sys.stderr)
                return 1
        print(arm.line(arm.elapsed()))
        print(f'done: largest tracking error {arm.worst:.4f} rad')
        return 0
    except KeyboardInterrupt:
        return 0
    finally:
        node.destroy_node()
        rclpy.shutdown()


if __name__ == '__main__':
    sys.exit(main())
