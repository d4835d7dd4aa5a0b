"""Choreonoid device nodes into model devices, with all their parameters in SI units.

Facts from the Body file reference and Choreonoid's device classes:

* Cameras and range sensors look along their -Z axis with +Y up (the "GL" optical frame).
  Newer files state the optical frame instead: ``optical_frame`` ``gl``, ``cv`` (look +Z,
  +Y down) or ``robotics`` (look +X, +Z up), or ``optical_frame_rotation``, the rotation
  of the GL frame in the device frame. The model's device frame looks along +x with +z up.
* Defaults are Choreonoid's: cameras 640x480, 45 degree field of view, clip 0.04..200 m,
  30 Hz; range sensors a 120 degree yaw range in 1 rad steps, 0.1..10 m, 10 Hz; spot lights
  look along -Z with a 90 degree beam width, 45 degree cut-off angle, exponent 1.
* Plug-in device types (AGX/PhysX tracks, weather effects, markers, holders, rotors, Livox
  lidars ...) are kept as devices of kind OTHER, with their parameters as written.
"""

from __future__ import annotations

import math

import numpy as np

from ...model import Device, DeviceKind, Pose, freeze
from .nodes import MAX_PLAIN_VALUES, Frame, Node, TooLarge, key_text, plain

__all__ = ['DEVICE_KINDS', 'OTHER_DEVICE_TYPES', 'read_device']

DEVICE_KINDS = {
    'AccelerationSensor': DeviceKind.ACCELEROMETER,
    'RateGyroSensor': DeviceKind.GYRO,
    'Imu': DeviceKind.IMU,
    'IMU': DeviceKind.IMU,
    'ForceSensor': DeviceKind.FORCE,
    'Camera': DeviceKind.CAMERA,
    'CameraDevice': DeviceKind.CAMERA,
    'RangeSensor': DeviceKind.RANGE,
    'SpotLight': DeviceKind.LIGHT,
    'PointLight': DeviceKind.LIGHT,
}

#: Device types of Choreonoid and its plug-ins that real models carry; kept as OTHER.
OTHER_DEVICE_TYPES = frozenset({
    'Holder', 'Attachment', 'ConveyorDevice', 'MarkerDevice', 'DigitalIoDevice',
    'SignalIoDevice', 'CompetitorMarker', 'FireDevice', 'SmokeDevice', 'RainDevice',
    'SnowDevice', 'RainSnowDevice', 'FountainDevice', 'AGXVehicleContinuousTrackDevice',
    'AGXWireDevice', 'AGXBreakableJointDevice', 'PxContinuousTrack', 'LivoxMid360',
    'RotorDevice', 'Thruster', 'MulticopterRotor', 'BeamSensor', 'LaserPointer',
})

#: GL optical frame (look -Z, +Y up) in the device frame, per ``optical_frame`` name.
_OPTICAL = {
    'gl': np.eye(3),
    'cv': np.diag([1.0, -1.0, -1.0]),
    'robotics': np.array([[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
}
# The model's look frame (x forward, z up) in the GL optical frame.
_LOOK_FRAME = np.array([[0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]])

_CAMERA_FORMATS = ('COLOR', 'DEPTH', 'COLOR_DEPTH', 'POINT_CLOUD', 'COLOR_POINT_CLOUD')
_LENS_TYPES = ('NORMAL', 'FISHEYE', 'DUAL_FISHEYE')
_COMMON_KEYS = frozenset({'type', 'name', 'id', 'on', 'translation', 'rotation', 'elements',
                          'optical_frame', 'optical_frame_rotation'})


def read_device(node: Node, node_type: str, frame: Frame, link: str) -> tuple[Device, Frame]:
    """A device node as a model device on ``link``.

    Args:
        node: the device node.
        node_type: its type (a key of DEVICE_KINDS or OTHER_DEVICE_TYPES).
        frame: the node's parent frame in the link frame.
        link: the link it is fixed to.

    Returns:
        (device, frame of the node's children).

    Raises:
        ModelError: a bad value, or a device under a scaling transform.
    """
    inner = frame.of_node(node, scale=False)
    pose = inner.pose()
    if pose is None:
        raise node.error(f'{node_type} is under a scaling Transform; a device frame cannot '
                         'be scaled')
    name = node.string('name') or f'{link}_{node_type}'
    kind = DEVICE_KINDS.get(node_type, DeviceKind.OTHER)
    params: dict = {}
    device_id = node.integer('id')
    if device_id is not None:
        params['id'] = device_id
    if kind == DeviceKind.OTHER:
        params.update(_other_params(node))
        node.ctx.warn(node.line, f'{node_type} {name!r} is kept as a device of kind "other" '
                      'with its parameters as written; body_bridge does not simulate it')
    else:
        params['on'] = node.boolean('on', default=True)
        if kind == DeviceKind.LIGHT:
            _light(node, params, spot=node_type == 'SpotLight')
        else:
            _READERS[kind](node, params)
        if kind in (DeviceKind.CAMERA, DeviceKind.RANGE):
            pose = pose @ Pose(np.zeros(3), _optical(node) @ _LOOK_FRAME)
        node.warn_unused(node_type, _COMMON_KEYS)
    return Device(name, kind, link, pose, freeze(params), node_type, node.where()), inner


def _optical(node: Node) -> np.ndarray:
    """The GL optical frame's rotation in the device frame."""
    if node.has('optical_frame_rotation'):
        return node.rotation('optical_frame_rotation')
    name = node.string('optical_frame', default='gl')
    if name.lower() not in _OPTICAL:
        raise node.error(f'optical_frame {name!r} is not one of gl, cv, robotics')
    return _OPTICAL[name.lower()]


def _other_params(node: Node) -> dict:
    """Every key of a plug-in device as written (nothing warns about its keys)."""
    skip = {'type', 'name', 'id', 'translation', 'rotation', 'elements'}
    budget = [MAX_PLAIN_VALUES]
    try:
        return {key_text(key, node.ctx, node.line): plain(node.data[key], budget=budget)
                for snake_key, key in node.keys.items() if snake_key not in skip}
    except TooLarge as err:
        raise node.error(f'the parameters of this device hold {err}') from None


def _vector_param(node: Node, params: dict, key: str, scale: float = 1.0) -> None:
    value = node.vector(key)
    if value is not None:
        params[key] = tuple(float(v) * scale for v in value)


def _number_params(node: Node, params: dict, defaults: dict, angles: frozenset = frozenset()):
    for key, default in defaults.items():
        value = node.angle(key) if key in angles else node.number(key)
        if value is not None:
            params[key] = value
        elif default is not None:
            params[key] = default


def _accelerometer(node: Node, params: dict) -> None:
    _vector_param(node, params, 'max_acceleration')


def _gyro(node: Node, params: dict) -> None:
    _vector_param(node, params, 'max_angular_velocity', node.ctx.angle_scale)


def _imu(node: Node, params: dict) -> None:
    _accelerometer(node, params)
    _gyro(node, params)


def _force(node: Node, params: dict) -> None:
    _vector_param(node, params, 'max_force')
    _vector_param(node, params, 'max_torque')


def _camera(node: Node, params: dict) -> None:
    fmt = node.string('format', default='COLOR')
    if fmt not in _CAMERA_FORMATS:
        raise node.error(f'camera format {fmt!r} is not one of {", ".join(_CAMERA_FORMATS)}')
    lens = node.string('lens_type', default='NORMAL')
    if lens not in _LENS_TYPES:
        raise node.error(f'lens_type {lens!r} is not one of {", ".join(_LENS_TYPES)}')
    params['format'] = fmt
    params['lens_type'] = lens
    for key, default in (('width', 640), ('height', 480)):
        value = node.number(key, default=default)
        if value <= 0 or not float(value).is_integer():
            raise node.error(f'camera {key} must be a positive whole number, found {value:g}')
        params[key] = int(value)
    _number_params(node, params, {
        'field_of_view': math.pi / 4, 'near_clip_distance': 0.04, 'far_clip_distance': 200.0,
        'frame_rate': 30.0, 'min_distance': None, 'max_distance': None,
        'detection_rate': None, 'error_deviation': None,
    }, angles=frozenset({'field_of_view'}))
    if lens == 'DUAL_FISHEYE':
        params['field_of_view'] = 2 * math.pi  # omnidirectional; the file's value is unused


def _range(node: Node, params: dict) -> None:
    params['yaw_range'] = node.angle('yaw_range', 'scan_angle', default=math.radians(120.0))
    params['yaw_step'] = node.angle('yaw_step', 'scan_step', default=1.0)
    _number_params(node, params, {
        'pitch_range': 0.0, 'pitch_step': 0.0, 'scan_rate': 10.0, 'min_distance': 0.1,
        'max_distance': 10.0, 'detection_rate': None, 'error_deviation': None,
    }, angles=frozenset({'pitch_range', 'pitch_step'}))
    for key in ('yaw_range', 'yaw_step', 'pitch_range', 'pitch_step', 'scan_rate',
                'max_distance'):
        if params[key] < 0:
            raise node.error(f'range sensor {key} must not be negative')


def _light(node: Node, params: dict, spot: bool) -> None:
    params['color'] = tuple(node.vector('color', default=(1.0, 1.0, 1.0)).tolist())
    params['intensity'] = node.number('intensity', default=1.0)
    params['attenuation'] = tuple(node.vector('attenuation', default=(1.0, 0.0, 0.0)).tolist())
    if spot:
        direction = node.vector('direction', default=(0.0, 0.0, -1.0))
        if np.linalg.norm(direction) == 0:
            raise node.error('light direction is the zero vector')
        params['direction'] = tuple((direction / np.linalg.norm(direction)).tolist())
        params['beam_width'] = node.angle('beam_width', default=math.pi / 2)
        params['cut_off_angle'] = node.angle('cut_off_angle', default=math.pi / 4)
        params['cut_off_exponent'] = node.number('cut_off_exponent', default=1.0)


_READERS = {
    DeviceKind.ACCELEROMETER: _accelerometer,
    DeviceKind.GYRO: _gyro,
    DeviceKind.IMU: _imu,
    DeviceKind.FORCE: _force,
    DeviceKind.CAMERA: _camera,
    DeviceKind.RANGE: _range,
}
