"""The bridge node: a thin rclpy shell around the model, the URDF and the Simulation.

One node per model. A :class:`~body_bridge.ros.node.runner.SimulationRunner` steps the physics
world in its own thread (one control period per loop, paced by ``real_time_factor``) and
lets every node publish; subscriptions and services run in the executor's thread and hand
commands to the Simulation, which is thread safe for that. A node started alone owns its
runner; several models in one world (``run`` with several models) share one.
"""

from __future__ import annotations

import math
import re
import time

from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import SetBool, Trigger
from tf2_msgs.msg import TFMessage

from ... import urdf as urdf_writer
from ...device_overlay import apply_overlay, load_overlay
from ...errors import ParameterError
from ...formats import load_model
from ...kinematics import joint_transform
from ...model import DeviceKind, JointType, Model, Pose
from ...paths import cache_dir, resolve_model
from . import params as P
from ..stream import qos, wire
from ..console import forget_warnings, say_warnings
from ..control.commands import CommandTopics, read_controllers
from ..stream.outlets import OUTLETS, watched
from .params import PARAMETERS
from .reload import reload_problem
from .settable import on_set_parameters

__all__ = ['BridgeNode', 'PARAMETERS', 'problem_of']


_QUOTED_OR_NUMBER = re.compile(r"'[^']*'|\"[^\"]*\"|(?<!\w)[-+]?\.?\d[\d.eE+-]*|\bnan\b|\binf\b")


def problem_of(text: str) -> str:
    """A warning's problem: its text with quoted names and numbers blanked out."""
    return _QUOTED_OR_NUMBER.sub('#', text)


def _stamp(seconds: float) -> Time:
    return Time(**dict(zip(('sec', 'nanosec'), wire.stamp_parts(seconds))))


def _transform(parent: str, child: str, pose: Pose, stamp: Time) -> TransformStamped:
    t = TransformStamped()
    t.header.stamp = stamp
    t.header.frame_id = parent
    t.child_frame_id = child
    _set_transform(t, pose.pos, pose.quat())
    return t


def _set_transform(t: TransformStamped, pos, quat) -> None:
    tr, rot = t.transform.translation, t.transform.rotation
    tr.x, tr.y, tr.z = float(pos[0]), float(pos[1]), float(pos[2])
    rot.w, rot.x, rot.y, rot.z = float(quat[0]), float(quat[1]), float(quat[2]), float(quat[3])


class BridgeNode(Node):
    """Publishes a model as a live ROS 2 robot.

    Args:
        shared: the caller puts this node into a shared world
            (:class:`~body_bridge.ros.node.runner.SimulationRunner`); otherwise a node that
            simulates starts its own.
        defaults: parameter defaults over :data:`PARAMETERS` (a parameter given by the user
            still wins).
        kwargs: passed to ``rclpy.node.Node`` (namespace, parameter_overrides, cli_args...).

    Raises:
        BodyBridgeError: a bad model file or parameter (one line says what).
    """

    def __init__(self, *, shared: bool = False, defaults: dict | None = None, **kwargs):
        super().__init__('body_bridge', automatically_declare_parameters_from_overrides=True,
                         **kwargs)
        self._warned: dict[str, list] = {}  # problem -> [last report [s], not shown since]
        #: The world file that placed this model (its ``pose`` key), or None.
        self.world_file: str | None = None
        #: Warnings raised while running (throttled repeats included), for the status line.
        self.warning_count = 0
        self.params = p = P.declare_parameters(self, defaults)
        path = resolve_model(p['model'])
        self.model: Model = load_model(path, p['material_table'] or None)
        self.device_overlay = load_overlay(p['devices_file'], self.model)
        self.model = apply_overlay(self.model, self.device_overlay)
        from .model_choices import apply_model_choices
        apply_model_choices(self)
        say_warnings(self, self.model.warnings)  # once for several nodes of one file
        self._read_groups()
        mesh_dir = p['mesh_directory'] or cache_dir('meshes')
        self.urdf = urdf_writer.to_urdf(self.model, mesh_dir=mesh_dir)
        self.declare_parameter('robot_description', self.urdf, ParameterDescriptor(
            name='robot_description', type=P._S, read_only=True,
            description='The model as URDF (also on the robot_description topic).'))
        self.prefix = p['frame_prefix']
        #: Called with the stamp after every control period's state is published (sensor
        #: publishers and other per-period outputs register here).
        self.period_outputs: list = []

        self._description_pub = self.create_publisher(String, 'robot_description', qos.LATCHED)
        self._description_pub.publish(String(data=self.urdf))
        self._static_pub = self.create_publisher(TFMessage, '/tf_static', qos.TF_STATIC)
        self._static_pub.publish(TFMessage(transforms=self._static_transforms()))
        self._tf_pub = self.create_publisher(TFMessage, '/tf', qos.TF)

        self.sim = self.runner = None
        self._owns_runner = False
        if not p['simulate']:
            topic, profile = qos.joint_topic(p, 'joint_states')
            self._state_sub = self.create_subscription(
                JointState, topic, self._on_external_state, profile)
            self._warn_unclaimed()
        elif not shared:
            from .runner import SimulationRunner
            self._owns_runner = True
            SimulationRunner([self]).start()
        self._setup_reload()
        self.get_logger().info(
            f'{self.model.name}: {len(self.model.links)} links, '
            f'{len(self.model.movable_joints)} moving joints, {len(self.model.devices)} devices '
            f'from {path}')
        for line in self.start_notes:
            self.get_logger().info(line)

    # --- parameters -------------------------------------------------------------------------

    def _read_groups(self) -> None:
        """The parameter groups whose names the user chooses; unused parameters warned."""
        model, p = self.model, self.params
        if p['control_rate'] <= 0 or not math.isfinite(p['control_rate']):
            raise ParameterError('control_rate', f'must be positive, not {p["control_rate"]}')
        if p['real_time_factor'] < 0 or not math.isfinite(p['real_time_factor']):
            raise ParameterError('real_time_factor',
                                 f'must be 0 or positive, not {p["real_time_factor"]}')
        if p['on_divergence'] not in ('reset', 'pause'):
            raise ParameterError('on_divergence', f'{p["on_divergence"]!r} is not one of '
                                 'reset, pause')
        if not 0.0 < p['track_lateral_friction'] <= 1.0:
            raise ParameterError('track_lateral_friction', 'must be in (0, 1], not '
                                 f'{p["track_lateral_friction"]}')
        self.initial_pose = P.initial_pose(p['initial_pose'])
        from ...sim.building.worldfile import read_named_poses
        read_named_poses(p['named_poses'])  # served by the simulator API; refused at start
        commanded = [j.name for j in model.movable_joints if j.mimic is None]
        self.gains, notes = P.read_gains(P.group(self, 'gains'), commanded)
        self.initial_positions, more = P.read_initial_positions(
            P.group(self, 'initial_positions'), model)
        self.controllers, rest = read_controllers(P.group(self, 'controllers'), commanded,
                                                  kinematic=p['kinematic'])
        from ..control.grippers import find_grippers
        self.grippers = find_grippers(model, self.controllers, commanded)
        for line in notes + more + rest:
            self.get_logger().warning(line)
        self.drive = None
        if p['simulate']:  # the root line says why cmd_vel is or is not offered
            from ..control.mobile import drive_and_why
            self.drive, why = drive_and_why(self)
            self.start_notes[0] = f'{self.start_notes[0]}; {why}'
        # Parameters declared later by the parts that own them (sensor publishers declare
        # devices.<device>.on/rate): given back, so that they can declare them with their
        # descriptors (the value given still applies); what nobody claims is warned about.
        self._unclaimed = P.unused_parameters(self)
        for name in self._unclaimed:
            self.undeclare_parameter(name)

    def _warn_unclaimed(self) -> None:
        for name in self._unclaimed:
            if not self.has_parameter(name):
                self.get_logger().warning(f'parameter {name} is not a body_bridge parameter; '
                                          'ignored')

    def sim_options(self):
        """The integrator settings these parameters ask for."""
        from ...sim.building.build import BuildOptions
        from ...sim.building.options import SimOptions
        p = self.params
        return SimOptions(
            build=BuildOptions(timestep=p['timestep'], ground_plane=p['ground_plane'],
                               self_collision=p['self_collision'],
                               casters=self.casters),
            control_period=1.0 / p['control_rate'], servo_frequency=p['servo_frequency'],
            servo_damping=p['servo_damping'], gravity_compensation=p['gravity_compensation'],
            initial_positions=self.initial_positions, initial_pose=self.initial_pose,
            gains=self.gains, kinematic=p['kinematic'],
            default_velocity_limit=p['default_velocity_limit'],
            on_divergence=p['on_divergence'],
            track_lateral_friction=p['track_lateral_friction'])

    def create_publisher(self, *args, **kwargs):
        """A publisher as a channel of the process's outlets (DDS, bag, Foxglove), without
        publisher event handlers (``qos.NO_PUBLISHER_EVENTS``)."""
        kwargs.setdefault('event_callbacks', qos.NO_PUBLISHER_EVENTS)
        return OUTLETS.wrap(self, super().create_publisher(*args, **kwargs))

    # --- frames -------------------------------------------------------------------------

    def frame(self, name: str) -> str:
        return self.prefix + name

    def _static_transforms(self) -> list[TransformStamped]:
        model, stamp = self.model, _stamp(0.0)
        out = []
        fixed_frame = self.params['fixed_frame']
        if model.root_joint == JointType.FIXED and self.frame(model.root) != fixed_frame:
            out.append(_transform(fixed_frame, self.frame(model.root),
                                  self.initial_pose @ model.link(model.root).pose, stamp))
        for joint in model.ordered_joints():
            if joint.type.rigid:
                out.append(_transform(self.frame(joint.parent), self.frame(joint.child),
                                      model.joint_origin(joint), stamp))
        for extra in model.frames:
            out.append(_transform(self.frame(extra.link), self.frame(extra.name), extra.pose,
                                  stamp))
        odom = self.params['odom_frame']
        if self.params['odom_tf'] and self.drive is not None and odom != fixed_frame:
            out.append(_transform(fixed_frame, odom, Pose(), stamp))  # docs/mobile.md
        frames = model.device_frames()
        for device in model.devices:
            frame = frames[device.name]
            out.append(_transform(self.frame(device.link), self.frame(frame), device.pose, stamp))
            if device.kind == DeviceKind.CAMERA:
                optical = self.frame(urdf_writer.optical_frame(frame))
                out.append(_transform(self.frame(frame), optical, urdf_writer.OPTICAL, stamp))
        return out

    # --- simulation -----------------------------------------------------------------------

    def attach_simulation(self, sim, runner, publishes_clock: bool) -> None:
        """Serve a Simulation stepped by ``runner``: state topics, commands, services."""
        self.sim, self.runner = sim, runner
        self._clock_pub = self.create_publisher(Clock, '/clock', qos.CLOCK) \
            if publishes_clock else None
        self._state_pub = self.create_publisher(
            JointState, *qos.joint_topic(self.params, 'joint_states'))
        # Built once, patched and published as bytes every period (see wire.py).
        self._state_msg = wire.joint_state_message(list(sim.joint_names))
        fixed_frame = self.params['fixed_frame']
        if self.params['odom_tf'] and self.drive is not None:
            fixed_frame = self.params['odom_frame']
        frames = [(fixed_frame if parent is None else self.frame(parent), self.frame(child))
                  for parent, child in sim.moving_frames]
        self._tf_msg = wire.tf_message(frames) if frames else None
        self._clock_msg = wire.clock_message() if publishes_clock else None
        self.commands = CommandTopics(self, sim, self.controllers)
        from ..control.actions import FollowTrajectoryServers
        from ..control.grippers import GripperServers
        self.trajectory_actions = FollowTrajectoryServers(self, self.controllers)
        self.gripper_actions = GripperServers(self, self.grippers)
        from ..devices.sensors import SensorPublishers
        self.sensors = SensorPublishers(self, self.device_overlay)
        from ..devices.joint_noise import JointStateNoise
        self.joint_noise = JointStateNoise(self, self.device_overlay)
        # External controllers of the model (Chrono CONTROLLER motors, load controllers).
        from ..control.chrono_controllers import attach as attach_controllers
        self._controller_subs = attach_controllers(self)
        if self.drive is not None:
            from ..control.planar_base import make_mobile_base
            self.mobile = make_mobile_base(self, sim, self.drive)
        self._warn_unclaimed()
        self._control_services = [
            self.create_service(Trigger, '~/reset', self._on_reset),
            self.create_service(SetBool, '~/set_paused', self._on_set_paused),
            self.create_service(Trigger, '~/step', self._on_step),
        ]

    def publish_period(self) -> Time:
        """Publish this period's state and outputs (called by the runner, world locked)."""
        stamp = self._publish_state()
        for output in self.period_outputs:
            output(stamp)
        if self.sim.notes:
            for note in self.sim.notes:
                self.warn_throttled(note)
            self.sim.notes.clear()
        return stamp

    def publish_clock(self) -> None:
        """Publish the simulated time on /clock (this node is the world's clock, taken)."""
        if watched(self._clock_pub):
            self._clock_msg.set_stamp(*wire.stamp_parts(self.sim.time))
            self._clock_pub.publish(self._clock_msg.payload())

    def _publish_state(self) -> Time:
        """``joint_states``, ``/clock``, ``/tf``; a topic nobody takes (outlets.py) is neither
        filled nor written: volatile, a later subscriber gets the next period's all the same."""
        sim = self.sim
        sec, nanosec = wire.stamp_parts(sim.time)
        if watched(self._state_pub):
            msg = self._state_msg
            msg.set_stamp(sec, nanosec)
            self.joint_noise.fill(msg, sim.joint_positions(), sim.joint_velocities())
            msg.set('effort', sim.joint_efforts())
            self._state_pub.publish(msg.payload())  # first: a controller waits for it
        self.publish_clock()
        if self._tf_msg is not None and watched(self._tf_pub):
            pos, quat = sim.moving_transforms()
            tf = self._tf_msg
            tf.set_stamp(sec, nanosec)
            tf.set('translation', pos)
            tf.set('rotation', quat)
            self._tf_pub.publish(tf.payload())
        return Time(sec=sec, nanosec=nanosec)

    def warn_throttled(self, text: str, period: float = 1.0) -> None:
        """Log a warning, each problem at most once per ``period`` [s] of wall time.

        A problem is the text with its numbers and quoted names blanked out (``unknown joint
        'a'`` and ``unknown joint 'b'`` are one problem), so that a flood of varied broken
        messages is reported once per period; the next report counts the ones not shown.
        """
        self.warning_count += 1
        key = problem_of(text)
        now = time.monotonic()
        entry = self._warned.get(key)
        if entry is not None and now - entry[0] < period:
            entry[1] += 1
            return
        if len(self._warned) > 1000:
            self._warned = {k: e for k, e in self._warned.items() if now - e[0] < period}
        hidden = entry[1] if entry is not None else 0
        self._warned[key] = [now, 0]
        self.get_logger().warning(text if not hidden else
                                  f'{text} ({hidden} more like it not shown)')

    # --- reload -------------------------------------------------------------------------------

    def _setup_reload(self) -> None:
        """``~/reload`` and the ``model`` parameter: a model that fails keeps the running one."""
        #: The model a successful reload asked for; the launcher restarts the nodes with it
        #: once ``restart_after`` (monotonic time [s]) has passed (the answer goes out first).
        self.restart_request: str | None = None
        self.restart_after = 0.0
        self._reload_service = self.create_service(Trigger, '~/reload', self._on_reload)
        self.add_on_set_parameters_callback(lambda given: on_set_parameters(self, given))

    def request_restart(self, spec: str) -> None:
        self.restart_request = spec
        self.restart_after = time.monotonic() + 0.5
        self.get_logger().info(f'reload: {spec} is good; the bridge restarts with it')

    def _on_reload(self, request, response):
        spec = self.get_parameter('model').value  # as set now (self.params: as at start)
        problem = reload_problem(self, spec)
        response.success = problem is None
        if problem is None:
            self.request_restart(spec)
            response.message = f'{spec}: loaded; the bridge restarts with it'
        else:
            response.message = f'reload failed, the running model goes on: {problem}'
            self.warn_throttled(response.message)
        return response

    # --- services -----------------------------------------------------------------------------

    def _on_reset(self, request, response):
        self.runner.reset()
        response.success = True
        response.message = 'simulation reset to its initial state'
        return response

    def _on_set_paused(self, request, response):
        self.runner.set_paused(request.data)
        response.success = True
        response.message = 'paused' if request.data else 'running'
        return response

    def _on_step(self, request, response):
        response.success = self.runner.step_once()
        response.message = (f'stepped one period to t = {self.sim.time:.9g} s'
                            if response.success else
                            'the simulation is running: pause it first (~/set_paused)')
        return response

    def _on_external_state(self, msg: JointState) -> None:
        model = self.model
        if len(msg.position) != len(msg.name):
            self.warn_throttled(
                f'{self._state_sub.topic_name}: rejected: {len(msg.name)} names but '
                f'{len(msg.position)} positions')
            return
        out = TFMessage()
        for name, q in zip(msg.name, msg.position):
            try:
                joint = model.joint(name)
            except KeyError:
                continue
            if joint.type.dof != 1 or not math.isfinite(q):
                continue
            out.transforms.append(_transform(self.frame(joint.parent), self.frame(joint.child),
                                             joint_transform(model, joint, q), msg.header.stamp))
        if out.transforms:
            self._tf_pub.publish(out)

    def release_runner(self) -> None:
        """Leave the runner running when this node is destroyed (its world goes on)."""
        self._owns_runner = False

    def destroy_node(self):
        OUTLETS.forget(self)
        forget_warnings(self)
        # rclpy destroys at shutdown also a node whose start failed: not all is set
        runner = getattr(self, 'runner', None)
        if getattr(self, '_owns_runner', False) and runner is not None:
            runner.stop()
        return super().destroy_node()
