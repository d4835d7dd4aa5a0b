"""``<gripper>/gripper_command``: the GripperCommand action for a model's grippers.

A gripper is a set of finger joints, each with a closing direction (+1: closing raises the
joint's position, -1: lowers it):

* every OpenRAVE manipulator whose gripper joints have a closing direction is a gripper
  named ``<manipulator>_gripper`` (its joints of direction 0, such as the Barrett hand's
  spread, are left out);
* a controller group of type ``position_controllers/GripperActionController`` in the
  parameter file is one too: ``joints`` (or ``joint``) and optionally ``closing_direction``
  (one +1 or -1 per joint; default +1).

A goal's ``position`` is the fingers' joint position measured in their closing direction
[rad or m]: each finger is driven to ``direction * position`` (clipped to its range);
``max_effort`` > 0 caps each finger's servo force [N m or N] while the goal runs (0: the
joint's own effort limit). The goal ends SUCCEEDED with ``reached_goal`` when every finger is
within ``GOAL_TOLERANCE`` of the position asked for, or with ``stalled`` when the fingers that
are not make no progress while their servos can do no more (at their effort cap, or their
setpoints at the target): :mod:`body_bridge.sim.control.grip`. As ros2_controllers'
GripperActionController, a position beyond the range is accepted, driven to the range's end,
and never "reached". Result and feedback: the mean finger position in the closing direction
and the largest finger effort
[N m or N]. Cancel, preemption, outside commands and resets as for every action
(:mod:`body_bridge.ros.control.action_servers`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from control_msgs.action import GripperCommand

from ...errors import ParameterError
from ...sim.control.grip import GripGoal
from ...sim.names import CommandRejected, Mode
from .action_servers import GoalServers, Refused

__all__ = ['Gripper', 'find_grippers', 'GripperServers']


@dataclass(frozen=True)
class Gripper:
    """A gripper: its name, finger joints and their closing directions (+1 or -1)."""

    name: str
    joints: tuple[str, ...]
    directions: tuple[float, ...]


def find_grippers(model, controllers, commanded) -> list[Gripper]:
    """The grippers of a model (its manipulators) and of the parameter file.

    Args:
        model: the Model.
        controllers: the controller groups (:mod:`body_bridge.ros.control.commands`).
        commanded: the joints that take commands.

    Raises:
        ParameterError: a bad ``closing_direction``.
    """
    out = []
    for manipulator in model.manipulators:
        pairs = [(j, float(np.sign(d))) for j, d in zip(manipulator.gripper_joints,
                                                         manipulator.closing_direction)
                 if d != 0 and j in commanded]
        if pairs:
            out.append(Gripper(f'{manipulator.name}_gripper', *map(tuple, zip(*pairs))))
    for c in controllers:
        if c.kind != 'gripper':
            continue
        given = dict(c.options).get('closing_direction', [1.0] * len(c.joints))
        given = given if isinstance(given, (list, tuple)) else [given]
        if len(given) != len(c.joints) or any(d not in (1, -1) for d in given):
            raise ParameterError(f'controllers.{c.name}.closing_direction',
                                 f'must be one +1 or -1 per joint, not {given!r}')
        out.append(Gripper(c.name, tuple(c.joints), tuple(float(d) for d in given)))
    return out


def _result(cls, position: float, effort: float, stalled=False, reached=False):
    return cls(position=float(position), effort=float(effort), stalled=bool(stalled),
               reached_goal=bool(reached))


class GripperServers(GoalServers):
    """The GripperCommand servers of a bridge node's grippers.

    Args:
        node: the bridge node (``sim``, ``runner`` attached).
        grippers: the grippers.
    """

    action_type = GripperCommand
    action_suffix = 'gripper_command'

    def __init__(self, node, grippers: list[Gripper]):
        self.grippers = {g.name: g for g in grippers}
        super().__init__(node, {g.name: list(g.joints) for g in grippers})

    def start(self, goal, request) -> None:
        command = request.command
        gripper = self.grippers[goal.key]
        goal.directions = np.array(gripper.directions)
        position, effort = command.position, command.max_effort
        if not np.isfinite(position) or not np.isfinite(effort) or effort < 0:
            self.node.warn_throttled(f'{goal.key}/{self.action_suffix}: refused: position '
                                     f'{position} and max_effort {effort} must be finite, '
                                     'max_effort >= 0')
            raise Refused(_result(GripperCommand.Result, *self._state(goal)))
        try:
            self.command(goal, self.sim.limit_efforts, goal.joints, [effort] * len(goal.joints))
            notes = self.command(goal, self.sim.command, Mode.POSITION, goal.joints,
                                 goal.directions * position)
        except CommandRejected as err:
            self.node.warn_throttled(f'{goal.key}/{self.action_suffix}: refused: {err}')
            raise Refused(_result(GripperCommand.Result, *self._state(goal))) from None
        for note in notes:
            self.node.warn_throttled(f'{goal.key}/{self.action_suffix}: {note}')
        goal.grip = GripGoal(self.sim, goal.joints, goal.directions, position, effort)
        if goal.grip.clipped.any():
            self.node.warn_throttled(
                f'{goal.key}/{self.action_suffix}: position {position:g} is beyond the '
                'fingers\' range: they go to its end and the goal ends stalled, not reached')

    def _state(self, goal, q=None):
        """Mean finger position in the closing direction, largest finger effort."""
        idx = [self._index[j] for j in goal.joints]
        q = self.sim.joint_positions()[idx] if q is None else q
        effort = self.sim.joint_efforts()[idx]
        directions = np.array(self.grippers[goal.key].directions)
        return float(np.mean(directions * q)), float(np.max(np.abs(effort)))

    def judge(self, goal, t: float, q, v, stamp) -> None:
        position, effort = self._state(goal, q)
        idx = [self._index[j] for j in goal.joints]
        setpoints = self.sim.setpoints()
        outcome = goal.grip.judge(q, self.sim.joint_efforts()[idx],
                                  [setpoints[j] for j in goal.joints])
        if outcome:
            goal.finish('succeed', _result(GripperCommand.Result, position, effort,
                                           stalled=outcome == 'stalled',
                                           reached=outcome == 'reached'))
            return
        if self.feedback_due():
            goal.feedback = _result(GripperCommand.Feedback, position, effort)

    def stopped(self, goal, why: str, status: str):
        if status != 'cancel':
            self.node.warn_throttled(f'{goal.key}/{self.action_suffix}: {why}')
        return _result(GripperCommand.Result, *self._state(goal))
