"""``<controller>/follow_joint_trajectory``: the FollowJointTrajectory action of every
trajectory controller group, with joint_trajectory_controller's semantics
(:mod:`body_bridge.ros.goals` judges the goals).

Threads: goals, cancels and results are handled in the executor's thread, which must never
wait; the tolerances are checked and the feedback made in the stepping thread, once per
control period after the physics (:meth:`FollowTrajectoryServers.period`), and handed over
through a guard condition. Both sides change a goal's state only under the world's lock.

* A goal that cannot be followed is accepted and at once aborted with its error code and a
  sentence (a ROS 2 rejection carries no result).
* An accepted goal replaces whatever its joints were doing at the next control period; its
  trajectory starts at the header stamp (simulated time), or then when the stamp is zero.
* Feedback (desired, actual, error) every control period, at most ``FEEDBACK_RATE`` a
  second of simulated time.
* Cancel: the joints hold the positions they have when the request arrives, from the next
  control period on; the goal ends CANCELED (error code 0).
* A new goal for the same controller preempts the running one, which ends ABORTED with
  ``INVALID_GOAL`` ("preempted"), as joint_trajectory_controller reports it.
* A command from elsewhere to the goal's joints (topics), or a reset, aborts it.
* A goal's status stays ACCEPTED until it ends (the executor keeps no task waiting for it).
"""

from __future__ import annotations

import math
import threading

import numpy as np
from control_msgs.action import FollowJointTrajectory
from rclpy.action import ActionServer, CancelResponse, GoalResponse

from ..sim.names import CommandRejected, Mode
from . import goals as G

__all__ = ['FollowTrajectoryServers', 'FEEDBACK_RATE']

#: Most feedback messages per second of simulated time.
FEEDBACK_RATE = 50.0


def _seconds(stamp) -> float:
    return stamp.sec + 1e-9 * stamp.nanosec


def _duration(msg, seconds: float) -> None:
    seconds = max(seconds, 0.0)
    msg.sec = int(math.floor(seconds))
    msg.nanosec = min(int(round((seconds - msg.sec) * 1e9)), 999_999_999)


class _Goal:
    """One goal being followed (or just refused)."""

    def __init__(self, handle, controller):
        self.handle, self.controller = handle, controller
        self.joints = list(controller.joints)
        self.outcome: tuple[int, str] | None = None  # set once: (error code, text)
        self.status = 'abort'  # how it ends: 'succeed', 'abort' or 'cancel'
        self.delivered = False
        self.feedback = None
        self.live_from = math.inf  # the simulated time from which it is followed
        self.start = self.end = 0.0
        self.tolerances = None
        self.interrupted = ''

    def finish(self, code: int, text: str, status: str) -> None:
        if self.outcome is None:
            self.outcome, self.status = (code, text), status


class FollowTrajectoryServers:
    """The FollowJointTrajectory servers of a bridge node's trajectory controllers.

    Args:
        node: the bridge node (``sim``, ``runner`` attached).
        controllers: the controller groups (trajectory ones get a server).
    """

    def __init__(self, node, controllers):
        self.node, self.sim = node, node.sim
        self._lock = node.runner.lock
        self._own = threading.local()
        self._goals: dict[str, _Goal] = {}  # controller name -> its current goal
        self._done: list[_Goal] = []
        self._ending: dict[bytes, _Goal] = {}  # goal id -> goal, between deliver and end
        self._every = max(1, round(1.0 / (FEEDBACK_RATE * self.sim.period)))
        self._count = 0
        self._index = {name: i for i, name in enumerate(self.sim.joint_names)}
        self._guard = node.create_guard_condition(self._deliver)
        self.constraints = {c.name: G.read_constraints(c) for c in controllers
                            if c.kind == 'trajectory'}
        self.servers = [
            ActionServer(node, FollowJointTrajectory, f'{c.name}/follow_joint_trajectory',
                         execute_callback=self._end, goal_callback=self._accept_all,
                         handle_accepted_callback=lambda h, c=c: self._accepted(c, h),
                         cancel_callback=self._cancel)
            for c in controllers if c.kind == 'trajectory']
        if self.servers:
            node.period_outputs.append(self.period)
            self.sim.command_hooks.append(self._on_command)
            self.sim.reset_hooks.append(self._on_reset)

    # --- executor thread ----------------------------------------------------------------

    @staticmethod
    def _accept_all(request) -> GoalResponse:
        return GoalResponse.ACCEPT

    def _accepted(self, controller, handle) -> None:
        goal = _Goal(handle, controller)
        request = handle.request
        with self._lock:
            previous = self._goals.get(controller.name)
            if previous is not None:
                previous.finish(G.INVALID_GOAL, 'preempted by a newer goal', 'abort')
                self._done.append(previous)
            self._goals[controller.name] = goal
            try:
                self._start(goal, request)
            except G.GoalRejected as err:
                goal.finish(err.code, str(err), 'abort')
            if goal.outcome is not None:
                del self._goals[controller.name]
                self._done.append(goal)
        self._guard.trigger()

    def _start(self, goal: _Goal, request) -> None:
        """Check a goal and queue its trajectory (world locked: the next period takes it)."""
        traj, sim = request.trajectory, self.sim
        multi = bool(request.multi_dof_trajectory.joint_names or
                     request.multi_dof_trajectory.points)
        points = traj.points
        trajectory = G.read_goal(
            goal.joints, traj.joint_names, [_seconds(p.time_from_start) for p in points],
            [list(p.positions) for p in points], [list(p.velocities) for p in points],
            [list(p.accelerations) for p in points], multi)
        goal.tolerances = G.Tolerances.of(
            self.constraints[goal.controller.name], goal.joints,
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
            notes = self._command(sim.follow, trajectory, start)
        except CommandRejected as err:
            raise G.GoalRejected(G.INVALID_GOAL, str(err)) from None
        for note in notes:
            self.node.warn_throttled(f'{goal.controller.name}/follow_joint_trajectory: {note}')
        goal.start, goal.end, goal.live_from = start, start + trajectory.duration, sim.time

    def _cancel(self, handle) -> CancelResponse:
        with self._lock:
            goal = next((g for g in self._goals.values() if g.handle is handle), None)
            if goal is None:
                return CancelResponse.REJECT
            self._hold(goal)
            goal.finish(G.SUCCESSFUL, 'canceled: the joints hold their positions', 'cancel')
            del self._goals[goal.controller.name]
            self._done.append(goal)
        self._guard.trigger()
        return CancelResponse.ACCEPT

    def _deliver(self) -> None:
        """Publish the latest feedback and end the goals that have an outcome."""
        with self._lock:
            done, self._done = self._done, []
            feedback = [(g.handle, g.feedback) for g in self._goals.values()
                        if g.feedback is not None]
            for goal in self._goals.values():
                goal.feedback = None
        for handle, msg in feedback:
            if handle.is_active:
                handle.publish_feedback(msg)
        for goal in done:
            if not goal.delivered:
                goal.delivered = True
                self._ending[bytes(goal.handle.goal_id.uuid)] = goal
                goal.handle.execute()

    def _end(self, handle):
        """The execute callback, run once a goal has its outcome: its terminal state."""
        goal = self._ending.pop(bytes(handle.goal_id.uuid))
        code, text = goal.outcome
        if handle.is_cancel_requested:
            handle.canceled()
        elif goal.status == 'succeed':
            handle.succeed()
        else:
            handle.abort()
        return FollowJointTrajectory.Result(error_code=code, error_string=text)

    # --- any thread, world locked -----------------------------------------------------------

    def _command(self, call, *args):
        self._own.active = True
        try:
            return call(*args)
        finally:
            self._own.active = False

    def _hold(self, goal: _Goal) -> None:
        """The goal's joints hold their present positions from the next period on."""
        positions = self.sim.joint_positions()[[self._index[j] for j in goal.joints]]
        self._command(self.sim.command, Mode.POSITION, goal.joints, positions)

    def _on_command(self, mode, names) -> None:
        if getattr(self._own, 'active', False):
            return
        for goal in list(self._goals.values()):
            if set(names) & set(goal.joints):
                goal.interrupted = 'its joints were commanded by another source'

    def _on_reset(self, sim) -> None:
        for goal in self._goals.values():
            goal.interrupted = 'the simulation was reset'

    # --- stepping thread ----------------------------------------------------------------------

    def period(self, stamp) -> None:
        """After each control period (world locked): judge the goals, make feedback."""
        if not self._goals:
            return
        self._count += 1
        t, sim = self.sim.time, self.sim
        q, v = sim.joint_positions(), sim.joint_velocities()
        changed = False
        for name, goal in list(self._goals.items()):
            if goal.interrupted:
                goal.finish(G.INVALID_GOAL, f'aborted: {goal.interrupted}', 'abort')
            elif t > goal.live_from:
                self._judge(goal, t, q, v, stamp)
            if goal.outcome is not None:
                del self._goals[name]
                self._done.append(goal)
            changed = changed or goal.outcome is not None or goal.feedback is not None
        if changed:
            self._guard.trigger()

    def _judge(self, goal: _Goal, t: float, q: np.ndarray, v: np.ndarray, stamp) -> None:
        idx = [self._index[j] for j in goal.joints]
        desired, rate, _ = self.sim.desired_state(goal.joints)
        error, rate_error = desired - q[idx], rate - v[idx]
        outcome = goal.tolerances.judge(t, goal.start, goal.end, error, rate_error, goal.joints)
        if outcome is not None:
            code, text = outcome
            if code != G.SUCCESSFUL:
                self._hold(goal)
            goal.finish(code, text, 'succeed' if code == G.SUCCESSFUL else 'abort')
        if outcome is None and self._count % self._every == 0:
            goal.feedback = self._feedback(goal, t, stamp, desired, rate, q[idx], v[idx])

    @staticmethod
    def _feedback(goal: _Goal, t: float, stamp, desired, rate, q, v):
        msg = FollowJointTrajectory.Feedback()
        msg.header.stamp = stamp
        msg.joint_names = goal.joints
        since = t - goal.start
        for point, pos, vel in ((msg.desired, desired, rate), (msg.actual, q, v),
                                (msg.error, desired - q, rate - v)):
            point.positions = pos.tolist()
            point.velocities = vel.tolist()
            _duration(point.time_from_start, since)
        return msg
