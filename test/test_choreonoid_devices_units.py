"""Choreonoid device nodes: Choreonoid's defaults, optical frames, units, bounds, plug-ins."""

import math
import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import choreonoid
from body_bridge.formats.choreonoid import nodes
from body_bridge.model import DeviceKind


def write(tmp_path, elements_text, name='d.body'):
    path = tmp_path / name
    path.write_text('format: ChoreonoidBody\nformat_version: 1.0\nlinks:\n  - name: a\n'
                    '    elements:\n' + textwrap.indent(
                        textwrap.dedent(elements_text).strip('\n'), '      ') + '\n')
    return path


def devices(tmp_path, elements_text):
    """The devices (by name) and the warnings (without their place) of a one-link body."""
    model = choreonoid.load(write(tmp_path, elements_text))
    return {d.name: d for d in model.devices}, [w.split(': ', 1)[1] for w in model.warnings]


def refused(tmp_path, elements_text) -> ModelError:
    path = write(tmp_path, elements_text, 'bad.body')
    with pytest.raises(ModelError) as caught:
        choreonoid.load(path)
    assert caught.value.path == str(path) and '\n' not in str(caught.value)
    return caught.value


#: The model's device frame looks along +x with +z up: its columns in the device node's frame.
LOOKS = {
    'gl': [[0, -1, 0], [0, 0, 1], [-1, 0, 0]],  # look -Z, up +Y
    'cv': [[0, -1, 0], [0, 0, -1], [1, 0, 0]],  # look +Z, up -Y
    'robotics': [[1, 0, 0], [0, 1, 0], [0, 0, 1]],  # look +X, up +Z
}


@pytest.mark.parametrize('frame', ['gl', 'cv', 'robotics', 'CV'])
def test_optical_frames_by_name(tmp_path, frame):
    found, said = devices(tmp_path, f'- {{ type: Camera, name: cam, optical_frame: {frame} }}\n'
                          f'- {{ type: RangeSensor, name: scan, optical_frame: {frame} }}')
    for name in ('cam', 'scan'):
        np.testing.assert_allclose(found[name].pose.rot, LOOKS[frame.lower()], atol=1e-15)
    assert said == []


def test_optical_frame_rotation_and_a_bad_name(tmp_path):
    found, _ = devices(tmp_path, '- { type: Camera, name: cam, '
                       'optical_frame_rotation: [1, 0, 0, 180] }')
    np.testing.assert_allclose(found['cam'].pose.rot, LOOKS['cv'], atol=1e-12)
    found, _ = devices(tmp_path, '- { type: Camera, name: cam, rotation: [0, 0, 1, 90], '
                       'translation: [1, 2, 3] }')
    turn = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(found['cam'].pose.rot, turn @ np.array(LOOKS['gl']), atol=1e-12)
    np.testing.assert_allclose(found['cam'].pose.pos, [1, 2, 3])
    err = refused(tmp_path, '- { type: Camera, optical_frame: ros }')
    assert (err.line, err.message) == (6, "optical_frame 'ros' is not one of gl, cv, robotics")


def test_camera_defaults_are_choreonoid_s(tmp_path):
    found, said = devices(tmp_path, '- { type: Camera, id: 3 }')
    cam = found['a_Camera']
    assert cam.kind == DeviceKind.CAMERA and cam.link == 'a' and cam.type_name == 'Camera'
    assert dict(cam.params) == {
        'id': 3, 'on': True, 'format': 'COLOR', 'lens_type': 'NORMAL', 'width': 640,
        'height': 480, 'field_of_view': pytest.approx(math.pi / 4), 'near_clip_distance': 0.04,
        'far_clip_distance': 200.0, 'frame_rate': 30.0}
    assert said == []


def test_camera_values_in_the_file_s_units(tmp_path):
    found, _ = devices(tmp_path, '- { type: Camera, name: c, on: false, format: COLOR_DEPTH, '
                       'width: 1, height: 2.0, field_of_view: 90, frame_rate: 15, '
                       'min_distance: 0.2, max_distance: 8, detection_rate: 0.9, '
                       'error_deviation: 0.01 }\n'
                       '- { type: Camera, name: omni, lens_type: DUAL_FISHEYE, '
                       'field_of_view: 60 }')
    params = found['c'].params
    assert (params['on'], params['format'], params['width'], params['height']) == \
        (False, 'COLOR_DEPTH', 1, 2)
    assert params['field_of_view'] == pytest.approx(math.pi / 2) and params['frame_rate'] == 15
    assert (params['min_distance'], params['max_distance'], params['detection_rate'],
            params['error_deviation']) == (0.2, 8, 0.9, 0.01)
    assert found['omni'].params['field_of_view'] == pytest.approx(2 * math.pi)


@pytest.mark.parametrize('keys, message', [
    ('format: RGB', "camera format 'RGB' is not one of COLOR, DEPTH, COLOR_DEPTH, POINT_CLOUD, "
     'COLOR_POINT_CLOUD'),
    ('lens_type: WIDE', "lens_type 'WIDE' is not one of NORMAL, FISHEYE, DUAL_FISHEYE"),
    ('width: 0', 'camera width must be a positive whole number, found 0'),
    ('height: 2.5', 'camera height must be a positive whole number, found 2.5'),
])
def test_bad_camera_values_are_one_line(tmp_path, keys, message):
    err = refused(tmp_path, f'- {{ type: Camera, {keys} }}')
    assert (err.line, err.message) == (6, message)


def test_range_sensor_defaults_and_angles(tmp_path):
    found, _ = devices(tmp_path, '- { type: RangeSensor, name: r }\n'
                       '- { type: RangeSensor, name: s, scan_angle: 90, scan_step: 0.5, '
                       'pitch_range: 30, pitch_step: 1, scan_rate: 20, min_distance: 0.2, '
                       'max_distance: 30 }')
    assert dict(found['r'].params) == {
        'on': True, 'yaw_range': pytest.approx(math.radians(120)), 'yaw_step': 1.0,
        'pitch_range': 0.0, 'pitch_step': 0.0, 'scan_rate': 10.0, 'min_distance': 0.1,
        'max_distance': 10.0}
    s = found['s'].params
    assert (s['yaw_range'], s['yaw_step']) == pytest.approx((math.pi / 2, math.radians(0.5)))
    assert (s['pitch_range'], s['pitch_step']) == pytest.approx((math.pi / 6, math.radians(1)))
    assert (s['scan_rate'], s['min_distance'], s['max_distance']) == (20, 0.2, 30)


@pytest.mark.parametrize('key', ['yaw_range', 'yaw_step', 'pitch_range', 'pitch_step',
                                 'scan_rate', 'max_distance'])
def test_negative_range_values_are_refused(tmp_path, key):
    found, _ = devices(tmp_path, f'- {{ type: RangeSensor, {key}: 0.5 }}')
    assert found['a_RangeSensor'].params[key] > 0
    err = refused(tmp_path, f'- {{ type: RangeSensor, {key}: -1 }}')
    assert (err.line, err.message) == (6, f'range sensor {key} must not be negative')


def test_lights(tmp_path):
    found, _ = devices(tmp_path, '- { type: SpotLight, name: spot }\n'
                       '- { type: PointLight, name: bulb, color: [1, 0.5, 0], intensity: 0.3, '
                       'attenuation: [1, 0.1, 0.01] }\n'
                       '- { type: SpotLight, name: beam, direction: [0, 3, 4], beam_width: 30, '
                       'cut_off_angle: 20, cut_off_exponent: 2 }')
    assert dict(found['spot'].params) == {
        'on': True, 'color': (1.0, 1.0, 1.0), 'intensity': 1.0, 'attenuation': (1.0, 0.0, 0.0),
        'direction': (0.0, 0.0, -1.0), 'beam_width': pytest.approx(math.pi / 2),
        'cut_off_angle': pytest.approx(math.pi / 4), 'cut_off_exponent': 1.0}
    assert dict(found['bulb'].params) == {'on': True, 'color': (1.0, 0.5, 0.0), 'intensity': 0.3,
                                          'attenuation': (1.0, 0.1, 0.01)}
    beam = found['beam'].params
    assert beam['direction'] == pytest.approx((0, 0.6, 0.8))
    assert (beam['beam_width'], beam['cut_off_angle']) == pytest.approx(
        (math.radians(30), math.radians(20)))
    assert beam['cut_off_exponent'] == 2.0
    err = refused(tmp_path, '- { type: SpotLight, direction: [0, 0, 0] }')
    assert (err.line, err.message) == (6, 'light direction is the zero vector')


def test_inertial_and_force_sensor_ranges(tmp_path):
    found, said = devices(tmp_path, '- { type: RateGyroSensor, name: g, '
                          'max_angular_velocity: [90, 180, 360] }\n'
                          '- { type: IMU, name: imu, max_acceleration: [10, 20, 30], '
                          'max_angular_velocity: [90, 90, 90] }\n'
                          '- { type: ForceSensor, name: f, max_force: [1, 2, 3], '
                          'max_torque: [4, 5, 6] }\n'
                          '- { type: AccelerationSensor, name: acc }')
    assert found['g'].params['max_angular_velocity'] == pytest.approx(
        (math.pi / 2, math.pi, 2 * math.pi))
    assert found['imu'].params['max_acceleration'] == (10, 20, 30)
    assert found['imu'].params['max_angular_velocity'] == pytest.approx((math.pi / 2,) * 3)
    assert (found['f'].params['max_force'], found['f'].params['max_torque']) == \
        ((1, 2, 3), (4, 5, 6))
    assert dict(found['acc'].params) == {'on': True}
    assert found['acc'].kind == DeviceKind.ACCELEROMETER and said == []


def test_unused_keys_of_a_device_are_warned(tmp_path):
    _, said = devices(tmp_path, '- { type: ForceSensor, name: f, colour: red, on: true }')
    assert said == ["ForceSensor: key 'colour' is not supported and was ignored"]


def test_plug_in_devices_keep_their_parameters(tmp_path):
    found, said = devices(tmp_path, '- { type: RotorDevice, name: r, id: 2, '
                          'translation: [0, 0, 1], max_thrust: 5, on: true, '
                          'direction: [0, 0, 1] }')
    rotor = found['r']
    assert rotor.kind == DeviceKind.OTHER and rotor.type_name == 'RotorDevice'
    assert dict(rotor.params) == {'id': 2, 'max_thrust': 5, 'on': True, 'direction': [0, 0, 1]}
    np.testing.assert_allclose(rotor.pose.pos, [0, 0, 1])
    assert said == ['RotorDevice \'r\' is kept as a device of kind "other" with its parameters '
                    'as written; body_bridge does not simulate it']


def test_a_plug_in_device_s_expanded_parameters_are_bounded(tmp_path, monkeypatch):
    from body_bridge.formats.choreonoid import devices as module
    monkeypatch.setattr(module, 'MAX_PLAIN_VALUES', 4)
    monkeypatch.setattr(nodes, 'MAX_PLAIN_VALUES', 4)
    found, _ = devices(tmp_path, '- { type: Thruster, a: [1, 2], b: 3 }')
    assert dict(found['a_Thruster'].params) == {'a': [1, 2], 'b': 3}
    err = refused(tmp_path, '- { type: Thruster, a: [1, 2], b: [3] }')
    assert err.line == 6 and err.message == ('the parameters of this device hold more than 4 '
                                             'values once its aliases are expanded')


def test_a_device_under_a_scale_is_refused(tmp_path):
    err = refused(tmp_path, '- { type: Transform, scale: [2, 2, 2], elements: '
                  '[ { type: Camera } ] }')
    assert err.message == ('Camera is under a scaling Transform; a device frame cannot be '
                           'scaled')
    found, _ = devices(tmp_path, '- { type: Transform, scale: [1, 1, 1], elements: '
                       '[ { type: Camera, name: c } ] }')
    assert 'c' in found


def test_a_device_s_own_scale_is_not_read(tmp_path):
    """Choreonoid's devices take translation and rotation, not scale: the key is warned."""
    found, said = devices(tmp_path, '- { type: Camera, name: c, scale: [2, 2, 2] }')
    np.testing.assert_allclose(found['c'].pose.rot, LOOKS['gl'], atol=1e-15)
    assert said == ["Camera: key 'scale' is not supported and was ignored"]
