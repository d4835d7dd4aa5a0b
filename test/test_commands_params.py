"""Controller groups, gains, initial state and pose from parameters; start-up options."""

import math
import sys

import numpy as np
import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.errors import ParameterError
from body_bridge.formats import load_model
from body_bridge.ros.control.commands import read_controllers
from body_bridge.ros.process.launcher import model_names, split_ros_args
from body_bridge.ros.stream import qos
from body_bridge.ros.node.params import (PARAMETERS, check_joint_topics, initial_pose, read_gains,
                                    read_initial_positions)
from body_bridge.sim.simulation import Mode

from conftest import REPO, SAMPLE_ARM

JOINTS = ['shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch']


def test_controllers_from_parameters():
    controllers, warnings = read_controllers({
        'arm.type': 'joint_trajectory_controller/JointTrajectoryController',
        'arm.joints': JOINTS,
        'arm.state_interfaces': ['position', 'velocity'],
        'wrist.type': 'forward_command_controller/ForwardCommandController',
        'wrist.joints': ['wrist_pitch'],
        'wrist.interface_name': 'velocity',
        'yaw.type': 'effort_controllers/JointGroupEffortController',
        'yaw.joints': 'shoulder_yaw',
    }, JOINTS)
    by_name = {c.name: c for c in controllers}
    assert by_name['arm'].kind == 'trajectory' and by_name['arm'].joints == tuple(JOINTS)
    assert by_name['arm'].topic == 'arm/joint_trajectory'
    assert (by_name['wrist'].mode, by_name['wrist'].topic) == (Mode.VELOCITY, 'wrist/commands')
    assert by_name['yaw'].mode == Mode.EFFORT and by_name['yaw'].joints == ('shoulder_yaw',)
    assert warnings == ['parameter controllers.arm.state_interfaces is not used by body_bridge']


@pytest.mark.parametrize('values, message', [
    ({'a.type': 'pid_controller/PidController', 'a.joints': ['elbow_pitch']},
     "parameter controllers.a.type: 'pid_controller/PidController' is not one of"),
    ({'a.joints': ['elbow_pitch']}, 'parameter controllers.a.type: None is not one of'),
    ({'a.type': 'position_controllers/JointGroupPositionController', 'a.joints': ['knee']},
     "parameter controllers.a.joints: 'knee' is not a joint with a servo"),
    ({'a.type': 'position_controllers/JointGroupPositionController', 'a.joints': []},
     'parameter controllers.a.joints: must be a non-empty list'),
    ({'a.type': 'forward_command_controller/ForwardCommandController', 'a.joints': JOINTS},
     'parameter controllers.a.interface_name: None is not one of position, velocity, effort'),
    ({'2a.type': 'position_controllers/JointGroupPositionController', '2a.joints': JOINTS},
     'parameter controllers.2a: a controller name must start with a letter'),
])
def test_bad_controller_parameters_fail_with_one_line(values, message):
    with pytest.raises(ParameterError) as err:
        read_controllers(values, JOINTS)
    assert str(err.value).startswith(message) and '\n' not in str(err.value)


def test_kinematic_models_refuse_effort_controllers():
    with pytest.raises(ParameterError, match='kinematic'):
        read_controllers({'a.type': 'effort_controllers/JointGroupEffortController',
                          'a.joints': ['elbow_pitch']}, JOINTS, kinematic=True)


def test_gains_initial_positions_and_pose():
    gains, warnings = read_gains({'elbow_pitch.p': 100, 'elbow_pitch.d': 2.5,
                                  'wrist_pitch.p': 30.0, 'wrist_pitch.i': 1.0}, JOINTS)
    assert gains == {'elbow_pitch': (100.0, 2.5), 'wrist_pitch': (30.0, None)}
    assert warnings == ['parameter gains.wrist_pitch.i is not used (gains are gains.<joint>.p '
                        'and gains.<joint>.d)']
    with pytest.raises(ParameterError, match="parameter gains.knee.p: 'knee' is not a joint"):
        read_gains({'knee.p': 1.0}, JOINTS)
    with pytest.raises(ParameterError, match='must not be negative'):
        read_gains({'elbow_pitch.d': -1.0}, JOINTS)
    model = load_model(SAMPLE_ARM)
    positions, warnings = read_initial_positions({'elbow_pitch': 0.5, 'wrist_pitch': 9}, model)
    assert positions == {'elbow_pitch': 0.5, 'wrist_pitch': pytest.approx(math.radians(120))}
    assert warnings[0].startswith('parameter initial_positions.wrist_pitch: 9.0 is outside')
    with pytest.raises(ParameterError, match='initial_positions.nope'):
        read_initial_positions({'nope': 0.0}, model)
    pose = initial_pose([1.0, 2.0, 3.0, 0.0, 0.0, math.pi / 2])
    np.testing.assert_allclose(pose.pos, [1, 2, 3])
    np.testing.assert_allclose(pose.rot @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    with pytest.raises(ParameterError, match='six finite numbers'):
        initial_pose([1.0, 2.0])


def test_model_names_and_ros_arguments_of_a_world():
    assert model_names(['sample_arm', 'floor=/x/floor.body', '/y/box1.body', 'box1.body',
                        '/z/2go.kinbody.xml']) == [
        ('sample_arm', 'sample_arm'), ('floor', '/x/floor.body'), ('box1', '/y/box1.body'),
        ('box1_2', 'box1.body'), ('model_2go', '/z/2go.kinbody.xml')]
    with pytest.raises(ParameterError, match="'a-b' .* is not a valid namespace"):
        model_names(['a-b=floor.body'])
    base, local = split_ros_args(['bridge', 'a', '--ros-args', '-r', '__ns:=/sim', '-p', 'x:=1',
                                  '--log-level', 'debug', '--params-file', 'f.yaml', '-r',
                                  'joint_states:=js', '-r', '__node:=other', '--', 'b'])
    assert base == '/sim'
    assert local == ['-p', 'x:=1', '--params-file', 'f.yaml', '-r', 'joint_states:=js']


def test_node_reads_its_parameters(ros, tmp_path):
    from rclpy.parameter import Parameter
    from body_bridge.ros.node.node import BridgeNode

    def param(name, value):
        return Parameter(name, value=value)
    node = BridgeNode(parameter_overrides=[
        param('real_time_factor', 0),  # an integer where a double is declared is accepted
        param('start_paused', True),
        param('controllers.arm.type', 'joint_trajectory_controller/JointTrajectoryController'),
        param('controllers.arm.joints', JOINTS),
        param('gains.elbow_pitch.p', 200.0),
        param('initial_positions.elbow_pitch', 0.4),
        param('initial_pose', [0.5, 0.0, 0.0, 0.0, 0.0, 0.0]),
        param('mesh_directory', str(tmp_path))])
    try:
        assert node.get_parameter('real_time_factor').value == 0.0
        assert [c.name for c in node.controllers] == ['arm']
        sim = node.sim
        assert sim.kp[sim.actuated.index('elbow_pitch')] == 200.0
        assert sim.joint_positions()[2] == pytest.approx(0.4)
        assert sim.body_pose('base')[0][0] == pytest.approx(0.5)
        assert node.runner.paused and sim.time == 0.0
        assert list(node.get_parameter('initial_pose').value) == [0.5, 0, 0, 0, 0, 0]
    finally:
        node.destroy_node()


def test_only_command_subscriptions_give_the_executor_event_handlers(ros, tmp_path):
    """Every event handler is an entity the executor polls in each turn, before it takes a
    command: the publishers have none (their subscribers report QoS mismatches), the command
    subscriptions keep theirs (a controller with mismatched QoS is reported)."""
    from rclpy.parameter import Parameter
    from body_bridge.ros.node.node import BridgeNode
    node = BridgeNode(parameter_overrides=[Parameter('mesh_directory', value=str(tmp_path))])
    try:
        publishers = list(node.publishers)
        assert len(publishers) > 10
        assert [p.topic_name for p in publishers if p.event_handlers] == []
        kept = [h for s in node.subscriptions for h in s.event_handlers]
        assert kept and list(node.waitables) == kept
    finally:
        node.destroy_node()


def _joint_topics(**given):
    values = {name: default for name, (default, _, _) in PARAMETERS.items()}
    values.update(given)
    return values


def test_joint_topics_default_to_the_bridge_s_names_and_qos():
    values = _joint_topics()
    check_joint_topics(values)
    assert qos.joint_topic(values, 'joint_states') == ('joint_states', qos.JOINT_STATES)
    assert qos.joint_topic(values, 'joint_commands') == ('joint_commands', qos.COMMANDS)


def test_the_profiles_of_the_topic_table():
    # docs/topics-and-parameters.md: robot_description and /tf_static reliable, transient
    # local, depth 1; /tf reliable, volatile, depth 100; /clock reliable, depth 1.
    from rclpy.qos import DurabilityPolicy, ReliabilityPolicy
    latched = (1, ReliabilityPolicy.RELIABLE, DurabilityPolicy.TRANSIENT_LOCAL)
    for profile, expected in ((qos.LATCHED, latched), (qos.TF_STATIC, latched),
                              (qos.TF, (100, ReliabilityPolicy.RELIABLE,
                                        DurabilityPolicy.VOLATILE)),
                              (qos.CLOCK, (1, ReliabilityPolicy.RELIABLE,
                                           DurabilityPolicy.VOLATILE))):
        assert (profile.depth, profile.reliability, profile.durability) == expected


def test_joint_topics_take_the_names_and_qos_given():
    from rclpy.qos import DurabilityPolicy, HistoryPolicy, ReliabilityPolicy
    values = _joint_topics(joint_commands_topic='/robot_joint_commands', joint_commands_depth=1,
                           joint_states_topic='~/states', joint_states_reliability='best_effort',
                           joint_states_depth=5)
    check_joint_topics(values)
    name, profile = qos.joint_topic(values, 'joint_commands')
    assert name == '/robot_joint_commands'
    assert (profile.depth, profile.reliability) == (1, ReliabilityPolicy.RELIABLE)
    name, profile = qos.joint_topic(values, 'joint_states')
    assert name == '~/states'
    assert (profile.depth, profile.reliability) == (5, ReliabilityPolicy.BEST_EFFORT)
    assert (profile.history, profile.durability) == (HistoryPolicy.KEEP_LAST,
                                                     DurabilityPolicy.VOLATILE)


@pytest.mark.parametrize('given, message', [
    ({'joint_commands_topic': '9lives'}, "parameter joint_commands_topic: '9lives' is not a "
     'topic name: '),
    ({'joint_states_topic': 'joint states'}, "parameter joint_states_topic: 'joint states' is "
     'not a topic name: '),
    ({'joint_states_topic': ''}, "parameter joint_states_topic: '' is not a topic name: "),
    ({'joint_states_topic': 'a//b'}, "parameter joint_states_topic: 'a//b' is not a topic name: "
     "topic name must not contain repeated '/'"),
    ({'joint_commands_topic': 'cmd/'}, "parameter joint_commands_topic: 'cmd/' is not a topic "
     'name: topic name must not end with a forward slash'),
    ({'joint_commands_depth': 0}, 'parameter joint_commands_depth: must be 1 or more, not 0'),
    ({'joint_states_depth': -3}, 'parameter joint_states_depth: must be 1 or more, not -3'),
])
def test_bad_joint_topics_are_refused_in_one_line(given, message):
    with pytest.raises(ParameterError) as err:
        check_joint_topics(_joint_topics(**given))
    text = str(err.value)
    assert text.startswith(message) and '\n' not in text, text
    assert not message.endswith(': ') or len(text) > len(message), text  # ROS's reason
    assert not text.endswith(':') and ' at /' not in text, text
    check_joint_topics(_joint_topics(joint_states_depth=1, joint_commands_depth=1))


def test_the_node_serves_the_joint_topics_its_parameters_name(ros, tmp_path):
    from rclpy.parameter import Parameter
    from rclpy.qos import ReliabilityPolicy
    from body_bridge.ros.node.node import BridgeNode
    node = BridgeNode(namespace='/tbs', parameter_overrides=[
        Parameter('joint_states_topic', value='robot_joint_states'),
        Parameter('joint_states_reliability', value='best_effort'),
        Parameter('joint_states_depth', value=2),
        Parameter('joint_commands_topic', value='/robot_joint_commands'),
        Parameter('joint_commands_reliability', value='best_effort'),
        Parameter('joint_commands_depth', value=1),
        Parameter('mesh_directory', value=str(tmp_path))])
    try:
        states, commands = node._state_pub, node.commands.subscriptions[0]
        assert states.topic_name == '/tbs/robot_joint_states'
        assert (states.qos_profile.depth, states.qos_profile.reliability) == \
            (2, ReliabilityPolicy.BEST_EFFORT)
        assert commands.topic_name == '/robot_joint_commands'
        assert (commands.qos_profile.depth, commands.qos_profile.reliability) == \
            (1, ReliabilityPolicy.BEST_EFFORT)
        assert node.get_parameter('joint_commands_reliability').value == 'best_effort'
    finally:
        node.destroy_node()


@pytest.mark.parametrize('args, message', [
    (['-p', 'joint_states_reliability:=sometimes'],
     "parameter joint_states_reliability: 'sometimes' is not one of reliable, best_effort"),
    (['-p', 'real_time_factor:=fast'], "parameter real_time_factor: must be a number, not 'fast'"),
    (['-p', 'real_time_factor:=-1.0'], 'parameter real_time_factor: must be 0 or positive'),
    (['-p', 'controllers.arm.type:=nope', '-p', 'controllers.arm.joints:=[elbow_pitch]'],
     "parameter controllers.arm.type: 'nope' is not one of"),
    (['-p', 'gravity_compensation:=maybe'], "parameter gravity_compensation: 'maybe' is not"),
])
def test_bad_parameters_stop_the_bridge_with_one_line(bridge, args, message):
    proc = bridge(SAMPLE_ARM, *args)
    assert proc.proc.wait(timeout=60) == 2
    lines = proc.output().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), lines


def test_launch_file_starts_the_bridge_with_every_model(monkeypatch):
    """The launch file, run against stand-ins of launch and launch_ros (not installed here)."""
    import types
    made = {}

    class Recorder:
        def __init__(self, *args, **kwargs):
            self.args, self.kwargs = args, kwargs
            made.setdefault(type(self).__name__, []).append(self)

    def module(name, **attrs):
        mod = types.ModuleType(name)
        mod.__dict__.update(attrs)
        monkeypatch.setitem(sys.modules, name, mod)
    configs = {'model': 'sample_arm floor=/m/floor.body', 'namespace': 'sim',
               'params_file': '/p.yaml', 'use_sim_time': 'true', 'real_time_factor': '1.0',
               'simulate': 'true', 'rviz': 'false', 'rviz_config': '/r.rviz', 'log_level': 'info',
               'record': '', 'foxglove': ''}

    class LaunchConfiguration(Recorder):
        def perform(self, context):
            return configs[self.args[0]]
    for name in ('DeclareLaunchArgument', 'OpaqueFunction', 'LaunchDescription', 'Node'):
        made[name] = []
    module('launch', LaunchDescription=type('LaunchDescription', (Recorder,), {}))
    module('launch.actions', DeclareLaunchArgument=type('DeclareLaunchArgument', (Recorder,), {}),
           OpaqueFunction=type('OpaqueFunction', (Recorder,), {}),
           Shutdown=type('Shutdown', (Recorder,), {}))
    module('launch.substitutions', LaunchConfiguration=LaunchConfiguration)
    module('launch_ros'), module('launch_ros.actions', Node=type('Node', (Recorder,), {}))
    module('ament_index_python'), module('ament_index_python.packages',
                                         get_package_share_directory=lambda name: '/share',
                                         PackageNotFoundError=KeyError)
    namespace = {}
    exec(compile((REPO / 'launch' / 'sim.launch.py').read_text(), 'sim.launch.py', 'exec'),
         namespace)
    namespace['generate_launch_description']()
    opaque = made['OpaqueFunction'][0]
    nodes = opaque.kwargs['function'](object())
    node = nodes[0]
    assert node.kwargs['executable'] == 'bridge' and node.kwargs['package'] == 'body_bridge'
    assert node.kwargs['arguments'] == ['sample_arm', 'floor=/m/floor.body', '--ros-args',
                                        '--log-level', 'info']
    assert node.kwargs['namespace'] == 'sim'
    assert node.kwargs['parameters'][0] == '/p.yaml'
    # values given (even the node's defaults) override the parameter file
    assert node.kwargs['parameters'][1] == {'use_sim_time': True, 'real_time_factor': 1.0,
                                            'simulate': True}
    declared = {a.args[0] for a in made['DeclareLaunchArgument']}
    assert declared >= {'model', 'namespace', 'params_file', 'use_sim_time'}  # test_launch.py


def test_a_node_that_does_not_simulate_takes_no_commands(ros, tmp_path):
    from rclpy.parameter import Parameter
    from body_bridge.ros.node.node import BridgeNode
    node = BridgeNode(parameter_overrides=[Parameter('simulate', value=False),
                                           Parameter('mesh_directory', value=str(tmp_path))])
    try:
        assert node.sim is None and node.runner is None
        names = {s.srv_name for s in node.services}
        assert not names & {'~/reset', '~/step', '~/set_paused'}
    finally:
        node.destroy_node()
