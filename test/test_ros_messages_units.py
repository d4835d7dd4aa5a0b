"""Sensor messages built from readings (ros/stream/messages.py): stamps, covariances, CameraInfo,
images and point clouds, each read back the way a subscriber reads it."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from builtin_interfaces.msg import Time
from sensor_msgs.msg import Image, PointCloud2, PointField

from body_bridge.ros.stream import messages
from body_bridge.sim.sensing.render import Intrinsics

K = Intrinsics(width=4, height=3, fx=2.0, fy=4.0, cx=1.5, cy=1.0, near=0.1, far=10.0)


@pytest.mark.parametrize('seconds, sec, nanosec', [
    (0.0, 0, 0), (12.25, 12, 250_000_000), (3.0, 3, 0), (1.9999999999, 1, 999_999_999),
    (-0.5, -1, 500_000_000), (7.000000001, 7, 1)])
def test_stamps_of_simulated_time(seconds, sec, nanosec):
    stamp = messages.stamp_of(seconds)
    assert (stamp.sec, stamp.nanosec) == (sec, nanosec)


def test_covariances_report_a_sigma_or_nothing():
    assert messages.covariance(None) == [-1.0, 0, 0, 0, 0, 0, 0, 0, 0]
    assert messages.covariance(0.5) == [0.25, 0, 0, 0, 0.25, 0, 0, 0, 0.25]
    assert messages.covariance_of(None) == [-1.0, 0, 0, 0, 0, 0, 0, 0, 0]
    assert messages.covariance_of([1, 2.5, 3]) == [1.0, 0, 0, 0, 2.5, 0, 0, 0, 3.0]


def test_a_compressed_image_keeps_its_format_and_bytes():
    msg = messages.compressed_image('cam_optical', Time(sec=3, nanosec=4), ('png', b'\x89PNG'))
    assert (msg.header.frame_id, msg.header.stamp.sec, msg.header.stamp.nanosec) == \
        ('cam_optical', 3, 4)
    assert (msg.format, bytes(msg.data)) == ('png', b'\x89PNG')


@pytest.mark.parametrize('model, distortion', [('plumb_bob', 5), ('equidistant', 4),
                                               ('dual_equidistant', 4)])
def test_camera_info_of_an_undistorted_image(model, distortion):
    msg = messages.camera_info(K, 'cam_optical', model)
    assert (msg.header.frame_id, msg.width, msg.height) == ('cam_optical', 4, 3)
    assert (msg.distortion_model, list(msg.d)) == (model, [0.0] * distortion)
    np.testing.assert_array_equal(np.reshape(msg.k, (3, 3)), K.matrix())
    np.testing.assert_array_equal(np.reshape(msg.r, (3, 3)), np.eye(3))
    np.testing.assert_array_equal(np.reshape(msg.p, (3, 4)),
                                  np.hstack([K.matrix(), np.zeros((3, 1))]))


def test_camera_info_is_plumb_bob_by_default():
    assert messages.camera_info(K, 'c').distortion_model == 'plumb_bob'


@pytest.mark.parametrize('pixels, encoding, step', [
    (np.arange(24, dtype=np.uint8).reshape(2, 4, 3), 'rgb8', 12),
    (np.arange(8, dtype=np.float32).reshape(2, 4), '32FC1', 16),
    (np.arange(8, dtype=np.uint16).reshape(2, 4), 'mono16', 8)])
def test_images_read_back_row_by_row(pixels, encoding, step):
    msg = messages.image_message(Image(), pixels, encoding)
    assert (msg.height, msg.width, msg.encoding, msg.step) == (2, 4, encoding, step)
    assert msg.is_bigendian == int(sys.byteorder == 'big' and pixels.dtype.itemsize > 1)
    back = np.frombuffer(bytes(msg.data), dtype=pixels.dtype).reshape(pixels.shape)
    np.testing.assert_array_equal(back, pixels)


@pytest.mark.parametrize('big', [False, True])
def test_is_bigendian_says_the_byte_order_of_numbers_wider_than_a_byte(monkeypatch, big):
    # pixels are sent in the machine's order: a big-endian machine says so for 16-bit and
    # float depth images; one byte a number has no order
    monkeypatch.setattr(messages, '_BIG_ENDIAN', big)
    for dtype, wide in ((np.uint8, False), (np.uint16, True), (np.float32, True)):
        msg = messages.image_message(Image(), np.zeros((2, 3), dtype=dtype), 'mono8')
        assert msg.is_bigendian == int(big and wide), dtype


def test_an_image_of_a_view_is_sent_in_c_order():
    pixels = np.arange(12, dtype=np.uint8).reshape(3, 4)[:, ::-1]
    msg = messages.image_message(Image(), pixels, 'mono8')
    assert bytes(msg.data) == pixels.copy().tobytes() and msg.step == 4


def _read_cloud(msg):
    """The points of a PointCloud2 as a subscriber reads them: from its fields."""
    names = [f.name for f in msg.fields]
    assert all(f.datatype == PointField.FLOAT32 and f.count == 1 for f in msg.fields)
    dtype = np.dtype({'names': names, 'formats': ['<f4'] * len(names),
                      'offsets': [f.offset for f in msg.fields], 'itemsize': msg.point_step})
    assert len(msg.data) == msg.row_step * msg.height
    return np.frombuffer(bytes(msg.data), dtype=dtype).reshape(msg.height, msg.width)


def test_an_organised_cloud_from_a_depth_image():
    depth = np.full((3, 4), 2.0)
    depth[0, 0], depth[2, 3] = np.inf, np.nan
    points = messages.camera_points(K, depth, None)
    msg = messages.fill_cloud(PointCloud2(), points, rgb=False)
    assert (msg.height, msg.width, msg.point_step, msg.row_step) == (3, 4, 12, 48)
    assert [f.name for f in msg.fields] == ['x', 'y', 'z'] and not msg.is_bigendian
    cloud = _read_cloud(msg)
    assert np.isnan(cloud['z'][0, 0]) and np.isnan(cloud['x'][2, 3])
    u, v = 2, 0  # x = (u - cx) / fx * z, y = (v - cy) / fy * z
    assert (cloud['x'][v, u], cloud['y'][v, u], cloud['z'][v, u]) == (0.5, -0.5, 2.0)
    assert (cloud['x'][2, 0], cloud['y'][2, 0]) == (-1.5, 0.5)


def test_a_coloured_cloud_packs_rgb_as_pcl_does():
    depth = np.ones((3, 4))
    rgb = np.zeros((3, 4, 3), dtype=np.uint8)
    rgb[1, 2] = (0x12, 0x34, 0x56)
    msg = messages.fill_cloud(PointCloud2(), messages.camera_points(K, depth, rgb), rgb=True)
    assert [(f.name, f.offset) for f in msg.fields] == [('x', 0), ('y', 4), ('z', 8),
                                                          ('rgb', 12)]
    assert (msg.point_step, msg.row_step) == (16, 64)
    packed = _read_cloud(msg)['rgb'].view(np.uint32)
    assert packed[1, 2] == 0x123456 and packed[0, 0] == 0


def test_a_range_cloud_keeps_the_beams_that_returned():
    directions = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.6, 0.8]])
    ranges = np.array([2.0, np.inf, 5.0])
    msg = messages.fill_cloud(PointCloud2(), messages.range_points(directions, ranges), False)
    assert (msg.height, msg.width, msg.row_step) == (1, 2, 24)
    cloud = _read_cloud(msg)[0]
    np.testing.assert_allclose([list(p) for p in cloud], [[2, 0, 0], [0, 3, 4]], atol=1e-6)
