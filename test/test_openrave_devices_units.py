"""OpenRAVE sensors as devices (body_bridge.formats.openrave.devices): each sensor type's kind,
parameters and defaults as OpenRAVE's base sensors have them, and one line for a parameter
without its number."""

from __future__ import annotations

import math

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.openrave.devices import CAMERA_TURN, sensor_device
from body_bridge.formats.openrave.raw import RawSensor
from body_bridge.formats.openrave.xmlfile import parse_bytes
from body_bridge.model import DeviceKind


def device(kind: str, params: str = ''):
    """The device of ``<AttachedSensor><sensor type=kind>params</sensor></AttachedSensor>``."""
    attached = parse_bytes(f'<AttachedSensor name="s">\n<sensor type="{kind}">{params}'
                           '</sensor></AttachedSensor>'.encode(), 'r.robot.xml')
    element = attached.children[0]
    sensor = RawSensor('s', attached, type=kind, params=element.children,
                       sensor_element=element)
    warnings = []
    found = sensor_device(sensor, 's', 'base', np.eye(4),
                          lambda e, m: warnings.append(f'{e.where()}: {m}'))
    return found, warnings


@pytest.mark.parametrize('kind, expected', [
    ('BaseCamera', DeviceKind.CAMERA), ('basecamera', DeviceKind.CAMERA),
    ('BaseLaser2D', DeviceKind.RANGE), ('BaseSpinningLaser2D', DeviceKind.RANGE),
    ('BaseFlashLidar3D', DeviceKind.RANGE), ('BaseForce6D', DeviceKind.FORCE),
    ('MyIMU', DeviceKind.IMU), ('WristForceSensor', DeviceKind.FORCE),
    ('UsbCamera', DeviceKind.CAMERA), ('HokuyoLaser', DeviceKind.RANGE),
    ('VelodyneLidar', DeviceKind.RANGE), ('Thermometer', DeviceKind.OTHER),
])
def test_kind_of_each_sensor_type(kind, expected):
    found, warnings = device(kind)
    assert found.kind == expected and found.type_name == kind
    assert found.source == 'r.robot.xml:2'     # the <sensor> element, not <AttachedSensor>
    if expected == DeviceKind.OTHER:
        assert warnings == [f"r.robot.xml:2: sensor type '{kind}' is not known; kept as a "
                            'device of kind other']
    else:
        assert warnings == []


def test_camera_defaults_and_power():
    found, _ = device('BaseCamera')
    assert dict(found.params) == {'width': 640, 'height': 480, 'frame_rate': 5.0,
                                  'field_of_view': pytest.approx(math.radians(60))}
    np.testing.assert_allclose(found.pose.rot, CAMERA_TURN.rot)
    found, _ = device('BaseCamera', '<power>0</power><width>64</width><height>32</height>'
                                    '<KK>20 10 32 16</KK><color>1 1 1</color>')
    assert found.params['on'] is False
    assert found.params['field_of_view'] == pytest.approx(2 * math.atan(16 / 10))
    assert device('BaseCamera', '<power>1</power>')[0].params['on'] is True


def test_laser_defaults_power_and_spinning():
    found, _ = device('BaseLaser2D')
    assert dict(found.params) == {
        'min_angle': pytest.approx(-math.pi / 2), 'max_angle': pytest.approx(math.pi / 2),
        'resolution': pytest.approx(0.01), 'min_distance': 0.03, 'max_distance': 100.0,
        'scan_rate': 10.0}
    assert found.pose.is_identity()
    found, _ = device('BaseLaser2D', '<power>0</power><time_scan>0.05</time_scan>')
    assert found.params['on'] is False and found.params['scan_rate'] == pytest.approx(20.0)
    found, _ = device('BaseSpinningLaser2D')
    assert (found.params['spin_axis'], found.params['spin_position'],
            found.params['spin_speed']) == ((1.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.0)
    found, _ = device('BaseSpinningLaser2D', '<spinaxis>0 0 1</spinaxis>'
                                             '<spinpos>0 0.1 0</spinpos><spinspeed>3</spinspeed>')
    assert (found.params['spin_axis'], found.params['spin_position'],
            found.params['spin_speed']) == ((0.0, 0.0, 1.0), (0.0, 0.1, 0.0), 3.0)


def test_flash_lidar_looks_like_a_camera():
    found, warnings = device('BaseFlashLidar3D', '<color/>')
    assert dict(found.params) == {'width': 64, 'height': 64, 'min_distance': 0.0,
                                  'max_distance': 100.0}
    np.testing.assert_allclose(found.pose.rot, CAMERA_TURN.rot)
    assert warnings == []
    found, _ = device('BaseFlashLidar3D', '<KK>30 30 16 8</KK><width>32</width>'
                                          '<height>16</height><min_range>0.5</min_range>'
                                          '<maxrange>9</maxrange>')
    assert dict(found.params) == {'width': 32, 'height': 16, 'min_distance': 0.5,
                                  'max_distance': 9.0, 'fx': 30.0, 'fy': 30.0, 'cx': 16.0,
                                  'cy': 8.0}


def test_other_sensors_keep_their_parameters_as_numbers_or_text():
    found, _ = device('BaseForce6D', '<polarity>1</polarity><range>1 2 3</range>'
                                     '<label> wrist </label>')
    assert dict(found.params) == {'polarity': 1.0, 'range': (1.0, 2.0, 3.0), 'label': 'wrist'}


@pytest.mark.parametrize('kind, tag', [
    ('BaseCamera', 'width'), ('BaseCamera', 'height'), ('BaseCamera', 'framerate'),
    ('BaseLaser2D', 'minangle'), ('BaseFlashLidar3D', 'width'),
    ('BaseCamera', 'power'), ('BaseCamera', 'focal_length'), ('BaseLaser2D', 'minrange'),
    ('BaseLaser2D', 'scantime'), ('BaseFlashLidar3D', 'max_range'),
    *(('BaseLaser2D', tag) for tag in ('min_angle', 'maxangle', 'max_angle', 'resolution',
                                       'maxrange', 'max_range', 'min_range', 'time_scan',
                                       'time_increment', 'power')),
    *(('BaseFlashLidar3D', tag) for tag in ('height', 'maxrange', 'minrange', 'min_range',
                                            'scantime', 'time_scan', 'power')),
])
def test_a_parameter_without_its_number_is_one_line(kind, tag):
    with pytest.raises(ModelError) as info:
        device(kind, f'<{tag}> </{tag}>')
    assert str(info.value) == f'r.robot.xml:2: <{tag}> must hold at least 1 numbers, found 0'


def test_a_sensor_without_a_type_is_ignored_with_a_warning():
    attached = parse_bytes(b'<AttachedSensor name="s"/>', 'r.robot.xml')
    warnings = []
    assert sensor_device(RawSensor('s', attached), 's', 'base', np.eye(4),
                         lambda e, m: warnings.append(f'{e.where()}: {m}')) is None
    assert warnings == ["r.robot.xml:1: sensor 's' has no <sensor type=...>; it was ignored"]


def test_a_cameras_field_of_view_from_a_small_or_zero_focal_length():
    # field_of_view spans the shorter side (docs/sensors.md): 2 atan(side / 2 / focal)
    found, _ = device('BaseCamera', '<width>64</width><height>32</height>'
                                    '<KK>0.5 0.5 32 16</KK>')
    assert found.params['field_of_view'] == pytest.approx(2 * math.atan(16 / 0.5))
    # a focal length of 0 projects nothing: the default 60 degrees, no division by zero
    found, _ = device('BaseCamera', '<width>64</width><height>32</height><KK>0 0 32 16</KK>')
    assert found.params['field_of_view'] == pytest.approx(math.radians(60))


def test_a_lasers_colour_is_accepted_even_empty():
    # <color> only paints the beams in OpenRAVE's viewer: read without a warning or an error
    found, warnings = device('BaseLaser2D', '<color/><maxrange>4</maxrange>')
    assert warnings == [] and found.params['max_distance'] == 4.0
