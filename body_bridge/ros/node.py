"""The bridge node: a thin rclpy shell around the model, the URDF and the Simulation.

The simulation runs in its own thread (one control period per loop, paced by
``real_time_factor``); subscriptions and services run in the executor's thread and hand
commands to the Simulation, which is thread safe for that.
"""

from __future__ import annotations

import array
import math
import sys
import threading
import time

import rclpy
from builtin_interfaces.msg import Time
from geometry_msgs.msg import TransformStamped
from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage

from .. import urdf as urdf_writer
from ..device_overlay import apply_overlay, load_overlay
from ..errors import BodyBridgeError, ModelError
from ..formats import load_model
from ..kinematics import joint_transform
from ..model import DeviceKind, JointType, Model, Pose
from ..paths import cache_dir, resolve_model
from . import qos

__all__ = ['BridgeNode', 'PARAMETERS', 'main', 'run']

_D, _B, _S = ParameterType.PARAMETER_DOUBLE, ParameterType.PARAMETER_BOOL, ParameterType.PARAMETER_STRING

#: Every parameter the node declares: name -> (default, type, description).
PARAMETERS = {
    'model': ('sample_arm', _S, 'Model file (.body), or the name of a model bundled with the package.'),
    'simulate': (True, _B, 'Run the physics. false: only robot_description and TF from an '
                 'external joint_states topic (a robot_state_publisher for these formats).'),
    'fixed_frame': ('world', _S, 'The world frame the root link is attached to in TF.'),
    'frame_prefix': ('', _S, 'Prefix of every TF frame of the model (several models, one TF tree).'),
    'timestep': (0.001, _D, 'Integrator time step [s] (a model file may set its own).'),
    'control_rate': (100.0, _D, 'Control periods per simulated second [Hz]: commands are applied '
                     'and joint_states, /tf and /clock published once per period.'),
    'real_time_factor': (1.0, _D, 'Simulated seconds per wall-clock second; 0 runs as fast as '
                         'possible.'),
    'ground_plane': (True, _B, 'Add a ground plane at z = 0.'),
    'self_collision': (False, _B, 'Let links of the model collide with each other.'),
    'servo_frequency': (8.0, _D, 'Bandwidth of the joint position/velocity servos [Hz].'),
    'servo_damping': (1.0, _D, 'Damping ratio of the joint servos.'),
    'gravity_compensation': ('auto', _S, 'Feed gravity torques forward in position and velocity '
                             'mode: auto (fixed-base models), on, off.'),
    'mesh_directory': ('', _S, 'Where mesh files referenced by robot_description are written '
                       '(default: the user cache, ~/.cache/body_bridge/meshes).'),
    'devices_file': ('', _S, 'YAML file that adds devices to the model and sets their rate, '
                     'noise and on/off state (README, Sensor topics).'),
}


def _stamp(seconds: float) -> Time:
    sec = math.floor(seconds)
    return Time(sec=int(sec), nanosec=min(int(round((seconds - sec) * 1e9)), 999_999_999))


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
    """Publishes a model as a live ROS 2 robot."""

    def __init__(self, **kwargs):
        super().__init__('body_bridge', **kwargs)
        for name, (default, ptype, text) in PARAMETERS.items():
            self.declare_parameter(name, default, ParameterDescriptor(
                name=name, type=ptype, description=text, read_only=True))
        p = {name: self.get_parameter(name).value for name in PARAMETERS}
        self.params = p
        self._warned: dict[str, float] = {}
        path = resolve_model(p['model'])
        self.model: Model = load_model(path)
        self.device_overlay = load_overlay(p['devices_file'], self.model)
        self.model = apply_overlay(self.model, self.device_overlay)
        for line in self.model.warnings:
            self.get_logger().warning(line)
        mesh_dir = p['mesh_directory'] or cache_dir('meshes')
        self.urdf = urdf_writer.to_urdf(self.model, mesh_dir=mesh_dir)
        self.declare_parameter('robot_description', self.urdf, ParameterDescriptor(
            name='robot_description', type=_S, read_only=True,
            description='The model as URDF (also on the robot_description topic).'))
        self.prefix = p['frame_prefix']

        self._description_pub = self.create_publisher(String, 'robot_description', qos.LATCHED)
        self._description_pub.publish(String(data=self.urdf))
        self._static_pub = self.create_publisher(TFMessage, '/tf_static', qos.TF_STATIC)
        self._static_pub.publish(TFMessage(transforms=self._static_transforms()))
        self._tf_pub = self.create_publisher(TFMessage, '/tf', qos.TF)

        self.sim = None
        self._thread = None
        self._running = False
        if p['simulate']:
            self._start_simulation()
        else:
            self._state_sub = self.create_subscription(
                JointState, 'joint_states', self._on_external_state, qos.JOINT_STATES)
        self.get_logger().info(
            f'{self.model.name}: {len(self.model.links)} links, '
            f'{len(self.model.movable_joints)} moving joints, {len(self.model.devices)} devices '
            f'from {path}')

    # --- frames -------------------------------------------------------------------------

    def frame(self, name: str) -> str:
        return self.prefix + name

    def _static_transforms(self) -> list[TransformStamped]:
        model, stamp = self.model, _stamp(0.0)
        out = []
        fixed_frame = self.params['fixed_frame']
        if model.root_joint == JointType.FIXED and self.frame(model.root) != fixed_frame:
            out.append(_transform(fixed_frame, self.frame(model.root),
                                  model.link(model.root).pose, stamp))
        for joint in model.ordered_joints():
            if joint.type == JointType.FIXED:
                out.append(_transform(self.frame(joint.parent), self.frame(joint.child),
                                      model.joint_origin(joint), stamp))
        for extra in model.frames:
            out.append(_transform(self.frame(extra.link), self.frame(extra.name), extra.pose, stamp))
        frames = model.device_frames()
        for device in model.devices:
            frame = frames[device.name]
            out.append(_transform(self.frame(device.link), self.frame(frame), device.pose, stamp))
            if device.kind == DeviceKind.CAMERA:
                out.append(_transform(self.frame(frame), self.frame(urdf_writer.optical_frame(frame)),
                                      urdf_writer.OPTICAL, stamp))
        return out

    # --- simulation -----------------------------------------------------------------------

    def _start_simulation(self) -> None:
        from ..sim.build import BuildOptions
        from ..sim.simulation import SimOptions, Simulation
        p = self.params
        rate = p['control_rate']
        if not rate > 0:
            raise ModelError(None, None, f'parameter control_rate must be positive, not {rate}')
        options = SimOptions(
            build=BuildOptions(timestep=p['timestep'], ground_plane=p['ground_plane'],
                               self_collision=p['self_collision']),
            control_period=1.0 / rate, servo_frequency=p['servo_frequency'],
            servo_damping=p['servo_damping'], gravity_compensation=p['gravity_compensation'])
        self.sim = Simulation(self.model, options)
        self._sim_lock = threading.Lock()

        self._clock_pub = self.create_publisher(Clock, '/clock', qos.CLOCK)
        self._state_pub = self.create_publisher(JointState, 'joint_states', qos.JOINT_STATES)
        self._state_msg = JointState()
        self._state_msg.name = list(self.sim.joint_names)
        fixed_frame = self.params['fixed_frame']
        self._tf_msg = TFMessage()
        for parent, child in self.sim.moving_frames:
            t = TransformStamped()
            t.header.frame_id = fixed_frame if parent is None else self.frame(parent)
            t.child_frame_id = self.frame(child)
            self._tf_msg.transforms.append(t)
        #: Called with the stamp after every control period's state is published (sensor
        #: publishers and other per-period outputs register here).
        self.period_outputs: list = []
        from .sensors import SensorPublishers
        self.sensors = SensorPublishers(self, self.device_overlay)
        self._command_sub = self.create_subscription(
            JointState, 'joint_commands', self._on_joint_commands, qos.COMMANDS)
        self._reset_srv = self.create_service(Trigger, '~/reset', self._on_reset)
        # External controllers of the model (Chrono CONTROLLER motors, load controllers).
        from .chrono_controllers import attach as attach_controllers
        self._controller_subs = attach_controllers(self)
        self._publish_state()
        self._running = True
        self._thread = threading.Thread(target=self._loop, name='body_bridge_sim', daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        sim = self.sim
        wall_next = time.monotonic()
        while self._running:
            with self._sim_lock:
                sim.step_period()
                stamp = self._publish_state()
                for output in self.period_outputs:
                    output(stamp)
            rtf = self.params['real_time_factor']
            if rtf > 0:
                wall_next += sim.period / rtf
                delay = wall_next - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                elif delay < -0.5:
                    wall_next = time.monotonic()  # far behind: do not race to catch up

    def _publish_state(self) -> None:
        sim = self.sim
        stamp = _stamp(sim.time)
        self._clock_pub.publish(Clock(clock=stamp))
        msg = self._state_msg
        msg.header.stamp = stamp
        msg.position = array.array('d', sim.joint_positions().tobytes())
        msg.velocity = array.array('d', sim.joint_velocities().tobytes())
        msg.effort = array.array('d', sim.joint_efforts().tobytes())
        self._state_pub.publish(msg)
        if self._tf_msg.transforms:
            pos, quat = sim.moving_transforms()
            for t, p, q in zip(self._tf_msg.transforms, pos, quat):
                t.header.stamp = stamp
                _set_transform(t, p, q)
            self._tf_pub.publish(self._tf_msg)
        return stamp

    def warn_throttled(self, text: str, period: float = 1.0) -> None:
        """Log a warning, each distinct text at most once per ``period`` [s] of wall time."""
        now = time.monotonic()
        last = self._warned.get(text)
        if last is not None and now - last < period:
            return
        if len(self._warned) > 1000:
            self._warned = {k: t for k, t in self._warned.items() if now - t < period}
        self._warned[text] = now
        self.get_logger().warning(text)

    # --- callbacks --------------------------------------------------------------------------

    def _on_joint_commands(self, msg: JointState) -> None:
        from ..sim.simulation import CommandRejected, Mode
        names = list(msg.name)
        modes = [(Mode.POSITION, msg.position), (Mode.VELOCITY, msg.velocity),
                 (Mode.EFFORT, msg.effort)]
        given = [(mode, values) for mode, values in modes if len(values)]
        topic = self._command_sub.topic_name
        if len(given) != 1:
            self.warn_throttled(
                f'{topic}: rejected: a command must fill exactly one of position, velocity, '
                f'effort (this one fills {len(given)})')
            return
        mode, values = given[0]
        try:
            self.sim.command(mode, names, list(values))
        except CommandRejected as err:
            self.warn_throttled(f'{topic}: rejected: {err}')

    def _on_reset(self, request, response):
        with self._sim_lock:
            self.sim.reset()
            self._publish_state()
        response.success = True
        response.message = 'simulation reset to its initial state'
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

    def destroy_node(self):
        self._running = False
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        return super().destroy_node()


def run(args: list[str] | None = None, model: str | None = None) -> int:
    """Run the node until shutdown; return the process exit status."""
    from .transport import use_bundled_fastdds_profile
    use_bundled_fastdds_profile()  # camera images need a large shared-memory segment
    rclpy.init(args=args)
    node = None
    try:
        overrides = []
        if model is not None:
            from rclpy.parameter import Parameter
            overrides.append(Parameter('model', Parameter.Type.STRING, model))
        try:
            node = BridgeNode(parameter_overrides=overrides)
        except BodyBridgeError as err:
            print(err, file=sys.stderr)
            return 2
        rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        if node is not None:
            node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
    return 0


def main(args: list[str] | None = None) -> None:
    """Entry point of ``ros2 run body_bridge bridge``."""
    sys.exit(run(args))
