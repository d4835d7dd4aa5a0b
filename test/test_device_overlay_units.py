"""Device overlay files (device_overlay.py) on a model built in code: an empty file, the
``joint_states`` noise, each parameter type's checks, where a new device sits, zero noise.
The sample arm's overlays and their simulation are in test_sensors_overlay.py."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from body_bridge.device_overlay import Overlay, apply_overlay, load_overlay, noise_value
from body_bridge.errors import ModelError
from body_bridge.model import Device, DeviceKind, Inertial, Link, Model, Pose


@pytest.fixture(scope='module')
def model():
    base = Link('base', Pose(), Inertial(1.0, inertia=np.eye(3)))
    return Model(name='m', links=(base,), joints=(), root='base',
                 devices=(Device('cam', DeviceKind.CAMERA, 'base', params={'width': 64}),
                          Device('imu', DeviceKind.IMU, 'base')))


def write(tmp_path, text):
    path = tmp_path / 'devices.yaml'
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_an_empty_file_is_an_empty_overlay(tmp_path, model):
    path = write(tmp_path, '# nothing yet\n')
    overlay = load_overlay(path, model)
    assert overlay == Overlay(source=str(path))
    assert apply_overlay(model, overlay) is model


def test_joint_states_noise(tmp_path, model):
    overlay = load_overlay(write(tmp_path, """
        joint_states:
          noise: { position: 0.001, velocity: 0 }
    """), model)
    assert dict(overlay.joint_noise) == {'position': 0.001, 'velocity': 0.0}


@pytest.mark.parametrize('text, line', [('42\n', 1), ('- devices\n- seed\n', 1),
                                        ('# a list, not a mapping\n\n- cam\n', 3)])
def test_a_file_that_is_no_mapping_is_one_line(tmp_path, model, text, line):
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as err:
        load_overlay(path, model)
    assert str(err.value) == f'{path}:{line}: a device overlay is a mapping with "devices"'


@pytest.mark.parametrize('text', ['joint_states: 3\n', 'joint_states: { noise: 1 }\n',
                                  'joint_states: { noise: {}, rate: 2 }\n',
                                  'joint_states: [ 1 ]\n'])
def test_bad_joint_states_are_one_line(tmp_path, model, text):
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as err:
        load_overlay(path, model)
    assert str(err.value) == (f'{path}:1: joint_states must be a mapping with noise: '
                              '{position: ..., velocity: ...}')


def test_joint_states_noise_keys_are_checked(tmp_path, model):
    path = write(tmp_path, 'joint_states:\n  noise: { effort: 1.0 }\n')
    with pytest.raises(ModelError, match=r"joint_states has no noise 'effort' \(known: "
                                         r'position, velocity\)'):
        load_overlay(path, model)
    path = write(tmp_path, 'joint_states:\n  noise: { position: -1.0 }\n')
    with pytest.raises(ModelError, match='joint_states: noise position is negative'):
        load_overlay(path, model)


@pytest.mark.parametrize('entry, message', [
    ('{ format: 3 }', "device 'cam': format must be a string, not 3"),
    ('{ width: 2.5 }', "device 'cam': width must be a positive integer, not 2.5"),
    ('{ width: -4 }', "device 'cam': width must be a positive integer, not -4"),
    ('{ width: true }', "device 'cam': width must be a finite number, not True"),
    ('{ fx: 0 }', "device 'cam': fx must be positive, not 0"),
    ('{ fx: .nan }', "device 'cam': fx must be a finite number, not nan"),
    ('{ noise: 3 }', "device 'cam': noise must be a mapping of noise settings"),
    ('{ on: 1 }', "device 'cam': on must be true or false, not 1"),
])
def test_bad_camera_settings_are_one_line(tmp_path, model, entry, message):
    path = write(tmp_path, f'devices:\n  cam: {entry}\n')
    with pytest.raises(ModelError) as err:
        load_overlay(path, model)
    assert str(err.value) == f'{path}:2: {message}'


def test_each_parameter_type_is_kept_as_its_type(tmp_path, model):
    overlay = load_overlay(write(tmp_path, """
        devices:
          cam: { format: depth, width: 32, height: 24.0, cx: -1, frame_rate: 15, on: off }
          imu: { orientation: false, max_acceleration: [ 1, 2, 3 ], rate: 50 }
    """), model)
    cam = dict(overlay.overrides['cam'])
    assert cam == {'format': 'depth', 'width': 32, 'height': 24, 'cx': -1.0, 'frame_rate': 15.0}
    assert type(cam['height']) is int and type(cam['cx']) is float
    imu = dict(overlay.overrides['imu'])
    assert imu == {'orientation': False, 'max_acceleration': (1.0, 2.0, 3.0)}
    assert overlay.settings['imu'].rate == 50.0 and overlay.settings['cam'].on is False
    changed = {d.name: d for d in apply_overlay(model, overlay).devices}
    assert changed['cam'].params['width'] == 32 and changed['imu'].params['orientation'] is False


@pytest.mark.parametrize('entry, message', [
    ('{ orientation: 1 }', "device 'imu': orientation must be true or false, not 1"),
    ('{ max_acceleration: 3 }', "device 'imu': max_acceleration must be a list of 3 finite "
     'numbers, not 3'),
])
def test_bad_imu_settings_are_one_line(tmp_path, model, entry, message):
    path = write(tmp_path, f'devices:\n  imu: {entry}\n')
    with pytest.raises(ModelError) as err:
        load_overlay(path, model)
    assert str(err.value) == f'{path}:2: {message}'


def test_a_new_device_sits_at_the_link_origin_unless_placed(tmp_path, model):
    overlay = load_overlay(write(tmp_path, """
        devices:
          ft: { kind: force, link: base }
          lidar: { kind: range, link: base, xyz: [ 0.1, 0, 0.2 ], rpy: [ 0, 0, 1.5 ] }
    """), model)
    ft, lidar = overlay.devices
    np.testing.assert_array_equal(ft.pose.pos, [0, 0, 0])
    np.testing.assert_array_equal(ft.pose.quat(), [1, 0, 0, 0])
    np.testing.assert_allclose(lidar.pose.pos, [0.1, 0, 0.2])
    np.testing.assert_allclose(lidar.pose.rpy(), [0, 0, 1.5])
    assert (ft.kind, ft.type_name, ft.source) == (DeviceKind.FORCE, 'force',
                                                  f'{tmp_path / "devices.yaml"}:2')


@pytest.mark.parametrize('key, value', [('angular_velocity', 0), ('dropout', 0.0),
                                        ('dropout', 1), ('force_bias', -2.0)])
def test_zero_noise_and_the_ends_of_the_ranges_are_accepted(key, value):
    assert noise_value(key, value) == float(value)


def test_a_noise_of_three_axes():
    assert noise_value('force', [0, 1, 2]) == (0.0, 1.0, 2.0)
    with pytest.raises(ValueError, match='noise force is negative'):
        noise_value('force', [0, -1, 2])
    with pytest.raises(ValueError, match=r'noise distance must be a finite number, not inf'):
        noise_value('distance', math.inf)


def test_a_one_pixel_wide_image_is_a_positive_integer(tmp_path, model):
    overlay = load_overlay(write(tmp_path, 'devices:\n  cam: { width: 1, height: 1 }\n'), model)
    assert dict(overlay.overrides['cam']) == {'width': 1, 'height': 1}
