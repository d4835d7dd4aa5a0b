"""The bridge node in this process: the parameters it refuses, the frames and state it
publishes, its services, its throttled warnings, a model that does not simulate."""

import math
import time

import numpy as np
import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rclpy.parameter import Parameter  # noqa: E402
from rclpy.serialization import deserialize_message  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from body_bridge.errors import BodyBridgeError, ParameterError  # noqa: E402
from body_bridge.ros.node.node import BridgeNode, problem_of  # noqa: E402

CONE = """format: ChoreonoidBody
format_version: 2.0
name: cone
root_link: base
links:
  - name: base
    joint_type: fixed
    mass: 1.0
    inertia: [0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01]
    elements:
      - type: Shape
        geometry: { type: Cone, radius: 0.1, height: 0.2 }
"""


def make(tmp_path, model='sample_arm', **params):
    overrides = [Parameter('model', value=str(model)), Parameter('start_paused', value=True),
                 Parameter('mesh_directory', value=str(tmp_path))]
    overrides += [Parameter(name, value=value) for name, value in params.items()]
    return BridgeNode(parameter_overrides=overrides)


@pytest.fixture
def node(ros, tmp_path):
    made = make(tmp_path)
    yield made
    made.destroy_node()


class Said:
    """Stands in for the node's logger: keeps what it was told."""

    def __init__(self):
        self.lines = []

    def warning(self, text):
        self.lines.append(text)

    info = warning


def captured(pub, msg_type):
    """Make ``pub`` keep what it publishes (deserialized) instead of writing it; it counts as
    subscribed (the node fills and writes only what somebody takes)."""
    got = []
    pub.get_subscription_count = lambda: 1
    pub.publish = lambda data: got.append(
        data if isinstance(data, msg_type) else deserialize_message(bytes(data), msg_type))
    return got


def test_a_problem_is_its_text_with_names_and_numbers_blanked():
    assert problem_of("unknown joint 'a' at 1.5e-3 s") == 'unknown joint # at # s'
    assert problem_of('value "x y" is nan or -inf, not +2') == 'value # is # or -#, not #'
    assert problem_of('joint j2 of arm_3 at .5') == 'joint j2 of arm_3 at #'


@pytest.mark.parametrize('name, value, message', [
    ('control_rate', 0.0, 'parameter control_rate: must be positive, not 0.0'),
    ('control_rate', -5.0, 'parameter control_rate: must be positive, not -5.0'),
    ('control_rate', math.inf, 'parameter control_rate: must be positive, not inf'),
    ('real_time_factor', -1.0, 'parameter real_time_factor: must be 0 or positive, not -1.0'),
    ('real_time_factor', math.nan, 'parameter real_time_factor: must be 0 or positive, not nan'),
    ('on_divergence', 'stop', "parameter on_divergence: 'stop' is not one of reset, pause"),
    ('track_lateral_friction', 0.0, 'parameter track_lateral_friction: must be in (0, 1], not '
                                    '0.0'),
    ('track_lateral_friction', 1.5, 'parameter track_lateral_friction: must be in (0, 1], not '
                                    '1.5'),
    ('gravity_compensation', 'maybe', "parameter gravity_compensation: 'maybe' is not one of "
                                      'auto, on, off'),
])
def test_bad_parameters_are_refused_in_one_line(ros, tmp_path, name, value, message):
    with pytest.raises(ParameterError) as err:
        make(tmp_path, **{name: value})
    assert str(err.value) == message


def test_a_bad_list_of_named_poses_is_refused_at_start(ros, tmp_path):
    with pytest.raises(BodyBridgeError) as err:
        make(tmp_path, named_poses='[{name: dock, pose: [1, 0, 0], colour: red}]')
    assert str(err.value).startswith('parameter named_poses:')
    assert 'colour' in str(err.value)


def test_a_slow_control_rate_is_a_long_period(ros, tmp_path):
    node = make(tmp_path, control_rate=0.5)
    try:
        assert node.runner.period == pytest.approx(2.0)
    finally:
        node.destroy_node()


def test_the_edges_of_the_ranges_are_accepted(ros, tmp_path):
    node = make(tmp_path, real_time_factor=0.0, track_lateral_friction=1.0,
                gravity_compensation='off', on_divergence='pause', control_rate=1000.0)
    try:
        assert node.runner.period == pytest.approx(0.001)
    finally:
        node.destroy_node()


def test_the_urdf_is_a_read_only_parameter_and_a_latched_message(node):
    from std_msgs.msg import String
    assert node.get_parameter('robot_description').value == node.urdf
    assert node.urdf.startswith('<?xml') or '<robot' in node.urdf
    result = node.set_parameters([Parameter('robot_description', value='<robot/>')])[0]
    assert not result.successful
    channel = node._description_pub
    assert deserialize_message(channel.last[0], String).data == node.urdf


def test_fixed_frames_on_tf_static(ros, tmp_path):
    node = make(tmp_path, frame_prefix='r1/', fixed_frame='map')
    try:
        by_child = {t.child_frame_id: t for t in node._static_transforms()}
        root = by_child['r1/base']  # the fixed root hangs from the fixed frame
        assert root.header.frame_id == 'map'
        imu = by_child['r1/base_imu']
        assert imu.header.frame_id == 'r1/base'
        device = next(d for d in node.model.devices if d.name == 'base_imu')
        np.testing.assert_allclose([imu.transform.translation.x, imu.transform.translation.y,
                                    imu.transform.translation.z], device.pose.pos)
        optical = by_child['r1/hand_camera_optical_frame']
        assert optical.header.frame_id == 'r1/hand_camera'
        q = optical.transform.rotation  # z forward, x right, y down: REP-103's optical frame
        np.testing.assert_allclose([q.w, q.x, q.y, q.z], [0.5, -0.5, 0.5, -0.5], atol=1e-12)
        assert {(t.header.stamp.sec, t.header.stamp.nanosec)
                for t in by_child.values()} == {(0, 0)}  # fixed: from the start of time
        rigid = [j for j in node.model.ordered_joints() if j.type.rigid]
        assert rigid and all(by_child[f'r1/{j.child}'].header.frame_id == f'r1/{j.parent}'
                             for j in rigid)
        latched = deserialize_message(node._static_pub.last[0], TFMessage)
        assert [t.child_frame_id for t in latched.transforms] == list(by_child)
        moving = {c for _, c in node.sim.moving_frames}
        assert not moving & {t.child_frame_id[3:] for t in by_child.values()}
    finally:
        node.destroy_node()


def test_a_root_that_is_the_fixed_frame_hangs_from_nothing(ros, tmp_path):
    node = make(tmp_path, fixed_frame='base')
    try:
        assert 'base' not in {t.child_frame_id for t in node._static_transforms()}
    finally:
        node.destroy_node()


def test_each_period_publishes_state_clock_and_tf_stamped_with_simulated_time(node):
    from rosgraph_msgs.msg import Clock
    states = captured(node._state_pub, JointState)
    clocks = captured(node._clock_pub, Clock)
    tfs = captured(node._tf_pub, TFMessage)
    node.sim.command_positions = None
    for _ in range(3):
        assert node.runner.step_once()
    sim = node.sim
    assert len(states) == len(clocks) == len(tfs) == 3
    state, clock, tf = states[-1], clocks[-1], tfs[-1]
    stamp = state.header.stamp
    assert stamp.sec + 1e-9 * stamp.nanosec == pytest.approx(sim.time, abs=1e-9)
    assert sim.time == pytest.approx(3 * node.runner.period)
    assert (clock.clock.sec, clock.clock.nanosec) == (stamp.sec, stamp.nanosec)
    assert list(state.name) == list(sim.joint_names)
    np.testing.assert_allclose(state.position, sim.joint_positions(), atol=1e-12)
    np.testing.assert_allclose(state.velocity, sim.joint_velocities(), atol=1e-12)
    np.testing.assert_allclose(state.effort, sim.joint_efforts(), atol=1e-12)
    assert [t.header.stamp for t in tf.transforms] == [stamp] * len(tf.transforms)
    pos, quat = sim.moving_transforms()
    first = tf.transforms[0].transform
    np.testing.assert_allclose([first.translation.x, first.translation.y,
                                first.translation.z], pos[0], atol=1e-12)
    np.testing.assert_allclose([first.rotation.w, first.rotation.x, first.rotation.y,
                                first.rotation.z], quat[0], atol=1e-12)
    returned = node.publish_period()
    assert (returned.sec, returned.nanosec) == (stamp.sec, stamp.nanosec)


def test_a_topic_nobody_takes_is_neither_filled_nor_written(node, monkeypatch):
    from rosgraph_msgs.msg import Clock
    pubs = {'state': node._state_pub, 'clock': node._clock_pub, 'tf': node._tf_pub}
    got = {name: captured(pub, kind) for (name, pub), kind in
           zip(pubs.items(), (JointState, Clock, TFMessage))}
    takers = {'state': 0, 'clock': 0, 'tf': 0}
    for name, pub in pubs.items():
        pub.get_subscription_count = lambda name=name: takers[name]
    read = []
    for part in ('joint_positions', 'joint_efforts', 'moving_transforms'):
        real = getattr(node.sim, part)
        monkeypatch.setattr(node.sim, part, lambda real=real, part=part: (read.append(part),
                                                                        real())[1])
    node.sim.command_positions = None
    assert node.runner.step_once()
    assert got == {'state': [], 'clock': [], 'tf': []} and read == []
    stamp = node.publish_period()  # the period's stamp all the same
    assert stamp.sec + 1e-9 * stamp.nanosec == pytest.approx(node.sim.time, abs=1e-9)
    takers['tf'] = 1  # rviz alone: the transforms, not the joints
    assert node.runner.step_once()
    assert [len(got[k]) for k in ('state', 'clock', 'tf')] == [0, 0, 1]
    assert read == ['moving_transforms']
    takers.update(state=1, clock=1)
    assert node.runner.step_once()
    assert [len(got[k]) for k in ('state', 'clock', 'tf')] == [1, 1, 2]
    assert got['state'][0].header.stamp == got['tf'][1].transforms[0].header.stamp
    assert got['clock'][0].clock == got['state'][0].header.stamp


def test_a_node_that_is_not_the_clock_publishes_none(node):
    node._clock_pub = None
    node.publish_clock()  # nothing to publish on: no error


def test_the_period_s_outputs_get_its_stamp(node):
    stamps = []
    node.period_outputs.append(stamps.append)
    assert node.runner.step_once()
    (stamp,) = stamps[-1:]
    assert node.sim.time > 0
    assert stamp.sec + 1e-9 * stamp.nanosec == pytest.approx(node.sim.time, abs=1e-9)


def test_a_model_without_moving_frames_publishes_no_tf(ros, tmp_path):
    model = tmp_path / 'cone.body'
    model.write_text(CONE)
    node = make(tmp_path, model)
    try:
        assert node._tf_msg is None
        tfs = captured(node._tf_pub, TFMessage)
        states = captured(node._state_pub, JointState)
        assert node.runner.step_once()
        assert tfs == [] and len(states) == 1 and list(states[0].name) == []
    finally:
        node.destroy_node()


def test_a_mobile_base_hangs_from_odom_when_asked(ros, tmp_path):
    from conftest import REPO
    cart = REPO / 'test' / 'data' / 'choreonoid' / 'cart.body'
    for odom_tf, parent in ((True, 'odom'), (False, 'world')):
        node = make(tmp_path, cart, odom_tf=odom_tf)
        try:
            static = {t.child_frame_id: t.header.frame_id for t in node._static_transforms()}
            assert ('odom' in static) == odom_tf and static.get('odom', 'world') == 'world'
            tfs = captured(node._tf_pub, TFMessage)
            assert node.runner.step_once()
            root = [t for t in tfs[-1].transforms if t.child_frame_id == 'chassis']
            assert [t.header.frame_id for t in root] == [parent]
        finally:
            node.destroy_node()


def test_the_simulation_s_notes_are_warned_once_and_cleared(node):
    said = Said()
    node.get_logger = lambda: said
    node.sim.notes.extend(["joint 'a' at its limit", "joint 'b' at its limit"])
    node.publish_period()
    assert said.lines == ["joint 'a' at its limit"] and node.sim.notes == []
    assert node.warning_count == 2


def test_warnings_of_one_problem_are_throttled_and_counted(node):
    said = Said()
    node.get_logger = lambda: said
    node.warn_throttled("unknown joint 'a'")
    node.warn_throttled("unknown joint 'b'")
    node.warn_throttled("unknown joint 'c'")
    node.warn_throttled('another problem')
    assert said.lines == ["unknown joint 'a'", 'another problem']
    assert node.warning_count == 4
    node.warn_throttled("unknown joint 'd'", period=0.0)  # the period is over
    assert said.lines[-1] == "unknown joint 'd' (2 more like it not shown)"
    node.warn_throttled("unknown joint 'e'", period=0.0)
    assert said.lines[-1] == "unknown joint 'e'"
    node._warned[problem_of("unknown joint 'e'")][0] -= 1.5  # a second and a half later
    node.warn_throttled("unknown joint 'f'")  # by default, once a second
    assert said.lines[-1] == "unknown joint 'f'"


def test_the_problems_remembered_are_pruned_past_a_thousand(node):
    said = Said()
    node.get_logger = lambda: said
    old = time.monotonic() - 10.0
    node._warned = {f'old {k}': [old, 0] for k in range(1000)}  # 1001 with the next
    node._warned['recent'] = [time.monotonic(), 3]
    node.warn_throttled('new problem')
    assert set(node._warned) == {'recent', 'new problem'}
    node._warned = {f'p{k}': [old, 0] for k in range(1000)}
    node.warn_throttled('one more')
    assert len(node._warned) == 1001  # a thousand is kept as it is
    node.warn_throttled('and another')
    assert set(node._warned) == {'one more', 'and another'}  # the old ones pruned


def test_pause_step_and_reset_services(node):
    from std_srvs.srv import SetBool, Trigger
    answer = node._on_set_paused(SetBool.Request(data=False), SetBool.Response())
    assert (answer.success, answer.message) == (True, 'running') and not node.runner.paused
    answer = node._on_step(Trigger.Request(), Trigger.Response())
    assert not answer.success
    assert answer.message == 'the simulation is running: pause it first (~/set_paused)'
    answer = node._on_set_paused(SetBool.Request(data=True), SetBool.Response())
    assert (answer.success, answer.message) == (True, 'paused') and node.runner.paused
    before = node.sim.time
    answer = node._on_step(Trigger.Request(), Trigger.Response())
    assert answer.success and node.sim.time == pytest.approx(before + node.runner.period)
    assert answer.message == f'stepped one period to t = {node.sim.time:.9g} s'
    answer = node._on_reset(Trigger.Request(), Trigger.Response())
    assert (answer.success, answer.message) == (True, 'simulation reset to its initial state')
    deadline = time.monotonic() + 5.0
    while node.sim.time != 0.0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert node.sim.time == 0.0


def test_reload_keeps_the_running_model_when_the_new_one_fails(node, tmp_path):
    from std_srvs.srv import Trigger
    said = Said()
    node.get_logger = lambda: said
    model = tmp_path / 'cone.body'
    model.write_text(CONE)
    node.set_parameters([Parameter('model', value=str(model))])  # checked, then asked for
    assert node.restart_request == str(model)
    assert said.lines[-1] == f'reload: {model} is good; the bridge restarts with it'
    node.restart_request = None
    start = time.monotonic()
    answer = node._on_reload(Trigger.Request(), Trigger.Response())
    assert answer.success and answer.message == f'{model}: loaded; the bridge restarts with it'
    assert node.restart_request == str(model)
    assert start + 0.4 < node.restart_after < time.monotonic() + 0.6
    node.restart_request = None
    model.write_text('format: ChoreonoidBody\nlinks: [\n')  # broken since
    answer = node._on_reload(Trigger.Request(), Trigger.Response())
    assert not answer.success and node.restart_request is None
    assert answer.message.startswith('reload failed, the running model goes on: ')
    assert str(model) in answer.message and said.lines[-1] == answer.message


def test_meshes_go_to_the_cache_unless_a_directory_is_given(ros, tmp_path, monkeypatch):
    model = tmp_path / 'cone.body'
    model.write_text(CONE)
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    node = BridgeNode(parameter_overrides=[Parameter('model', value=str(model)),
                                           Parameter('simulate', value=False)])
    try:
        assert f'file://{tmp_path / "cache" / "body_bridge" / "meshes"}' in node.urdf
    finally:
        node.destroy_node()
    node = make(tmp_path / 'given', model, simulate=False)
    try:
        assert f'file://{tmp_path / "given"}' in node.urdf
        assert 'body_bridge/meshes' not in node.urdf
    finally:
        node.destroy_node()


def test_a_devices_file_changes_the_model_the_node_serves(ros, tmp_path):
    overlay = tmp_path / 'devices.yaml'
    overlay.write_text('devices:\n  hand_camera: { width: 64, height: 48 }\n')
    node = make(tmp_path, devices_file=str(overlay))
    try:
        camera = next(d for d in node.model.devices if d.name == 'hand_camera')
        assert (camera.params['width'], camera.params['height']) == (64, 48)
    finally:
        node.destroy_node()


def test_a_model_that_does_not_simulate_turns_joint_states_into_tf(ros, tmp_path):
    node = make(tmp_path, simulate=False, frame_prefix='p/')
    said = Said()
    node.get_logger = lambda: said
    tfs = captured(node._tf_pub, TFMessage)
    try:
        assert node.sim is None and node.runner is None and node.drive is None
        assert node.casters == () and node.start_notes == []
        assert [s.topic_name for s in node.subscriptions
                if s.msg_type is JointState] == ['/joint_states']
        msg = JointState(name=['shoulder_yaw', 'nope', 'elbow_pitch', 'wrist_pitch'],
                         position=[0.5, 1.0, math.nan, 0.25])
        msg.header.stamp.sec = 7
        node._on_external_state(msg)
        (out,) = tfs
        joints = [node.model.joint('shoulder_yaw'), node.model.joint('wrist_pitch')]
        assert [(t.header.frame_id, t.child_frame_id) for t in out.transforms] == [
            (f'p/{j.parent}', f'p/{j.child}') for j in joints]
        assert all(t.header.stamp.sec == 7 for t in out.transforms)
        yaw = out.transforms[0].transform.rotation  # about z by 0.5 rad
        assert [yaw.z, yaw.w] == pytest.approx([math.sin(0.25), math.cos(0.25)], abs=1e-9)
        node._on_external_state(JointState(name=['shoulder_yaw'], position=[]))
        assert said.lines == ['joint_states: rejected: 1 names but 0 positions'] or \
            said.lines[-1].endswith('rejected: 1 names but 0 positions')
        node._on_external_state(JointState(name=['nope'], position=[1.0]))
        assert len(tfs) == 1  # nothing known: nothing published
    finally:
        node.destroy_node()


def test_a_node_stops_its_own_runner_unless_released(ros, tmp_path):
    for released in (False, True):
        node = make(tmp_path)
        runner, stops = node.runner, []
        stop = runner.stop
        runner.stop = lambda: (stops.append(True), stop())
        if released:  # its world goes on without it, as after a world is replaced
            with runner.lock:
                runner.remove_node(node)
            node.release_runner()
        node.destroy_node()
        assert stops == ([] if released else [True])
        stop()


def test_the_start_is_told_in_a_line_and_its_notes(ros, tmp_path):
    said = Said()

    class Told(BridgeNode):
        def get_logger(self):
            return said
    node = Told(parameter_overrides=[Parameter('start_paused', value=True),
                                     Parameter('mesh_directory', value=str(tmp_path))])
    try:
        from body_bridge.paths import resolve_model
        assert said.lines[0] == (f'sample_arm: 6 links, 4 moving joints, 7 devices from '
                                 f'{resolve_model("sample_arm")}')
        assert said.lines[1:] == list(node.start_notes)
        assert said.lines[1] == 'root: fixed (as the model file says); no cmd_vel'
    finally:
        node.destroy_node()
    said.lines.clear()
    node = Told(parameter_overrides=[Parameter('start_paused', value=True),
                                     Parameter('mesh_directory', value=str(tmp_path)),
                                     Parameter('gains.elbow_pitch.i', value=10.0)])
    try:
        assert any(line.startswith('parameter gains.elbow_pitch.i is not used')
                   for line in said.lines), said.lines
    finally:
        node.destroy_node()


def test_parameters_nobody_claims_are_warned_about(ros, tmp_path):
    said = Said()

    class Told(BridgeNode):
        def get_logger(self):
            return said
    for simulate in (True, False):
        said.lines.clear()
        node = Told(parameter_overrides=[
            Parameter('simulate', value=simulate), Parameter('start_paused', value=True),
            Parameter('mesh_directory', value=str(tmp_path)), Parameter('bogus', value=1.0),
            Parameter('devices.base_imu.rate', value=50.0)])
        try:
            assert 'parameter bogus is not a body_bridge parameter; ignored' in said.lines
            if simulate:  # claimed by the IMU's publisher
                assert not [line for line in said.lines if 'devices.base_imu.rate' in line]
        finally:
            node.destroy_node()


def test_gains_are_for_the_joints_with_a_servo_not_mimic_joints(ros, tmp_path):
    from conftest import REPO
    node = make(tmp_path, **{'gains.elbow_pitch.p': 200.0})
    try:
        assert node.sim.kp[node.sim.actuated.index('elbow_pitch')] == 200.0
    finally:
        node.destroy_node()
    linkage = REPO / 'test' / 'data' / 'openrave' / 'linkage.robot.xml'
    with pytest.raises(ParameterError) as err:
        make(tmp_path, linkage, **{'gains.P0.p': 100.0})
    assert "'P0' is not a joint with a servo (one of A)" in str(err.value)


def test_a_node_in_a_shared_world_leaves_its_runner_alone(ros, tmp_path):
    from body_bridge.ros.node.runner import SimulationRunner
    node = BridgeNode(shared=True, parameter_overrides=[
        Parameter('start_paused', value=True), Parameter('mesh_directory', value=str(tmp_path))])
    runner = SimulationRunner([node])
    stops = []
    runner.stop = lambda: stops.append(True)
    node.destroy_node()
    assert stops == [] and list(node.publishers) == []  # destroyed all the same


def test_a_mobile_model_serves_cmd_vel_and_odom(ros, tmp_path):
    from conftest import REPO
    node = make(tmp_path, REPO / 'test' / 'data' / 'choreonoid' / 'cart.body')
    try:
        assert node.mobile is not None
        assert '/cmd_vel' in [s.topic_name for s in node.subscriptions]
        assert '/odom' in [p.topic_name for p in node.publishers]
    finally:
        node.destroy_node()


def test_the_world_s_load_notes_are_warned_at_start(ros, tmp_path, monkeypatch):
    from body_bridge.sim.building import world as world_module
    said = Said()

    class Told(BridgeNode):
        def get_logger(self):
            return said
    monkeypatch.setattr(world_module, 'add_material_pairs',
                        lambda spec, models, ground: ['more than 1 contact pairs: left out'])
    node = Told(parameter_overrides=[Parameter('start_paused', value=True),
                                     Parameter('mesh_directory', value=str(tmp_path))])
    try:
        assert said.lines.count('more than 1 contact pairs: left out') == 1
    finally:
        node.destroy_node()


def test_a_bad_model_is_one_error(ros, tmp_path):
    with pytest.raises(BodyBridgeError):
        make(tmp_path, model=tmp_path / 'missing.body')
