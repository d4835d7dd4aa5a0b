"""The topics the bridge predicts for a model's devices (ros/devices/graph.py), on devices made here:
each kind's topics, types and rates, names made unique, and why a device has none. That a
node publishes exactly these is checked in test_cli_topics.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.model import Device, DeviceKind, Inertial, Link, Model, Pose
from body_bridge.ros.devices.graph import Topic, device_topics

K = DeviceKind


def _model(*devices):
    base = Link('base', Pose(), Inertial(1.0, inertia=np.eye(3)))
    return Model(name='m', links=(base,), joints=(), root='base',
                 devices=tuple(Device(name, kind, 'base', params=params)
                               for name, kind, params in devices))


def _topics(*devices, rate=100.0):
    return [(e.device.name, [(t.name, t.type.rsplit('/', 1)[-1], t.rate) for t in e.topics],
             e.note) for e in device_topics(_model(*devices), rate)]


def test_inertial_and_force_sensors_publish_once_per_control_period():
    assert _topics(('imu', K.IMU, {}), ('acc', K.ACCELEROMETER, {}), ('gyro', K.GYRO, {}),
                   ('ft', K.FORCE, {}), rate=250.0) == [
        ('imu', [('imu', 'Imu', 250.0)], ''), ('acc', [('acc', 'Imu', 250.0)], ''),
        ('gyro', [('gyro', 'Imu', 250.0)], ''),
        ('ft', [('ft', 'WrenchStamped', 250.0)], '')]
    assert device_topics(_model(('imu', K.IMU, {})))[0].topics == \
        (Topic('imu', 'sensor_msgs/msg/Imu', 100.0),)


@pytest.mark.parametrize('params, topic, kind, rate', [
    ({}, 'r', 'Range', 100.0),
    ({'scan_rate': 20.0}, 'r', 'Range', 20.0),
    ({'scan_time': 0.25}, 'r', 'Range', 4.0),
    ({'scan_time': 0.0}, 'r', 'Range', 100.0),
    ({'yaw_range': 1.0, 'yaw_step': 0.1}, 'r/scan', 'LaserScan', 100.0),
    ({'min_angle': -0.5, 'max_angle': 0.5, 'resolution': 0.1}, 'r/scan', 'LaserScan', 100.0),
    ({'min_angle': 0.5, 'max_angle': 0.5}, 'r/scan', 'LaserScan', 100.0),
    ({'min_angle': 0.0, 'max_angle': 0.0}, 'r', 'Range', 100.0),
    ({'pitch_range': 0.4, 'pitch_step': 0.1}, 'r/points', 'PointCloud2', 100.0),
    ({'yaw_range': 1.0, 'yaw_step': 0.5, 'pitch_range': 0.2, 'pitch_step': 0.1}, 'r/points',
     'PointCloud2', 100.0),
    ({'fx': 100.0, 'width': 64, 'height': 48, 'scan_rate': 10.0}, 'r/points', 'PointCloud2',
     10.0),
    # one row of pitch, but -0.05 rad (pitch_range / 2 below the plane): a LaserScan's rays
    # lie in its frame's xy-plane and a Range looks along its x axis, so a cloud either way
    ({'yaw_range': 1.0, 'yaw_step': 0.1, 'pitch_range': 0.1, 'pitch_step': 0.2}, 'r/points',
     'PointCloud2', 100.0),
    ({'pitch_range': 0.1, 'pitch_step': 0.2}, 'r/points', 'PointCloud2', 100.0),
])
def test_range_sensors_by_their_rays(params, topic, kind, rate):
    assert _topics(('r', K.RANGE, params)) == [('r', [(topic, kind, rate)], '')]


@pytest.mark.parametrize('fmt, names', [
    ('COLOR', ['c/image_raw', 'c/camera_info']),
    ('depth', ['c/depth/image', 'c/depth/camera_info']),
    ('COLOR_DEPTH', ['c/image_raw', 'c/camera_info', 'c/depth/image', 'c/depth/camera_info']),
    ('POINT_CLOUD', ['c/points']),
    ('COLOR_POINT_CLOUD', ['c/image_raw', 'c/camera_info', 'c/points'])])
def test_cameras_by_their_format(fmt, names):
    ((_, topics, note),) = _topics(('c', K.CAMERA, {'format': fmt, 'frame_rate': 15.0}))
    assert [name for name, _, _ in topics] == names and note == ''
    assert all(rate == 15.0 for _, _, rate in topics)
    kinds = {name: kind for name, kind, _ in topics}
    assert {kinds[n] for n in names if n.endswith('camera_info')} <= {'CameraInfo'}
    assert {kinds[n] for n in names if 'image' in n and 'info' not in n} <= {'Image'}


def test_a_camera_without_a_frame_rate_publishes_every_control_period():
    ((_, topics, _),) = _topics(('c', K.CAMERA, {}), rate=50.0)
    assert topics == [('c/image_raw', 'Image', 50.0), ('c/camera_info', 'CameraInfo', 50.0)]
    ((_, topics, _),) = _topics(('c', K.CAMERA, {'frame_rate': 0.0}), rate=50.0)
    assert topics[0][2] == 50.0


@pytest.mark.parametrize('params, note', [
    ({'format': 'INFRARED'}, 'not simulated: format INFRARED is not one of COLOR, DEPTH, '
     'COLOR_DEPTH, POINT_CLOUD, COLOR_POINT_CLOUD'),
    ({'field_of_view': math.pi}, 'not simulated: field_of_view 180 degrees is not within'),
    ({'format': 'DEPTH', 'lens_type': 'FISHEYE', 'width': 0}, 'not simulated: image size 0'),
])
def test_cameras_that_cannot_be_simulated_say_why(params, note):
    ((_, topics, text),) = _topics(('c', K.CAMERA, params))
    assert topics == [] and text.startswith(note)


def test_a_fisheye_colour_camera_is_not_a_pinhole():
    ((_, topics, note),) = _topics(('c', K.CAMERA, {'lens_type': 'fisheye',
                                                     'field_of_view': math.radians(185)}))
    assert [t[0] for t in topics] == ['c/image_raw', 'c/camera_info'] and note == ''


@pytest.mark.parametrize('params, note', [
    ({'yaw_range': 1.0}, 'not simulated: yaw_range is 1.0 rad but yaw_step is 0.0'),
    ({'fx': -1.0}, 'not simulated: focal lengths fx=-1.0'),
])
def test_range_sensors_that_cannot_be_simulated_say_why(params, note):
    ((_, topics, text),) = _topics(('r', K.RANGE, params))
    assert topics == [] and text.startswith(note)


def test_devices_without_topics_say_why_and_names_are_made_unique():
    found = _topics(('lamp', K.LIGHT, {}), ('marker', K.OTHER, {}), ('a-b', K.IMU, {}),
                    ('a_b', K.IMU, {}), ('a.b', K.FORCE, {}), ('bad', K.CAMERA, {'width': -1}),
                    ('bad/x', K.GYRO, {}), ('lamp/x', K.GYRO, {}))
    assert found[:5] == [
        ('lamp', [], 'lights the rendered scene'),
        ('marker', [], 'not simulated (a TF frame only)'),
        ('a-b', [('a_b', 'Imu', 100.0)], ''),
        ('a_b', [('a_b_', 'Imu', 100.0)], ''),
        ('a.b', [('a_b__', 'WrenchStamped', 100.0)], '')]
    assert found[5][1] == [] and found[5][2].startswith('not simulated: image size -1 x 480')
    assert found[6:] == [('bad/x', [('bad/x', 'Imu', 100.0)], ''),
                         ('lamp/x', [('lamp/x', 'Imu', 100.0)], '')]
