"""The bridge node's own logic in this process (ros/node.py): throttled warnings on a clock
the test sets, the reload and reset services' answers, the TF of a node that does not
simulate, and parameters refused at start. A bridge over DDS is in the end-to-end tests."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from body_bridge.errors import ModelError, ParameterError
from body_bridge.ros import node as node_module
from conftest import REPO


class Log:
    def __init__(self):
        self.warnings, self.infos = [], []

    def warning(self, text):
        self.warnings.append(text)

    def info(self, text):
        self.infos.append(text)


def _node(tmp_path, **params):
    given = {'start_paused': True, 'mesh_directory': str(tmp_path), **params}
    return node_module.BridgeNode(parameter_overrides=[Parameter(k, value=v)
                                                       for k, v in given.items()])


@pytest.fixture
def made(ros, tmp_path):
    nodes = []

    def make(**params):
        nodes.append(_node(tmp_path, **params))
        nodes[-1].log = Log()
        nodes[-1].get_logger = lambda: nodes[-1].log
        return nodes[-1]
    yield make
    for n in nodes:
        n.destroy_node()


def test_warnings_are_throttled_per_problem(made, monkeypatch):
    node = made(simulate=False)
    clock = [10.0]
    monkeypatch.setattr(node_module, 'time', SimpleNamespace(monotonic=lambda: clock[0]))
    node.warn_throttled("unknown joint 'a'")
    node.warn_throttled("unknown joint 'b'")  # the same problem, within the second
    node.warn_throttled('something else 3')
    clock[0] = 10.5
    node.warn_throttled("unknown joint 'c'")
    clock[0] = 11.0  # a second after the first: shown, with the two not shown
    node.warn_throttled("unknown joint 'd'")
    clock[0] = 11.5
    node.warn_throttled("unknown joint 'e'")
    clock[0] = 12.0
    node.warn_throttled("unknown joint 'f'")
    assert node.log.warnings == ["unknown joint 'a'", 'something else 3',
                                 "unknown joint 'd' (2 more like it not shown)",
                                 "unknown joint 'f' (1 more like it not shown)"]
    assert node.warning_count == 7
    node.warn_throttled("unknown joint 'g'", period=0.0)
    assert node.log.warnings[-1] == "unknown joint 'g'"


def test_old_problems_are_forgotten_when_there_are_many(made, monkeypatch):
    node = made(simulate=False)
    clock = [10.0]
    monkeypatch.setattr(node_module, 'time', SimpleNamespace(monotonic=lambda: clock[0]))
    words = ['problem ' + ''.join(chr(97 + (i // 26 ** k) % 26) for k in range(3))
             for i in range(1002)]
    for word in words[:1001]:
        node.warn_throttled(word)
    clock[0] = 10.5  # all of them recent: kept
    node.warn_throttled(words[1001])
    assert len(node._warned) == 1002
    clock[0] = 12.0  # all of them old: forgotten
    node.warn_throttled('problem new')
    assert len(node._warned) == 1


def test_reload_answers_and_restarts_or_keeps_the_model(made, monkeypatch):
    node = made(simulate=False)
    problems = iter([None, 'bad.body:3: no links'])
    monkeypatch.setattr(node_module, 'reload_problem', lambda n, spec: next(problems))
    response = node._on_reload(Trigger.Request(), Trigger.Response())
    assert (response.success, response.message) == (
        True, 'sample_arm: loaded; the bridge restarts with it')
    assert node.restart_request == 'sample_arm'
    node.restart_request = None
    response = node._on_reload(Trigger.Request(), Trigger.Response())
    assert (response.success, response.message) == (
        False, 'reload failed, the running model goes on: bad.body:3: no links')
    assert node.restart_request is None
    assert node.log.warnings == [response.message]


def test_reset_answers(made):
    node = made()
    response = node._on_reset(Trigger.Request(), Trigger.Response())
    assert (response.success, response.message) == (True, 'simulation reset to its initial '
                                                     'state')


def test_a_node_that_does_not_simulate_publishes_the_tf_of_joint_states(made):
    node = made(simulate=False)
    sent = []
    node._tf_pub = SimpleNamespace(publish=sent.append)
    msg = JointState(name=['elbow_pitch', 'nothing', 'shoulder_yaw', 'wrist_pitch'],
                     position=[0.5, 1.0, math.nan, 0.25])
    msg.header.stamp.sec = 7
    node._on_external_state(msg)
    (tf,) = sent
    assert [t.child_frame_id for t in tf.transforms] == [node.frame(node.model.joint(j).child)
                                                         for j in ('elbow_pitch',
                                                                   'wrist_pitch')]
    assert all(t.header.stamp.sec == 7 for t in tf.transforms)
    node._on_external_state(JointState(name=['elbow_pitch', 'wrist_pitch'], position=[1.0]))
    assert len(sent) == 1
    assert node.log.warnings == ['/joint_states: rejected: 2 names but 1 positions']
    node._on_external_state(JointState(name=['nothing'], position=[1.0]))
    assert len(sent) == 1  # nothing to publish


@pytest.mark.parametrize('params, message', [
    ({'track_lateral_friction': 0.0}, 'parameter track_lateral_friction: must be in (0, 1], '
     'not 0.0'),
    ({'track_lateral_friction': 1.5}, 'parameter track_lateral_friction: must be in (0, 1], '
     'not 1.5'),
    ({'gravity_compensation': 'maybe'}, "parameter gravity_compensation: 'maybe' is not one of "
     'auto, on, off'),
    ({'on_divergence': 'explode'}, "parameter on_divergence: 'explode' is not one of reset, "
     'pause'),
    ({'control_rate': 0.0}, 'parameter control_rate: must be positive, not 0.0'),
])
def test_parameters_refused_at_start(ros, tmp_path, params, message):
    with pytest.raises(ParameterError) as err:
        _node(tmp_path, **params)
    assert str(err.value) == message


def test_named_poses_are_checked_at_start(ros, tmp_path):
    with pytest.raises(ModelError, match='parameter named_poses'):
        _node(tmp_path, named_poses='[{name: dock, pose: 3}]')


def test_the_ends_of_the_parameter_ranges_are_taken(made):
    node = made(track_lateral_friction=1.0, gravity_compensation='off')
    assert node.sim_options().track_lateral_friction == 1.0


def test_the_start_says_what_was_loaded_and_what_was_clipped(ros, tmp_path, monkeypatch):
    log = Log()
    monkeypatch.setattr(node_module.BridgeNode, 'get_logger', lambda self: log)
    node = _node(tmp_path, **{'initial_positions.elbow_pitch': 10.0})
    try:
        assert any(line.startswith('sample_arm: 6 links, ') for line in log.infos)
        assert log.warnings == ['parameter initial_positions.elbow_pitch: 10.0 is outside the '
                                'joint range [-2.61799, 2.61799]; clipped']
    finally:
        node.destroy_node()


def test_each_period_s_outputs_get_its_stamp(made):
    node = made()
    stamps = []
    node.period_outputs.append(stamps.append)
    with node.runner.lock:
        stamp = node.publish_period()
    assert stamps == [stamp]


def test_a_node_that_owns_its_runner_stops_it_when_destroyed(ros, tmp_path):
    from std_msgs.msg import String
    node = _node(tmp_path)
    runner = node.runner
    assert runner._running
    node.destroy_node()
    assert not runner._running
    with pytest.raises(Exception):
        node.create_publisher(String, 'x', 1)


def test_the_node_declares_its_description_and_reads_its_devices_file(made, tmp_path):
    devices = tmp_path / 'devices.yaml'
    devices.write_text('devices:\n  extra_imu: { kind: imu, link: base }\n')
    node = made(simulate=False, devices_file=str(devices))
    assert node.get_parameter('robot_description').value == node.urdf
    assert 'extra_imu' in {d.name for d in node.model.devices}
    assert 'extra_imu' in node.urdf


def test_a_node_that_does_not_simulate_warns_of_parameters_nobody_uses(ros, tmp_path,
                                                                       monkeypatch):
    log = Log()
    monkeypatch.setattr(node_module.BridgeNode, 'get_logger', lambda self: log)
    node = _node(tmp_path, simulate=False, nonsense=1)
    try:
        assert 'parameter nonsense is not a body_bridge parameter; ignored' in log.warnings
    finally:
        node.destroy_node()


def test_a_negative_real_time_factor_is_refused_at_start(ros, tmp_path):
    with pytest.raises(ParameterError, match=r'parameter real_time_factor: must be 0 or '
                                             r'positive, not -1\.0'):
        _node(tmp_path, real_time_factor=-1.0)


ROVER = str(REPO / 'test' / 'data' / 'openrave' / 'rover.robot.xml')


@pytest.mark.parametrize('odom_tf', [True, False])
def test_a_rover_s_root_hangs_from_odom_when_asked(made, odom_tf):
    node = made(model=ROVER, odom_tf=odom_tf)
    statics = {(t.header.frame_id, t.child_frame_id) for t in node._static_transforms()}
    assert (('world', 'odom') in statics) is odom_tf
    # the root link's moving transform: from odom_frame, or from fixed_frame
    assert (b'odom\x00' in bytes(node._tf_msg.payload())) is odom_tf
