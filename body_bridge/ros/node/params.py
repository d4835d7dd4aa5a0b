"""The node's parameters: declared with descriptors, read once, checked with one-line errors.

Fixed parameters are in :data:`PARAMETERS`. Three groups have names the user chooses, as
ros2_control configurations do (ROS parameters cannot hold lists of dictionaries):

* ``controllers.<name>.type``, ``controllers.<name>.joints`` (and ``interface_name``,
  a trajectory controller's ``constraints.*``, a gripper's ``closing_direction``):
  controller groups (:mod:`body_bridge.ros.control.commands`, :mod:`body_bridge.ros.control.goals`,
  :mod:`body_bridge.ros.control.grippers`);
* ``gains.<joint>.p`` [N m/rad or N/m], ``gains.<joint>.d`` [N m s/rad or N s/m]: servo gains
  over the ones derived from ``servo_frequency``;
* ``initial_positions.<joint>`` [rad or m]: initial joint positions over the file's.

The node is created with ``automatically_declare_parameters_from_overrides`` so that these
arrive as parameters; the fixed ones are then declared again with their descriptors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from rcl_interfaces.msg import ParameterDescriptor, ParameterType

from ...errors import ParameterError
from ...model import Model, Pose

__all__ = ['PARAMETERS', 'SETTABLE', 'READ_ONLY', 'GROUPS', 'GROUP_READ_ONLY', 'JOINT_TOPICS',
           'RELIABILITIES', 'declare_parameters', 'check_joint_topics', 'group', 'read_gains',
           'read_initial_positions', 'initial_pose', 'unused_parameters']

_D, _B, _S = ParameterType.PARAMETER_DOUBLE, ParameterType.PARAMETER_BOOL, \
    ParameterType.PARAMETER_STRING
_DA, _I = ParameterType.PARAMETER_DOUBLE_ARRAY, ParameterType.PARAMETER_INTEGER

#: Every fixed parameter the node declares: name -> (default, type, description).
PARAMETERS = {
    'model': ('sample_arm', _S, 'Model file (Choreonoid .body, OpenRAVE .xml, Chrono .yaml), or '
              'the name of a model bundled with the package. Setting it at run time reloads: '
              'the model is checked first, and a model that fails keeps the running one.'),
    'simulate': (True, _B, 'Run the physics. false: only robot_description and TF from an '
                 'external joint_states topic (a robot_state_publisher for these formats).'),
    'fixed_frame': ('world', _S, 'The world frame the root link is attached to in TF.'),
    'frame_prefix': ('', _S, 'Prefix of every TF frame of the model (several models, one TF '
                     'tree).'),
    'timestep': (0.001, _D, 'Integrator time step [s] (a model file may set its own).'),
    'control_rate': (100.0, _D, 'Control periods per simulated second [Hz]: commands are '
                     'applied and joint_states, /tf and /clock published once per period.'),
    'real_time_factor': (1.0, _D, 'Simulated seconds per wall-clock second; 0 runs as fast as '
                         'possible.'),
    'start_paused': (False, _B, 'Start paused (resume with ~/set_paused, advance with ~/step).'),
    'ground_plane': ('auto', _S, 'A ground plane at z = 0: auto (it supports the bodies that can '
                     'fall, a free root or free joints; fixed-base models pass through it), on '
                     '(everything touches it), off (none).'),
    'self_collision': (False, _B, 'Let links of the model collide with each other.'),
    'kinematic': (False, _B, 'No dynamics: joints follow position and velocity commands under '
                  'their velocity limits (for models without usable inertial data).'),
    'servo_frequency': (8.0, _D, 'Bandwidth of the joint position/velocity servos [Hz].'),
    'servo_damping': (1.0, _D, 'Damping ratio of the joint servos.'),
    'gravity_compensation': ('auto', _S, 'Feed gravity torques forward in position and '
                             'velocity mode: auto (fixed-base models), on, off.'),
    'default_velocity_limit': (0.0, _D, 'Velocity limit [rad/s or m/s] of joints whose model '
                               'gives none; 0: none.'),
    'initial_pose': ([0.0] * 6, _DA, 'Pose of the model in fixed_frame [x y z roll pitch yaw] '
                     '(m, rad); the root link\'s placement in the file is composed onto it.'),
    'mesh_directory': ('', _S, 'Where mesh files referenced by robot_description are written '
                       '(default: the user cache, ~/.cache/body_bridge/meshes).'),
    'on_divergence': ('reset', _S, 'When the integrator diverges (a value not finite or '
                      'beyond 1e10): reset (the world back to its initial state) or pause (at '
                      'the state before the diverging period).'),
    'devices_file': ('', _S, 'YAML file that adds devices to the model and sets their rate, '
                     'noise and on/off state (docs/sensors.md).'),
    'noise_seed': (-1, _I, 'Seed of every device\'s noise (the same seed, the same readings); '
                   '-1: the devices_file\'s seed (0 without one).'),
    'material_table': ('', _S, 'Choreonoid contact material table (friction and restitution '
                       'per pair of link materials, docs/materials.md); empty: '
                       'default/materials.yaml above the model file.'),
    'cmd_vel': (True, _B, 'For a model with a free root and left and right tracks or two '
                'wheels on one axis: take geometry_msgs/Twist on cmd_vel and publish '
                'nav_msgs/Odometry on odom (docs/mobile.md).'),
    'drive_left_joints': ('', _S, 'The joints cmd_vel drives on the left, as a list or '
                          'comma-separated; "": found from the model.'),
    'drive_right_joints': ('', _S, 'The joints cmd_vel drives on the right; "": found from '
                           'the model.'),
    'drive_separation': (0.0, _D, 'Distance between the left and right drive [m] in the '
                         'kinematics of cmd_vel; 0: measured from the model.'),
    'track_lateral_friction': (0.25, _D, 'Friction across a track over friction along it, '
                               'in (0, 1]; 1: isotropic (docs/mobile.md).'),
    'cmd_vel_timeout': (0.5, _D, 'The base stops when no cmd_vel came for this long [s of '
                        'simulated time]; 0: it keeps the last twist.'),
    'root': ('auto', _S, 'How the root link meets the world: fixed, free, planar (a free base '
             'cmd_vel moves in the plane, x, y and yaw, kinematically: for a base whose wheels '
             'the model lacks), or auto (the file\'s choice; a fixed root whose wheels carry '
             'it starts free) (docs/mobile.md).'),
    'passive_joints': ('', _S, 'Joints that start free, no servo holding them, until a '
                       'command names them (besides the ones the model leaves undriven), as '
                       'a list or comma-separated.'),
    'casters': ('', _S, 'Links of ball casters that roll: their contacts are made '
                'frictionless, as a list or comma-separated (a file that welds its casters, '
                'OpenRAVE\'s spherical joints with enable="false", makes them drag; the '
                'start-up lines say which) (docs/mobile.md).'),
    'odom_frame': ('odom', _S, 'frame_id of odom.'),
    'odom_tf': (False, _B, 'Publish the root link\'s TF from odom_frame (REP-105) rather than '
                'from fixed_frame, with a static identity fixed_frame -> odom_frame.'),
    'record': ('', _S, 'Record what the bridge publishes into a new rosbag2 bag (MCAP) in this '
               'directory; empty: no recording (docs/recording-and-foxglove.md).'),
    'foxglove_port': (0, _I, 'Serve the Foxglove WebSocket protocol on 127.0.0.1 at this port '
                      '(8765 is the app\'s default); 0: no server.'),
    'named_poses': ('', _S, 'Named poses of the world (simulator API get_named_poses), as a '
                    'YAML list like a world file\'s: [{name: dock, pose: [1, 0, 0], tags: '
                    '[spawn]}] (docs/simulator-api.md).'),
    'world_sources': ('', _S, 'Folders whose world files (*.world.yaml) get_available_worlds '
                      'lists besides the bundled ones, as a list or comma-separated.'),
    'joint_states_topic': ('joint_states', _S, 'Topic of the joint states (sensor_msgs/'
                           'JointState; relative: in the node\'s namespace); with simulate: '
                           'false, the topic read.'),
    'joint_states_reliability': ('reliable', _S, 'QoS reliability of joint_states_topic: '
                                 'reliable (reliable and best-effort subscribers match) or '
                                 'best_effort.'),
    'joint_states_depth': (10, _I, 'QoS history depth of joint_states_topic (keep last).'),
    'joint_commands_topic': ('joint_commands', _S, 'Topic of the joint commands (sensor_msgs/'
                             'JointState, docs/commands.md): a ros2_control TopicBasedSystem\'s '
                             'joint_commands_topic (docs/simulator-api.md).'),
    'joint_commands_reliability': ('reliable', _S, 'QoS reliability of the joint commands '
                                   'subscription: reliable (only reliable publishers match) '
                                   'or best_effort (both match).'),
    'joint_commands_depth': (10, _I, 'QoS history depth of the joint commands subscription '
                             '(keep last).'),
}

#: What a parameter set while the node runs does (``ros2 param set``); the others are
#: read-only, each for the reason given in :data:`READ_ONLY`.
SETTABLE = {
    'model': 'settable: reloads the model',
    'real_time_factor': 'settable: the pace changes at once (several models: on the first '
                        'model\'s node)',
}

#: Why the other parameters cannot change while the node runs.
READ_ONLY = {
    'simulate': 'chooses what the node is at start',
    'fixed_frame': 'the static transforms are published once, latched',
    'frame_prefix': 'the static transforms are published once, latched',
    'timestep': 'the physics model is compiled with it at start',
    'control_rate': 'the world\'s control period is set at start',
    'start_paused': 'applies at start (pause and resume with ~/set_paused)',
    'ground_plane': 'the physics model is compiled with it at start',
    'self_collision': 'the physics model is compiled with it at start',
    'kinematic': 'the physics model is compiled with it at start',
    'servo_frequency': 'the servos are tuned from it at start',
    'servo_damping': 'the servos are tuned from it at start',
    'gravity_compensation': 'the servos are set up with it at start',
    'default_velocity_limit': 'the joint limits are set at start',
    'initial_pose': 'the initial state is built at start (~/reset returns to it)',
    'mesh_directory': 'robot_description is written once, at start',
    'on_divergence': 'the watchdog is set up at start',
    'devices_file': 'the devices are made at start (devices.<device>.on/rate are settable)',
    'noise_seed': 'the noise generators are seeded at start (~/reset restarts them)',
    'material_table': 'read with the model (a new model loads it again)',
    'cmd_vel': 'the cmd_vel and odom topics are made at start',
    'drive_left_joints': 'the drive is found at start',
    'drive_right_joints': 'the drive is found at start',
    'drive_separation': 'the drive kinematics are set up at start',
    'track_lateral_friction': 'the tracks are set up at start',
    'cmd_vel_timeout': 'the drive is set up at start',
    'root': 'the physics model is compiled with it at start',
    'passive_joints': 'the servos are set up at start',
    'casters': 'the physics model is compiled with it at start',
    'odom_frame': 'the odom topic and frames are made at start',
    'odom_tf': 'the static fixed_frame -> odom transform is published once, latched',
    'record': 'the recording starts with the bridge and ends with it',
    'foxglove_port': 'the server starts with the bridge',
    'named_poses': 'read once by the simulator API, at start',
    'world_sources': 'read once by the simulator API, at start',
    'joint_states_topic': 'the joint states publisher is made at start',
    'joint_states_reliability': 'the joint states publisher is made at start',
    'joint_states_depth': 'the joint states publisher is made at start',
    'joint_commands_topic': 'the command subscriptions are made at start',
    'joint_commands_reliability': 'the command subscriptions are made at start',
    'joint_commands_depth': 'the command subscriptions are made at start',
}
#: String parameters that also take a list of strings (joined by commas).
_LISTS = ('drive_left_joints', 'drive_right_joints', 'passive_joints', 'casters',
          'world_sources')

#: Parameter groups whose member names the user chooses.
GROUPS = ('controllers', 'gains', 'initial_positions')

#: Why the groups cannot change while the node runs (they are declared untyped, so the node
#: refuses a new value itself).
GROUP_READ_ONLY = {
    'controllers': 'the command topics are made at start',
    'gains': 'the servos are tuned at start',
    'initial_positions': 'the initial state is built at start (~/reset returns to it)',
}

#: Parameters rclpy declares itself, or that the node declares later.
_OTHERS = {'use_sim_time', 'robot_description', 'start_type_description_service'}

#: Values of the ``*_reliability`` parameters.
RELIABILITIES = ('reliable', 'best_effort')

_KINDS = {_D: 'a number', _B: 'true or false', _S: 'a string', _DA: 'a list of numbers',
          _I: 'an integer'}

#: String parameters with a fixed set of values; true/false mean on/off (YAML and ``-p x:=on``
#: turn a bare on/off into a boolean).
_SWITCHES = {'gravity_compensation': ('auto', 'on', 'off'), 'ground_plane': ('auto', 'on', 'off'),
             'joint_states_reliability': RELIABILITIES,
             'joint_commands_reliability': RELIABILITIES}
#: The joint topics whose names and QoS are parameters (``<topic>_topic``, ...).
JOINT_TOPICS = ('joint_states', 'joint_commands')


def _coerce(name: str, value, ptype: int):
    """A parameter value as the type its descriptor declares (integers pass as doubles)."""
    def number(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)
    if ptype == _D and number(value):
        return float(value)
    if ptype == _B and isinstance(value, bool):
        return value
    if ptype == _I and isinstance(value, int) and not isinstance(value, bool):
        return value
    if name in _SWITCHES:
        value = ('on' if value else 'off') if isinstance(value, bool) else value
        if value not in _SWITCHES[name]:
            raise ParameterError(name, f'{value!r} is not one of {", ".join(_SWITCHES[name])}')
        return value
    if ptype == _S and isinstance(value, str):
        return value
    if name in _LISTS and isinstance(value, (list, tuple)) and \
            all(isinstance(x, str) for x in value):
        return ', '.join(value)
    if ptype == _DA and not isinstance(value, (str, bytes)) and hasattr(value, '__len__') \
            and all(number(x) for x in value):
        return [float(x) for x in value]
    raise ParameterError(name, f'must be {_KINDS[ptype]}, not {value!r}')


def declare_parameters(node, defaults: Mapping[str, object] | None = None) -> dict:
    """Declare every fixed parameter with its descriptor; return name -> value.

    ``node`` was created with ``automatically_declare_parameters_from_overrides``: a
    parameter given by the user is already declared (untyped); it is declared again with its
    descriptor and its value checked. ``defaults`` replace the table's defaults.

    Raises:
        ParameterError: a value of the wrong type.
    """
    values = {}
    for name, (default, ptype, text) in PARAMETERS.items():
        value = (defaults or {}).get(name, default)
        if node.has_parameter(name):
            value = _coerce(name, node.get_parameter(name).value, ptype)
            node.undeclare_parameter(name)
        descriptor = ParameterDescriptor(name=name, type=ptype, description=text,
                                         read_only=name not in SETTABLE)
        node.declare_parameters('', [(name, value, descriptor)], ignore_override=True)
        values[name] = value
    check_joint_topics(values)
    return values


def check_joint_topics(values: Mapping[str, object]) -> None:
    """The joint topics' names and depths.

    Raises:
        ParameterError: a name ROS refuses, a depth under 1.
    """
    for topic in JOINT_TOPICS:
        name = values[f'{topic}_topic']
        problem = _topic_problem(name)
        if problem is not None:
            raise ParameterError(f'{topic}_topic', f'{name!r} is not a topic name: {problem}')
        if values[f'{topic}_depth'] < 1:
            raise ParameterError(f'{topic}_depth', f'must be 1 or more, not '
                                 f'{values[f"{topic}_depth"]}')


def _topic_problem(name: str) -> str | None:
    """Why ROS refuses a topic name, in a few words (None: it takes it)."""
    from rclpy.expand_topic_name import expand_topic_name
    from rclpy.validate_full_topic_name import validate_full_topic_name
    try:
        validate_full_topic_name(expand_topic_name(name, 'body_bridge', '/'))
    except Exception as err:  # noqa: BLE001 - rclpy raises several kinds, with the C source
        text = str(err).splitlines()[0].split(', at ')[0].rstrip(':')
        return text.partition('is invalid: ')[2] or text.partition(': ')[2] or text
    return None


def group(node, prefix: str) -> dict[str, object]:
    """The parameters ``<prefix>.<rest>``, by ``<rest>``."""
    return {rest: p.value for rest, p in node.get_parameters_by_prefix(prefix).items()}


def unused_parameters(node) -> list[str]:
    """Names of parameters given to the node that it does not use."""
    names = node.get_parameters_by_prefix('')
    return sorted(n for n in names if n not in PARAMETERS and n not in _OTHERS
                  and n.split('.')[0] not in GROUPS and not n.startswith('qos_overrides.'))


def _number(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not math.isfinite(value):
        raise ParameterError(name, f'must be a finite number, not {value!r}')
    return float(value)


def read_gains(values: Mapping[str, object], joints: list[str]
               ) -> tuple[dict[str, tuple[float | None, float | None]], list[str]]:
    """``gains.<joint>.p`` / ``.d`` as joint -> (p, d); and warnings for keys not used.

    Raises:
        ParameterError: an unknown joint, a value that is not a number >= 0.
    """
    gains: dict[str, list] = {}
    warnings = []
    for key, value in values.items():
        joint, _, term = key.rpartition('.')
        name = f'gains.{key}'
        if term not in ('p', 'd') or not joint:
            warnings.append(f'parameter {name} is not used (gains are gains.<joint>.p and '
                            'gains.<joint>.d)')
            continue
        if joint not in joints:
            raise ParameterError(name, f'{joint!r} is not a joint with a servo (one of '
                                 f'{", ".join(joints) or "none"})')
        gain = _number(name, value)
        if gain < 0.0:
            raise ParameterError(name, f'must not be negative, not {gain}')
        gains.setdefault(joint, [None, None])['pd'.index(term)] = gain
    return {j: (g[0], g[1]) for j, g in gains.items()}, warnings


def read_initial_positions(values: Mapping[str, object], model: Model
                           ) -> tuple[dict[str, float], list[str]]:
    """``initial_positions.<joint>`` as joint -> position; warnings for clipped ones.

    Raises:
        ParameterError: an unknown joint or a value that is not a number.
    """
    joints = {j.name: j for j in model.movable_joints}
    out, warnings = {}, []
    for joint, value in values.items():
        name = f'initial_positions.{joint}'
        if joint not in joints:
            raise ParameterError(name, f'{joint!r} is not a 1-DOF joint of {model.name}')
        q = _number(name, value)
        lim = joints[joint].limits
        lo = -math.inf if lim.lower is None else lim.lower
        hi = math.inf if lim.upper is None else lim.upper
        if not lo <= q <= hi:
            warnings.append(f'parameter {name}: {q} is outside the joint range '
                            f'[{lo:.6g}, {hi:.6g}]; clipped')
            q = min(max(q, lo), hi)
        out[joint] = q
    return out, warnings


def initial_pose(values) -> Pose:
    """The ``initial_pose`` parameter [x y z roll pitch yaw] as a Pose.

    Raises:
        ParameterError: not six finite numbers.
    """
    if len(values) != 6 or not all(math.isfinite(v) for v in values):
        raise ParameterError('initial_pose', 'must be six finite numbers [x, y, z, roll, pitch, '
                             f'yaw], not {list(values)}')
    return Pose.from_rpy(values[3:], pos=values[:3])
