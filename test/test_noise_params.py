"""Noise and compression as node parameters, in one process: ``devices.<device>.noise.<key>``,
``devices.<camera>.compressed.*`` / ``compressedDepth.*`` (ros/devices/device_settings.py) and the
noise of ``joint_states`` (ros/devices/joint_noise.py)."""

from __future__ import annotations

import math
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros
pytest.importorskip('rclpy', reason=ROS_MISSING)

from rclpy.parameter import Parameter
from test_noise import N, assert_mean_and_std

from body_bridge.device_overlay import Overlay, load_overlay
from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.ros.devices import device_settings
from body_bridge.ros.devices.joint_noise import JointStateNoise
from body_bridge.ros.devices.sensors import CameraPublisher, ImuPublisher, WrenchPublisher
from body_bridge.sim.sensing.sensors import SensorSuite
from body_bridge.sim.simulation import Simulation

from conftest import SAMPLE_ARM


@pytest.fixture(scope='module')
def arm():
    sim = Simulation(load_model(SAMPLE_ARM))
    suite = SensorSuite(sim)
    yield sim, suite
    suite.close()


@pytest.fixture
def node(ros):
    made = []

    def make(**overrides):
        n = ros.create_node(f'noise_params_{len(made)}', parameter_overrides=[
            Parameter(k, value=v) for k, v in overrides.items()],
            automatically_declare_parameters_from_overrides=False)
        made.append(n)
        return n
    yield make
    for n in made:
        n.destroy_node()


def test_every_noise_key_of_a_device_is_a_parameter_applied_in_place(arm, node):
    _, suite = arm
    n = node(**{'devices.base_imu.noise.angular_velocity_bias': [0.1, 0.0, -0.1],
                'devices.base_imu.noise.linear_acceleration': 2})
    out = ImuPublisher(n, suite.samplers['base_imu'], 'p0/base_imu', 'base_imu')
    params = device_settings.declare(n, 'devices.base_imu', out)
    assert set(params) == {f'devices.base_imu.noise.{k}' for k in (
        'linear_acceleration', 'linear_acceleration_bias', 'linear_acceleration_turn_on_bias',
        'linear_acceleration_noise_density', 'linear_acceleration_random_walk',
        'angular_velocity', 'angular_velocity_bias', 'angular_velocity_turn_on_bias',
        'angular_velocity_noise_density', 'angular_velocity_random_walk', 'orientation')}
    s = out.sampler
    assert s.noise == {'angular_velocity_bias': (0.1, 0.0, -0.1), 'linear_acceleration': 2.0}
    assert params['devices.base_imu.noise.orientation'] == ('noise', 'orientation')
    assert n.get_parameter('devices.base_imu.noise.orientation').value == 0.0
    version = s.noise_version
    what = ('noise', 'angular_velocity_bias')
    device_settings.apply(out, what, device_settings.convert(what, np.array([0.0, 0.2, 0.0])))
    assert s.noise['angular_velocity_bias'] == (0.0, 0.2, 0.0) and s.noise_version > version
    for key in list(s.noise):
        s.set_noise(key, 0.0)


@pytest.mark.parametrize('name, value, reason', [
    ('devices.base_imu.noise.linear_acceleration', -1.0, 'is negative'),
    ('devices.base_imu.noise.angular_velocity', [1.0, 2.0],
     'must be a number or a list of 3 numbers'),
    ('devices.hand_camera.compressed.format', 'tiff', 'must be one of jpeg, png, not '),
    ('devices.hand_camera.compressed.jpeg_quality', 0, 'must be an integer within 1..100'),
    ('devices.hand_camera.compressed.jpeg_quality', 101, 'must be an integer within 1..100'),
    ('devices.hand_camera.compressed.png_level', 10, 'must be an integer within 0..9'),
    ('devices.hand_camera.compressed.png_level', True, 'must be an integer within 0..9'),
    ('devices.hand_camera.compressedDepth.depth_max', 0.0, 'must be a positive number [m]'),
    ('devices.hand_camera.compressedDepth.depth_quantization', math.inf,
     'must be a positive number [m]'),
    ('devices.hand_camera.compressedDepth.png_level', -1, 'must be an integer within 0..9'),
    ('devices.hand_camera.compressedDepth.format', 'jpeg', 'must be one of png, rvl, not '),
])
def test_bad_values_given_at_start_stop_with_one_line(arm, node, name, value, reason):
    _, suite = arm
    n = node(**{name: value})
    device = name.split('.')[1]
    cls = CameraPublisher if device == 'hand_camera' else ImuPublisher
    out = cls(n, suite.samplers[device], f'p1/{device}', device)
    with pytest.raises(ModelError) as err:
        device_settings.declare(n, f'devices.{device}', out)
    assert str(err.value).startswith(f'<model>: parameter {name} {reason}')


def test_compression_settings_are_parameters_with_image_transport_defaults(arm, node):
    _, suite = arm
    n = node(**{'devices.hand_camera.compressed.jpeg_quality': 70,
                'devices.hand_camera.compressedDepth.depth_max': 4,
                'devices.hand_camera.compressedDepth.format': 'rvl'})
    out = CameraPublisher(n, suite.samplers['hand_camera'], 'p2/hand_camera', 'cam')
    params = device_settings.declare(n, 'devices.hand_camera', out)
    assert out.compression == {'format': 'jpeg', 'jpeg_quality': 70, 'png_level': 3}
    assert out.depth_compression == {'format': 'rvl', 'depth_max': 4.0,
                                     'depth_quantization': 100.0, 'png_level': 3}
    described = n.describe_parameters(['devices.hand_camera.compressed.format',
                                       'devices.hand_camera.compressedDepth.format'])
    assert [d.description for d in described] == [
        'Compression of image_raw/compressed: jpeg or png.',
        'Compression of depth/image/compressedDepth: png or rvl.']
    from rcl_interfaces.msg import ParameterType as T
    kinds = n.describe_parameters(['devices.hand_camera.compressed.format',
                                   'devices.hand_camera.compressed.jpeg_quality',
                                   'devices.hand_camera.compressedDepth.depth_quantization'])
    assert [d.type for d in kinds] == [T.PARAMETER_STRING, T.PARAMETER_INTEGER,
                                       T.PARAMETER_DOUBLE]
    assert isinstance(out.depth_compression['depth_max'], float)  # given as 4: metres, float
    assert device_settings.initial(out, ('compressed', 'jpeg_quality')) == 70
    assert device_settings.initial(out, ('noise', 'depth')) == 0.0
    assert params['devices.hand_camera.compressedDepth.depth_max'] == ('compressedDepth',
                                                                      'depth_max')
    assert n.get_parameter('devices.hand_camera.compressed.format').value == 'jpeg'
    assert 'devices.hand_camera.noise.depth_dropout' in params
    for what, value in ((('compressed', 'format'), 'png'),
                        (('compressedDepth', 'depth_quantization'), 50)):
        assert device_settings.problem(what, value) is None
        device_settings.apply(out, what, device_settings.convert(what, value))
    assert out.compression['format'] == 'png'
    assert out.depth_compression['depth_quantization'] == 50.0
    assert isinstance(out.depth_compression['depth_quantization'], float)
    assert device_settings.problem(('compressed', 'jpeg_quality'), 1) is None
    assert device_settings.problem(('compressed', 'png_level'), 9) is None
    assert device_settings.problem(('compressedDepth', 'depth_max'), 0.5) is None
    assert device_settings.problem(('noise', 'color'), 3) is None


def test_on_and_rate_values(arm):
    assert device_settings.invalid('on', True) is None
    assert device_settings.invalid('on', 1) == 'must be true or false, not 1'
    assert device_settings.invalid('rate', 5) is None
    assert device_settings.invalid('rate', 0.5) is None  # below 1 Hz is a rate too
    for bad in (0, -1.0, math.inf, math.nan, True, '5'):
        assert device_settings.invalid('rate', bad).startswith('must be a positive rate')
    assert device_settings.invalid(('noise', 'force'), -2.0) == 'is negative'


def test_a_force_sensor_has_force_and_torque_noise_parameters(arm, node):
    _, suite = arm
    n = node()
    out = WrenchPublisher(n, suite.samplers['wrist_force'], 'p3/wrist_force', 'wrist_force')
    params = device_settings.declare(n, 'devices.wrist_force', out)
    assert sorted(k.rsplit('.', 1)[1] for k in params) == sorted(
        ['force', 'force_bias', 'force_turn_on_bias', 'torque', 'torque_bias',
         'torque_turn_on_bias'])


def joint_node(node, seed=3, **overrides):
    n = node(**overrides)
    n.params = {'noise_seed': seed}
    n.sim = SimpleNamespace(time=0.0, period=0.01)
    return n


def test_joint_state_noise_has_its_deviation_and_repeats(node, tmp_path):
    path = tmp_path / 'devices.yaml'
    path.write_text(textwrap.dedent("""
        seed: 9
        joint_states: { noise: { position: 0.002 } }
    """))
    overlay = load_overlay(path, load_model(SAMPLE_ARM))
    assert dict(overlay.joint_noise) == {'position': 0.002}
    n = joint_node(node, seed=-1, **{'joint_states.noise.velocity': 0.05})
    noise = JointStateNoise(n, overlay)
    q, v = np.array([0.1, -0.2, 0.3]), np.array([0.0, 1.0, 2.0])
    rows = []
    for i in range(N):
        n.sim.time = i * 0.01
        rows.append(np.concatenate(noise.apply(q, v)))
    rows = np.array(rows)
    assert_mean_and_std(rows, np.concatenate([q, v]), [0.002] * 3 + [0.05] * 3)
    again = JointStateNoise(joint_node(node, seed=9), Overlay(
        seed=0, joint_noise={'position': 0.002, 'velocity': 0.05}))
    n.sim.time = 0.37
    first = noise.apply(q, v)
    again._sim.time = 0.37
    np.testing.assert_array_equal(np.concatenate(again.apply(q, v)), np.concatenate(first))
    zero = JointStateNoise(joint_node(node, seed=0), Overlay(seed=5, joint_noise={
        'position': 0.002}))  # noise_seed 0 is a seed: the file's 5 is not used
    file_zero = JointStateNoise(joint_node(node, seed=-1), Overlay(seed=0, joint_noise={
        'position': 0.002}))
    np.testing.assert_array_equal(zero.apply(q, v)[0], file_zero.apply(q, v)[0])
    # tied to the control period, not to what was drawn before: a run that also published
    # the period before has the same noise at 0.37 s
    before = JointStateNoise(joint_node(node, seed=9), Overlay(joint_noise={'position': 0.002}))
    before._sim.time = 0.36
    before.apply(q, v)
    before._sim.time = 0.37
    np.testing.assert_array_equal(before.apply(q, v)[0], first[0])
    other = JointStateNoise(joint_node(node, seed=10), Overlay(joint_noise={'position': 0.002}))
    other._sim.time = 0.37
    assert not np.any(other.apply(q, v)[0] == first[0])


def test_joint_state_noise_is_off_by_default_and_settable(node):
    n = joint_node(node)
    noise = JointStateNoise(n)
    q, v = np.array([0.1, 0.2]), np.array([0.3, 0.4])
    n.sim.time = 0.5
    p, w = noise.apply(q, v)
    assert p is q and w is v and noise._streams._at == 0  # nothing computed, nothing drawn
    n.sim.time = 0.0
    result = n.set_parameters([Parameter('joint_states.noise.position', value=0.01)])
    assert result[0].successful and noise.sigma == {'position': 0.01, 'velocity': 0.0}
    p, w = noise.apply(q, v)
    assert not np.array_equal(p, q) and w is v
    whole = n.set_parameters([Parameter('joint_states.noise.velocity', value=1)])  # an int
    assert whole[0].successful and noise.sigma['velocity'] == 1.0
    n.set_parameters([Parameter('joint_states.noise.velocity', value=0.0)])
    refused = n.set_parameters([Parameter('joint_states.noise.velocity', value=-1.0)])
    assert not refused[0].successful
    assert refused[0].reason == 'joint_states.noise.velocity: noise velocity is negative'
    assert noise.sigma['velocity'] == 0.0

    class Packed:
        def __init__(self):
            self.values = {}

        def set(self, key, value):
            self.values[key] = value
    msg = Packed()
    noise.fill(msg, q, v)
    assert set(msg.values) == {'position', 'velocity'} and msg.values['velocity'] is v
    assert len(msg.values['position']) == 2 and not np.array_equal(msg.values['position'], q)
    # other parameters, and keys it has not, are not its business: accepted, nothing changed
    for name in ('joint_states.noise.effort', 'x' * len('joint_states.noise.') + 'position'):
        assert noise._on_set_parameters([Parameter(name, value=-1.0)]).successful
    assert noise.sigma == {'position': 0.01, 'velocity': 0.0}
    with pytest.raises(ModelError, match='parameter joint_states.noise.position: noise '
                                         'position is negative'):
        JointStateNoise(joint_node(node, **{'joint_states.noise.position': -0.1}))


@pytest.mark.parametrize('text, message', [
    ('joint_states: 3\n', 'joint_states must be a mapping with noise'),
    ('joint_states: { noise: { effort: 1 } }\n',
     "joint_states has no noise 'effort' (known: position, velocity)"),
    ('joint_states: { noise: { position: -1 } }\n', 'joint_states: noise position is negative'),
    ('joint_states: { rate: 1 }\n', 'joint_states must be a mapping with noise'),
])
def test_bad_joint_state_noise_in_the_devices_file(tmp_path, text, message):
    path = tmp_path / 'devices.yaml'
    path.write_text(text)
    with pytest.raises(ModelError) as err:
        load_overlay(path, load_model(SAMPLE_ARM))
    assert str(err.value).startswith(f'{path}:1: {message}')


def test_the_noise_seed_parameter_replaces_the_files_seed():
    overlay = Overlay(seed=4)
    assert device_settings.seeded(SimpleNamespace(params={'noise_seed': -1}), overlay) is overlay
    assert device_settings.seeded(SimpleNamespace(params={'noise_seed': 0}), overlay).seed == 0
    assert device_settings.seeded(SimpleNamespace(params={'noise_seed': 9}), None).seed == 9
    # a node without the parameter (or without parameters) keeps the file's seed
    assert device_settings.seeded(SimpleNamespace(params={}), overlay) is overlay
    assert device_settings.seeded(SimpleNamespace(), overlay) is overlay


class FakePublisher:
    topic_name = '/x/image_raw/compressed'

    def __init__(self, fail=False):
        self.messages, self.times, self.fail, self.gone = [], [], fail, False

    def publish(self, msg, time_ns=None):
        if self.fail:
            raise RuntimeError('no room')
        self.messages.append(msg)
        self.times.append(time_ns)

    def get_subscription_count(self):
        if self.gone:
            raise RuntimeError('destroyed')
        return 1


def test_a_background_encoder_publishes_the_newest_frame_and_reports_failures(node):
    import threading

    from builtin_interfaces.msg import Time

    from body_bridge.ros.stream.encoder import BackgroundEncoder
    n = node()
    pub, gate, busy = FakePublisher(), threading.Event(), threading.Event()

    def encode(array, settings):
        busy.set()
        gate.wait(5.0)
        return f'{settings["tag"]}', array.tobytes()
    enc = BackgroundEncoder(n, pub, 'cam_optical_frame', encode)
    frame = np.zeros(3, np.uint8)
    enc.submit(Time(sec=1), frame, {'tag': 'a'})
    assert busy.wait(10.0)  # the worker is compressing the first frame
    frame[:] = 7  # the caller reuses its array: the encoder has its own copy
    enc.submit(Time(sec=2), frame, {'tag': 'b'})
    enc.submit(Time(sec=3), frame + 1, {'tag': 'c'})  # replaces b, still waiting
    gate.set()
    assert enc.flush()
    got = [(m.header.stamp.sec, m.format, bytes(m.data)) for m in pub.messages]
    assert got[-1] == (3, 'c', bytes([8, 8, 8])) and (2, 'b', bytes([7] * 3)) not in got
    assert got[0] == (1, 'a', bytes(3)) and enc.replaced == 1
    assert pub.messages[0].header.frame_id == 'cam_optical_frame'
    assert enc.submitted == 3 and enc.published + enc.replaced == 3
    enc.close()
    assert not enc._thread.is_alive()
    broken = BackgroundEncoder(n, FakePublisher(fail=True), 'f', lambda a, s: ('x', b''))
    broken.submit(Time(), frame, {})
    broken._thread.join(5.0)
    assert not broken._thread.is_alive() and broken.published == 0  # stopped, reported
    quiet = FakePublisher(fail=True)
    quiet.gone = True
    assert not BackgroundEncoder(n, quiet, 'f', encode)._alive()
    assert BackgroundEncoder(n, pub, 'f', encode)._alive()
    assert BackgroundEncoder(n, pub, 'f', encode).flush(0.01)  # nothing handed over


def test_a_background_encoder_stops_cleanly_and_reports_only_while_alive(monkeypatch):
    import threading
    from types import SimpleNamespace as NS

    from builtin_interfaces.msg import Time

    from body_bridge.ros.stream import encoder as encoder_mod
    from body_bridge.ros.stream.encoder import BackgroundEncoder
    failures = []  # exceptions that ended an encoder's thread
    monkeypatch.setattr(threading, 'excepthook', lambda args: failures.append(args.thread.name)
                        if args.thread.name.startswith('encode ') else None)
    errors = []
    alive = [True]
    node = NS(context=NS(ok=lambda: alive[0]),
              get_logger=lambda: NS(error=errors.append))
    broken = BackgroundEncoder(node, FakePublisher(fail=True), 'f', lambda a, s: ('x', b''))
    broken.submit(Time(), np.zeros(2, np.uint8), {})
    broken._thread.join(5.0)
    assert errors == ['/x/image_raw/compressed: compression stopped: no room']
    alive[0] = False  # the node is shutting down: nothing to report
    quiet = BackgroundEncoder(node, FakePublisher(fail=True), 'f', lambda a, s: ('x', b''))
    quiet.submit(Time(), np.zeros(2, np.uint8), {})
    quiet._thread.join(5.0)
    assert len(errors) == 1 and not quiet._thread.is_alive()
    assert BackgroundEncoder(node, FakePublisher(), 'f', None)._alive() is False
    alive[0] = True
    gone = FakePublisher()
    gone.gone = True  # a destroyed publisher raises
    assert BackgroundEncoder(node, gone, 'f', None)._alive() is False
    unwatched = FakePublisher()
    unwatched.get_subscription_count = lambda: 0  # alive, with nobody subscribed
    assert BackgroundEncoder(node, unwatched, 'f', None)._alive() is True
    idle = BackgroundEncoder(node, FakePublisher(), 'f', lambda a, s: ('x', b''))
    idle.submit(Time(), np.zeros(2, np.uint8), {})
    assert idle._thread.daemon  # a process that ends without closing it is not held up
    assert idle.flush()
    idle.close()  # a worker waiting for frames ends without an error
    assert not idle._thread.is_alive() and failures == []

    waits = []

    class Pause:  # flush's pause, counted instead of waited
        def wait(self, seconds):
            waits.append(seconds)
    monkeypatch.setattr(encoder_mod, 'threading', NS(Event=Pause,
                                                     Condition=threading.Condition,
                                                     Thread=threading.Thread))
    stuck = BackgroundEncoder(node, FakePublisher(), 'f', None)
    stuck.submitted = 1  # a frame that never finishes
    assert stuck.flush(0.05) is False
    assert waits == [0.005] * 10
