#!/usr/bin/env python3
"""Send the sample arm a FollowJointTrajectory goal, as MoveIt does, and print its feedback
and result.

Start the bridge with a trajectory controller for the arm (the parameter file the SRDF
command writes declares ``sample_arm_controller``), then this script:

    .venv/bin/python -m body_bridge srdf sample_arm -o arm.srdf --samples 0
    .venv/bin/python -m body_bridge sim sample_arm --ros-args --params-file arm.bridge.yaml
    .venv/bin/python examples/follow_trajectory.py

The goal passes three waypoints in 3 s with a goal tolerance of 0.01 rad per joint. Four
times a second of simulated time it prints the feedback (desired and actual positions, the
largest error), then the result and how far each joint ended from its target. Exit status 0
when the goal succeeded, 1 when it did not, 2 when no action server answered.
"""

from __future__ import annotations

import argparse
import sys

import rclpy
from builtin_interfaces.msg import Duration
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTolerance
from rclpy.action import ActionClient
from trajectory_msgs.msg import JointTrajectoryPoint

JOINTS = ['shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch']
#: (time from start [s], joint positions [rad]) of the waypoints.
WAYPOINTS = [(1.0, [0.6, 0.3, 0.8, 0.4]),
             (2.0, [-0.6, 0.5, 1.0, 0.6]),
             (3.0, [0.0, 0.2, 0.4, 0.2])]
STATUS = {4: 'SUCCEEDED', 5: 'CANCELED', 6: 'ABORTED'}
CODES = {0: 'SUCCESSFUL', -1: 'INVALID_GOAL', -2: 'INVALID_JOINTS',
         -3: 'OLD_HEADER_TIMESTAMP', -4: 'PATH_TOLERANCE_VIOLATED',
         -5: 'GOAL_TOLERANCE_VIOLATED'}


def make_goal() -> FollowJointTrajectory.Goal:
    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = JOINTS
    for t, positions in WAYPOINTS:
        goal.trajectory.points.append(JointTrajectoryPoint(
            positions=positions, time_from_start=Duration(sec=int(t),
                                                          nanosec=int(t % 1 * 1e9))))
    goal.goal_tolerance = [JointTolerance(name=j, position=0.01) for j in JOINTS]
    return goal


class Printer:
    """Prints the feedback at most every ``every`` seconds of its time from start."""

    def __init__(self, every: float = 0.25):
        self.every, self.next = every, 0.0
        self.last = None

    def __call__(self, message) -> None:
        feedback = message.feedback
        self.last = feedback
        t = feedback.actual.time_from_start.sec + 1e-9 * feedback.actual.time_from_start.nanosec
        if t + 1e-9 < self.next:
            return
        self.next = t + self.every
        desired = ' '.join(f'{q:+.3f}' for q in feedback.desired.positions)
        actual = ' '.join(f'{q:+.3f}' for q in feedback.actual.positions)
        error = max(abs(e) for e in feedback.error.positions)
        print(f'feedback t {t:5.2f} s  desired [{desired}]  actual [{actual}]  '
              f'largest error {error:.4f} rad', flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--namespace', default='', help="the bridge's namespace")
    parser.add_argument('--controller', default='sample_arm_controller',
                        help='the trajectory controller (default sample_arm_controller)')
    parser.add_argument('--wait', type=float, default=30.0,
                        help='seconds to wait for the action server [s]')
    args = parser.parse_args(argv)
    rclpy.init()
    node = rclpy.create_node('follow_trajectory', namespace=args.namespace)
    name = f'{args.controller}/follow_joint_trajectory'
    client = ActionClient(node, FollowJointTrajectory, name)
    try:
        if not client.wait_for_server(timeout_sec=args.wait):
            print(f'no action server {name} within {args.wait:g} s: is the bridge running '
                  'with that controller (see examples/follow_trajectory.py)?', file=sys.stderr)
            return 2
        printer = Printer()
        sent = client.send_goal_async(make_goal(), feedback_callback=printer)
        rclpy.spin_until_future_complete(node, sent)
        handle = sent.result()
        if not handle.accepted:
            print('the goal was rejected', file=sys.stderr)
            return 1
        done = handle.get_result_async()
        rclpy.spin_until_future_complete(node, done)
        answer = done.result()
        code = answer.result.error_code
        print(f'result: {STATUS.get(answer.status, answer.status)}, error code {code} '
              f'({CODES.get(code, "?")}) {answer.result.error_string}'.rstrip())
        if printer.last is not None:
            ends = ' '.join(f'{j} {e:+.4f}' for j, e in zip(printer.last.joint_names,
                                                            printer.last.error.positions))
            print(f'last feedback error [rad]: {ends}')
        return 0 if answer.status == 4 else 1
    except KeyboardInterrupt:
        return 1
    finally:
        node.destroy_node()
        rclpy.shutdown()


if __name__ == '__main__':
    sys.exit(main())
