"""Samplers of devices that look at the world: range sensors (ray casts) and cameras
(offscreen rendering).

Range sensors measure along rays ``(cos p cos y, cos p sin y, sin p)`` of yaw ``y`` (about +z,
counter-clockwise from +x) and pitch ``p`` (up positive), in the device frame (x forward, z up);
cameras render through the optical frame (z forward, x right, y down).
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ...urdf import OPTICAL
from .fisheye import DUAL_MODEL, FisheyeLens, face_size
from .noise import DistanceNoise
from .render import Intrinsics
from .samplers import DeviceRefused, DeviceSampler, ImageReading, RangeReading

__all__ = ['RangeSampler', 'CameraSampler', 'scan_angles', 'camera_intrinsics',
           'camera_render_size', 'MAX_IMAGE_SIZE', 'MAX_RAYS', 'CAMERA_FORMATS']

#: Largest camera image side [pixels].
MAX_IMAGE_SIZE = 8192
#: Most rays one range sensor may cast per reading.
MAX_RAYS = 1_000_000
#: Camera format -> (colour image, depth image).
CAMERA_FORMATS = {'COLOR': (True, False), 'DEPTH': (False, True), 'COLOR_DEPTH': (True, True),
                  'POINT_CLOUD': (False, True), 'COLOR_POINT_CLOUD': (True, True)}


def scan_angles(params) -> tuple[np.ndarray, np.ndarray]:
    """Yaw and pitch angles [rad] of a range sensor's rays.

    Choreonoid: ``yaw_range``/``yaw_step`` and ``pitch_range``/``pitch_step``, centred on 0,
    ``range / step + 1`` samples (a range of 0: one sample). OpenRAVE lasers: ``min_angle``,
    ``max_angle``, ``resolution`` (yaw only).

    Raises:
        DeviceRefused: a range without a step, or too many rays.
    """
    if 'min_angle' in params:
        lo, hi = float(params['min_angle']), float(params['max_angle'])
        step = float(params.get('resolution', 0.0))
        if hi < lo or (hi > lo and step <= 0.0):
            raise DeviceRefused(f'laser angles {lo}..{hi} rad with resolution {step} rad '
                                'are not a scan')
        count = 1 if hi == lo else int(math.floor((hi - lo) / step + 1e-9)) + 1
        yaw, pitch = lo + step * np.arange(count), np.zeros(1)
    else:
        yaw = _centred(params, 'yaw')
        pitch = _centred(params, 'pitch')
    if yaw.size * pitch.size > MAX_RAYS:
        raise DeviceRefused(f'{yaw.size} x {pitch.size} rays are more than {MAX_RAYS}')
    return yaw, pitch


def _centred(params, axis: str) -> np.ndarray:
    span = float(params.get(f'{axis}_range', 0.0))
    step = float(params.get(f'{axis}_step', 0.0))
    if span < 0.0:
        raise DeviceRefused(f'{axis}_range is negative ({span} rad)')
    if span == 0.0:
        return np.zeros(1)
    if step <= 0.0:
        raise DeviceRefused(f'{axis}_range is {span} rad but {axis}_step is {step}')
    count = int(math.floor(span / step + 1e-9)) + 1
    return -0.5 * span + step * np.arange(count)


class RangeSampler(DeviceSampler):
    """Range sensor: one ray cast per beam (``mj_multiRay``), the sensor's own link excluded.

    Attributes:
        layout: ``single`` (one beam), ``scan`` (yaw only) or ``cloud`` (a grid of beams).
        yaw, pitch: the beam angles of a Choreonoid or OpenRAVE scanner [rad].
        directions: (N, 3) unit beam directions in the device frame, rows of the grid.
        grid: (rows, columns) of the readings.
        min_distance, max_distance: the measuring range [m].
    """

    def __init__(self, sim, device, settings, seed, default_rate):
        super().__init__(sim, device, settings, seed, default_rate)
        p = device.params
        self.min_distance = float(p.get('min_distance', p.get('min_range', 0.0)))
        self.max_distance = float(p.get('max_distance', p.get('max_range', 10.0)))
        # Choreonoid's error_deviation [m] and detection_rate, unless the overlay sets noise.
        if p.get('error_deviation') and 'distance' not in self.noise:
            self.noise['distance'] = float(p['error_deviation'])
        self.detection_rate = float(p.get('detection_rate', 1.0))
        if not 0.0 <= self.detection_rate <= 1.0:
            raise DeviceRefused(f'detection_rate {self.detection_rate} is not within 0..1')
        if not 0.0 <= self.min_distance < self.max_distance:
            raise DeviceRefused(f'distance range {self.min_distance}..{self.max_distance} m '
                                'is empty')
        if 'fx' in p:  # OpenRAVE BaseFlashLidar3D: a beam through every pixel of its KK
            self.directions, self.grid = _flash_directions(p)
            self.yaw = self.pitch = None
            self.layout = 'cloud'
        else:
            self.yaw, self.pitch = scan_angles(p)
            self.directions, self.grid = _scan_directions(self.yaw, self.pitch)
            self.layout = ('single' if self.directions.shape[0] == 1 and self.yaw[0] == 0.0
                           and self.pitch[0] == 0.0 else
                           'scan' if self.pitch.size == 1 and self.pitch[0] == 0.0 else 'cloud')
        if 'spin_speed' in p:
            self.warnings.append('the spinning of a spinning laser is not simulated: it scans '
                                 'one plane')
        n = len(self.directions)
        self._geom = np.empty(n, np.int32)
        self._dist = np.empty(n, np.float64)
        self._noise_changed()

    def _noise_changed(self) -> None:
        self._distance_noise = DistanceNoise.of(self.noise, 'distance')

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
        noise = self._distance_noise
        if noise.active or self.detection_rate < 1.0:
            self._at_sample()
        d = noise.deviate(self._dist, self.rng) if noise.active else self._dist
        ranges = np.where(self._geom < 0, np.inf, d)
        if self.detection_rate < 1.0:  # beams that see nothing, as Choreonoid's detection_rate
            ranges = np.where(self.rng.random(ranges.shape) < self.detection_rate, ranges, np.inf)
        ranges = noise.drop(ranges, self.rng)
        ranges = np.where(ranges > self.max_distance, np.inf, ranges)
        ranges = np.where(ranges < self.min_distance, -np.inf, ranges)
        return RangeReading(self.sim.time, ranges.astype(np.float32).reshape(self.grid))


def _scan_directions(yaw: np.ndarray, pitch: np.ndarray) -> tuple[np.ndarray, tuple]:
    """Beams ``(cos p cos y, cos p sin y, sin p)``, pitch rows of yaw columns."""
    cp, sp = np.cos(pitch)[:, None], np.sin(pitch)[:, None]
    cy, sy = np.cos(yaw)[None, :], np.sin(yaw)[None, :]
    shape = (pitch.size, yaw.size)
    directions = np.stack([np.broadcast_to(cp * cy, shape), np.broadcast_to(cp * sy, shape),
                           np.broadcast_to(sp, shape)], axis=-1).reshape(-1, 3)
    return directions, shape


def _flash_directions(params) -> tuple[np.ndarray, tuple]:
    """Beams through the pixels of a pinhole K, in the device frame (x forward, z up)."""
    k = camera_intrinsics({**params, 'near_clip_distance': 0.01, 'far_clip_distance': 1.0})
    xr, yr = k.rays()  # optical x right, y down
    x, y = np.meshgrid(xr, yr)
    directions = np.stack([np.ones_like(x), -x, -y], axis=-1).reshape(-1, 3)
    if len(directions) > MAX_RAYS:
        raise DeviceRefused(f'{len(directions)} rays are more than {MAX_RAYS}')
    return directions / np.linalg.norm(directions, axis=1, keepdims=True), (k.height, k.width)


def camera_intrinsics(params) -> Intrinsics:
    """The pinhole model of a camera's parameters.

    OpenRAVE ``KK`` intrinsics (``fx``, ``fy``, ``cx``, ``cy`` [pixels]) are used as given.
    Otherwise Choreonoid's ``field_of_view`` is the angle across the shorter image side, with
    square pixels and the principal point at the image centre.

    Raises:
        DeviceRefused: a size, field of view or clip range that no camera has.
    """
    width, height = int(params.get('width', 640)), int(params.get('height', 480))
    if not (0 < width <= MAX_IMAGE_SIZE and 0 < height <= MAX_IMAGE_SIZE):
        raise DeviceRefused(f'image size {width} x {height} is not within '
                            f'1..{MAX_IMAGE_SIZE} pixels')
    near = float(params.get('near_clip_distance', 0.04))
    far = float(params.get('far_clip_distance', 200.0))
    if not 0.0 < near < far:
        raise DeviceRefused(f'clip distances {near}..{far} m are not 0 < near < far')
    if 'fx' in params:
        fx = float(params['fx'])
        fy = float(params.get('fy', fx))
        cx = float(params.get('cx', (width - 1) / 2))
        cy = float(params.get('cy', (height - 1) / 2))
        if not (fx > 0 and fy > 0):
            raise DeviceRefused(f'focal lengths fx={fx}, fy={fy} are not positive')
    else:
        fov = float(params.get('field_of_view', math.radians(35.0)))
        if not 0.0 < fov < math.pi:
            raise DeviceRefused(f'field_of_view {math.degrees(fov):g} degrees is not within '
                                '(0, 180) for a pinhole camera')
        fx = fy = 0.5 * min(width, height) / math.tan(0.5 * fov)
        cx, cy = (width - 1) / 2, (height - 1) / 2
    return Intrinsics(width, height, fx, fy, cx, cy, near, far)


def _fisheye_fov(params) -> float:
    fov = float(params.get('field_of_view', math.radians(35.0)))
    if not fov > 0.0:
        raise DeviceRefused(f'field_of_view {math.degrees(fov):g} degrees is not positive')
    return min(fov, math.pi)


def _lens(params) -> str:
    """The lens: Choreonoid applies lens_type to COLOR cameras only."""
    lens = str(params.get('lens_type', 'NORMAL')).upper()
    fmt = str(params.get('format', 'COLOR')).upper()
    return lens if fmt == 'COLOR' else 'NORMAL'


def camera_render_size(params) -> tuple[int, int]:
    """The largest image [pixels] a camera renders (a fisheye renders cube faces)."""
    width = min(int(params.get('width', 640)), MAX_IMAGE_SIZE)
    height = min(int(params.get('height', 480)), MAX_IMAGE_SIZE)
    if _lens(params) == 'DUAL_FISHEYE' and width > 1:
        side = face_size(width // 2, math.pi, MAX_IMAGE_SIZE)
        return max(width, side), max(width // 2, side)
    if _lens(params) == 'FISHEYE' and width > 0:
        try:
            side = face_size(width, _fisheye_fov(params), MAX_IMAGE_SIZE)
        except DeviceRefused:
            return width, height
        return max(width, side), max(width, side)
    return width, height


class CameraSampler(DeviceSampler):
    """Camera: offscreen rendering through the optical frame.

    Attributes:
        intrinsics: the camera model (K) of the published images.
        distortion_model: ``plumb_bob`` (a pinhole, no distortion), ``equidistant`` (FISHEYE)
            or ``dual_equidistant`` (DUAL_FISHEYE, see sim/sensing/fisheye.py).
        color, depth: which images the camera's format produces.
        points: whether it produces a point cloud (POINT_CLOUD, COLOR_POINT_CLOUD).
    """

    def __init__(self, sim, device, settings, seed, default_rate, renderer):
        super().__init__(sim, device, settings, seed, default_rate)
        p = device.params
        fmt = str(p.get('format', 'COLOR')).upper()
        if fmt not in CAMERA_FORMATS:
            raise DeviceRefused(f'format {fmt} is not one of {", ".join(CAMERA_FORMATS)}')
        self.format = fmt
        self.color, self.depth = CAMERA_FORMATS[fmt]
        self.points = fmt.endswith('POINT_CLOUD')
        lens = str(p.get('lens_type', 'NORMAL')).upper()
        self._fisheye = None
        self.distortion_model = 'plumb_bob'
        if lens not in ('NORMAL', 'FISHEYE', 'DUAL_FISHEYE'):
            raise DeviceRefused(f'lens_type {lens} is not one of NORMAL, FISHEYE, DUAL_FISHEYE')
        if lens != 'NORMAL' and fmt != 'COLOR':
            self.warnings.append(f'lens_type {lens} applies to COLOR cameras only (as in '
                                 f'Choreonoid); this {fmt} camera is a pinhole camera')
        elif lens == 'DUAL_FISHEYE':
            self._fisheye = self._fisheye_lens(p, dual=True)
            self.distortion_model = DUAL_MODEL
        elif lens == 'FISHEYE':
            self._fisheye = self._fisheye_lens(p)
            self.distortion_model = 'equidistant'
        self.intrinsics = self._fisheye.intrinsics if self._fisheye else camera_intrinsics(p)
        self._renderer = renderer
        self._noise_changed()

    def _noise_changed(self) -> None:
        self._depth_noise = DistanceNoise.of(self.noise, 'depth')

    def _fisheye_lens(self, p, dual: bool = False) -> FisheyeLens:
        width = int(p.get('width', 640))
        if not (2 if dual else 1) <= width <= MAX_IMAGE_SIZE:
            raise DeviceRefused(f'image width {width} is not within {2 if dual else 1}..'
                                f'{MAX_IMAGE_SIZE} pixels')
        fov = math.pi if dual else _fisheye_fov(p)  # a dual lens: 180 degrees per half
        if not dual and float(p.get('field_of_view', fov)) > math.pi:
            self.warnings.append('a fisheye sees at most 180 degrees: field_of_view '
                                 f'{math.degrees(float(p["field_of_view"])):g} degrees is 180')
        near = float(p.get('near_clip_distance', 0.04))
        far = float(p.get('far_clip_distance', 200.0))
        if not 0.0 < near < far:
            raise DeviceRefused(f'clip distances {near}..{far} m are not 0 < near < far')
        return FisheyeLens(width, fov, near, far, MAX_IMAGE_SIZE, dual)

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
        if self._fisheye is not None:
            rgb, meters = self._fisheye.render(renderer, pos, rot), None
        else:
            rgb, meters = renderer.render(pos, rot, self.intrinsics, color, depth)
        if rgb is not None and self.noise.get('color', 0.0) > 0.0:
            z = self._at_sample().standard_normal(rgb.shape, dtype=np.float32)
            noisy = rgb + np.float32(self.noise['color']) * z
            rgb = np.clip(np.rint(noisy), 0, 255).astype(np.uint8)  # rounded: mean unbiased
        if meters is not None and self._depth_noise.active:
            self._at_sample()
            noise = self._depth_noise
            meters = noise.drop(noise.deviate(meters, self.rng), self.rng).astype(np.float32)
        return ImageReading(self.sim.time, rgb, meters)
