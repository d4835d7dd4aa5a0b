"""Device samplers: one per simulated device, each reading its values from the MuJoCo state.

A sampler owns its schedule (rate), its noise generator (seeded: runs repeat) and its
saturation; ``read`` returns values in SI units in the device frame. This module has the base
class and the samplers of MuJoCo's own sensors (inertial, force); ``optical`` has the ray-cast
and rendered ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...device_overlay import DeviceSettings
from ...model import Device, DeviceKind
from ..names import SITE_PREFIX
from .noise import ROW, NoiseStreams, VectorNoise

__all__ = ['SITE_PREFIX', 'SCHEDULE_TOLERANCE', 'DeviceRefused', 'DeviceSampler',
           'InertialSampler', 'ForceSampler', 'InertialReading', 'WrenchReading',
           'RangeReading', 'ImageReading']

#: Sites and MuJoCo sensors of a device are named SITE_PREFIX + device name (+ ':' + quantity).
#: Time tolerance of the schedule [s] (far below any timestep).
SCHEDULE_TOLERANCE = 1e-7

#: Counts the changes of any sampler's noise or rate and the rebinding of any suite, in this
#: process (``batch.SensorBatch`` lays its array out again when it moved).
_CHANGES = [0]


def changes() -> int:
    """How many times a sampler's noise or rate changed, or a suite was bound again."""
    return _CHANGES[0]


def changed() -> None:
    """Count a change (see :func:`changes`)."""
    _CHANGES[0] += 1


@dataclass
class InertialReading:
    """Linear acceleration [m/s^2], angular velocity [rad/s], orientation (w, x, y, z) of the
    device frame in the world; a quantity the device does not report is None."""

    time: float
    linear_acceleration: np.ndarray | None
    angular_velocity: np.ndarray | None
    orientation: np.ndarray | None


@dataclass
class WrenchReading:
    """Force [N] and torque [N m] the link exerts through the sensor, in the sensor frame."""

    time: float
    force: np.ndarray
    torque: np.ndarray


@dataclass
class RangeReading:
    """Distances [m] of shape (pitch samples, yaw samples): +inf no return, -inf too close."""

    time: float
    ranges: np.ndarray


@dataclass
class ImageReading:
    """rgb (H, W, 3) uint8 and depth (H, W) float32 [m along the optical axis]; either None
    when not asked for. The arrays are reused by the next reading of the same camera."""

    time: float
    rgb: np.ndarray | None
    depth: np.ndarray | None


class DeviceRefused(Exception):
    """A device that cannot be simulated (the reason is the message)."""


# --- samplers ------------------------------------------------------------------------------


class DeviceSampler:
    """One device: its schedule, noise generator and state; subclasses read it.

    Attributes:
        device: the model's device.
        rate: readings per simulated second [Hz].
        enabled: whether it is read at all (switchable at run time).
        noise: noise setting -> value (``device_overlay.NOISE_KEYS``, SI units); change it
            with :meth:`set_noise`.
        noise_version: counts the changes of the noise (and of the rate, which scales it).
        sample_index: the index of the reading due last (0 before the first): noise draws
            are tied to it, not to the order of reads.
        warnings: what was ignored or changed in the device's parameters, one line each.
    """

    def __init__(self, sim, device: Device, settings: DeviceSettings, seed: int,
                 default_rate: float):
        self.sim = sim
        self.device = device
        self.name = device.name
        self.noise = dict(settings.noise)
        self.noise_version = 0
        self.warnings: list[str] = []
        self._seed = seed
        self.streams = NoiseStreams(seed, self.name)
        self.rng = self.streams.rng
        self.sample_index = self._count = 0
        self._read_index = -1
        rate = settings.rate or self._native_rate() or default_rate
        self.period = 1.0 / rate
        self.rate = rate
        on = settings.on if settings.on is not None else device.params.get('on', True)
        self.enabled = bool(on)
        self._next = 0.0
        self._body = sim.mj.body(self.mj_name(device.link)).id

    def mj_name(self, name: str) -> str:
        """The MuJoCo name of one of the model's elements (prefixed when the simulation
        shares its world with other models and says so)."""
        prefixed = getattr(self.sim, 'mj_name', None)
        return name if prefixed is None else prefixed(name)

    def _native_rate(self) -> float | None:
        return None

    def set_noise(self, key: str, value) -> None:
        """Change one noise setting (0: none) from the next reading on."""
        self.noise[key] = value
        self.noise_version += 1
        changed()
        self._noise_changed()

    def _noise_changed(self) -> None:
        """Rebuild the noise models from :attr:`noise` (subclasses)."""

    def _at_sample(self) -> np.random.Generator:
        """The noise generator positioned at the current sample."""
        return self.streams.at(self.sample_index)

    def set_rate(self, rate: float) -> None:
        """Change the rate [Hz] from the next reading on."""
        if not rate > 0 or not math.isfinite(rate):
            raise ValueError(f'rate must be positive and finite, not {rate}')
        self._next += 1.0 / rate - self.period
        self.period = 1.0 / rate
        self.rate = rate
        self.noise_version += 1  # a noise density reads differently at another rate
        changed()

    def due(self, time: float) -> bool:
        """Whether a reading is due at ``time`` [s]; if so the schedule moves on by a period."""
        if not self.enabled or time + SCHEDULE_TOLERANCE < self._next:
            return False
        self._next += self.period
        if self._next <= time + SCHEDULE_TOLERANCE:
            # Far behind (a rate change, a pause): restart from now.
            self._next = time + self.period
        self.sample_index = self._count
        self._count += 1
        return True

    def restart(self) -> None:
        """Back to the start (after a reset of the simulation): schedule and noise."""
        self._next = 0.0
        self.streams = NoiseStreams(self._seed, self.name)
        self.rng = self.streams.rng
        self.sample_index = self._count = 0
        self._read_index = -1

    def world_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """The device frame in the world: origin [m] and rotation matrix."""
        data = self.sim.data
        rot = data.xmat[self._body].reshape(3, 3)
        pose = self.device.pose
        return data.xpos[self._body] + rot @ pose.pos, rot @ pose.rot

    def _normals(self) -> np.ndarray:
        """The standard normals of this sample's vector noise (``noise.ROW``); read again at
        the same sample, fresh ones (from the positioned stream)."""
        if self.sample_index != self._read_index:
            self._read_index = self.sample_index
            return self.streams.normals(self.sample_index)
        return self._at_sample().standard_normal(ROW)

    def _vector_noise(self, value: np.ndarray, model: VectorNoise,
                      normals: np.ndarray) -> np.ndarray:
        return model.apply(value, normals, self.streams, self.sample_index, self.period)


def _limits(limits) -> np.ndarray | None:
    """Saturation limits per axis (None: none; a limit of 0 or less: none on that axis)."""
    if limits is None:
        return None
    lim = np.asarray(limits, dtype=float)
    return np.where(lim > 0.0, lim, np.inf)


def _saturate(value: np.ndarray, lim: np.ndarray | None) -> np.ndarray:
    """``value`` clipped to [-lim, lim] (``lim`` from :func:`_limits`)."""
    if lim is None:
        return value
    return np.minimum(np.maximum(value, -lim), lim)


def _sensor_slice(mj, name: str) -> slice:
    sensor = mj.sensor(name)
    adr = int(sensor.adr[0])
    return slice(adr, adr + int(sensor.dim[0]))


class InertialSampler(DeviceSampler):
    """Accelerometer, rate gyro, IMU: MuJoCo's accelerometer, gyro and frame orientation."""

    def __init__(self, sim, device, settings, seed, default_rate):
        super().__init__(sim, device, settings, seed, default_rate)
        base = self.mj_name(SITE_PREFIX + device.name)
        kind = device.kind
        self._acc = _sensor_slice(sim.mj, base + ':accelerometer') if kind != DeviceKind.GYRO \
            else None
        self._gyro = _sensor_slice(sim.mj, base + ':gyro') if kind != DeviceKind.ACCELEROMETER \
            else None
        reports_orientation = kind == DeviceKind.IMU and bool(device.params.get('orientation'))
        self._quat = _sensor_slice(sim.mj, base + ':framequat') if reports_orientation else None
        self._acc_limit = _limits(device.params.get('max_acceleration'))
        self._gyro_limit = _limits(device.params.get('max_angular_velocity'))
        # On a body welded to the world the accelerometer is computed here: such a frame is at
        # rest, so it reads -gravity in its own axes (MuJoCo 3's sensor reads 0 there, 4's +g).
        site = sim.mj.site(base).id
        welded = sim.mj.body_weldid[sim.mj.site_bodyid[site]] == 0
        self._resting_site = site if welded and self._acc is not None else None
        self._noise_changed()

    def _noise_changed(self) -> None:
        self._acc_noise = VectorNoise('linear_acceleration', self.noise)
        self._gyro_noise = VectorNoise('angular_velocity', self.noise)
        self._noise_on = self._acc_noise.active or self._gyro_noise.active or \
            self.noise.get('orientation', 0.0) > 0.0

    def variance(self, quantity: str) -> np.ndarray:
        """Variance per axis of the white noise of one reading of ``quantity``
        (``linear_acceleration``, ``angular_velocity``, ``orientation``) [SI units squared]."""
        if quantity == 'orientation':
            return np.full(3, float(self.noise.get('orientation', 0.0)) ** 2)
        model = self._acc_noise if quantity == 'linear_acceleration' else self._gyro_noise
        return model.white_sigma(self.period) ** 2

    def _acceleration(self) -> np.ndarray:
        """The accelerometer's proper acceleration in the device frame [m/s^2]."""
        if self._resting_site is None:
            return self.sim.data.sensordata[self._acc].copy()
        axes = self.sim.data.site_xmat[self._resting_site].reshape(3, 3)
        return axes.T @ -self.sim.mj.opt.gravity

    def read(self) -> InertialReading:
        values = self.sim.data.sensordata
        acc = gyro = quat = None
        z = self._normals() if self._noise_on else None  # gyro, acceleration, orientation
        if self._acc is not None:
            acc = self._acceleration()
            if self._acc_noise.active:
                acc = self._vector_noise(acc, self._acc_noise, z[3:6])
            acc = _saturate(acc, self._acc_limit)
        if self._gyro is not None:
            gyro = values[self._gyro].copy()
            if self._gyro_noise.active:
                gyro = self._vector_noise(gyro, self._gyro_noise, z[0:3])
            gyro = _saturate(gyro, self._gyro_limit)
        if self._quat is not None:
            quat = _perturb_quaternion(values[self._quat].copy(),
                                       self.noise.get('orientation', 0.0), _Drawn(z))
        return InertialReading(self.sim.time, acc, gyro, quat)


class _Drawn:
    """The orientation's three standard normals of a sample, as a generator's ``normal``."""

    def __init__(self, normals: np.ndarray | None):
        self._z = normals

    def normal(self, loc: float, scale: float, size: int) -> np.ndarray:
        return loc + scale * self._z[6:6 + size]


def _perturb_quaternion(q: np.ndarray, sigma: float, rng) -> np.ndarray:
    """q followed by a rotation whose rotation vector is Gaussian with deviation ``sigma``."""
    if sigma <= 0.0:
        return q
    v = rng.normal(0.0, sigma, 3)
    angle = float(np.linalg.norm(v))
    if angle == 0.0:
        return q
    axis = v / angle
    w, (x, y, z) = math.cos(angle / 2), axis * math.sin(angle / 2)
    a = q
    out = np.array([
        a[0] * w - a[1] * x - a[2] * y - a[3] * z,
        a[0] * x + a[1] * w + a[2] * z - a[3] * y,
        a[0] * y - a[1] * z + a[2] * w + a[3] * x,
        a[0] * z + a[1] * y - a[2] * x + a[3] * w,
    ])
    return out / np.linalg.norm(out)


class ForceSampler(DeviceSampler):
    """Force/torque sensor: MuJoCo's force and torque at the site, turned around.

    MuJoCo reports the force the parent exerts on the child subtree; the device reports the
    force the link exerts on its parent, the negative of it.
    """

    def __init__(self, sim, device, settings, seed, default_rate):
        super().__init__(sim, device, settings, seed, default_rate)
        base = self.mj_name(SITE_PREFIX + device.name)
        self._force = _sensor_slice(sim.mj, base + ':force')
        self._torque = _sensor_slice(sim.mj, base + ':torque')
        self._force_limit = _limits(device.params.get('max_force'))
        self._torque_limit = _limits(device.params.get('max_torque'))
        self._noise_changed()

    def _noise_changed(self) -> None:
        self._force_noise = VectorNoise('force', self.noise)
        self._torque_noise = VectorNoise('torque', self.noise)

    def read(self) -> WrenchReading:
        values = self.sim.data.sensordata
        # 0 - x, not -x: no negative zeros in the messages.
        force, torque = 0.0 - values[self._force], 0.0 - values[self._torque]
        if self._force_noise.active or self._torque_noise.active:
            z = self._normals()
            force = self._vector_noise(force, self._force_noise, z[0:3])
            torque = self._vector_noise(torque, self._torque_noise, z[3:6])
        return WrenchReading(self.sim.time, _saturate(force, self._force_limit),
                             _saturate(torque, self._torque_limit))
