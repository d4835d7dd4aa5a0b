"""Range sensors and cameras (``sim/sensing/optical.py``) unit by unit: scan angles of both
conventions to the sample, beam directions, intrinsics and render sizes, what each device
parameter does and the one-line refusals; and range readings against a wall at a known
distance."""

from __future__ import annotations

import math
import zlib
from types import SimpleNamespace

import mujoco
import numpy as np
import pytest

from body_bridge.device_overlay import DeviceSettings
from body_bridge.model import Box, Device, DeviceKind, Joint, JointType, Link, Model, Pose, Shape
from body_bridge.sim.building.build import BuildOptions, build_spec
from body_bridge.sim.sensing.optical import (MAX_IMAGE_SIZE, MAX_RAYS, CameraSampler, RangeSampler,
                                     _flash_directions, _scan_directions, camera_intrinsics,
                                     camera_render_size, scan_angles)
from body_bridge.sim.sensing.samplers import DeviceRefused


def test_openrave_scan_angles():
    yaw, pitch = scan_angles({'min_angle': -0.5, 'max_angle': 0.5, 'resolution': 0.25})
    np.testing.assert_allclose(yaw, [-0.5, -0.25, 0.0, 0.25, 0.5], atol=1e-15)
    assert pitch.tolist() == [0.0]
    # a span that is a whole number of steps but for rounding: still its last sample
    yaw, _ = scan_angles({'min_angle': 0.0, 'max_angle': 0.3, 'resolution': 0.1})
    assert len(yaw) == 4
    yaw, _ = scan_angles({'min_angle': 0.0, 'max_angle': 0.35, 'resolution': 0.1})
    assert len(yaw) == 4
    assert scan_angles({'min_angle': 0.2, 'max_angle': 0.2})[0].tolist() == [0.2]
    for bad in ({'min_angle': 0.5, 'max_angle': -0.5, 'resolution': 0.1},
                {'min_angle': -0.5, 'max_angle': 0.5, 'resolution': 0.0},
                {'min_angle': -0.5, 'max_angle': 0.5}):
        with pytest.raises(DeviceRefused) as info:
            scan_angles(bad)
        assert str(info.value) == (f"laser angles {bad['min_angle']}..{bad['max_angle']} rad "
                                   f"with resolution {bad.get('resolution', 0.0)} rad are not "
                                   "a scan")


def test_choreonoid_scan_angles_are_centred():
    yaw, pitch = scan_angles({'yaw_range': 1.0, 'yaw_step': 0.25})
    np.testing.assert_allclose(yaw, [-0.5, -0.25, 0.0, 0.25, 0.5], atol=1e-15)
    assert pitch.tolist() == [0.0]
    yaw, pitch = scan_angles({'yaw_range': 1.0, 'yaw_step': 0.3, 'pitch_range': 0.4,
                              'pitch_step': 0.2})
    np.testing.assert_allclose(yaw, [-0.5, -0.2, 0.1, 0.4], atol=1e-15)
    np.testing.assert_allclose(pitch, [-0.2, 0.0, 0.2], atol=1e-15)
    assert scan_angles({})[0].tolist() == [0.0]
    with pytest.raises(DeviceRefused, match=r'^pitch_range is negative \(-0.1 rad\)$'):
        scan_angles({'pitch_range': -0.1})
    with pytest.raises(DeviceRefused, match=r'^yaw_range is 1.0 rad but yaw_step is 0.0$'):
        scan_angles({'yaw_range': 1.0})
    with pytest.raises(DeviceRefused, match=rf'^1001 x 1001 rays are more than {MAX_RAYS}$'):
        scan_angles({'yaw_range': 1.0, 'yaw_step': 0.001, 'pitch_range': 1.0,
                     'pitch_step': 0.001})
    yaw, pitch = scan_angles({'yaw_range': 0.999, 'yaw_step': 0.001, 'pitch_range': 0.999,
                              'pitch_step': 0.001})
    assert yaw.size * pitch.size == 1000 * 1000 == MAX_RAYS  # a million rays: still a scan


def test_beams_are_rows_of_pitch_and_columns_of_yaw():
    yaw, pitch = np.array([-0.3, 0.0, 0.4]), np.array([-0.2, 0.5])
    directions, grid = _scan_directions(yaw, pitch)
    assert grid == (2, 3) and directions.shape == (6, 3)
    for r, p in enumerate(pitch):
        for c, y in enumerate(yaw):
            expected = [math.cos(p) * math.cos(y), math.cos(p) * math.sin(y), math.sin(p)]
            np.testing.assert_allclose(directions[r * 3 + c], expected, atol=1e-15)


def test_flash_lidar_beams_go_through_its_pixels():
    directions, grid = _flash_directions({'width': 5, 'height': 3, 'fx': 2.0, 'fy': 4.0,
                                          'cx': 1.0, 'cy': 2.0})
    assert grid == (3, 5) and directions.shape == (15, 3)
    np.testing.assert_allclose(np.linalg.norm(directions, axis=1), 1.0)
    for row in range(3):
        for col in range(5):
            x, y = (col - 1.0) / 2.0, (row - 2.0) / 4.0  # optical: right, down
            expected = np.array([1.0, -x, -y]) / math.sqrt(1 + x * x + y * y)
            np.testing.assert_allclose(directions[row * 5 + col], expected, atol=1e-15)
    with pytest.raises(DeviceRefused, match=rf'^1000500 rays are more than {MAX_RAYS}$'):
        _flash_directions({'width': 8004, 'height': 125, 'fx': 100.0})
    assert _flash_directions({'width': 8000, 'height': 125, 'fx': 100.0})[1] == (125, 8000)


def test_intrinsics_of_both_conventions_and_their_refusals():
    k = camera_intrinsics({})
    f = 240 / math.tan(math.radians(17.5))
    assert (k.width, k.height, k.cx, k.cy, k.near, k.far) == (640, 480, 319.5, 239.5, 0.04, 200)
    assert k.fx == k.fy == pytest.approx(f, rel=1e-15)
    k = camera_intrinsics({'width': 100, 'height': 50, 'fx': 0.5})  # any positive focal length
    assert (k.fx, k.fy) == (0.5, 0.5)
    k = camera_intrinsics({'width': 100, 'height': 50, 'fx': 80.0})
    assert (k.fx, k.fy, k.cx, k.cy) == (80.0, 80.0, 49.5, 24.5)
    assert camera_intrinsics({'width': 1, 'height': MAX_IMAGE_SIZE}).height == MAX_IMAGE_SIZE
    k = camera_intrinsics({'width': MAX_IMAGE_SIZE, 'height': 1, 'fx': 1.0, 'fy': 2.0,
                           'cx': 3.0, 'cy': 4.0, 'near_clip_distance': 1e-3,
                           'far_clip_distance': 2e-3})
    assert (k.fx, k.fy, k.cx, k.cy, k.near, k.far) == (1.0, 2.0, 3.0, 4.0, 1e-3, 2e-3)
    for params, message in (
            ({'width': 0}, f'image size 0 x 480 is not within 1..{MAX_IMAGE_SIZE} pixels'),
            ({'height': MAX_IMAGE_SIZE + 1},
             f'image size 640 x {MAX_IMAGE_SIZE + 1} is not within 1..{MAX_IMAGE_SIZE} pixels'),
            ({'near_clip_distance': 0.0}, 'clip distances 0.0..200.0 m are not 0 < near < far'),
            ({'near_clip_distance': 2.0, 'far_clip_distance': 2.0},
             'clip distances 2.0..2.0 m are not 0 < near < far'),
            ({'fx': 0.0}, 'focal lengths fx=0.0, fy=0.0 are not positive'),
            ({'fx': 1.0, 'fy': -1.0}, 'focal lengths fx=1.0, fy=-1.0 are not positive'),
            ({'field_of_view': math.pi}, 'field_of_view 180 degrees is not within (0, 180) '
             'for a pinhole camera'),
            ({'field_of_view': 0.0}, 'field_of_view 0 degrees is not within (0, 180) for a '
             'pinhole camera')):
        with pytest.raises(DeviceRefused) as info:
            camera_intrinsics(params)
        assert str(info.value) == message


def test_render_sizes():
    assert camera_render_size({}) == (640, 480)
    assert camera_render_size({'width': 99999, 'height': 99999}) == (MAX_IMAGE_SIZE,) * 2
    side = max(2, math.ceil(2 * 100 / math.radians(120)))
    assert camera_render_size({'width': 100, 'height': 30, 'lens_type': 'fisheye',
                               'field_of_view': math.radians(120)}) == (max(100, side),) * 2
    half = math.ceil(2 * 100 / math.pi)
    assert camera_render_size({'width': 200, 'lens_type': 'DUAL_FISHEYE'}) == \
        (200, max(100, half))
    # a lens on a depth camera is no lens (Choreonoid: colour cameras only)
    assert camera_render_size({'width': 100, 'height': 30, 'lens_type': 'FISHEYE',
                               'format': 'DEPTH'}) == (100, 30)
    assert camera_render_size({'width': 100, 'height': 30, 'lens_type': 'FISHEYE',
                               'field_of_view': -1.0}) == (100, 30)
    assert camera_render_size({'width': 1, 'height': 30, 'lens_type': 'DUAL_FISHEYE'}) == \
        (1, 30)


# --- samplers on a small world: a wall 2 m ahead of the sensor -------------------------------


def _world(device: Device):
    wall = Shape(Box((0.2, 10.0, 10.0)), Pose((2.1, 0.0, 0.0)))  # its face at x = 2
    links = (Link('base', visuals=(wall,), collisions=(wall,)), Link('head'))
    model = Model('w', links, (Joint('fix', JointType.FIXED, 'base', 'head'),), 'base',
                  devices=(device,))
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    data = mujoco.MjData(mj)
    mujoco.mj_forward(mj, data)
    return SimpleNamespace(mj=mj, data=data, time=0.25, model=model)


def _range(params, settings=DeviceSettings()):
    device = Device('laser', DeviceKind.RANGE, 'head', params=params)
    return RangeSampler(_world(device), device, settings, 3, 100.0)


def test_ranges_against_the_wall():
    s = _range({'min_angle': -0.6, 'max_angle': 0.6, 'resolution': 0.3, 'max_distance': 3.0})
    assert s.layout == 'scan' and s.grid == (1, 5)
    r = s.read()
    assert r.time == 0.25
    expected = [2.0 / math.cos(a) for a in (-0.6, -0.3, 0.0, 0.3, 0.6)]
    np.testing.assert_allclose(r.ranges[0], [d if d <= 3.0 else np.inf for d in expected],
                               rtol=1e-6)
    assert r.ranges.dtype == np.float32
    short = _range({'max_range': 1.9}).read().ranges
    assert short.shape == (1, 1) and short[0, 0] == np.inf  # beyond its reach
    near = _range({'min_range': 2.5, 'max_range': 5.0}).read().ranges
    assert near[0, 0] == -np.inf  # closer than it can see
    blind = _range({'detection_rate': 0.0}).read().ranges
    assert blind[0, 0] == np.inf
    assert _range({'detection_rate': 1.0}).read().ranges[0, 0] == pytest.approx(2.0)
    cloud = _range({'yaw_range': 0.2, 'yaw_step': 0.1, 'pitch_range': 0.2, 'pitch_step': 0.1})
    assert cloud.layout == 'cloud' and cloud.read().ranges.shape == (3, 3)
    assert _range({}).layout == 'single'
    tilted = _range({'yaw_range': 0.2, 'yaw_step': 0.1, 'pitch_range': 0.1, 'pitch_step': 0.2})
    assert tilted.pitch.tolist() == [-0.05] and tilted.layout == 'cloud'  # one tilted row
    assert _range({'yaw_range': 0.2, 'yaw_step': 0.2, 'pitch_range': 0.0}).layout == 'scan'


def test_range_noise_and_the_near_limit():
    s = _range({'error_deviation': 0.01, 'detection_rate': 1.0})
    rng = np.random.default_rng([3, zlib.crc32(b'laser')])
    for _ in range(3):  # every beam is detected: the noise alone draws from the generator
        expected = np.float32(2.0 + rng.normal(0.0, 0.01, 1)[0])
        assert s.read().ranges[0, 0] == pytest.approx(expected, abs=2e-6)
    exact = _range({})
    distance = float(exact.read().ranges[0, 0])
    exact.min_distance = float(exact._dist[0])  # a return exactly at the near limit counts
    assert exact.read().ranges[0, 0] == np.float32(distance)


def test_range_parameters():
    s = _range({'error_deviation': 0.01, 'scan_rate': 15.0, 'spin_speed': 10.0})
    assert s.noise == {'distance': 0.01} and s.rate == 15.0
    assert s.warnings == ['the spinning of a spinning laser is not simulated: it scans one '
                          'plane']
    kept = _range({'error_deviation': 0.01}, DeviceSettings(noise={'distance': 0.5}))
    assert kept.noise == {'distance': 0.5}
    assert _range({'scan_time': 0.25}).rate == 4.0
    assert _range({'scan_time': 0.0}).rate == 100.0
    assert (_range({}).min_distance, _range({}).max_distance) == (0.0, 10.0)
    for params, message in (
            ({'detection_rate': 1.5}, 'detection_rate 1.5 is not within 0..1'),
            ({'detection_rate': -0.1}, 'detection_rate -0.1 is not within 0..1'),
            ({'min_distance': 2.0, 'max_distance': 2.0}, 'distance range 2.0..2.0 m is empty'),
            ({'min_distance': -1.0}, 'distance range -1.0..10.0 m is empty')):
        with pytest.raises(DeviceRefused) as info:
            _range(params)
        assert str(info.value) == message
    flash = _range({'width': 4, 'height': 2, 'fx': 2.0})
    assert flash.layout == 'cloud' and flash.grid == (2, 4) and flash.yaw is None


def _camera(params):
    device = Device('cam', DeviceKind.CAMERA, 'head', params=params)
    return CameraSampler(_world(device), device, DeviceSettings(), 3, 100.0, None)


def test_camera_formats_lenses_and_their_refusals():
    for fmt, produces in (('COLOR', (True, False, False)), ('DEPTH', (False, True, False)),
                          ('COLOR_DEPTH', (True, True, False)),
                          ('POINT_CLOUD', (False, True, True)),
                          ('COLOR_POINT_CLOUD', (True, True, True))):
        cam = _camera({'format': fmt})
        assert (cam.color, cam.depth, cam.points) == produces, fmt
    cam = _camera({'format': 'color_point_cloud', 'frame_rate': 12.0})
    assert (cam.format, cam.color, cam.depth, cam.points) == ('COLOR_POINT_CLOUD', True, True,
                                                              True)
    assert cam.rate == 12.0 and cam.distortion_model == 'plumb_bob'
    assert _camera({}).rate == 100.0
    depth = _camera({'format': 'DEPTH', 'lens_type': 'FISHEYE'})
    assert depth.distortion_model == 'plumb_bob' and depth.warnings == [
        'lens_type FISHEYE applies to COLOR cameras only (as in Choreonoid); this DEPTH '
        'camera is a pinhole camera']
    fish = _camera({'lens_type': 'fisheye', 'width': 90, 'field_of_view': 4.0})
    assert fish.distortion_model == 'equidistant'
    assert fish.warnings == ['a fisheye sees at most 180 degrees: field_of_view 229.183 '
                             'degrees is 180']
    assert fish.intrinsics.width == fish.intrinsics.height == 90
    assert fish.intrinsics.fx == pytest.approx(90 / math.pi)
    dual = _camera({'lens_type': 'DUAL_FISHEYE', 'width': 2})
    assert dual.distortion_model == 'dual_equidistant' and dual.warnings == []
    for params, message in (
            ({'format': 'INFRARED'}, 'format INFRARED is not one of COLOR, DEPTH, COLOR_DEPTH, '
             'POINT_CLOUD, COLOR_POINT_CLOUD'),
            ({'lens_type': 'TILT'}, 'lens_type TILT is not one of NORMAL, FISHEYE, '
             'DUAL_FISHEYE'),
            ({'lens_type': 'DUAL_FISHEYE', 'width': 1},
             f'image width 1 is not within 2..{MAX_IMAGE_SIZE} pixels'),
            ({'lens_type': 'FISHEYE', 'width': 0},
             f'image width 0 is not within 1..{MAX_IMAGE_SIZE} pixels'),
            ({'lens_type': 'FISHEYE', 'field_of_view': 0.0},
             'field_of_view 0 degrees is not positive'),
            ({'lens_type': 'FISHEYE', 'near_clip_distance': 0.0},
             'clip distances 0.0..200.0 m are not 0 < near < far'),
            ({'lens_type': 'FISHEYE', 'near_clip_distance': 0.5, 'far_clip_distance': 0.1},
             'clip distances 0.5..0.1 m are not 0 < near < far')):
        with pytest.raises(DeviceRefused) as info:
            _camera(params)
        assert str(info.value) == message


def test_the_optical_frame_looks_along_the_devices_x():
    cam = _camera({})
    pos, rot = cam.optical_pose()
    np.testing.assert_allclose(rot[:, 2], [1, 0, 0], atol=1e-15)   # z forward
    np.testing.assert_allclose(rot[:, 0], [0, -1, 0], atol=1e-15)  # x right
    np.testing.assert_allclose(rot[:, 1], [0, 0, -1], atol=1e-15)  # y down
    r = cam.read(color=False, depth=False)  # nothing asked for: nothing rendered
    assert (r.time, r.rgb, r.depth) == (0.25, None, None)


class _FlatRenderer:
    """A renderer whose colour image is mid-grey everywhere and whose depth is 2 m."""

    def render(self, pos, rot, intrinsics, color, depth):
        shape = (intrinsics.height, intrinsics.width)
        return (np.full(shape + (3,), 128, np.uint8) if color else None,
                np.full(shape, 2.0, np.float32) if depth else None)


def _flat_camera(fmt, noise):
    device = Device('cam', DeviceKind.CAMERA, 'head',
                    params={'format': fmt, 'width': 40, 'height': 30})
    return CameraSampler(_world(device), device, DeviceSettings(noise=noise), 3, 100.0,
                         _FlatRenderer)


def test_colour_noise_of_a_camera():
    plain = _flat_camera('COLOR', {}).read()
    assert plain.rgb.shape == (30, 40, 3) and (plain.rgb == 128).all()  # no noise: as rendered
    noisy = _flat_camera('COLOR', {'color': 8.0}).read().rgb
    assert noisy.dtype == np.uint8 and noisy.shape == (30, 40, 3)
    assert abs(float(noisy.mean()) - 128.0) < 1.0  # rounded, not biased
    assert 7.0 < float(noisy.std()) < 9.0          # the deviation asked for, in levels
    faint = _flat_camera('COLOR', {'color': 0.5}).read().rgb  # under one level, still drawn
    assert 0.2 < float(np.mean(faint != 128)) < 0.45
    # a depth camera has no colour image to add it to; its depth stays as rendered
    depth = _flat_camera('DEPTH', {'color': 8.0}).read()
    assert depth.rgb is None and (depth.depth == 2.0).all()
