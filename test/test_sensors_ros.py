"""Sensor messages: how they are built, and the bridge's sensor topics over real DDS."""

from __future__ import annotations

import math
import os
import sys
import textwrap
import time

import numpy as np
import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from geometry_msgs.msg import WrenchStamped
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import (CameraInfo, CompressedImage, Image, Imu, LaserScan, PointCloud2,
                             Range)
from tf2_msgs.msg import TFMessage

from body_bridge.ros.stream import qos
from body_bridge.ros.devices.sensors import (camera_info, camera_points, parameter_prefix, range_points,
                                     topic_name)
from body_bridge.sim.sensing.render import Intrinsics

from conftest import SAMPLE_ARM, shared_model

STARTUP = 60.0  # [s] wall time for a bridge process to come up
#: Best effort (matches the sensor publishers) with a deep queue: the probe drops nothing.
DEEP = QoSProfile(depth=500, history=HistoryPolicy.KEEP_LAST,
                  reliability=ReliabilityPolicy.BEST_EFFORT)


# --- message building ------------------------------------------------------------------------


def test_camera_info_k_and_p_are_the_pinhole_of_the_image():
    k = Intrinsics(320, 240, 207.8, 207.8, 159.5, 119.5, 0.05, 20.0)
    msg = camera_info(k, 'cam_optical_frame')
    assert (msg.width, msg.height, msg.header.frame_id) == (320, 240, 'cam_optical_frame')
    np.testing.assert_allclose(np.reshape(msg.k, (3, 3)), k.matrix())
    np.testing.assert_allclose(np.reshape(msg.p, (3, 4)),
                               np.hstack([k.matrix(), np.zeros((3, 1))]))
    np.testing.assert_allclose(np.reshape(msg.r, (3, 3)), np.eye(3))
    assert msg.distortion_model == 'plumb_bob' and list(msg.d) == [0.0] * 5
    for model in ('equidistant', 'dual_equidistant'):  # fisheye models: four coefficients
        msg = camera_info(k, 'cam_optical_frame', model)
        assert msg.distortion_model == model and list(msg.d) == [0.0] * 4


def test_camera_points_back_project_the_depth_through_k():
    k = Intrinsics(4, 3, 2.0, 4.0, 1.5, 1.0, 0.1, 10.0)
    depth = np.full((3, 4), 2.0, np.float32)
    depth[0, 0] = np.inf
    rgb = np.zeros((3, 4, 3), np.uint8)
    rgb[2, 3] = (255, 128, 1)
    points = camera_points(k, depth, rgb)
    assert points.dtype.names == ('x', 'y', 'z', 'rgb') and points.shape == (3, 4)
    # Pixel (u=3, v=2): x = (3 - 1.5) / 2 * 2, y = (2 - 1) / 4 * 2.
    assert (points['x'][2, 3], points['y'][2, 3], points['z'][2, 3]) == (1.5, 0.5, 2.0)
    assert points['rgb'][2, 3].view(np.uint32) == 0xFF8001
    assert math.isnan(points['z'][0, 0]) and math.isnan(points['x'][0, 0])


def test_range_points_keep_only_returns():
    directions = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])
    points = range_points(directions, np.array([2.0, np.inf, -np.inf], np.float32))
    assert points.tolist() == [(2.0, 0.0, 0.0)]


def test_topic_names_of_device_names():
    assert topic_name('base_imu') == 'base_imu'
    assert topic_name('VLP-16') == 'VLP_16'
    assert topic_name('3d lidar') == '_3d_lidar'
    assert topic_name('bot/laser') == 'bot/laser'  # an environment's body/device
    assert parameter_prefix('bot/laser') == 'devices.bot.laser'


# --- over DDS ---------------------------------------------------------------------------------


class SensorProbe:
    """Subscribes like a user's perception stack and records stamps and messages."""

    def __init__(self, rclpy, name='sensor_probe'):
        self.rclpy = rclpy
        self.node = rclpy.create_node(name)
        self.messages: dict[str, list] = {}
        self.frames: set[str] = set()
        self.node.create_subscription(TFMessage, '/tf_static', self._tf, qos.TF_STATIC)
        self.node.create_subscription(TFMessage, '/tf', self._tf, qos.TF)

    def _tf(self, msg):
        for t in msg.transforms:
            self.frames.update((t.child_frame_id, t.header.frame_id))

    def watch(self, topic, msg_type, keep=False):
        store = self.messages.setdefault(topic, [])

        def record(msg):
            stamp = msg.header.stamp.sec + 1e-9 * msg.header.stamp.nanosec
            store.append(msg if keep else (stamp, msg.header.frame_id))
        self.node.create_subscription(msg_type, topic, record, DEEP)

    def stamps(self, topic):
        return [m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec if hasattr(m, 'header')
                else m[0] for m in self.messages[topic]]

    def spin_until(self, predicate, timeout, what, proc):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.rclpy.spin_once(self.node, timeout_sec=0.02)
            if predicate():
                return
            if proc.proc.poll() is not None:
                pytest.fail(f'the bridge exited while waiting for {what}:\n{proc.output()}')
        pytest.fail(f'timed out waiting for {what}\nbridge output:\n{proc.output()}')

    def close(self):
        self.node.destroy_node()


@pytest.fixture
def sensor_probe(ros):
    probe = SensorProbe(ros)
    yield probe
    probe.close()


SAMPLE_TOPICS = {  # topic -> (type, configured rate [Hz], frame)
    'base_imu': (Imu, 250.0, 'base_imu'),  # faster than the 100 Hz control rate (overlay)
    'forearm_accel': (Imu, 100.0, 'forearm_accel'),
    'forearm_gyro': (Imu, 100.0, 'forearm_gyro'),
    'wrist_force': (WrenchStamped, 50.0, 'wrist_force'),  # overlay
    'base_scan/scan': (LaserScan, 10.0, 'base_scan'),
    'hand_camera/image_raw': (Image, 15.0, 'hand_camera_optical_frame'),
    'hand_camera/camera_info': (CameraInfo, 15.0, 'hand_camera_optical_frame'),
    'hand_camera/depth/image': (Image, 15.0, 'hand_camera_optical_frame'),
    'hand_camera/depth/camera_info': (CameraInfo, 15.0, 'hand_camera_optical_frame'),
    'side_range': (Range, 20.0, 'side_range'),  # devices the overlay adds
    'top_lidar/points': (PointCloud2, 5.0, 'top_lidar'),
}

SAMPLE_OVERLAY = """
    devices:
      base_imu: { rate: 250.0 }
      wrist_force: { rate: 50.0 }
      side_range: { kind: range, link: base, xyz: [ 0, 0.2, 0.05 ], rpy: [ 0, 0, 1.5708 ],
                    scan_rate: 20.0, max_distance: 5.0 }
      top_lidar: { kind: range, link: base, xyz: [ 0.2, 0, 0.3 ], rpy: [ 0, 0.5, 0 ],
                   yaw_range: 0.8, yaw_step: 0.1, pitch_range: 0.4, pitch_step: 0.1,
                   scan_rate: 5.0, max_distance: 5.0 }
"""


def test_each_device_publishes_at_its_rate_in_a_frame_of_tf(bridge, sensor_probe, tmp_path):
    overlay = tmp_path / 'devices.yaml'
    overlay.write_text(textwrap.dedent(SAMPLE_OVERLAY).lstrip())
    proc = bridge(SAMPLE_ARM, '-p', f'devices_file:={overlay}')
    for topic, (msg_type, _, _) in SAMPLE_TOPICS.items():
        sensor_probe.watch(topic, msg_type, keep=msg_type is PointCloud2)
    window = 5.0  # [s] of simulated time
    first = {}

    def measured():
        for topic in SAMPLE_TOPICS:
            stamps = sensor_probe.stamps(topic)
            if not stamps:
                return False
            first.setdefault(topic, stamps[0] + 0.5)  # start after discovery settled
        return all(sensor_probe.stamps(t)[-1] > first[t] + window + 0.2 for t in SAMPLE_TOPICS)
    sensor_probe.spin_until(measured, STARTUP + 4 * window, 'every sensor topic', proc)
    for topic, (_, rate, frame) in SAMPLE_TOPICS.items():
        stamps = np.array(sensor_probe.stamps(topic))
        inside = np.count_nonzero((stamps >= first[topic]) & (stamps < first[topic] + window))
        assert inside / window == pytest.approx(rate, rel=0.10), topic
        frames = {m.header.frame_id if hasattr(m, 'header') else m[1]
                  for m in sensor_probe.messages[topic]}
        assert frames == {frame}, topic
    # The pitched-down 3D scanner sees the floor 0.3 m below it: 9 x 5 beams, all return.
    cloud = sensor_probe.messages['top_lidar/points'][-1]
    assert [f.name for f in cloud.fields] == ['x', 'y', 'z'] and cloud.point_step == 12
    points = np.frombuffer(bytes(cloud.data), dtype=np.float32).reshape(-1, 3)
    assert (cloud.height, cloud.width) == (1, 45) and len(points) == 45
    pitch = 0.5  # the scanner's frame is pitched down: the floor is z = -0.3 in the world
    world_z = -np.sin(pitch) * points[:, 0] + np.cos(pitch) * points[:, 2]
    np.testing.assert_allclose(world_z, -0.3, atol=0.005)
    frames = {f for _, _, f in SAMPLE_TOPICS.values()}
    sensor_probe.spin_until(lambda: frames <= sensor_probe.frames, 10.0, 'sensor frames in TF',
                            proc)
    assert 'Traceback' not in proc.output()


def set_parameters(probe, proc, values: dict):
    client = probe.node.create_client(SetParameters, 'body_bridge/set_parameters')
    probe.spin_until(client.service_is_ready, 20.0, 'the parameter service', proc)
    params = []
    for name, value in values.items():
        if isinstance(value, bool):
            v = ParameterValue(type=ParameterType.PARAMETER_BOOL, bool_value=value)
        else:
            v = ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=float(value))
        params.append(Parameter(name=name, value=v))
    future = client.call_async(SetParameters.Request(parameters=params))
    probe.spin_until(future.done, 20.0, 'set_parameters', proc)
    return [r.successful for r in future.result().results]


def test_devices_switch_on_and_off_and_change_rate_at_run_time(bridge, sensor_probe):
    # Both given at start; a rate may be written as an integer.
    proc = bridge(SAMPLE_ARM, '-p', 'devices.hand_camera.on:=false',
                  '-p', 'devices.base_imu.rate:=50')
    sensor_probe.watch('hand_camera/image_raw', Image)
    sensor_probe.watch('base_imu', Imu)
    images = lambda: sensor_probe.messages['hand_camera/image_raw']  # noqa: E731
    imu = lambda: sensor_probe.stamps('base_imu')  # noqa: E731
    sensor_probe.spin_until(lambda: len(imu()) > 10, STARTUP, 'base_imu', proc)
    start = imu()[-1] + 0.1
    sensor_probe.spin_until(lambda: imu()[-1] > start + 1.0, 30.0, '1 s of base_imu', proc)
    stamps = np.array(imu())
    assert np.count_nonzero((stamps >= start) & (stamps < start + 1.0)) == pytest.approx(50, abs=2)
    assert images() == []  # switched off from the command line

    assert set_parameters(sensor_probe, proc, {'devices.hand_camera.on': True,
                                               'devices.base_imu.rate': 20.0}) == [True, True]
    sensor_probe.spin_until(lambda: len(images()) >= 5, 30.0, 'images after switching on', proc)
    t0 = imu()[-1] + 0.2
    sensor_probe.spin_until(lambda: imu()[-1] > t0 + 2.0, 30.0, '2 s of base_imu', proc)
    stamps = np.array(imu())
    assert np.count_nonzero((stamps >= t0) & (stamps < t0 + 2.0)) == pytest.approx(40, abs=2)

    assert set_parameters(sensor_probe, proc, {'devices.hand_camera.on': False}) == [True]
    assert set_parameters(sensor_probe, proc, {'devices.base_imu.rate': -1.0}) == [False]
    time.sleep(0.5)
    sensor_probe.spin_until(lambda: True, 1.0, 'spin', proc)
    count = len(images())
    sensor_probe.spin_until(lambda: imu()[-1] > stamps[-1] + 1.0, 30.0, 'base_imu', proc)
    assert len(images()) == count  # no images while off


SR1_DEVICES = {
    'WaistAccelSensor': Imu, 'WaistGyro': Imu, 'WaistIMU': Imu,
    'LeftAnkleForceSensor': WrenchStamped, 'RightAnkleForceSensor': WrenchStamped,
    'LeftCamera/image_raw': Image, 'RightCamera/image_raw': Image,
    'LeftCamera/camera_info': CameraInfo,
}


@pytest.mark.corpus
def test_sr1_devices_all_publish(bridge, sensor_probe):
    proc = bridge(shared_model('choreonoid/share/model/SR1/SR1.body'))
    for topic, msg_type in SR1_DEVICES.items():
        sensor_probe.watch(topic, msg_type, keep=True)
    sensor_probe.spin_until(lambda: all(len(sensor_probe.messages[t]) >= 3 for t in SR1_DEVICES),
                            STARTUP + 60.0, 'every SR1 device', proc)
    image = sensor_probe.messages['LeftCamera/image_raw'][-1]
    info = sensor_probe.messages['LeftCamera/camera_info'][-1]
    assert (image.width, image.height, image.encoding) == (640, 480, 'rgb8')
    assert (info.width, info.height) == (640, 480)
    assert len(image.data) == 640 * 480 * 3
    imu = sensor_probe.messages['WaistIMU'][-1]
    assert imu.orientation_covariance[0] == -1.0  # a Choreonoid IMU reports no orientation
    assert np.linalg.norm([imu.linear_acceleration.x, imu.linear_acceleration.y,
                           imu.linear_acceleration.z]) > 1.0
    frames = {m.header.frame_id for msgs in sensor_probe.messages.values() for m in msgs}
    sensor_probe.spin_until(lambda: frames <= sensor_probe.frames, 10.0, 'SR1 frames in TF', proc)


def test_the_node_uses_the_bundled_fastdds_profile_unless_told_otherwise(monkeypatch):
    import glob
    import xml.etree.ElementTree as ET
    from body_bridge.ros.process import transport
    # The variable the installed Fast DDS reads: 3.x (Kilted) FASTDDS_..., 2.x (Humble, Jazzy)
    # FASTRTPS_... (3.x warns about that one at every start); both when the version is unknown.
    names = {3: 'FASTDDS_DEFAULT_PROFILES_FILE', 2: 'FASTRTPS_DEFAULT_PROFILES_FILE'}
    major = transport.fastdds_major()
    library = {3: 'libfastdds.so.3*', 2: 'libfastrtps.so.2*'}[major]
    assert glob.glob(os.path.join(sys.prefix, 'lib', library)) or 'ROS_DISTRO' in os.environ
    environ = {}
    path = transport.use_bundled_fastdds_profile(environ)
    assert environ == {names[major]: path}
    for version in (2, 3):
        environ = {}
        transport.use_bundled_fastdds_profile(environ, major=version)
        assert environ == {names[version]: path}
    monkeypatch.setattr(transport, 'fastdds_major', lambda environ: None)
    environ = {}
    transport.use_bundled_fastdds_profile(environ)
    assert environ == {name: path for name in names.values()}
    ns = {'p': 'http://www.eprosima.com/XMLSchemas/fastRTPS_Profiles'}
    root = ET.parse(path).getroot()
    segment = int(root.find('.//p:transport_descriptor[p:type="SHM"]/p:segment_size', ns).text)
    assert segment >= 2 * (640 * 480 * 3 + 640 * 480 * 4)  # a 640x480 colour + depth instant
    participant = root.find('p:participant', ns)
    assert participant.get('is_default_profile') == 'true'
    for environ in ({'RMW_IMPLEMENTATION': 'rmw_cyclonedds_cpp'},
                    {'FASTDDS_DEFAULT_PROFILES_FILE': '/mine.xml'},
                    {'FASTRTPS_DEFAULT_PROFILES_FILE': '/mine.xml'}):
        before = dict(environ)
        assert transport.use_bundled_fastdds_profile(environ) is None and environ == before


def test_a_camera_nobody_watches_is_not_rendered(ros):
    from body_bridge.formats import load_model
    from body_bridge.ros.devices.sensors import CameraPublisher
    from body_bridge.sim.sensing.sensors import SensorSuite
    from body_bridge.sim.simulation import Simulation
    sim = Simulation(load_model(SAMPLE_ARM))
    suite = SensorSuite(sim)
    node = ros.create_node('camera_cost_probe')
    try:
        cam = CameraPublisher(node, suite.samplers['hand_camera'], 'cost/hand_camera',
                              'hand_camera_optical_frame')
        infos, images = [], []
        node.create_subscription(CameraInfo, 'cost/hand_camera/camera_info', infos.append, DEEP)
        deadline = time.monotonic() + 10.0
        while cam.info_pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            ros.spin_once(node, timeout_sec=0.05)
        cam.tick()  # only camera_info is watched: nothing is rendered
        assert suite._renderer is None
        node.create_subscription(Image, 'cost/hand_camera/image_raw', images.append, DEEP)
        while cam.image_pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            ros.spin_once(node, timeout_sec=0.05)
        cam.tick()
        assert suite._renderer is not None  # now it renders
        while (not images or len(infos) < 2) and time.monotonic() < deadline:
            ros.spin_once(node, timeout_sec=0.05)
        assert (images[0].width, images[0].height, images[0].encoding) == (320, 240, 'rgb8')
        assert len(infos) == 2 and images[0].header.stamp == infos[-1].header.stamp
    finally:
        suite.close()
        node.destroy_node()


AIZU_DEVICES = {
    'CHASSIS_ACCELERATION_SENSOR': Imu, 'CHASSIS_RATE_GYRO_SENSOR': Imu, 'LRF/scan': LaserScan,
    'FRONT_CAMERA/image_raw': Image, 'LEFT_CAMERA/image_raw': Image,
    'RIGHT_CAMERA/image_raw': Image, 'BACK_CAMERA/image_raw': Image,
    'ARM_CAMERA/image_raw': Image, 'FRONT_CAMERA/camera_info': CameraInfo,
}


@pytest.mark.corpus
def test_aizu_spider_devices_all_publish(bridge, sensor_probe):
    # The file switches the side and back cameras off (on: false): switched on here.
    proc = bridge(shared_model('choreonoid/share/model/AizuSpider/AizuSpiderSS.body'),
                  '-p', 'real_time_factor:=0.0',
                  *[arg for name in ('LEFT', 'RIGHT', 'BACK')
                    for arg in ('-p', f'devices.{name}_CAMERA.on:=true')])
    for topic, msg_type in AIZU_DEVICES.items():
        sensor_probe.watch(topic, msg_type, keep=True)
    sensor_probe.spin_until(lambda: all(len(sensor_probe.messages[t]) >= 2 for t in AIZU_DEVICES),
                            STARTUP + 120.0, 'every AizuSpider device', proc)
    front = sensor_probe.messages['FRONT_CAMERA/image_raw'][-1]
    assert (front.width, front.height) == (1280, 720)
    info = sensor_probe.messages['FRONT_CAMERA/camera_info'][-1]
    assert info.k[0] == pytest.approx(360.0)  # 90 degrees across the 720 pixel side
    scan = sensor_probe.messages['LRF/scan'][-1]
    assert len(scan.ranges) == round((scan.angle_max - scan.angle_min) / scan.angle_increment) + 1
    accel = sensor_probe.messages['CHASSIS_ACCELERATION_SENSOR'][-1].linear_acceleration
    assert np.linalg.norm([accel.x, accel.y, accel.z]) == pytest.approx(9.81, rel=0.2)
    # Devices the bridge cannot simulate are named, one line each.
    assert "device 'CompetitorMarker' (CompetitorMarker): the bridge has no simulation of " \
           'this kind of device; it does not publish' in proc.output()


def test_openrave_environment_sensors_publish_under_their_body(bridge, sensor_probe, tmp_path):
    from test_sensors_sim import openrave_scene
    proc = bridge(openrave_scene(tmp_path), '-p', 'devices.bot.laser.rate:=40.0')
    topics = {'bot/laser/scan': LaserScan, 'bot/cam/image_raw': Image,
              'bot/cam/camera_info': CameraInfo}
    for topic, msg_type in topics.items():
        sensor_probe.watch(topic, msg_type, keep=True)
    sensor_probe.spin_until(lambda: all(len(sensor_probe.messages[t]) >= 3 for t in topics),
                            STARTUP, 'the OpenRAVE sensors', proc)
    scan = sensor_probe.messages['bot/laser/scan'][-1]
    assert scan.angle_min == pytest.approx(-math.pi / 4) and len(scan.ranges) == 91
    assert scan.ranges[45] == pytest.approx(2.9, abs=0.005)
    assert scan.scan_time == pytest.approx(1 / 40.0)  # the rate set on the command line
    info = sensor_probe.messages['bot/cam/camera_info'][-1]
    assert list(info.k) == [300.0, 0.0, 120.0, 0.0, 250.0, 140.0, 0.0, 0.0, 1.0]
    frames = {m.header.frame_id for msgs in sensor_probe.messages.values() for m in msgs}
    assert frames == {'bot/laser', 'bot/cam_optical_frame'}
    sensor_probe.spin_until(lambda: frames <= sensor_probe.frames, 10.0, 'frames in TF', proc)


def test_a_bad_device_parameter_stops_the_bridge_with_one_line(bridge):
    proc = bridge(SAMPLE_ARM, '-p', 'devices.hand_camera.on:=1')
    assert proc.proc.wait(timeout=STARTUP) == 2
    assert proc.output().strip().splitlines() == [
        '<model>: parameter devices.hand_camera.on must be true or false, not 1']


def test_a_colour_point_cloud_camera_publishes_image_info_and_coloured_points(ros, tmp_path):
    from body_bridge.formats import load_model
    from body_bridge.ros.devices.sensors import CameraPublisher
    from body_bridge.sim.sensing.sensors import SensorSuite
    from body_bridge.sim.simulation import Simulation
    from test_sensors_sim import camera_scene, is_red, project
    sim = Simulation(load_model(camera_scene(tmp_path, fmt='COLOR_POINT_CLOUD')))
    suite = SensorSuite(sim)
    node = ros.create_node('cloud_probe')
    try:
        cam = CameraPublisher(node, suite.samplers['cam'], 'cloud/cam', 'cam_optical_frame')
        assert cam.depth_pub is None and cam.image_pub is not None  # the format's topics
        clouds = []
        node.create_subscription(PointCloud2, 'cloud/cam/points', clouds.append, DEEP)
        deadline = time.monotonic() + 10.0
        while cam.points_pub.get_subscription_count() == 0 and time.monotonic() < deadline:
            ros.spin_once(node, timeout_sec=0.05)
        sim.step_period()
        cam.tick()
        while not clouds and time.monotonic() < deadline:
            ros.spin_once(node, timeout_sec=0.05)
        cloud = clouds[0]
        assert (cloud.height, cloud.width, cloud.point_step) == (240, 320, 16)
        assert [f.name for f in cloud.fields] == ['x', 'y', 'z', 'rgb']
        assert cloud.header.frame_id == 'cam_optical_frame' and not cloud.is_dense
        points = np.frombuffer(bytes(cloud.data), dtype=np.float32).reshape(240, 320, 4)
        u, v, _ = project(suite.samplers['cam'].intrinsics, (2.0, 0.3, 0.6))
        x, y, z, rgb = points[round(v), round(u)]
        # Where the ray to the cube's centre meets its face (x = 1.9 m ahead).
        np.testing.assert_allclose((x, y, z), np.array([-0.3, -0.1, 2.0]) * 1.9 / 2.0,
                                   atol=0.005)
        packed = int(np.float32(rgb).view(np.uint32))
        assert is_red(((packed >> 16) & 255, (packed >> 8) & 255, packed & 255))
        assert np.isnan(points[0, 0, 2])  # sky: no depth
    finally:
        suite.close()
        node.destroy_node()


def test_compressed_topics_decode_to_the_images_published_raw(ros, tmp_path):
    from test_compression import cv2, decode_compressed_depth
    from test_sensors_sim import camera_scene

    from body_bridge.formats import load_model
    from body_bridge.ros.devices.sensors import CameraPublisher
    from body_bridge.sim.sensing.sensors import SensorSuite
    from body_bridge.sim.simulation import Simulation
    sim = Simulation(load_model(camera_scene(tmp_path)))  # a red cube 2 m ahead, floor
    suite = SensorSuite(sim)
    node = ros.create_node('compressed_probe')
    got = {}
    topics = {'image_raw': Image, 'depth/image': Image, 'image_raw/compressed': CompressedImage,
              'depth/image/compressedDepth': CompressedImage}
    try:
        cam = CameraPublisher(node, suite.samplers['cam'], 'z/hand_camera', 'cam_optical_frame')
        cam.compression['format'] = 'png'
        for topic, msg_type in topics.items():
            node.create_subscription(msg_type, f'z/hand_camera/{topic}',
                                     lambda m, t=topic: got.setdefault(t, m), DEEP)
        pubs = (cam.image_pub, cam.depth_pub, cam.compressed_pub, cam.depth_compressed_pub)
        deadline = time.monotonic() + 10.0
        while any(p.get_subscription_count() == 0 for p in pubs) and \
                time.monotonic() < deadline:
            ros.spin_once(node, timeout_sec=0.05)
        sim.step_period()
        cam.tick()
        while len(got) < 4 and time.monotonic() < deadline:
            ros.spin_once(node, timeout_sec=0.05)
        h, w = got['image_raw'].height, got['image_raw'].width
        rgb = np.frombuffer(bytes(got['image_raw'].data), np.uint8).reshape(h, w, 3)
        depth = np.frombuffer(bytes(got['depth/image'].data), np.float32).reshape(h, w)
        png = got['image_raw/compressed']
        assert png.format == 'rgb8; png compressed bgr8'
        assert png.header == got['image_raw'].header
        decoded = cv2.imdecode(np.frombuffer(bytes(png.data), np.uint8), cv2.IMREAD_COLOR)
        np.testing.assert_array_equal(decoded[..., ::-1], rgb)  # PNG: exactly
        packed = got['depth/image/compressedDepth']
        meters = decode_compressed_depth(packed.format, bytes(packed.data))
        near = np.isfinite(depth) & (depth < 10.0)
        assert near.sum() > 1000
        np.testing.assert_allclose(meters[near], depth[near],
                                   atol=float(np.max(depth[near])) ** 2 / 10100.0 * 1.01)
        assert np.isnan(meters[~near]).all()
        cam.compression['format'] = 'jpeg'  # as devices.<camera>.compressed.format does
        got.clear()
        sim.step_period()
        cam.tick()
        while 'image_raw/compressed' not in got and time.monotonic() < deadline:
            ros.spin_once(node, timeout_sec=0.05)
        assert got['image_raw/compressed'].format == 'rgb8; jpeg compressed bgr8'
    finally:
        suite.close()
        node.destroy_node()


def _imu_run(bridge, probe, *args, seconds=3.0):
    """base_imu messages of a bridge started with ``args``, by stamp, for ``seconds``."""
    from std_srvs.srv import SetBool
    probe.messages.pop('base_imu', None)
    # paused until this probe hears the IMU: a bridge that starts quicker than discovery
    # would otherwise be seconds ahead before the first reading arrives here
    proc = bridge(SAMPLE_ARM, *args, '-p', 'start_paused:=true')
    probe.watch('base_imu', Imu, keep=True)
    probe.spin_until(lambda: probe.node.count_publishers('base_imu') > 0, STARTUP, 'base_imu',
                     proc)
    client = probe.node.create_client(SetBool, 'body_bridge/set_paused')
    probe.spin_until(client.service_is_ready, STARTUP, 'set_paused', proc)
    future = client.call_async(SetBool.Request(data=False))
    probe.spin_until(future.done, 20.0, 'set_paused', proc)
    probe.node.destroy_client(client)
    probe.spin_until(lambda: probe.stamps('base_imu') and
                     probe.stamps('base_imu')[-1] > seconds, STARTUP + 30.0, 'base_imu', proc)
    proc.stop()
    return {round(t, 6): m for t, m in zip(probe.stamps('base_imu'),
                                           probe.messages['base_imu'])}, proc


def test_noise_repeats_with_its_seed_at_any_pace_and_changes_at_run_time(bridge, sensor_probe):
    noise = ('-p', 'noise_seed:=5', '-p', 'devices.base_imu.noise.linear_acceleration:=0.5',
             '-p', 'devices.base_imu.noise.angular_velocity_random_walk:=0.01')
    paced, _ = _imu_run(bridge, sensor_probe, *noise)
    fast, _ = _imu_run(bridge, sensor_probe, *noise, '-p', 'real_time_factor:=4.0')
    common = sorted(set(paced) & set(fast))
    assert len(common) > 50
    for t in common:  # the same readings, bit for bit, at four times the pace
        for field in ('linear_acceleration', 'angular_velocity'):
            a, b = getattr(paced[t], field), getattr(fast[t], field)
            assert (a.x, a.y, a.z) == (b.x, b.y, b.z), (t, field)
    acc = np.array([[m.linear_acceleration.x, m.linear_acceleration.y,
                     m.linear_acceleration.z] for m in paced.values()])
    assert 0.3 < acc[:, 0].std() < 0.7  # noise of deviation 0.5 m/s^2
    msg = paced[common[0]]
    assert list(msg.linear_acceleration_covariance) == [0.25, 0, 0, 0, 0.25, 0, 0, 0, 0.25]
    assert list(msg.angular_velocity_covariance) == [0.0] * 9  # a random walk is no white noise
    assert msg.orientation_covariance[0] == -1.0  # REP-145: not reported
    other, _ = _imu_run(bridge, sensor_probe, '-p', 'noise_seed:=6', *noise[2:])
    common = sorted(set(other) & set(paced))
    assert common and all(other[t].linear_acceleration.x != paced[t].linear_acceleration.x
                          for t in common)

    # at run time: a noise density per axis, and the covariance follows
    proc = bridge(SAMPLE_ARM)
    sensor_probe.messages.pop('base_imu', None)
    sensor_probe.watch('base_imu', Imu, keep=True)
    imu = lambda: sensor_probe.messages['base_imu']  # noqa: E731
    sensor_probe.spin_until(lambda: len(imu()) > 5, STARTUP, 'base_imu', proc)
    assert list(imu()[-1].angular_velocity_covariance) == [0.0] * 9  # noise off by default
    client = sensor_probe.node.create_client(SetParameters, 'body_bridge/set_parameters')
    sensor_probe.spin_until(client.service_is_ready, 20.0, 'the parameter service', proc)
    density = ParameterValue(type=ParameterType.PARAMETER_DOUBLE_ARRAY,
                             double_array_value=[0.001, 0.002, 0.003])
    bad = ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=-1.0)
    future = client.call_async(SetParameters.Request(parameters=[
        Parameter(name='devices.base_imu.noise.angular_velocity_noise_density', value=density),
        Parameter(name='devices.base_imu.noise.linear_acceleration', value=bad)]))
    sensor_probe.spin_until(future.done, 20.0, 'set_parameters', proc)
    results = future.result().results
    assert [r.successful for r in results] == [True, False]
    assert results[1].reason == 'devices.base_imu.noise.linear_acceleration is negative'
    # the readings still queued were taken before the change: wait for the first after it
    sensor_probe.spin_until(lambda: imu()[-1].angular_velocity_covariance[0] > 0.0, 30.0,
                            'base_imu with noise', proc)
    cov = imu()[-1].angular_velocity_covariance  # density^2 / dt at 100 Hz
    np.testing.assert_allclose([cov[0], cov[4], cov[8]], np.array([1e-6, 4e-6, 9e-6]) * 100)
    assert 'Traceback' not in proc.output()
