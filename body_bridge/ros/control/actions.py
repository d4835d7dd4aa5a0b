"""``<controller>/follow_joint_trajectory``: the FollowJointTrajectory action of every
trajectory controller group, with joint_trajectory_controller's semantics
(:mod:`body_bridge.ros.control.goals` judges the goals,
:mod:`body_bridge.ros.control.action_servers` runs their lives).

* A goal that cannot be followed is accepted and at once aborted with its error code and a
  sentence (a ROS 2 rejection carries no result).
* An accepted goal's trajectory starts at its header stamp (simulated time), or at the next
  control period when the stamp is zero.
* Feedback (desired, actual, error) every control period, at most ``FEEDBACK_RATE`` a second
  of simulated time.
* Path and goal tolerances, goal time: :mod:`body_bridge.ros.control.goals`; a violation aborts the
  goal and the joints hold their positions.
* Cancel: error code 0; preemption ("preempted by a newer goal"), a command from elsewhere
  to the joints, a reset: ``INVALID_GOAL``, as joint_trajectory_controller reports a
  preempted goal.
"""

from __future__ import annotations

import math

from control_msgs.action import FollowJointTrajectory

from ...sim.names import CommandRejected
from . import goals as G
from .action_servers import FEEDBACK_RATE, GoalServers, Refused

__all__ = ['FollowTrajectoryServers', 'FEEDBACK_RATE']


def _seconds(stamp) -> float:
    return stamp.sec + 1e-9 * stamp.nanosec


def _duration(msg, seconds: float) -> None:
    seconds = max(seconds, 0.0)
    msg.sec = int(math.floor(seconds))
    msg.nanosec = min(int(round((seconds - msg.sec) * 1e9)), 999_999_999)


def _result(code: int, text: str):
    return FollowJointTrajectory.Result(error_code=code, error_string=text)


class FollowTrajectoryServers(GoalServers):
    """The FollowJointTrajectory servers of a bridge node's trajectory controllers.

    Args:
        node: the bridge node (``sim``, ``runner`` attached).
        controllers: the controller groups (trajectory ones get a server).
    """

    action_type = FollowJointTrajectory
    action_suffix = 'follow_joint_trajectory'

    def __init__(self, node, controllers):
        chosen = [c for c in controllers if c.kind == 'trajectory']
        self.constraints = {c.name: G.read_constraints(c) for c in chosen}
        super().__init__(node, {c.name: list(c.joints) for c in chosen})

    def start(self, goal, request) -> None:
        try:
            self._start(goal, request)
        except G.GoalRejected as err:
            raise Refused(_result(err.code, str(err))) from None

    def _start(self, goal, request) -> None:
        traj, sim = request.trajectory, self.sim
        multi = bool(request.multi_dof_trajectory.joint_names or
                     request.multi_dof_trajectory.points)
        points = traj.points
        trajectory = G.read_goal(
            goal.joints, traj.joint_names, [_seconds(p.time_from_start) for p in points],
            [list(p.positions) for p in points], [list(p.velocities) for p in points],
            [list(p.accelerations) for p in points], multi)
        goal.tolerances = G.Tolerances.of(
            self.constraints[goal.key], goal.joints,
            [(t.name, t.position, t.velocity) for t in request.path_tolerance],
            [(t.name, t.position, t.velocity) for t in request.goal_tolerance],
            _seconds(request.goal_time_tolerance))
        stamp = _seconds(traj.header.stamp)
        start = sim.time if stamp == 0.0 else stamp
        if start + trajectory.duration < sim.time:
            raise G.GoalRejected(G.OLD_HEADER_TIMESTAMP, f'the trajectory ends at '
                                 f'{start + trajectory.duration:.6g} s, before the current '
                                 f'simulated time {sim.time:.6g} s')
        try:
            notes = self.command(goal, sim.follow, trajectory, start,
                                 source=f'{goal.key}/{self.action_suffix}')
        except CommandRejected as err:
            raise G.GoalRejected(G.INVALID_GOAL, str(err)) from None
        for note in notes:
            self.node.warn_throttled(f'{goal.key}/{self.action_suffix}: {note}')
        goal.start, goal.end = start, start + trajectory.duration

    def judge(self, goal, t: float, q, v, stamp) -> None:
        desired, rate, _ = self.sim.desired_state(goal.joints)
        outcome = goal.tolerances.judge(t, goal.start, goal.end, desired - q, rate - v,
                                        goal.joints)
        if outcome is not None:
            code, text = outcome
            if code != G.SUCCESSFUL:
                self.hold(goal)
            goal.finish('succeed' if code == G.SUCCESSFUL else 'abort', _result(code, text))
        elif self.feedback_due():
            goal.feedback = self._feedback(goal, t, stamp, desired, rate, q, v)

    def stopped(self, goal, why: str, status: str):
        return _result(G.SUCCESSFUL if status == 'cancel' else G.INVALID_GOAL, why)

    @staticmethod
    def _feedback(goal, t: float, stamp, desired, rate, q, v):
        msg = FollowJointTrajectory.Feedback()
        msg.header.stamp = stamp
        msg.joint_names = goal.joints
        for point, pos, vel in ((msg.desired, desired, rate), (msg.actual, q, v),
                                (msg.error, desired - q, rate - v)):
            point.positions = pos.tolist()
            point.velocities = vel.tolist()
            _duration(point.time_from_start, t - goal.start)
        return msg
