"""The sensor topics of a node (ros/devices/sensors.py), fast: a scene whose devices see known
distances (a floor 0.8 m below a beam, a wall 2 m ahead of a scanner and two cameras) on a node
stand-in that keeps what is published and declared, without rclpy's executor or a graph.

The bridge running as a process with its devices on real topics: test_sensors_ros.py."""

from __future__ import annotations

import copy
import math
import os
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import ROS_MISSING  # noqa: E402

pytestmark = pytest.mark.ros  # the publishers build ROS messages
pytest.importorskip('sensor_msgs', reason=ROS_MISSING)

from test_sensors_sim import body_file, start  # noqa: E402

from body_bridge.errors import ModelError  # noqa: E402
from body_bridge.ros.devices import sensors  # noqa: E402
from body_bridge.ros.devices.sensors import (CameraPublisher, RangePublisher,  # noqa: E402
                                             SensorPublishers, parameter_prefix, topic_name)
from body_bridge.sim.sensing.render import RenderError  # noqa: E402

os.environ.setdefault('MUJOCO_GL', 'egl')

SCENE = """
    - name: base
      joint_type: fixed
      mass: 10.0
      inertia: [ 0.1, 0, 0, 0.1, 0, 0.1 ]
      elements:
        - { type: AccelerationSensor, name: tilt x }
        - { type: AccelerationSensor, name: tilt_x }
        - { type: ForceSensor, name: ft }
        - type: RangeSensor
          name: beam
          translation: [ 0, 0, 0.8 ]
          yaw_range: 0
          scan_rate: 20
          min_distance: 0.05
          max_distance: 10.0
        - type: RangeSensor
          name: lidar
          translation: [ 0, 0, 0.5 ]
          rotation: [ [ 0, 0, 1, -90 ], [ 1, 0, 0, 90 ] ]
          yaw_range: 90
          yaw_step: 1
          scan_rate: 10
          min_distance: 0.1
          max_distance: 30
        - type: RangeSensor
          name: 3d scanner
          translation: [ 0, 0, 0.5 ]
          rotation: [ [ 0, 0, 1, -90 ], [ 1, 0, 0, 90 ] ]
          yaw_range: 20
          yaw_step: 10
          pitch_range: 10
          pitch_step: 5
          scan_rate: 5
          max_distance: 30
        - type: RangeSensor
          name: side
          translation: [ 0, 0, 0.5 ]
          rotation: [ [ 0, 0, 1, -90 ], [ 1, 0, 0, 90 ] ]
          yaw_range: 0.6
          yaw_step: 6
          scan_rate: 10
          max_distance: 30
        - type: Camera
          name: cam
          translation: [ 0, 0, 0.5 ]
          rotation: [ [ 0, 0, 1, -90 ], [ 1, 0, 0, 90 ] ]
          format: COLOR_DEPTH
          width: 16
          height: 12
          field_of_view: 60
          near_clip_distance: 0.05
          far_clip_distance: 20
          frame_rate: 10
        - type: Camera
          name: pc
          translation: [ 0, 0, 0.5 ]
          rotation: [ [ 0, 0, 1, -90 ], [ 1, 0, 0, 90 ] ]
          format: COLOR_POINT_CLOUD
          width: 16
          height: 12
          field_of_view: 60
          near_clip_distance: 0.05
          far_clip_distance: 20
          frame_rate: 10
    - name: wall
      parent: base
      joint_type: fixed
      translation: [ 2.1, 0, 0.5 ]
      elements:
        - type: Shape
          geometry: { type: Box, size: [ 0.2, 6.0, 1.0 ] }
          appearance: { material: { diffuse: [ 1, 0, 0 ] } }
"""


class Pub:
    """A publisher: its subscribers set by the test, what it publishes kept (copied)."""

    def __init__(self, msg_type, topic, qos):
        self.msg_type, self.topic, self.qos = msg_type, topic, qos
        self.subscribers, self.sent = 0, []
        self.topic_name = topic

    def get_subscription_count(self):
        return self.subscribers

    def publish(self, msg):
        self.sent.append(copy.deepcopy(msg))


class Log:
    def __init__(self):
        self.lines = []

    def info(self, text):
        self.lines.append(('info', text))

    def warning(self, text):
        self.lines.append(('warning', text))

    def error(self, text):
        self.lines.append(('error', text))


class Node:
    """What the sensor publishers use of the bridge node: its Simulation, its frames (under
    the prefix ``robot/``), publishers, parameters (``given`` at start) and period outputs."""

    def __init__(self, sim, given=None, noise_seed=-1):
        self.sim, self.given = sim, dict(given or {})
        self.params = {'noise_seed': noise_seed}
        self.pubs, self.declared, self.callbacks, self.period_outputs = {}, {}, [], []
        self.log, self.up = Log(), True
        self.context = SimpleNamespace(ok=lambda: self.up)

    def create_publisher(self, msg_type, topic, qos):
        self.pubs[topic] = Pub(msg_type, topic, qos)
        return self.pubs[topic]

    def declare_parameter(self, name, value, descriptor):
        self.declared[name] = (SimpleNamespace(name=name, value=self.given.get(name, value)),
                               descriptor)
        return self.declared[name][0]

    def get_parameter(self, name):
        return self.declared[name][0]

    def add_on_set_parameters_callback(self, callback):
        self.callbacks.append(callback)

    def get_logger(self):
        return self.log

    def frame(self, name):
        return f'robot/{name}'

    def set(self, **values):
        """Parameters set at run time, as ``ros2 param set`` sets them (``.`` written ``__``)."""
        got = [c([SimpleNamespace(name=k.replace('__', '.'), value=v) for k, v in
                  values.items()]) for c in self.callbacks]
        return got[0]


@pytest.fixture(scope='module')
def scene(tmp_path_factory):
    return body_file(tmp_path_factory.mktemp('scene'), SCENE)


def node_of(scene, **given):
    sim, _ = start(scene)
    node = Node(sim, given)
    return node, SensorPublishers(node)


def step(node, seconds):
    """Periods of the simulation, each followed by the node's period outputs."""
    for _ in range(int(round(seconds / node.sim.period))):
        node.sim.step_period()
        for output in node.period_outputs:
            output(node.sim.time)


def cloud_xyz(msg):
    """The x, y, z of a PointCloud2 (float32 fields first), row after row."""
    floats = np.frombuffer(bytes(msg.data), dtype=np.float32)
    return floats.reshape(msg.height * msg.width, msg.point_step // 4)[:, :3]


# --- names -----------------------------------------------------------------------------------


def test_topic_names_keep_letters_digits_and_namespaces():
    assert topic_name('hand_camera') == 'hand_camera'
    assert topic_name('front cam-2') == 'front_cam_2'
    assert topic_name('3d') == '_3d' and topic_name('a/3d') == 'a/_3d'
    assert topic_name('table/left eye') == 'table/left_eye'
    assert topic_name('') == '_' and topic_name('a//b') == 'a/_/b'
    assert parameter_prefix('table/left_eye') == 'devices.table.left_eye'
    assert parameter_prefix('cam') == 'devices.cam'


# --- the node's side ---------------------------------------------------------------------------


def test_every_device_gets_its_topics_frame_and_parameters(scene):
    node, publishers = node_of(scene)
    assert {name: out.topic for name, out in publishers.outputs.items()} == {
        'tilt x': 'tilt_x', 'tilt_x': 'tilt_x_', 'ft': 'ft', 'beam': 'beam', 'lidar': 'lidar',
        '3d scanner': '_3d_scanner', 'side': 'side', 'cam': 'cam', 'pc': 'pc'}
    assert set(node.pubs) == {
        'tilt_x', 'tilt_x_', 'ft', 'beam', 'lidar/scan', '_3d_scanner/points', 'side/scan',
        'cam/image_raw', 'cam/camera_info', 'cam/depth/image', 'cam/depth/camera_info',
        'cam/image_raw/compressed', 'cam/depth/image/compressedDepth',
        'pc/image_raw', 'pc/camera_info', 'pc/points', 'pc/image_raw/compressed'}
    warned = [text for level, text in node.log.lines if level == 'warning']
    assert warned == [
        f"device {name!r} publishes under the name {topic!r} (a topic name holds only letters, "
        'digits, _ and /)' for name, topic in (('tilt x', 'tilt_x'), ('tilt_x', 'tilt_x_'),
                                               ('3d scanner', '_3d_scanner'))]
    frames = {name: out.frame_id for name, out in publishers.outputs.items()}
    assert frames['beam'] == 'robot/beam' and frames['tilt_x'] == 'robot/tilt_x'
    assert frames['cam'] == 'robot/cam_optical_frame'  # REP-103's optical frame
    assert frames['pc'] == 'robot/pc_optical_frame'
    on, descriptor = node.declared['devices._3d_scanner.on']
    assert on.value is True and descriptor.dynamic_typing
    rate, _ = node.declared['devices._3d_scanner.rate']
    assert rate.value == 5.0 and isinstance(rate.value, float)
    assert node.declared['devices.tilt_x_.rate'][0].value == 100.0
    assert 'devices.cam.compressed.format' in node.declared
    assert 'devices.beam.noise.distance' in node.declared or any(
        name.startswith('devices.beam.noise.') for name in node.declared)
    assert node.period_outputs == [publishers.on_period]
    assert node.sim.step_hooks == []  # no device faster than the control rate (100 Hz)


def test_values_given_at_start_switch_and_pace_the_devices(scene):
    node, publishers = node_of(scene, **{'devices.beam.on': False, 'devices.lidar.rate': 40,
                                          'devices.ft.rate': 500.0,
                                          'devices.tilt_x.noise.linear_acceleration': 0.5})
    samplers = {name: out.sampler for name, out in publishers.outputs.items()}
    assert samplers['beam'].enabled is False and samplers['lidar'].enabled is True
    assert samplers['lidar'].rate == 40.0 and samplers['lidar'].period == pytest.approx(0.025)
    assert samplers['cam'].rate == 10.0
    assert samplers['tilt x'].noise['linear_acceleration'] != 0.0
    # a device faster than the control rate is read at every physics step
    assert node.sim.step_hooks == [publishers.on_step]


@pytest.mark.parametrize('given, line', [
    ({'devices.beam.rate': 0}, 'parameter devices.beam.rate must be a positive rate [Hz], not 0'),
    ({'devices.cam.on': 'yes'}, "parameter devices.cam.on must be true or false, not 'yes'"),
    ({'devices.ft.rate': math.inf},
     'parameter devices.ft.rate must be a positive rate [Hz], not inf')])
def test_a_bad_value_given_at_start_is_one_line(scene, given, line):
    with pytest.raises(ModelError) as err:
        node_of(scene, **given)
    assert str(err.value).endswith(': ' + line) and '\n' not in str(err.value)


def test_run_time_changes_are_checked_at_once_and_applied_at_the_next_period(scene):
    node, publishers = node_of(scene)
    lidar, beam = publishers.outputs['lidar'].sampler, publishers.outputs['beam'].sampler
    result = node.set(devices__lidar__rate=-1.0, devices__beam__on=False)
    assert not result.successful
    assert result.reason == 'devices.lidar.rate must be a positive rate [Hz], not -1.0'
    step(node, 0.01)
    assert beam.enabled is True  # nothing of a refused batch is applied
    result = node.set(devices__lidar__rate=40, devices__beam__on=False, other__name=3)
    assert result.successful
    assert lidar.rate == 10.0 and beam.enabled is True  # not before the simulation's turn
    step(node, 0.01)
    assert lidar.rate == 40.0 and isinstance(lidar.rate, float) and beam.enabled is False
    assert node.set(devices__cam__compressed__format='png').successful
    assert node.set(devices__ft__noise__force=0.2).successful
    step(node, 0.01)
    assert publishers.outputs['cam'].compression['format'] == 'png'
    assert publishers.outputs['ft'].sampler.noise['force'] != 0.0
    assert node.set(devices__cam__compressed__format='bmp').successful is False


def test_a_device_made_faster_than_the_control_rate_is_read_every_step(scene):
    node, publishers = node_of(scene)
    hooks = node.sim.step_hooks
    node.set(devices__ft__rate=500)
    step(node, 0.01)
    assert hooks == [publishers.on_step]
    node.set(devices__ft__rate=100.0)  # as fast as the control rate: once per period
    step(node, 0.01)
    assert hooks == []
    node.set(devices__ft__rate=1000)
    step(node, 0.01)
    node.set(devices__ft__on=False)  # a fast device switched off is not read
    step(node, 0.01)
    assert hooks == []
    node.set(devices__ft__on=True)
    step(node, 0.01)
    assert hooks == [publishers.on_step]
    # every due reading published, at the physics steps between the periods too
    node.pubs['ft'].subscribers = 1
    node.pubs['ft'].sent.clear()
    step(node, 0.1)
    assert len(node.pubs['ft'].sent) == 100


def test_each_device_publishes_at_its_rate_while_someone_listens(scene):
    node, _ = node_of(scene)
    for topic in ('beam', 'lidar/scan', 'tilt_x'):
        node.pubs[topic].subscribers = 1
    step(node, 0.5)
    # the first reading at the first period, then one each 1/rate
    assert len(node.pubs['beam'].sent) == 1 + 10  # 20 Hz
    assert len(node.pubs['lidar/scan'].sent) == 1 + 5  # 10 Hz
    assert len(node.pubs['tilt_x'].sent) == 50  # 100 Hz: every period
    assert node.pubs['_3d_scanner/points'].sent == [] and node.pubs['ft'].sent == []


def test_a_failing_device_raises_unless_the_node_is_shutting_down(scene, monkeypatch):
    node, publishers = node_of(scene)

    def broken(instant=None):
        raise RuntimeError('publisher is gone')
    for out in publishers.outputs.values():
        monkeypatch.setattr(out, 'tick', broken)
    with pytest.raises(RuntimeError):
        step(node, 0.01)
    node.up = False
    step(node, 0.1)  # nothing raised


def test_the_nodes_noise_seed_seeds_the_devices(scene):
    def forces(seed):
        sim, _ = start(scene)
        node = Node(sim, {'devices.ft.noise.force': 0.5}, noise_seed=seed)
        publishers = SensorPublishers(node)
        step(node, 0.02)
        return publishers.outputs['ft'].sampler.read().force.tolist()
    assert forces(42) == forces(42) != forces(43)


# --- range sensors --------------------------------------------------------------------------


def test_a_beam_reads_the_floor_below_it(scene):
    node, publishers = node_of(scene)
    pub = node.pubs['beam']
    out = publishers.outputs['beam']
    out.tick()
    assert pub.sent == []  # nobody listens: nothing read
    pub.subscribers = 1
    step(node, 0.05)
    msg = pub.sent[-1]
    assert msg.range == pytest.approx(0.8, abs=1e-6)
    assert msg.radiation_type == msg.INFRARED and msg.field_of_view == 0.0
    assert (msg.min_range, msg.max_range) == pytest.approx((0.05, 10.0))
    assert msg.header.frame_id == 'robot/beam'
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (0, 50_000_000)


def test_a_scan_sees_the_wall_two_metres_ahead(scene):
    node, _ = node_of(scene)
    pub = node.pubs['lidar/scan']
    pub.subscribers = 1
    step(node, 0.1)
    msg = pub.sent[-1]
    assert msg.angle_min == pytest.approx(-math.pi / 4) and \
        msg.angle_max == pytest.approx(math.pi / 4)
    assert msg.angle_increment == pytest.approx(math.radians(1))
    assert msg.time_increment == 0.0 and msg.scan_time == pytest.approx(0.1)
    assert (msg.range_min, msg.range_max) == pytest.approx((0.1, 30.0))
    ranges = np.array(msg.ranges)
    assert ranges.size == 91
    angles = msg.angle_min + msg.angle_increment * np.arange(91)
    assert np.allclose(ranges, 2.0 / np.cos(angles), atol=2e-3)  # a plane at x = 2
    assert msg.header.frame_id == 'robot/lidar' and msg.header.stamp.nanosec == 100_000_000


def test_a_scan_of_one_beam_off_the_axis_has_no_increment(scene):
    node, _ = node_of(scene)
    pub = node.pubs['side/scan']
    pub.subscribers = 1
    step(node, 0.01)
    msg = pub.sent[-1]
    # a range of 0.6 degrees and a step of 6: one beam, at -0.3 degrees (centred on 0)
    assert msg.angle_min == msg.angle_max == pytest.approx(math.radians(-0.3))
    assert msg.angle_increment == 0.0 and len(msg.ranges) == 1
    assert msg.ranges[0] == pytest.approx(2.0 / math.cos(math.radians(0.3)), abs=2e-3)


def test_a_three_d_scanner_puts_its_points_on_the_wall(scene):
    node, _ = node_of(scene)
    pub = node.pubs['_3d_scanner/points']
    pub.subscribers = 1
    step(node, 0.2)
    msg = pub.sent[-1]
    assert msg.is_dense is True and msg.height * msg.width == 9
    assert msg.header.frame_id == 'robot/3d scanner'
    assert msg.point_step == 12  # x, y, z: no colour
    xyz = cloud_xyz(msg)
    assert np.allclose(xyz[:, 0], 2.0, atol=2e-3)
    assert np.allclose(sorted(xyz[:, 1] / 2.0),
                       sorted([math.tan(math.radians(a)) for a in (-10, 0, 10)] * 3), atol=2e-3)


# --- cameras ---------------------------------------------------------------------------------


def reads(monkeypatch, sampler):
    """The sampler's reads, counted with what they asked for."""
    asked = []
    real = sampler.read

    def read(color=True, depth=True):
        asked.append((color, depth))
        return real(color=color, depth=depth)
    monkeypatch.setattr(sampler, 'read', read)
    return asked


def test_a_camera_nobody_watches_is_not_rendered_and_info_alone_renders_nothing(
        scene, monkeypatch):
    node, publishers = node_of(scene)
    cam = publishers.outputs['cam']
    asked = reads(monkeypatch, cam.sampler)
    step(node, 0.1)
    assert asked == [] and all(p.sent == [] for t, p in node.pubs.items() if 'cam' in t)
    node.pubs['cam/camera_info'].subscribers = 1
    node.pubs['cam/depth/camera_info'].subscribers = 1
    step(node, 0.1)
    assert asked == []
    info = node.pubs['cam/camera_info'].sent[-1]
    # 60 degrees over the shorter side (12 pixels): f = 6 / tan(30 degrees)
    f = 6 / math.tan(math.radians(30))
    assert np.allclose(info.k, [f, 0, 7.5, 0, f, 5.5, 0, 0, 1])
    assert (info.width, info.height) == (16, 12) and info.distortion_model == 'plumb_bob'
    assert info.header.frame_id == 'robot/cam_optical_frame'
    assert (info.header.stamp.sec, info.header.stamp.nanosec) == (0, 200_000_000)
    assert np.array_equal(node.pubs['cam/depth/camera_info'].sent[-1].k, info.k)


def test_a_camera_renders_only_what_is_watched(scene, monkeypatch):
    node, publishers = node_of(scene)
    cam = publishers.outputs['cam']
    asked = reads(monkeypatch, cam.sampler)
    image = node.pubs['cam/image_raw']
    image.subscribers = 1
    step(node, 0.1)
    assert asked == [(True, False)] * 2  # at the first period, then at 10 Hz
    msg = image.sent[-1]
    assert (msg.encoding, msg.width, msg.height) == ('rgb8', 16, 12)
    pixels = np.frombuffer(bytes(msg.data), np.uint8).reshape(12, 16, 3)
    r, g, b = (int(v) for v in pixels[6, 8])
    assert r > 150 and g < 100 and b < 100  # the red wall
    assert msg.header.frame_id == 'robot/cam_optical_frame'
    assert msg.header.stamp.nanosec == 100_000_000
    assert node.pubs['cam/camera_info'].sent == []
    image.subscribers = 0
    depth = node.pubs['cam/depth/image']
    depth.subscribers = 1
    step(node, 0.1)
    assert asked[-1] == (False, True) and len(image.sent) == 2 and image.sent[-1] is msg
    msg = depth.sent[-1]
    assert msg.encoding == '32FC1'
    metres = np.frombuffer(bytes(msg.data), np.float32).reshape(12, 16)
    assert metres[6, 8] == pytest.approx(2.0, abs=1e-3)  # along the optical axis: the wall
    assert msg.header.stamp.nanosec == 200_000_000


def test_a_subscriber_that_comes_during_a_cameras_tick_gets_the_next_frame(scene, monkeypatch):
    node, publishers = node_of(scene)
    cam = publishers.outputs['cam']
    asked = reads(monkeypatch, cam.sampler)
    node.pubs['cam/image_raw'].subscribers = 1
    depth = node.pubs['cam/depth/image']
    counts = iter([0])  # none when the tick looks first, one from then on (matched meanwhile)
    depth.get_subscription_count = lambda: next(counts, 1)
    step(node, 0.1)  # two frames: the first without depth (none read, none sent), then both
    assert asked == [(True, False), (True, True)] and len(depth.sent) == 1


def test_compressed_images_go_through_the_cameras_encoders(scene):
    from body_bridge.ros.stream.encoder import flush_all
    node, publishers = node_of(scene)
    node.pubs['cam/image_raw/compressed'].subscribers = 1
    node.pubs['cam/depth/image/compressedDepth'].subscribers = 1
    step(node, 0.1)
    assert flush_all()
    color = node.pubs['cam/image_raw/compressed'].sent
    depth = node.pubs['cam/depth/image/compressedDepth'].sent
    assert len(color) == 2 and len(depth) == 2
    assert 'jpeg' in color[0].format and 'png' in depth[0].format
    assert node.pubs['cam/image_raw'].sent == [] and node.pubs['cam/depth/image'].sent == []


def test_a_point_cloud_camera_colours_its_points_on_the_wall(scene, monkeypatch):
    node, publishers = node_of(scene)
    pc = publishers.outputs['pc']
    asked = reads(monkeypatch, pc.sampler)
    points = node.pubs['pc/points']
    points.subscribers = 1
    step(node, 0.1)
    assert asked == [(True, True)] * 2
    msg = points.sent[-1]
    assert (msg.height, msg.width, msg.point_step) == (12, 16, 16) and msg.is_dense is False
    xyz = cloud_xyz(msg).reshape(12, 16, 3)
    assert xyz[6, 8, 2] == pytest.approx(2.0, abs=1e-3)  # z forward in the optical frame
    rgb = np.frombuffer(bytes(msg.data), np.uint32).reshape(12, 16, 4)[6, 8, 3]
    assert (rgb >> 16) & 255 > 150 and (rgb >> 8) & 255 < 100
    assert msg.header.frame_id == 'robot/pc_optical_frame'
    assert node.pubs['pc/image_raw'].sent == []


def test_a_camera_that_cannot_render_says_so_once_and_stops(scene, monkeypatch):
    node, publishers = node_of(scene)
    cam = publishers.outputs['cam']
    calls = []

    def read(color=True, depth=True):
        calls.append(1)
        raise RenderError('no OpenGL context')
    monkeypatch.setattr(cam.sampler, 'read', read)
    node.pubs['cam/image_raw'].subscribers = 1
    node.pubs['cam/camera_info'].subscribers = 1
    step(node, 0.01)
    assert node.log.lines[-1] == ('error', "camera 'cam' cannot render and stops: "
                                           'no OpenGL context')
    assert node.pubs['cam/camera_info'].sent == []  # the period of the failure: nothing
    step(node, 0.09)
    assert calls == [1] and node.pubs['cam/image_raw'].sent == []
    info = node.pubs['cam/camera_info'].sent[-1]  # its CameraInfo goes on
    assert info.header.stamp.nanosec == 100_000_000
    assert [line for line in node.log.lines if line[0] == 'error'] == [node.log.lines[-1]]


def test_publishers_of_one_device_alone(scene):
    """A RangePublisher or CameraPublisher made on its own names its topics from ``topic``."""
    sim, suite = start(scene)
    node = Node(sim)
    RangePublisher(node, suite.samplers['beam'], 'down', 'f')
    CameraPublisher(node, suite.samplers['cam'], 'eye', 'g')
    assert {'down', 'eye/image_raw', 'eye/depth/image/compressedDepth'} <= set(node.pubs)
    assert sensors._OUTPUTS[type(suite.samplers['ft'])].__name__ == 'WrenchPublisher'
