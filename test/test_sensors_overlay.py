"""Device overlay files: devices added to any link of any model, rates, noise, on/off."""

import math
import textwrap

import numpy as np
import pytest

from body_bridge.device_overlay import apply_overlay, load_overlay
from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.model import DeviceKind
from body_bridge.sim.sensing.sensors import SensorSuite
from body_bridge.sim.simulation import Simulation
from body_bridge.urdf import to_urdf

from conftest import SAMPLE_ARM, shared_model


def write(tmp_path, text, name='devices.yaml'):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


@pytest.fixture(scope='module')
def arm():
    return load_model(SAMPLE_ARM)


def test_new_devices_are_added_to_any_link(arm, tmp_path):
    path = write(tmp_path, """
        seed: 3
        devices:
          tool_imu:
            kind: imu
            link: hand
            xyz: [ 0.0, 0.0, 0.1 ]
            rpy: [ 0.0, 0.0, 1.5707963267948966 ]
            orientation: true
            rate: 250.0
            noise: { orientation: 0.001 }
          side_cam:
            kind: camera
            link: base
            xyz: [ 0.2, 0.0, 0.3 ]
            width: 64
            height: 48
            field_of_view: 1.0
            on: false
    """)
    overlay = load_overlay(path, arm)
    model = apply_overlay(arm, overlay)
    assert [d.name for d in model.devices][-2:] == ['tool_imu', 'side_cam']
    imu = next(d for d in model.devices if d.name == 'tool_imu')
    assert imu.kind == DeviceKind.IMU and imu.link == 'hand' and imu.params['orientation']
    np.testing.assert_allclose(imu.pose.pos, (0, 0, 0.1))
    np.testing.assert_allclose(imu.pose.rot @ (1, 0, 0), (0, 1, 0), atol=1e-12)
    assert overlay.seed == 3
    assert overlay.settings['tool_imu'].rate == 250.0
    assert overlay.settings['side_cam'].on is False
    assert imu.source == f'{path}:4'
    # The URDF gets a frame for each new device (and an optical frame for the camera).
    urdf = to_urdf(model)
    assert '<link name="tool_imu"/>' in urdf and '<link name="side_cam_optical_frame"/>' in urdf

    sim = Simulation(model)
    suite = SensorSuite(sim, overlay)
    assert suite.samplers['tool_imu'].rate == 250.0
    assert not suite.samplers['side_cam'].enabled
    reading = suite.samplers['tool_imu'].read()
    # The hand points up at the reference pose, the IMU is turned 90 degrees about z.
    half = math.sqrt(0.5)
    alignment = abs(float(np.dot(reading.orientation, (half, 0, 0, half))))
    assert alignment == pytest.approx(1, abs=1e-5)


def test_devices_of_the_model_take_settings_and_parameters(arm, tmp_path):
    path = write(tmp_path, """
        devices:
          base_scan: { rate: 5.0, max_distance: 4.0, noise: { distance: 0.01 } }
          hand_camera:
            on: false
    """)
    overlay = load_overlay(path, arm)
    model = apply_overlay(arm, overlay)
    scan = next(d for d in model.devices if d.name == 'base_scan')
    assert scan.params['max_distance'] == 4.0 and scan.params['yaw_step'] > 0  # others kept
    assert overlay.settings['base_scan'].rate == 5.0
    assert dict(overlay.settings['base_scan'].noise) == {'distance': 0.01}
    assert overlay.settings['hand_camera'].on is False  # YAML 1.1 reads a bare 'on' as true
    assert len(model.devices) == len(arm.devices)


def test_an_empty_path_is_no_overlay(arm):
    overlay = load_overlay('', arm)
    assert apply_overlay(arm, overlay) is arm


def test_a_chrono_style_model_without_devices_gets_sensors(tmp_path):
    # Models that declare no devices (Chrono) get them only from an overlay.
    body = tmp_path / 'bare.body'
    body.write_text('format: ChoreonoidBody\nlinks:\n  - name: chassis\n    joint_type: free\n'
                    '    translation: [ 0, 0, 0.5 ]\n    mass: 3.0\n'
                    '    inertia: [ 0.1, 0, 0, 0.1, 0, 0.1 ]\n    elements:\n'
                    '      - { type: Shape, geometry: { type: Box, size: [ 0.4, 0.3, 0.2 ] } }\n')
    model = load_model(body)
    assert model.devices == ()
    overlay = load_overlay(write(tmp_path, """
        devices:
          chassis_imu: { kind: accelerometer, link: chassis }
          chassis_lidar: { kind: range, link: chassis, xyz: [ 0.2, 0, 0 ], yaw_range: 1.0,
                           yaw_step: 0.1, max_distance: 5.0 }
    """), model)
    sim = Simulation(apply_overlay(model, overlay))
    suite = SensorSuite(sim, overlay)
    for _ in range(100):  # it falls on the ground and comes to rest
        sim.step_period()
    np.testing.assert_allclose(suite.samplers['chassis_imu'].read().linear_acceleration,
                               (0, 0, 9.81), atol=0.02)
    assert suite.samplers['chassis_lidar'].read().ranges.shape == (1, 11)


@pytest.mark.parametrize('text, line, message', [
    ('devices:\n  nope: { kind: imu }\n', 2,
     "device 'nope' is not in the model: a new device needs kind and link"),
    ('devices:\n  x: { kind: sonar, link: base }\n', 2,
     "device 'x': kind 'sonar' is not one of accelerometer, gyro, imu, force, camera, range"),
    ('devices:\n  x: { kind: imu, link: nowhere }\n', 2,
     "device 'x': link 'nowhere' is not a link of model 'sample_arm'"),
    ('devices:\n  base_imu:\n    link: hand\n', 3,
     "device 'base_imu' is already in the model: link cannot be changed"),
    ('devices:\n  base_imu: { rate: -1 }\n', 2, "device 'base_imu': rate must be positive"),
    ('devices:\n  base_imu: { noise: { force: 1.0 } }\n', 2,
     "device 'base_imu': a imu has no noise 'force' (known: linear_acceleration, "
     'linear_acceleration_bias, '),
    ('devices:\n  base_imu: { noise: { angular_velocity_bias: [ 1, 2 ] } }\n', 2,
     "device 'base_imu': noise angular_velocity_bias must be a number or a list of 3 numbers"),
    ('devices:\n  base_scan: { noise: { dropout: 1.5 } }\n', 2,
     "device 'base_scan': noise dropout is a probability (0..1), not 1.5"),
    ('devices:\n  base_scan: { noise: { resolution: [ 1, 1, 1 ] } }\n', 2,
     "device 'base_scan': noise resolution must be a finite number, not [1, 1, 1]"),
    ('devices:\n  wrist_force: { noise: { force_turn_on_bias: -1 } }\n', 2,
     "device 'wrist_force': noise force_turn_on_bias is negative"),
    ('devices:\n  base_imu: { noise: { angular_velocity: -1.0 } }\n', 2,
     "device 'base_imu': noise angular_velocity is negative"),
    ('devices:\n  hand_camera: { width: 0 }\n', 2,
     "device 'hand_camera': width must be a positive integer"),
    ('devices:\n  x: { kind: range, link: base, xyz: [ 1, 2 ] }\n', 2,
     "device 'x': xyz must be a list of 3 finite numbers"),
    ('devices:\n  wrist_force: { fov: 1 }\n', 2,
     "device 'wrist_force': unknown key 'fov' for a force"),
    ('seed: -3\n', 1, 'seed must be a non-negative integer'),
    ('sensors: {}\n', 1, "unknown key 'sensors'"),
    ('devices: [ a, b ]\n', 1, 'devices must be a mapping from device name to its entry'),
    ('devices:\n  x: [ 1 ]\n', 2, "device 'x': expected a mapping"),
    ('devices: {\n', 2, 'invalid YAML'),
])
def test_bad_overlays_fail_with_one_line(arm, tmp_path, text, line, message):
    path = write(tmp_path, text)
    with pytest.raises(ModelError) as err:
        load_overlay(path, arm)
    assert str(err.value).startswith(f'{path}:{line}: {message}')
    assert '\n' not in str(err.value)


def test_a_missing_overlay_file_is_one_line(arm, tmp_path):
    with pytest.raises(ModelError, match=r'missing\.yaml: cannot read file'):
        load_overlay(tmp_path / 'missing.yaml', arm)


@pytest.mark.corpus
def test_sr1_overlay_adds_a_head_camera_to_a_real_model(tmp_path):
    model = load_model(shared_model('choreonoid/share/model/SR1/SR1.body'))
    overlay = load_overlay(write(tmp_path, """
        devices:
          ChestCamera: { kind: camera, link: CHEST, xyz: [ 0.2, 0, 0.3 ], width: 80, height: 60 }
          WaistIMU: { orientation: true, rate: 500.0 }
    """), model)
    merged = apply_overlay(model, overlay)
    assert len(merged.devices) == len(model.devices) + 1
    assert next(d for d in merged.devices if d.name == 'WaistIMU').params['orientation'] is True
