"""The bridge in its own process, observed and commanded from this one over real DDS."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from urdf_parser_py import urdf

from body_bridge.ros.stream import qos

from conftest import REPO, SAMPLE_ARM, BridgeProcess

OWN = REPO / 'test' / 'data' / 'choreonoid'  # small models of our own

STARTUP = 60.0  # [s] wall time allowed for the bridge process to come up


def spin_until(rclpy, node, predicate, timeout: float, what: str, proc=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.05)
        if predicate():
            return
        if proc is not None and proc.proc.poll() is not None:
            pytest.fail(f'the bridge exited ({proc.proc.returncode}) while waiting for {what}:\n'
                        f'{proc.output()}')
    pytest.fail(f'timed out after {timeout} s waiting for {what}'
                + (f'\nbridge output:\n{proc.output()}' if proc else ''))


class Probe:
    """What a user's tools would see of the bridge."""

    def __init__(self, rclpy, name='probe'):
        self.rclpy = rclpy
        self.node = rclpy.create_node(name)
        self.states: list[JointState] = []
        self.clock: list[float] = []
        self.tf: dict[str, str] = {}
        self.tf_static: dict[str, str] = {}
        self.description: list[str] = []
        n = self.node
        n.create_subscription(JointState, 'joint_states', self.states.append, qos.JOINT_STATES)
        n.create_subscription(Clock, '/clock', lambda m: self.clock.append(
            m.clock.sec + 1e-9 * m.clock.nanosec), qos.CLOCK)
        n.create_subscription(TFMessage, '/tf', lambda m: self._frames(m, self.tf), qos.TF)
        n.create_subscription(TFMessage, '/tf_static', lambda m: self._frames(m, self.tf_static),
                              qos.TF_STATIC)

    @staticmethod
    def _frames(msg, into):
        for t in msg.transforms:
            into[t.child_frame_id] = t.header.frame_id

    def subscribe_description(self):
        self.node.create_subscription(String, 'robot_description',
                                      lambda m: self.description.append(m.data), qos.LATCHED)

    def spin_until(self, predicate, timeout, what, proc=None):
        spin_until(self.rclpy, self.node, predicate, timeout, what, proc)

    def close(self):
        self.node.destroy_node()


@pytest.fixture
def probe(ros):
    p = Probe(ros)
    yield p
    p.close()


def stamp(msg) -> float:
    return msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec


def test_sample_arm_end_to_end(bridge, probe, tmp_path, check_urdf):
    proc = bridge(SAMPLE_ARM)
    probe.spin_until(lambda: len(probe.states) > 5, STARTUP, 'joint_states', proc)

    # robot_description reaches a late joiner and is a URDF that check_urdf accepts.
    probe.subscribe_description()
    probe.spin_until(lambda: probe.description, 10.0, 'robot_description (late joiner)', proc)
    path = tmp_path / 'description.urdf'
    path.write_text(probe.description[0])
    ok, out = check_urdf(path)
    assert ok, out
    robot = urdf.URDF.from_xml_string(probe.description[0])

    # /tf_static and /tf cover every link of that URDF, rooted in the world frame.
    links = {link.name for link in robot.links}
    probe.spin_until(lambda: links <= set(probe.tf) | set(probe.tf_static) | {'world'}, 10.0,
                     'TF frames for every link', proc)
    assert probe.tf_static[robot.get_root()] == 'world'
    moving = {j.child for j in robot.joints if j.type != 'fixed'}
    assert moving <= set(probe.tf)

    # joint_states names every non-fixed joint.
    assert set(probe.states[-1].name) == {j.name for j in robot.joints if j.type != 'fixed'}

    # /clock advances.
    probe.spin_until(lambda: len(probe.clock) > 10, 10.0, '/clock', proc)
    assert probe.clock[-1] > probe.clock[0]

    # A position target is reached within 0.01 rad within 2 s of simulated time.
    pub = probe.node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)
    probe.spin_until(lambda: pub.get_subscription_count() > 0, 10.0, 'joint_commands match', proc)
    start = stamp(probe.states[-1])
    pub.publish(JointState(name=['elbow_pitch'], position=[0.5]))
    probe.spin_until(lambda: stamp(probe.states[-1]) > start + 2.0, 20.0, '2 s of simulated time',
                     proc)
    after = [m for m in probe.states if start < stamp(m) <= start + 2.0]
    reached = [stamp(m) - start for m in after
               if abs(m.position[list(m.name).index('elbow_pitch')] - 0.5) < 0.01]
    assert reached, 'elbow_pitch never came within 0.01 rad of 0.5 within 2 s'
    final = after[-1].position[list(after[-1].name).index('elbow_pitch')]
    assert abs(final - 0.5) < 0.01


def test_reset_service_and_bad_commands(bridge, probe):
    proc = bridge(SAMPLE_ARM, '-p', 'real_time_factor:=2.0')
    probe.spin_until(lambda: len(probe.states) > 5, STARTUP, 'joint_states', proc)
    pub = probe.node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)
    probe.spin_until(lambda: pub.get_subscription_count() > 0, 10.0, 'joint_commands match', proc)
    pub.publish(JointState(name=['no_such_joint'], position=[0.5]))
    pub.publish(JointState(name=['shoulder_yaw'], position=[float('nan')]))
    pub.publish(JointState(name=['shoulder_yaw'], position=[1.0]))
    q = lambda: probe.states[-1].position[0]  # noqa: E731
    probe.spin_until(lambda: abs(q() - 1.0) < 0.01, 20.0, 'shoulder_yaw at 1.0', proc)

    client = probe.node.create_client(Trigger, 'body_bridge/reset')
    probe.spin_until(lambda: client.service_is_ready(), 10.0, 'the reset service', proc)
    future = client.call_async(Trigger.Request())
    probe.spin_until(future.done, 10.0, 'reset response', proc)
    assert future.result().success
    count = len(probe.states)
    probe.spin_until(lambda: len(probe.states) > count + 3, 10.0, 'state after reset', proc)
    assert abs(q()) < 0.05
    assert stamp(probe.states[-1]) < 1.0  # simulated time restarted

    out = proc.output()
    assert "joint_commands: rejected: unknown joint 'no_such_joint'" in out
    assert 'joint_commands: rejected: a value is NaN or infinite' in out
    assert proc.proc.poll() is None  # still running


def test_bad_model_fails_with_one_line(bridge, tmp_path):
    bad = tmp_path / 'bad.body'
    bad.write_text('format: ChoreonoidBody\nlinks:\n  - name: a\n    joint_type: warp\n')
    proc = bridge(bad)
    assert proc.proc.wait(timeout=STARTUP) == 2
    out = proc.output().strip().splitlines()
    assert out == [f"{bad}:4: joint_type 'warp' is not one of fixed, free, revolute, prismatic, "
                   'pseudo_continuous_track']


# --- time, pacing and simulation control -----------------------------------------------------

def call(probe, client, request, proc, what):
    probe.spin_until(client.service_is_ready, 20.0, f'the {what} service', proc)
    # Ready says the client's requests reach the server; the server's answers reach this
    # client once the server has discovered it too, which a loaded machine can take a moment
    # longer to do (then the server logs "failed to send response (timeout)" and the answer
    # is lost, though the request was served). Half a second of discovery first.
    settle = time.monotonic() + 0.5
    probe.spin_until(lambda: time.monotonic() >= settle, 5.0, 'discovery', proc)
    future = client.call_async(request)
    probe.spin_until(future.done, 10.0, f'the {what} response', proc)
    return future.result()


def test_real_time_factor_one_keeps_simulated_time_with_wall_time(bridge, ros):
    proc = bridge(SAMPLE_ARM)
    node = ros.create_node('rtf_probe')
    seen = []
    node.create_subscription(Clock, '/clock', lambda m: seen.append(
        (time.monotonic(), m.clock.sec + 1e-9 * m.clock.nanosec)), qos.CLOCK)
    try:
        spin_until(ros, node, lambda: len(seen) > 20, STARTUP, '/clock', proc)
        first = seen[-1]
        spin_until(ros, node, lambda: seen[-1][0] - first[0] >= 10.0, 30.0, '10 s of wall time',
                   proc)
        last = seen[-1]
        ratio = (last[1] - first[1]) / (last[0] - first[0])
        print(f'real-time factor over {last[0] - first[0]:.2f} s: {ratio:.4f}')
        assert ratio == pytest.approx(1.0, abs=0.02)
    finally:
        node.destroy_node()


def test_real_time_factor_zero_runs_faster_than_real_time(bridge, probe):
    proc = bridge(SAMPLE_ARM, '-p', 'real_time_factor:=0.0')
    probe.spin_until(lambda: len(probe.clock) > 20, STARTUP, '/clock', proc)
    wall, sim = time.monotonic(), probe.clock[-1]
    probe.spin_until(lambda: time.monotonic() - wall > 2.0, 5.0, '2 s of wall time', proc)
    ratio = (probe.clock[-1] - sim) / (time.monotonic() - wall)
    print(f'as fast as possible: {ratio:.1f} times real time')
    assert ratio > 2.0


def spin_for(probe, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        probe.rclpy.spin_once(probe.node, timeout_sec=0.05)


def test_paused_start_single_steps_and_resume(bridge, probe):
    from std_srvs.srv import SetBool
    proc = bridge(SAMPLE_ARM, '-p', 'start_paused:=true', '-p', 'control_rate:=50.0')
    probe.spin_until(lambda: probe.clock, STARTUP, 'the initial /clock', proc)
    step = probe.node.create_client(Trigger, 'body_bridge/step')
    pause = probe.node.create_client(SetBool, 'body_bridge/set_paused')
    spin_for(probe, 0.5)
    assert set(probe.clock) == {0.0}  # paused: time holds (/clock repeats it for late joiners)
    assert {stamp(m) for m in probe.states} <= {0.0}  # at most the initial state
    initial = len(probe.states)
    for k in range(1, 4):
        result = call(probe, step, Trigger.Request(), proc, 'step')
        assert result.success, result.message
        probe.spin_until(lambda n=initial + k: len(probe.states) == n, 10.0,
                         'the state after a step', proc)
        assert stamp(probe.states[-1]) == pytest.approx(0.02 * k, abs=1e-9)  # one period
    spin_for(probe, 0.3)
    assert len(probe.states) == initial + 3  # one state per period, none while paused
    assert probe.clock[-1] == pytest.approx(0.06, abs=1e-9)
    assert call(probe, pause, SetBool.Request(data=False), proc, 'set_paused').success
    probe.spin_until(lambda: probe.clock[-1] > 0.5, 20.0, 'time to run', proc)
    result = call(probe, step, Trigger.Request(), proc, 'step')
    assert not result.success and 'running' in result.message
    assert call(probe, pause, SetBool.Request(data=True), proc, 'set_paused').success
    spin_for(probe, 0.2)
    held = probe.clock[-1]
    spin_for(probe, 0.5)
    assert probe.clock[-1] == held


def test_use_sim_time_nodes_see_simulated_time(bridge, ros):
    from rclpy.parameter import Parameter
    proc = bridge(SAMPLE_ARM, '-p', 'use_sim_time:=true', '-p', 'real_time_factor:=0.5')
    node = ros.create_node('sim_time_probe',
                           parameter_overrides=[Parameter('use_sim_time', value=True)])
    clock = []
    node.create_subscription(Clock, '/clock', lambda m: clock.append(
        m.clock.sec + 1e-9 * m.clock.nanosec), qos.CLOCK)
    try:
        spin_until(ros, node, lambda: len(clock) > 50, STARTUP, '/clock', proc)
        now = node.get_clock().now().nanoseconds * 1e-9
        assert now == pytest.approx(clock[-1], abs=0.05)
        assert now < 1e6  # simulated seconds since start, not the wall clock's epoch
        assert proc.proc.poll() is None
    finally:
        node.destroy_node()


# --- several models in one world -------------------------------------------------------------

class WorldProcess(BridgeProcess):
    """``python -m body_bridge sim A B ...`` in its own process."""

    def __init__(self, models, *ros_args, tmp_path):
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / 'cache'))
        cmd = [sys.executable, '-m', 'body_bridge', 'sim', *map(str, models)]
        if ros_args:
            cmd += ['--ros-args', *ros_args]
        self.log = str(tmp_path / 'world.log')
        self._log_file = open(self.log, 'w')
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=self._log_file,
                                     stderr=subprocess.STDOUT)


def test_models_in_one_world_get_namespaces_prefixes_and_contacts(ros, tmp_path):
    floor, box = OWN / 'floor.body', OWN / 'box.body'
    params = tmp_path / 'world.yaml'
    params.write_text('/**:\n  ros__parameters:\n    ground_plane: false\n'
                      '    start_paused: true\n'
                      '/sim/box/body_bridge:\n  ros__parameters:\n'
                      '    initial_pose: [0.0, 0.0, 0.5, 0.0, 0.0, 0.0]\n')
    proc = WorldProcess([f'floor={floor}', f'box={box}'], '-r', '__ns:=/sim', '--params-file',
                        str(params), tmp_path=tmp_path)
    node = ros.create_node('world_probe')
    tf, static, descriptions = {}, {}, {}
    node.create_subscription(TFMessage, '/tf', lambda m: tf.update(
        {t.child_frame_id: t for t in m.transforms}), qos.TF)
    # as tf2's static listener: depth 100, so the latched messages of both nodes arrive
    static_listener = QoSProfile(depth=100, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                                 reliability=ReliabilityPolicy.RELIABLE)
    node.create_subscription(TFMessage, '/tf_static', lambda m: static.update(
        {t.child_frame_id: t for t in m.transforms}), static_listener)
    for name in ('floor', 'box'):
        node.create_subscription(String, f'/sim/{name}/robot_description',
                                 lambda m, n=name: descriptions.update({n: m.data}), qos.LATCHED)
    probe = type('P', (), {'rclpy': ros, 'node': node,
                           'spin_until': lambda self, *a: spin_until(ros, node, *a)})()
    try:
        # one period, stepped through the floor's node: the whole world moves
        from std_srvs.srv import SetBool
        assert call(probe, node.create_client(Trigger, '/sim/floor/body_bridge/step'),
                    Trigger.Request(), proc, 'step').success
        spin_until(ros, node, lambda: 'box/box' in tf and 'floor/slab' in static and
                   len(descriptions) == 2, STARTUP, 'TF of both models and their descriptions',
                   proc)
        assert tf['box/box'].header.frame_id == 'world'
        # the box's node has its initial pose: 0.5 m up, 1 period (10 ms) of free fall
        assert tf['box/box'].transform.translation.z == pytest.approx(
            0.5 - 9.81 * 0.01 ** 2 / 2, abs=1e-4)
        assert static['floor/slab'].header.frame_id == 'world'
        assert static['floor/slab'].transform.translation.z == pytest.approx(-0.1)
        assert '<robot name="box"' in descriptions['box']
        assert call(probe, node.create_client(SetBool, '/sim/box/body_bridge/set_paused'),
                    SetBool.Request(data=False), proc, 'set_paused').success
        spin_until(ros, node, lambda: tf['box/box'].header.stamp.sec >= 2, 30.0,
                   '2 s of simulated time', proc)
        # it fell onto the floor model and rests there: the world has no ground plane
        assert tf['box/box'].transform.translation.z == pytest.approx(0.1, abs=2e-3)
        services = dict(node.get_service_names_and_types())
        assert {'/sim/box/body_bridge/reset', '/sim/floor/body_bridge/step'} <= set(services)
    finally:
        node.destroy_node()
        proc.stop()


def test_parameters_are_served_and_unknown_ones_named(bridge, probe):
    from rcl_interfaces.srv import GetParameters
    proc = bridge(SAMPLE_ARM, '-p', 'real_time_factor:=2', '-p', 'bogus_setting:=3',
                  '-p', 'controllers.arm.type:=position_controllers/JointGroupPositionController',
                  '-p', 'controllers.arm.joints:=[elbow_pitch]')
    client = probe.node.create_client(GetParameters, 'body_bridge/get_parameters')
    result = call(probe, client, GetParameters.Request(
        names=['real_time_factor', 'controllers.arm.joints', 'kinematic']), proc, 'parameter')
    values = result.values
    assert values[0].double_value == 2.0  # an integer given for a double
    assert list(values[1].string_array_value) == ['elbow_pitch']
    assert values[2].bool_value is False
    assert 'parameter bogus_setting is not a body_bridge parameter; ignored' in proc.output()


def test_a_robot_among_other_models_publishes_and_obeys_in_its_namespace(ros, tmp_path):
    floor = OWN / 'floor.body'
    proc = WorldProcess([f'floor={floor}', 'arm=sample_arm'], '-p', 'ground_plane:=false',
                        tmp_path=tmp_path)
    node = ros.create_node('arm_probe', namespace='/arm')
    from sensor_msgs.msg import Imu
    imu, states = [], []
    node.create_subscription(Imu, 'base_imu', imu.append, qos.SENSOR)
    node.create_subscription(JointState, 'joint_states', states.append, qos.JOINT_STATES)
    pub = node.create_publisher(JointState, 'joint_commands', qos.COMMANDS)
    try:
        spin_until(ros, node, lambda: imu and states and pub.get_subscription_count(), STARTUP,
                   'the arm in its namespace', proc)
        assert imu[-1].header.frame_id == 'arm/base_imu'  # its frame prefix
        assert imu[-1].linear_acceleration.z == pytest.approx(9.81, abs=0.05)
        pub.publish(JointState(name=['elbow_pitch'], position=[0.6]))
        spin_until(ros, node, lambda: abs(states[-1].position[2] - 0.6) < 0.01, 30.0,
                   'the arm to move', proc)
    finally:
        node.destroy_node()
        proc.stop()
