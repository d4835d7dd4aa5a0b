"""Command topics: joint_commands, and controller groups declared ros2_control style.

``joint_commands`` (sensor_msgs/JointState) commands joints by name: any subset, exactly one
of position, velocity or effort filled per message.

Controller groups are declared in the parameter file::

    controllers:
      arm_controller:
        type: joint_trajectory_controller/JointTrajectoryController
        joints: [shoulder_yaw, shoulder_pitch, elbow_pitch, wrist_pitch]
      gripper:
        type: position_controllers/JointGroupPositionController
        joints: [finger]

A forward command group listens on ``<name>/commands`` (std_msgs/Float64MultiArray, one value
per joint in the order of ``joints``; all NaN means no command), a trajectory controller on
``<name>/joint_trajectory`` (trajectory_msgs/JointTrajectory) and the action
``<name>/follow_joint_trajectory`` (:mod:`body_bridge.ros.control.actions`). A
``position_controllers/GripperActionController`` group is a gripper with the action
``<name>/gripper_command`` (:mod:`body_bridge.ros.control.grippers`).

A rejected message leaves every joint with its last valid command and produces one warning
naming the topic and the reason (each distinct warning at most once per second).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np
from rclpy.qos import QoSPolicyKind
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory as JointTrajectoryMsg

from ...errors import ParameterError
from ...sim.names import CommandRejected, Mode
from ...sim.control.trajectory import JointTrajectory, TrajectoryError
from ..stream import qos
from ..console import count_command

try:
    from rclpy.event_handler import SubscriptionEventCallbacks
except ImportError:  # Humble
    from rclpy.qos_event import SubscriptionEventCallbacks

__all__ = ['Controller', 'CONTROLLER_TYPES', 'read_controllers', 'CommandTopics']

#: ros2_control controller types the bridge provides: type -> (topic kind, mode or None).
#: ForwardCommandController takes its mode from ``interface_name``.
CONTROLLER_TYPES = {
    'joint_trajectory_controller/JointTrajectoryController': ('trajectory', Mode.POSITION),
    'position_controllers/JointGroupPositionController': ('commands', Mode.POSITION),
    'velocity_controllers/JointGroupVelocityController': ('commands', Mode.VELOCITY),
    'effort_controllers/JointGroupEffortController': ('commands', Mode.EFFORT),
    'forward_command_controller/ForwardCommandController': ('commands', None),
    'position_controllers/GripperActionController': ('gripper', Mode.POSITION),
}
_INTERFACES = {'position': Mode.POSITION, 'velocity': Mode.VELOCITY, 'effort': Mode.EFFORT}
_NAME = re.compile(r'[A-Za-z][A-Za-z0-9_]*$')


@dataclass(frozen=True)
class Controller:
    """A controller group.

    Attributes:
        name: the controller's name; its topic is ``<name>/commands`` or
            ``<name>/joint_trajectory``.
        kind: 'commands' (forward command group) or 'trajectory'.
        mode: what the values are (trajectories are positions).
        joints: the joints, in the order of a command's values.
        options: the type's own parameters as sorted (key, value) pairs: a trajectory
            controller's ``constraints.*`` (:mod:`body_bridge.ros.control.goals`), a gripper's
            ``closing_direction`` (:mod:`body_bridge.ros.control.grippers`).
    """

    name: str
    kind: str
    mode: Mode
    joints: tuple[str, ...]
    options: tuple[tuple[str, object], ...] = ()

    @property
    def topic(self) -> str:
        return f'{self.name}/{"joint_trajectory" if self.kind == "trajectory" else "commands"}'


def _controller(name: str, keys: Mapping[str, object], joints: list[str],
                kinematic: bool) -> Controller:
    prefix = f'controllers.{name}'
    if not _NAME.match(name):
        raise ParameterError(prefix, 'a controller name must start with a letter and hold only '
                             'letters, digits and underscores')
    ctype = keys.get('type')
    if ctype not in CONTROLLER_TYPES:
        raise ParameterError(f'{prefix}.type', f'{ctype!r} is not one of '
                             f'{", ".join(CONTROLLER_TYPES)}')
    kind, mode = CONTROLLER_TYPES[ctype]
    if mode is None:
        interface = keys.get('interface_name')
        if interface not in _INTERFACES:
            raise ParameterError(f'{prefix}.interface_name', f'{interface!r} is not one of '
                                 'position, velocity, effort')
        mode = _INTERFACES[interface]
    names = keys.get('joints')
    if names is None and kind == 'gripper':
        names = keys.get('joint')  # ros2_controllers' GripperActionController has one joint
    if isinstance(names, str):
        names = [names]
    if not names or not all(isinstance(n, str) for n in names):
        raise ParameterError(f'{prefix}.joints', 'must be a non-empty list of joint names')
    for joint in names:
        if joint not in joints:
            raise ParameterError(f'{prefix}.joints', f'{joint!r} is not a joint with a servo '
                                 f'(one of {", ".join(joints) or "none"})')
    if len(set(names)) != len(names):
        raise ParameterError(f'{prefix}.joints', 'a joint is named twice')
    if kinematic and mode == Mode.EFFORT:
        raise ParameterError(f'{prefix}.type', 'the model is kinematic: it takes no efforts')
    options = tuple(sorted((key, value) for key, value in keys.items() if
                           (kind == 'trajectory' and key.startswith('constraints.')) or
                           (kind == 'gripper' and key == 'closing_direction')))
    controller = Controller(name, kind, mode, tuple(names), options)
    if kind == 'trajectory':
        from .goals import read_constraints
        read_constraints(controller)  # bad values are refused when the bridge starts
    return controller


def read_controllers(values: Mapping[str, object], joints: list[str], kinematic: bool = False
                     ) -> tuple[list[Controller], list[str]]:
    """Controller groups from the ``controllers.*`` parameters; warnings for unused keys.

    Args:
        values: ``<name>.<key>`` -> value (the parameters under ``controllers``).
        joints: the joints that take commands.
        kinematic: the model is kinematic (effort controllers are refused).

    Raises:
        ParameterError: an unknown type or interface, unknown joints, a bad name.
    """
    by_name: dict[str, dict[str, object]] = {}
    for key, value in values.items():
        name, _, rest = key.partition('.')
        by_name.setdefault(name, {})[rest] = value
    controllers, warnings = [], []
    for name, keys in sorted(by_name.items()):
        controller = _controller(name, keys, joints, kinematic)
        used = {'type', 'joints'} | {key for key, _ in controller.options}
        if controller.kind == 'commands':
            used.add('interface_name')
        if controller.kind == 'gripper':
            used.add('joint')
        for key in sorted(set(keys) - used):
            warnings.append(f'parameter controllers.{name}.{key} is not used by body_bridge')
        controllers.append(controller)
    return controllers, warnings


def _seconds(stamp) -> float:
    return stamp.sec + 1e-9 * stamp.nanosec


class CommandTopics:
    """Subscriptions that turn command messages into Simulation commands.

    Args:
        node: the bridge node (``create_subscription``, ``warn_throttled``).
        sim: the model's Simulation.
        controllers: the controller groups to serve.
    """

    def __init__(self, node, sim, controllers: list[Controller]):
        self.node, self.sim = node, sim
        controllers = [c for c in controllers if c.kind != 'gripper']  # an action, no topic
        topic, profile = qos.joint_topic(node.params, 'joint_commands')
        self.subscriptions = [self._subscribe(JointState, topic, self._on_joint_commands,
                                              profile)]
        for c in controllers:
            if c.kind == 'trajectory':
                sub = self._subscribe(JointTrajectoryMsg, c.topic,
                                      partial(self._on_trajectory, c))
            else:
                sub = self._subscribe(Float64MultiArray, c.topic, partial(self._on_group, c))
            self.subscriptions.append(sub)
        self._topics = {id(c): s.topic_name for c, s in zip(controllers, self.subscriptions[1:])}
        self.controllers = controllers

    def _subscribe(self, msg_type, topic: str, callback, profile=qos.COMMANDS):
        """A command subscription whose QoS mismatches are reported once per second."""
        holder: list = []
        events = SubscriptionEventCallbacks(incompatible_qos=lambda info: self._incompatible(
            holder[0].topic_name if holder else topic, info))
        sub = self.node.create_subscription(msg_type, topic, callback, profile,
                                            event_callbacks=events)
        holder.append(sub)
        return sub

    def _incompatible(self, topic: str, info) -> None:
        try:
            policy = QoSPolicyKind(info.last_policy_kind).name
        except ValueError:
            policy = str(info.last_policy_kind)
        self._warn(topic, f'a publisher offers QoS incompatible with this subscription '
                   f'({policy}); none of its messages are received: publish commands reliable '
                   '(the bridge subscribes reliable, volatile, depth 10; joint_commands_'
                   'reliability: best_effort takes best-effort publishers on joint_commands)')

    def _warn(self, topic: str, text: str) -> None:
        self.node.warn_throttled(f'{topic}: {text}')

    def _send(self, topic: str, call, *args) -> None:
        try:
            notes = call(*args, source=topic)
        except (CommandRejected, TrajectoryError) as err:
            self._warn(topic, f'rejected: {err}')
            return
        for note in notes:
            self._warn(topic, note)

    def _on_joint_commands(self, msg: JointState) -> None:
        count_command(self.node)
        topic = self.subscriptions[0].topic_name
        fields = [(Mode.POSITION, msg.position), (Mode.VELOCITY, msg.velocity),
                  (Mode.EFFORT, msg.effort)]
        given = [(mode, values) for mode, values in fields if len(values)]
        if len(given) != 1:
            self._warn(topic, 'rejected: a command must fill exactly one of position, '
                       f'velocity, effort (this one fills {len(given)})')
            return
        mode, values = given[0]
        self._send(topic, self.sim.command, mode, list(msg.name), list(values))

    def _on_group(self, controller: Controller, msg: Float64MultiArray) -> None:
        count_command(self.node)
        topic = self._topics[id(controller)]
        values = np.asarray(msg.data, dtype=float)
        if len(values) != len(controller.joints):
            self._warn(topic, f'rejected: {len(values)} values for {len(controller.joints)} '
                       'joints')
            return
        if np.all(np.isnan(values)):
            return  # all NaN: no command, as ros2_control's forward command controllers
        self._send(topic, self.sim.command, controller.mode, list(controller.joints), values)

    def _on_trajectory(self, controller: Controller, msg: JointTrajectoryMsg) -> None:
        count_command(self.node)
        topic = self._topics[id(controller)]
        names = list(msg.joint_names)
        if not names:
            self._warn(topic, 'rejected: no joint names')
            return
        for name in names:
            if name not in controller.joints:
                self._warn(topic, f'rejected: joint {name!r} is not one of this controller\'s '
                           f'joints ({", ".join(controller.joints)})')
                return
        points = msg.points
        if any(len(p.effort) for p in points):
            self._warn(topic, 'effort values of trajectory points are ignored (position '
                       'command interface)')
        try:
            trajectory = JointTrajectory.from_points(
                names, [_seconds(p.time_from_start) for p in points],
                [list(p.positions) for p in points], [list(p.velocities) for p in points],
                [list(p.accelerations) for p in points])
        except TrajectoryError as err:
            self._warn(topic, f'rejected: {err}')
            return
        start = _seconds(msg.header.stamp)
        start = None if start == 0.0 else start
        if start is not None and start - self.sim.time > 3600.0:
            self._warn(topic, f'the trajectory starts {start - self.sim.time:.6g} s from now in '
                       'simulated time (is the sender running with use_sim_time?)')
        self._send(topic, self.sim.follow, trajectory, start)
