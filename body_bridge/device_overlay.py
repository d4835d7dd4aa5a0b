"""Device overlays: a YAML file that adds devices to a model and sets their rate and noise.

Models without devices (Chrono, most OpenRAVE kinbodies) get sensors this way, and any
model's devices get a publishing rate, noise (white noise, biases, random walks, dropouts:
``NOISE_KEYS``, docs/sensors.md) and an initial on/off state. The file is
ours, so it speaks the neutral model's language: SI units, radians, device frames in the model
convention (cameras and range sensors look along +x with +z up). Example::

    seed: 7                          # noise seed: the same seed gives the same noise
    devices:
      base_imu:                      # a device of the model: settings only
        rate: 200.0                  # [Hz]
        noise: {linear_acceleration: 0.05, angular_velocity_random_walk: 2.0e-5}
      chassis_lidar:                 # a new device: kind and link are required
        kind: range
        link: CHASSIS
        xyz: [0.2, 0.0, 0.3]         # [m] in the link frame
        rpy: [0.0, 0.0, 0.0]         # [rad] roll, pitch, yaw (URDF convention)
        yaw_range: 4.71
        yaw_step: 0.0087
        max_distance: 30.0

Pure: no mujoco, no rclpy.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import ModelError
from .formats.yamlsource import line_of, load_yaml
from .model import Device, DeviceKind, Model, Pose, freeze

__all__ = ['DeviceSettings', 'Overlay', 'load_overlay', 'apply_overlay', 'NOISE_KEYS',
           'PARAM_TYPES', 'noise_value', 'JOINT_NOISE_KEYS']

_IMU_ACC = {'linear_acceleration': 'm/s^2', 'linear_acceleration_bias': 'm/s^2',
            'linear_acceleration_turn_on_bias': 'm/s^2',
            'linear_acceleration_noise_density': 'm/s^2/sqrt(Hz)',
            'linear_acceleration_random_walk': 'm/s^3/sqrt(Hz)'}
_IMU_GYRO = {'angular_velocity': 'rad/s', 'angular_velocity_bias': 'rad/s',
             'angular_velocity_turn_on_bias': 'rad/s',
             'angular_velocity_noise_density': 'rad/s/sqrt(Hz)',
             'angular_velocity_random_walk': 'rad/s^2/sqrt(Hz)'}
_RANGE_NOISE = {'distance': 'm', 'distance_per_meter': 'm/m', 'resolution': 'm',
                'dropout': 'probability'}

#: The noise a device kind accepts: key -> unit (docs/sensors.md says what each one does).
#: A key of a vector quantity takes one number for every axis or a list of three.
NOISE_KEYS: dict[DeviceKind, dict[str, str]] = {
    DeviceKind.ACCELEROMETER: _IMU_ACC,
    DeviceKind.GYRO: _IMU_GYRO,
    DeviceKind.IMU: {**_IMU_ACC, **_IMU_GYRO, 'orientation': 'rad'},
    DeviceKind.FORCE: {'force': 'N', 'force_bias': 'N', 'force_turn_on_bias': 'N',
                       'torque': 'N m', 'torque_bias': 'N m', 'torque_turn_on_bias': 'N m'},
    DeviceKind.RANGE: _RANGE_NOISE,
    DeviceKind.CAMERA: {'color': '8-bit levels', 'depth': 'm', 'depth_per_meter': 'm/m',
                        'depth_resolution': 'm', 'depth_dropout': 'probability'},
}
#: The Gaussian noise of joint_states (deviations, off by default).
JOINT_NOISE_KEYS = {'position': 'rad or m', 'velocity': 'rad/s or m/s'}
_PER_AXIS = ('linear_acceleration', 'angular_velocity', 'force', 'torque')


def _signed(key: str) -> bool:
    """A constant bias may be negative; deviations, densities, probabilities may not."""
    return key.endswith('_bias') and not key.endswith('_turn_on_bias')


def noise_value(key: str, value):
    """A noise setting checked: a number >= 0 (a bias: any finite number; a probability:
    0..1), or for a quantity of three axes also a list of three such numbers (a tuple).

    Raises:
        ValueError: why the value is not acceptable (``noise <key> ...``).
    """
    per_axis = key.startswith(_PER_AXIS)
    values = value if per_axis and isinstance(value, (list, tuple)) else None
    if values is not None and len(values) != 3:
        raise ValueError(f'noise {key} must be a number or a list of 3 numbers, not {value!r}')
    for v in values if values is not None else (value,):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f'noise {key} must be a finite number'
                             f'{" or a list of 3" if per_axis else ""}, not {value!r}')
        if v < 0 and not _signed(key):
            raise ValueError(f'noise {key} is negative')
        if key.endswith('dropout') and v > 1:
            raise ValueError(f'noise {key} is a probability (0..1), not {v!r}')
    if values is not None:
        return tuple(float(v) for v in values)
    return float(value)


_VEC3, _NUM, _POS, _INT, _BOOL, _STR = 'vec3', 'number', 'positive', 'int', 'bool', 'str'
_INERTIAL = {'max_acceleration': _VEC3, 'max_angular_velocity': _VEC3, 'orientation': _BOOL}

#: Device parameters an overlay may set, by kind (the names loaders use; SI, radians).
PARAM_TYPES: dict[DeviceKind, dict[str, str]] = {
    DeviceKind.ACCELEROMETER: {'max_acceleration': _VEC3},
    DeviceKind.GYRO: {'max_angular_velocity': _VEC3},
    DeviceKind.IMU: _INERTIAL,
    DeviceKind.FORCE: {'max_force': _VEC3, 'max_torque': _VEC3},
    DeviceKind.CAMERA: {
        'format': _STR, 'lens_type': _STR, 'width': _INT, 'height': _INT,
        'field_of_view': _POS, 'near_clip_distance': _POS, 'far_clip_distance': _POS,
        'frame_rate': _POS, 'fx': _POS, 'fy': _POS, 'cx': _NUM, 'cy': _NUM},
    DeviceKind.RANGE: {
        'yaw_range': _NUM, 'yaw_step': _NUM, 'pitch_range': _NUM, 'pitch_step': _NUM,
        'scan_rate': _POS, 'min_distance': _NUM, 'max_distance': _POS, 'detection_rate': _NUM,
        'error_deviation': _NUM},
}

_KINDS = {kind.value: kind for kind in PARAM_TYPES}
_SETTING_KEYS = frozenset({'rate', 'noise', 'on'})
_NEW_DEVICE_KEYS = frozenset({'kind', 'link', 'xyz', 'rpy'})


@dataclass(frozen=True)
class DeviceSettings:
    """How a device runs (not what it is).

    Attributes:
        rate: readings per simulated second [Hz]; None: the device's own rate.
        noise: noise setting -> value (``NOISE_KEYS``; a number, or three for the axes).
        on: initial state; None: the device's own ``on`` parameter (default on).
    """

    rate: float | None = None
    noise: Mapping = field(default_factory=lambda: freeze({}))
    on: bool | None = None


@dataclass(frozen=True)
class Overlay:
    """What a device overlay file says.

    Attributes:
        devices: devices to add to the model.
        overrides: device name -> parameters that replace the model's.
        settings: device name -> run-time settings.
        seed: seed of every device's noise generator.
        source: the file, for messages.
        joint_noise: ``position`` [rad or m] and ``velocity`` [rad/s or m/s] -> deviation of
            the Gaussian noise of ``joint_states`` (``JOINT_NOISE_KEYS``).
    """

    devices: tuple[Device, ...] = ()
    overrides: Mapping = field(default_factory=lambda: freeze({}))
    settings: Mapping = field(default_factory=lambda: freeze({}))
    seed: int = 0
    source: str | None = None
    joint_noise: Mapping = field(default_factory=lambda: freeze({}))


def load_overlay(path: str | os.PathLike | None, model: Model) -> Overlay:
    """Read a device overlay file for ``model`` (an empty overlay for an empty path).

    Raises:
        ModelError: ``path:line: message`` for anything the file gets wrong.
    """
    if not path:
        return Overlay()
    path = os.fspath(path)
    data = load_yaml(path)
    if data is None:
        return Overlay(source=path)
    if not isinstance(data, dict):
        raise ModelError(path, line_of(data, 1), 'a device overlay is a mapping with "devices"')
    unknown = set(data) - {'seed', 'devices', 'joint_states'}
    if unknown:
        raise ModelError(path, line_of(data, 1), f'unknown key {sorted(unknown)[0]!r} '
                         '(a device overlay has seed, devices and joint_states)')
    joint_noise = _joint_noise(path, data.get('joint_states'), line_of(data, 1))
    seed = data.get('seed', 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ModelError(path, line_of(data, 1),
                         f'seed must be a non-negative integer, not {seed!r}')
    entries = data.get('devices') or {}
    if not isinstance(entries, dict):
        raise ModelError(path, line_of(entries, line_of(data)),
                         'devices must be a mapping from device name to its entry')
    existing = {d.name: d for d in model.devices}
    added, overrides, settings = [], {}, {}
    for name, entry in entries.items():
        line = line_of(entry, line_of(entries))
        if not isinstance(entry, dict):
            raise ModelError(path, line, f'device {name!r}: expected a mapping')
        name = str(name)
        # YAML 1.1 reads a bare ``on`` key as the boolean true.
        entry = {('on' if key is True else key): value for key, value in entry.items()}
        if name in existing:
            if _NEW_DEVICE_KEYS & set(entry):
                key = sorted(_NEW_DEVICE_KEYS & set(entry))[0]
                raise ModelError(path, line, f'device {name!r} is already in the model: '
                                 f'{key} cannot be changed')
            kind = existing[name].kind
        else:
            kind = _new_kind(path, line, name, entry)
        params = _params(path, line, name, kind, entry)
        settings[name] = _settings(path, line, name, kind, entry)
        if name in existing:
            overrides[name] = freeze(params)
        else:
            added.append(_new_device(path, line, name, kind, entry, params, model))
    return Overlay(tuple(added), freeze(overrides), freeze(settings), seed, path,
                   freeze(joint_noise))


def _joint_noise(path, entry, line) -> dict:
    """``joint_states: {noise: {position: ..., velocity: ...}}`` checked."""
    if entry is None:
        return {}
    noise = entry.get('noise') if isinstance(entry, dict) else None
    if not isinstance(entry, dict) or set(entry) - {'noise'} or not isinstance(noise, dict):
        raise ModelError(path, line_of(entry, line), 'joint_states must be a mapping with '
                         'noise: {position: ..., velocity: ...}')
    return _noise(path, line, noise, JOINT_NOISE_KEYS, 'joint_states', 'joint_states has')


def _noise(path, line, noise: dict, allowed, what: str, owner: str) -> dict:
    """Each setting of a ``noise`` mapping checked against the keys ``allowed`` for it."""
    checked = {}
    for key, value in noise.items():
        if key not in allowed:
            raise ModelError(path, line_of(noise, line), f'{owner} no noise {key!r} '
                             f'(known: {", ".join(allowed)})')
        try:
            checked[key] = noise_value(key, value)
        except ValueError as err:
            raise ModelError(path, line_of(noise, line), f'{what}: {err}') from None
    return checked


def apply_overlay(model: Model, overlay: Overlay) -> Model:
    """The model with the overlay's devices added and its parameter overrides applied."""
    if not overlay.devices and not overlay.overrides:
        return model
    devices = []
    for device in model.devices:
        extra = overlay.overrides.get(device.name)
        if extra:
            device = dataclasses.replace(device, params=freeze({**device.params, **extra}))
        devices.append(device)
    return dataclasses.replace(model, devices=tuple(devices) + overlay.devices)


def _new_kind(path, line, name, entry) -> DeviceKind:
    kind = entry.get('kind')
    if kind is None or entry.get('link') is None:
        raise ModelError(path, line, f'device {name!r} is not in the model: a new device needs '
                         'kind and link')
    if kind not in _KINDS:
        raise ModelError(path, line, f'device {name!r}: kind {kind!r} is not one of '
                         f'{", ".join(_KINDS)}')
    return _KINDS[kind]


def _new_device(path, line, name, kind, entry, params, model: Model) -> Device:
    link = str(entry['link'])
    if link not in {lk.name for lk in model.links}:
        raise ModelError(path, line, f'device {name!r}: link {link!r} is not a link of '
                         f'model {model.name!r}')
    xyz = _vector(path, line, f'device {name!r}: xyz', entry.get('xyz', (0, 0, 0)))
    rpy = _vector(path, line, f'device {name!r}: rpy', entry.get('rpy', (0, 0, 0)))
    return Device(name, kind, link, Pose.from_rpy(rpy, xyz), freeze(params), kind.value,
                  f'{path}:{line}')


def _params(path, line, name, kind, entry) -> dict:
    types = PARAM_TYPES[kind]
    params = {}
    for key, value in entry.items():
        if key in _SETTING_KEYS or key in _NEW_DEVICE_KEYS:
            continue
        if key not in types:
            known = ', '.join(sorted(set(types) | _SETTING_KEYS))
            raise ModelError(path, line, f'device {name!r}: unknown key {key!r} for a '
                             f'{kind.value} (known: {known})')
        params[key] = _typed(path, line, f'device {name!r}: {key}', types[key], value)
    return params


def _settings(path, line, name, kind, entry) -> DeviceSettings:
    what = f'device {name!r}'
    rate = entry.get('rate')
    if rate is not None:
        rate = _typed(path, line, f'{what}: rate', _POS, rate)
    on = entry.get('on')
    if on is not None and not isinstance(on, bool):
        raise ModelError(path, line, f'{what}: on must be true or false, not {on!r}')
    noise = entry.get('noise') or {}
    if not isinstance(noise, dict):
        raise ModelError(path, line, f'{what}: noise must be a mapping of noise settings')
    noise = _noise(path, line, noise, NOISE_KEYS[kind], what, f'{what}: a {kind.value} has')
    return DeviceSettings(rate, freeze(noise), on)


def _typed(path, line, what: str, kind: str, value):
    if kind == _BOOL:
        if not isinstance(value, bool):
            raise ModelError(path, line, f'{what} must be true or false, not {value!r}')
        return value
    if kind == _STR:
        if not isinstance(value, str):
            raise ModelError(path, line, f'{what} must be a string, not {value!r}')
        return value
    if kind == _VEC3:
        return tuple(_vector(path, line, what, value))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ModelError(path, line, f'{what} must be a finite number, not {value!r}')
    if kind == _INT:
        if int(value) != value or value <= 0:
            raise ModelError(path, line, f'{what} must be a positive integer, not {value!r}')
        return int(value)
    if kind == _POS and value <= 0:
        raise ModelError(path, line, f'{what} must be positive, not {value!r}')
    return float(value)


def _vector(path, line, what: str, value) -> list[float]:
    if (not isinstance(value, (list, tuple)) or len(value) != 3 or
            any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
                for v in value)):
        raise ModelError(path, line, f'{what} must be a list of 3 finite numbers, not {value!r}')
    return [float(v) for v in value]
