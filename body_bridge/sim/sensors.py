"""Simulated devices: what each sensor of a model reads, computed from the MuJoCo state.

Two parts:

* ``add_devices(spec, model)`` runs before compilation (``build_spec`` calls it): a site and
  MuJoCo sensors for every inertial or force device (accelerometer, gyro, frame orientation,
  force, torque), a spot light for every light, an offscreen buffer large enough for every
  camera, and a light from above when the model has cameras.
* ``SensorSuite(sim, overlay)`` reads them: one sampler per device, each with its own rate,
  Gaussian noise (seeded: runs repeat) and saturation, values in SI units in the device frame.

Conventions (the neutral model's, see ``model.py``): accelerometers read proper acceleration
(at rest +9.81 m/s^2 along the axis that points up); force sensors read the force and torque
the link exerts through the sensor on its parent (Choreonoid's convention: a foot standing on
the ground pushes its leg up, a hand hanging from a wrist pulls it down), about the sensor's
origin; range sensors measure along rays ``(cos p cos y, cos p sin y, sin p)`` of yaw ``y``
(about +z, counter-clockwise from +x) and pitch ``p`` (up positive), in the device frame;
cameras render through the optical frame (z forward, x right, y down).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import mujoco
import numpy as np

from ..device_overlay import DeviceSettings, Overlay
from ..errors import where
from ..model import Device, DeviceKind, Model, Pose
from ..urdf import OPTICAL
from .render import Intrinsics, OffscreenRenderer, RenderError

__all__ = ['add_devices', 'SensorSuite', 'DeviceSampler', 'InertialSampler', 'ForceSampler',
           'RangeSampler', 'CameraSampler', 'InertialReading', 'WrenchReading',
           'RangeReading', 'ImageReading', 'camera_intrinsics', 'scan_angles', 'SITE_PREFIX',
           'MAX_IMAGE_SIZE', 'MAX_RAYS']

#: Sites and MuJoCo sensors of a device are named SITE_PREFIX + device name (+ ':' + quantity).
SITE_PREFIX = 'device:'
#: Largest camera image side [pixels].
MAX_IMAGE_SIZE = 8192
#: Most rays one range sensor may cast per reading.
MAX_RAYS = 1_000_000
#: Sites are in this geom group, which cameras do not render.
_SITE_GROUP = 5
_INERTIAL = (DeviceKind.ACCELEROMETER, DeviceKind.GYRO, DeviceKind.IMU)
_CAMERA_FORMATS = {'COLOR': (True, False), 'DEPTH': (False, True), 'COLOR_DEPTH': (True, True),
                   'POINT_CLOUD': (False, True), 'COLOR_POINT_CLOUD': (True, True)}
#: Time tolerance of the schedule [s] (far below any timestep).
_EPS = 1e-7


# --- before compilation ---------------------------------------------------------------------


def add_devices(spec: mujoco.MjSpec, model: Model) -> None:
    """Add what the model's devices need to the integrator's model (before compiling)."""
    widths, heights = [], []
    for device in model.devices:
        body = spec.body(device.link)
        if device.kind in _INERTIAL or device.kind == DeviceKind.FORCE:
            _add_site_sensors(spec, body, device)
        elif device.kind == DeviceKind.LIGHT:
            _add_light(body, device)
        elif device.kind == DeviceKind.CAMERA:
            widths.append(int(device.params.get('width', 640)))
            heights.append(int(device.params.get('height', 480)))
    if widths:
        glob = spec.visual.global_
        glob.offwidth = max(glob.offwidth, min(max(widths), MAX_IMAGE_SIZE))
        glob.offheight = max(glob.offheight, min(max(heights), MAX_IMAGE_SIZE))
        sun = spec.worldbody.add_light()
        sun.name = SITE_PREFIX + 'overhead_light'
        sun.type = mujoco.mjtLightType.mjLIGHT_DIRECTIONAL
        sun.pos = [0.0, 0.0, 10.0]
        sun.dir = [0.3, 0.2, -1.0]
        sun.diffuse = [0.5, 0.5, 0.5]
        sun.specular = [0.1, 0.1, 0.1]
        sun.castshadow = False


def _add_site_sensors(spec, body, device: Device) -> None:
    site = body.add_site()
    site.name = SITE_PREFIX + device.name
    site.pos = [float(x) for x in device.pose.pos]
    site.quat = [float(x) for x in device.pose.quat()]
    site.group = _SITE_GROUP
    site.info = device.source or ''
    quantities = {
        DeviceKind.ACCELEROMETER: ('accelerometer',),
        DeviceKind.GYRO: ('gyro',),
        DeviceKind.IMU: ('accelerometer', 'gyro', 'framequat'),
        DeviceKind.FORCE: ('force', 'torque'),
    }[device.kind]
    for quantity in quantities:
        sensor = spec.add_sensor()
        sensor.name = f'{site.name}:{quantity}'
        sensor.type = getattr(mujoco.mjtSensor, f'mjSENS_{quantity.upper()}')
        sensor.objtype = mujoco.mjtObj.mjOBJ_SITE
        sensor.objname = site.name
        sensor.info = device.source or ''


def _add_light(body, device: Device) -> None:
    p = device.params
    light = body.add_light()
    light.name = SITE_PREFIX + device.name
    light.type = mujoco.mjtLightType.mjLIGHT_SPOT
    light.pos = [float(x) for x in device.pose.pos]
    direction = np.asarray(p.get('direction', (0.0, 0.0, -1.0)), dtype=float)
    light.dir = [float(x) for x in device.pose.rot @ direction]
    color = np.asarray(p.get('color', (1.0, 1.0, 1.0)), dtype=float)
    light.diffuse = [float(c) for c in color * float(p.get('intensity', 1.0))]
    light.cutoff = math.degrees(float(p.get('cut_off_angle', math.radians(45.0))))
    light.exponent = float(p.get('cut_off_exponent', 1.0))
    if 'attenuation' in p:
        light.attenuation = [float(a) for a in p['attenuation']]
    light.active = bool(p.get('on', True))
    light.castshadow = False
    light.info = device.source or ''


# --- readings ------------------------------------------------------------------------------


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


class _Refused(Exception):
    """A device that cannot be simulated (the reason is the message)."""


# --- samplers ------------------------------------------------------------------------------


class DeviceSampler:
    """One device: its schedule, noise generator and state; subclasses read it.

    Attributes:
        device: the model's device.
        rate: readings per simulated second [Hz].
        enabled: whether it is read at all (switchable at run time).
        noise: quantity -> standard deviation of its Gaussian noise (SI units).
    """

    def __init__(self, sim, device: Device, settings: DeviceSettings, seed: int,
                 default_rate: float):
        self.sim = sim
        self.device = device
        self.name = device.name
        self.noise = dict(settings.noise)
        self._seed = seed
        self.rng = self._new_rng()
        rate = settings.rate or self._native_rate() or default_rate
        self.period = 1.0 / rate
        self.rate = rate
        on = settings.on if settings.on is not None else device.params.get('on', True)
        self.enabled = bool(on)
        self._next = 0.0
        self._body = sim.mj.body(device.link).id

    def _native_rate(self) -> float | None:
        return None

    def _new_rng(self) -> np.random.Generator:
        return np.random.default_rng([self._seed, zlib.crc32(self.name.encode())])

    def set_rate(self, rate: float) -> None:
        """Change the rate [Hz] from the next reading on."""
        if not rate > 0 or not math.isfinite(rate):
            raise ValueError(f'rate must be positive and finite, not {rate}')
        self._next += 1.0 / rate - self.period
        self.period = 1.0 / rate
        self.rate = rate

    def due(self, time: float) -> bool:
        """Whether a reading is due at ``time`` [s]; if so the schedule moves on by a period."""
        if not self.enabled or time + _EPS < self._next:
            return False
        self._next += self.period
        if self._next <= time + _EPS:  # far behind (a rate change, a pause): restart from now
            self._next = time + self.period
        return True

    def restart(self) -> None:
        """Back to the start (after a reset of the simulation): schedule and noise."""
        self._next = 0.0
        self.rng = self._new_rng()

    def world_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """The device frame in the world: origin [m] and rotation matrix."""
        data = self.sim.data
        rot = data.xmat[self._body].reshape(3, 3)
        pose = self.device.pose
        return data.xpos[self._body] + rot @ pose.pos, rot @ pose.rot

    def _noisy(self, key: str, value: np.ndarray) -> np.ndarray:
        sigma = self.noise.get(key, 0.0)
        if sigma > 0.0:
            value = value + self.rng.normal(0.0, sigma, value.shape)
        return value


def _saturate(value: np.ndarray, limits) -> np.ndarray:
    if limits is None:
        return value
    lim = np.asarray(limits, dtype=float)
    lim = np.where(lim > 0.0, lim, np.inf)
    return np.clip(value, -lim, lim)


def _sensor_slice(mj, name: str) -> slice:
    sensor = mj.sensor(name)
    adr = int(sensor.adr[0])
    return slice(adr, adr + int(sensor.dim[0]))


class InertialSampler(DeviceSampler):
    """Accelerometer, rate gyro, IMU: MuJoCo's accelerometer, gyro and frame orientation."""

    def __init__(self, sim, device, settings, seed, default_rate):
        super().__init__(sim, device, settings, seed, default_rate)
        base = SITE_PREFIX + device.name
        kind = device.kind
        self._acc = _sensor_slice(sim.mj, base + ':accelerometer') if kind != DeviceKind.GYRO \
            else None
        self._gyro = _sensor_slice(sim.mj, base + ':gyro') if kind != DeviceKind.ACCELEROMETER \
            else None
        reports_orientation = kind == DeviceKind.IMU and bool(device.params.get('orientation'))
        self._quat = _sensor_slice(sim.mj, base + ':framequat') if reports_orientation else None

    def read(self) -> InertialReading:
        values = self.sim.data.sensordata
        p = self.device.params
        acc = gyro = quat = None
        if self._acc is not None:
            acc = _saturate(self._noisy('linear_acceleration', values[self._acc].copy()),
                            p.get('max_acceleration'))
        if self._gyro is not None:
            gyro = _saturate(self._noisy('angular_velocity', values[self._gyro].copy()),
                             p.get('max_angular_velocity'))
        if self._quat is not None:
            quat = _perturb_quaternion(values[self._quat].copy(), self.noise.get('orientation', 0.0),
                                       self.rng)
        return InertialReading(self.sim.time, acc, gyro, quat)


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
        self._force = _sensor_slice(sim.mj, SITE_PREFIX + device.name + ':force')
        self._torque = _sensor_slice(sim.mj, SITE_PREFIX + device.name + ':torque')

    def read(self) -> WrenchReading:
        values = self.sim.data.sensordata
        p = self.device.params
        # 0 - x, not -x: no negative zeros in the messages.
        force = _saturate(self._noisy('force', 0.0 - values[self._force]), p.get('max_force'))
        torque = _saturate(self._noisy('torque', 0.0 - values[self._torque]), p.get('max_torque'))
        return WrenchReading(self.sim.time, force, torque)


def scan_angles(params) -> tuple[np.ndarray, np.ndarray]:
    """Yaw and pitch angles [rad] of a range sensor's rays.

    Choreonoid: ``yaw_range``/``yaw_step`` and ``pitch_range``/``pitch_step``, centred on 0,
    ``range / step + 1`` samples (a range of 0: one sample). OpenRAVE lasers: ``min_angle``,
    ``max_angle``, ``resolution`` (yaw only).

    Raises:
        _Refused: a range without a step, or too many rays.
    """
    if 'min_angle' in params:
        lo, hi = float(params['min_angle']), float(params['max_angle'])
        step = float(params.get('resolution', 0.0))
        if hi < lo or (hi > lo and step <= 0.0):
            raise _Refused(f'laser angles {lo}..{hi} rad with resolution {step} rad are not a scan')
        count = 1 if hi == lo else int(math.floor((hi - lo) / step + 1e-9)) + 1
        yaw, pitch = lo + step * np.arange(count), np.zeros(1)
    else:
        yaw = _centred(params, 'yaw')
        pitch = _centred(params, 'pitch')
    if yaw.size * pitch.size > MAX_RAYS:
        raise _Refused(f'{yaw.size} x {pitch.size} rays are more than {MAX_RAYS}')
    return yaw, pitch


def _centred(params, axis: str) -> np.ndarray:
    span = float(params.get(f'{axis}_range', 0.0))
    step = float(params.get(f'{axis}_step', 0.0))
    if span < 0.0:
        raise _Refused(f'{axis}_range is negative ({span} rad)')
    if span == 0.0:
        return np.zeros(1)
    if step <= 0.0:
        raise _Refused(f'{axis}_range is {span} rad but {axis}_step is {step}')
    count = int(math.floor(span / step + 1e-9)) + 1
    return -0.5 * span + step * np.arange(count)


class RangeSampler(DeviceSampler):
    """Range sensor: one ray cast per beam (``mj_multiRay``), the sensor's own link excluded.

    Attributes:
        yaw, pitch: the beam angles [rad].
        min_distance, max_distance: the measuring range [m].
    """

    def __init__(self, sim, device, settings, seed, default_rate):
        super().__init__(sim, device, settings, seed, default_rate)
        p = device.params
        self.yaw, self.pitch = scan_angles(p)
        self.min_distance = float(p.get('min_distance', p.get('min_range', 0.0)))
        self.max_distance = float(p.get('max_distance', p.get('max_range', 10.0)))
        if not 0.0 <= self.min_distance < self.max_distance:
            raise _Refused(f'distance range {self.min_distance}..{self.max_distance} m is empty')
        cp, sp = np.cos(self.pitch)[:, None], np.sin(self.pitch)[:, None]
        cy, sy = np.cos(self.yaw)[None, :], np.sin(self.yaw)[None, :]
        shape = (self.pitch.size, self.yaw.size)
        self.directions = np.stack([np.broadcast_to(cp * cy, shape), np.broadcast_to(cp * sy, shape),
                                    np.broadcast_to(sp, shape)], axis=-1).reshape(-1, 3)
        n = len(self.directions)
        self._geom = np.empty(n, np.int32)
        self._dist = np.empty(n, np.float64)

    def _native_rate(self) -> float | None:
        p = self.device.params
        if 'scan_rate' in p:
            return float(p['scan_rate'])
        if p.get('scan_time', 0.0) > 0.0:
            return 1.0 / float(p['scan_time'])
        return None

    def read(self) -> RangeReading:
        origin, rot = self.world_pose()
        world = np.ascontiguousarray(self.directions @ rot.T).reshape(-1)
        mujoco.mj_multiRay(self.sim.mj, self.sim.data, origin, world, None, True, self._body,
                           self._geom, self._dist, None, len(self.directions), self.max_distance)
        d = self._noisy('distance', self._dist)
        ranges = np.where(self._geom < 0, np.inf, d)
        ranges = np.where(ranges > self.max_distance, np.inf, ranges)
        ranges = np.where(ranges < self.min_distance, -np.inf, ranges)
        return RangeReading(self.sim.time,
                            ranges.astype(np.float32).reshape(self.pitch.size, self.yaw.size))


def camera_intrinsics(params) -> Intrinsics:
    """The pinhole model of a camera's parameters.

    OpenRAVE ``KK`` intrinsics (``fx``, ``fy``, ``cx``, ``cy`` [pixels]) are used as given.
    Otherwise Choreonoid's ``field_of_view`` is the angle across the shorter image side, with
    square pixels and the principal point at the image centre.

    Raises:
        _Refused: a size, field of view or clip range that no camera has.
    """
    width, height = int(params.get('width', 640)), int(params.get('height', 480))
    if not (0 < width <= MAX_IMAGE_SIZE and 0 < height <= MAX_IMAGE_SIZE):
        raise _Refused(f'image size {width} x {height} is not within 1..{MAX_IMAGE_SIZE} pixels')
    near = float(params.get('near_clip_distance', 0.04))
    far = float(params.get('far_clip_distance', 200.0))
    if not 0.0 < near < far:
        raise _Refused(f'clip distances {near}..{far} m are not 0 < near < far')
    if 'fx' in params:
        fx = float(params['fx'])
        fy = float(params.get('fy', fx))
        cx = float(params.get('cx', (width - 1) / 2))
        cy = float(params.get('cy', (height - 1) / 2))
        if not (fx > 0 and fy > 0):
            raise _Refused(f'focal lengths fx={fx}, fy={fy} are not positive')
    else:
        fov = float(params.get('field_of_view', math.radians(35.0)))
        if not 0.0 < fov < math.pi:
            raise _Refused(f'field_of_view {math.degrees(fov):g} degrees is not within (0, 180) '
                           'for a pinhole camera')
        fx = fy = 0.5 * min(width, height) / math.tan(0.5 * fov)
        cx, cy = (width - 1) / 2, (height - 1) / 2
    return Intrinsics(width, height, fx, fy, cx, cy, near, far)


class CameraSampler(DeviceSampler):
    """Camera: offscreen rendering through the optical frame.

    Attributes:
        intrinsics: the pinhole model (K) of the rendered images.
        color, depth: which images the camera's format produces.
        points: whether it produces a point cloud (POINT_CLOUD, COLOR_POINT_CLOUD).
    """

    def __init__(self, sim, device, settings, seed, default_rate, renderer):
        super().__init__(sim, device, settings, seed, default_rate)
        p = device.params
        lens = str(p.get('lens_type', 'NORMAL')).upper()
        if lens != 'NORMAL':
            raise _Refused(f'lens_type {lens} is not supported (only NORMAL, a pinhole camera)')
        fmt = str(p.get('format', 'COLOR')).upper()
        if fmt not in _CAMERA_FORMATS:
            raise _Refused(f'format {fmt} is not one of {", ".join(_CAMERA_FORMATS)}')
        self.format = fmt
        self.color, self.depth = _CAMERA_FORMATS[fmt]
        self.points = fmt.endswith('POINT_CLOUD')
        self.intrinsics = camera_intrinsics(p)
        self._renderer = renderer

    def _native_rate(self) -> float | None:
        rate = self.device.params.get('frame_rate')
        return float(rate) if rate else None

    def optical_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """The optical frame in the world: origin [m], axes (x right, y down, z forward)."""
        pos, rot = self.world_pose()
        return pos, rot @ OPTICAL.rot

    def read(self, color: bool = True, depth: bool = True) -> ImageReading:
        """Render the images asked for (and produced by the format).

        Raises:
            RenderError: offscreen rendering is not available.
        """
        color, depth = color and self.color, depth and self.depth
        if not (color or depth):
            return ImageReading(self.sim.time, None, None)
        renderer = self._renderer()
        pos, rot = self.optical_pose()
        rgb, meters = renderer.render(pos, rot, self.intrinsics, color, depth)
        if rgb is not None and self.noise.get('color', 0.0) > 0.0:
            rgb = np.clip(self._noisy('color', rgb.astype(np.float32)), 0, 255).astype(np.uint8)
        if meters is not None and self.noise.get('depth', 0.0) > 0.0:
            meters = self._noisy('depth', meters).astype(np.float32)
        return ImageReading(self.sim.time, rgb, meters)


# --- the suite -----------------------------------------------------------------------------


class SensorSuite:
    """Every simulated device of a running model.

    Attributes:
        samplers: device name -> sampler, in model order.
        warnings: one ``path:line: message`` line per device that is not simulated.
    """

    def __init__(self, sim, overlay: Overlay | None = None):
        self.sim = sim
        overlay = overlay or Overlay()
        self.samplers: dict[str, DeviceSampler] = {}
        self.warnings: list[str] = []
        self._renderer: OffscreenRenderer | None = None
        self._render_error: str | None = None
        self._scene_key = None
        self._epoch = 0
        self._last_time = -math.inf
        default_rate = 1.0 / sim.period
        for device in sim.model.devices:
            settings = overlay.settings.get(device.name, DeviceSettings())
            try:
                sampler = self._make(device, settings, overlay.seed, default_rate)
            except _Refused as err:
                self.warnings.append(f'{where(device.source or sim.model.source)}: device '
                                     f'{device.name!r} ({device.type_name or device.kind.value}): '
                                     f'{err}; it is not simulated')
                continue
            if sampler is not None:
                self.samplers[device.name] = sampler

    def _make(self, device, settings, seed, default_rate) -> DeviceSampler | None:
        args = (self.sim, device, settings, seed, default_rate)
        kind = device.kind
        if kind in _INERTIAL:
            return InertialSampler(*args)
        if kind == DeviceKind.FORCE:
            return ForceSampler(*args)
        if kind == DeviceKind.RANGE:
            return RangeSampler(*args)
        if kind == DeviceKind.CAMERA:
            return CameraSampler(*args, self._scene)
        if kind == DeviceKind.LIGHT:
            return None  # a light in the rendered scene, nothing to read
        raise _Refused('this kind of device is not simulated')

    def due(self, time: float | None = None) -> list[DeviceSampler]:
        """The enabled devices whose next reading is due at ``time`` (default: now) [s].

        A time earlier than the last one (the simulation was reset) restarts every schedule
        and noise generator, so a run after a reset repeats the first.
        """
        time = self.sim.time if time is None else time
        if time < self._last_time - _EPS:
            for sampler in self.samplers.values():
                sampler.restart()
            self._epoch += 1
        self._last_time = time
        return [s for s in self.samplers.values() if s.due(time)]

    def _scene(self) -> OffscreenRenderer:
        """The renderer, its scene updated to the current state (once per instant)."""
        if self._render_error is not None:
            raise RenderError(self._render_error)
        if self._renderer is None:
            cameras = [s.intrinsics for s in self.samplers.values() if isinstance(s, CameraSampler)]
            try:
                self._renderer = OffscreenRenderer(self.sim.mj, max(k.width for k in cameras),
                                                   max(k.height for k in cameras))
            except RenderError as err:
                self._render_error = str(err)
                raise
        key = (self._epoch, self.sim.time)
        if key != self._scene_key:
            self._renderer.update(self.sim.data)
            self._scene_key = key
        return self._renderer

    def close(self) -> None:
        """Free the renderer (from the thread that rendered)."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


def device_pose_in_world(sim, device: Device) -> Pose:
    """The device frame in the world at the current state (for tests and tools)."""
    body = sim.mj.body(device.link).id
    rot = sim.data.xmat[body].reshape(3, 3)
    return Pose(sim.data.xpos[body], rot) @ device.pose
