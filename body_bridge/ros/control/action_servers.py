"""The life of action goals on joints the simulation drives, shared by the trajectory and
gripper servers (:mod:`body_bridge.ros.control.actions`, :mod:`body_bridge.ros.control.grippers`).

Threads: goals, cancels and results are handled in the executor's thread, which must never
wait; the goals are judged and their feedback made in the stepping thread, once per control
period after the physics (:meth:`GoalServers.period`), and handed over through a guard
condition. Both sides change a goal's state only under the world's lock.

* An accepted goal replaces whatever its joints were doing at the next control period.
* Cancel: the joints hold the positions they have when the request arrives, from the next
  control period on; the goal ends CANCELED.
* A new goal for the same server preempts the running one, which ends ABORTED (a goal that
  is refused leaves the running one alone).
* A command from elsewhere to the goal's joints (topics, another server), or a reset,
  aborts it.
* A goal's status stays ACCEPTED until it ends: the executor keeps no task waiting for it
  (an rclpy task that waits is polled at every turn of the executor).
"""

from __future__ import annotations

import math
import threading

from rclpy.action import CancelResponse, GoalResponse

from ...sim.names import Mode
from ..console import action_server, count_command

__all__ = ['GoalServers', 'Goal', 'Refused', 'FEEDBACK_RATE']

#: Most feedback messages per second of simulated time.
FEEDBACK_RATE = 50.0


class Refused(Exception):
    """A goal that cannot be carried out: it ends ABORTED with ``result``."""

    def __init__(self, result):
        super().__init__()
        self.result = result


class Goal:
    """One goal of a server (``key``) on its joints; servers add their own attributes."""

    def __init__(self, handle, key: str, joints):
        self.handle, self.key, self.joints = handle, key, list(joints)
        self.outcome = None  # (terminal status 'succeed' or 'abort' or 'cancel', result)
        self.delivered = False
        self.feedback = None
        self.live_from = math.inf  # the simulated time from which it is carried out
        self.interrupted = ''

    def finish(self, status: str, result) -> None:
        if self.outcome is None:
            self.outcome = (status, result)


class GoalServers:
    """Action servers, one per name, for goals on joints of the node's Simulation.

    Subclasses set ``action_type`` and ``action_suffix`` and implement :meth:`start`,
    :meth:`judge` and :meth:`stopped`.

    Args:
        node: the bridge node (``sim``, ``runner`` attached).
        joints: server name -> the joints its goals command.
    """

    action_type = None
    action_suffix = ''

    def __init__(self, node, joints: dict[str, list[str]]):
        self.node, self.sim = node, node.sim
        self._lock = node.runner.lock
        self._own = threading.local()
        self._goals: dict[str, Goal] = {}  # server name -> its current goal
        self._done: list[Goal] = []
        self._ending: dict[bytes, Goal] = {}  # goal id -> goal, from delivery to its end
        self._every = max(1, round(1.0 / (FEEDBACK_RATE * self.sim.period)))
        self._count = 0
        self._index = {name: i for i, name in enumerate(self.sim.joint_names)}
        self.joints = joints
        self.servers = []
        if not joints:
            return
        self._guard = node.create_guard_condition(self._deliver)
        self.servers = [
            action_server(node, self.action_type, f'{key}/{self.action_suffix}',
                          execute_callback=self._end, goal_callback=self._on_goal,
                          handle_accepted_callback=lambda h, key=key: self._accepted(key, h),
                          cancel_callback=self._cancel)
            for key in joints]
        node.period_outputs.append(self.period)
        self.sim.command_hooks.append(self._on_command)
        self.sim.reset_hooks.append(self._on_reset)

    # --- what a server does (subclasses) -----------------------------------------------

    def start(self, goal: Goal, request) -> None:
        """Check a goal and queue its commands (world locked: the next period takes them).

        Raises:
            Refused: the goal cannot be carried out.
        """
        raise NotImplementedError

    def judge(self, goal: Goal, t: float, q, v, stamp) -> None:
        """After a period (stepping thread): ``goal.finish`` it, or set ``goal.feedback``.

        ``q``, ``v``: the goal's joints' positions and velocities.
        """
        raise NotImplementedError

    def stopped(self, goal: Goal, why: str, status: str):
        """The result of a goal stopped from outside (``why`` says how)."""
        raise NotImplementedError

    def feedback_due(self) -> bool:
        """Whether this period's judging should make feedback."""
        return self._count % self._every == 0

    # --- executor thread ----------------------------------------------------------------

    def _on_goal(self, request) -> GoalResponse:
        """Every goal is accepted (and counted), then judged in :meth:`_accepted`."""
        count_command(self.node)
        return GoalResponse.ACCEPT

    def _accepted(self, key: str, handle) -> None:
        goal = Goal(handle, key, self.joints[key])
        with self._lock:
            try:
                self.start(goal, handle.request)
            except Refused as err:  # the running goal, if any, goes on
                goal.finish('abort', err.result)
                self._done.append(goal)
            else:
                previous = self._goals.pop(key, None)
                if previous is not None:
                    previous.finish('abort', self.stopped(
                        previous, 'preempted by a newer goal', 'abort'))
                    self._done.append(previous)
                goal.live_from = self.sim.time
                self._goals[key] = goal
        self._guard.trigger()

    def _cancel(self, handle) -> CancelResponse:
        with self._lock:
            goal = next((g for g in self._goals.values() if g.handle is handle), None)
            if goal is None:
                return CancelResponse.REJECT
            self.hold(goal)
            goal.finish('cancel', self.stopped(goal, 'canceled: the joints hold their '
                                               'positions', 'cancel'))
            del self._goals[goal.key]
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
        status, result = self._ending.pop(bytes(handle.goal_id.uuid)).outcome
        if handle.is_cancel_requested:
            handle.canceled()
        elif status == 'succeed':
            handle.succeed()
        else:
            handle.abort()
        return result

    # --- any thread, world locked -----------------------------------------------------------

    def command(self, goal: Goal, call, *args, **kwargs):
        """Call a Simulation command method for ``goal``: a command to its own joints, not
        one from elsewhere (a goal of another action server on the same joints is one)."""
        self._own.key = goal.key
        try:
            return call(*args, **kwargs)
        finally:
            self._own.key = None

    def hold(self, goal: Goal) -> None:
        """The goal's joints hold their present positions from the next period on."""
        positions = self.sim.joint_positions()[[self._index[j] for j in goal.joints]]
        self.command(goal, self.sim.command, Mode.POSITION, goal.joints, positions)

    def _on_command(self, mode, names) -> None:
        own = getattr(self._own, 'key', None)
        for goal in list(self._goals.values()):
            if goal.key != own and set(names) & set(goal.joints):
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
        for key, goal in list(self._goals.items()):
            if goal.interrupted:
                goal.finish('abort', self.stopped(goal, f'aborted: {goal.interrupted}',
                                                  'abort'))
            elif t > goal.live_from:
                idx = [self._index[j] for j in goal.joints]
                self.judge(goal, t, q[idx], v[idx], stamp)
            if goal.outcome is not None:
                del self._goals[key]
                self._done.append(goal)
            changed = changed or goal.outcome is not None or goal.feedback is not None
        if changed:
            self._guard.trigger()
