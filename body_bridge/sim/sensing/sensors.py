"""Simulated devices: what each sensor of a model reads, computed from the MuJoCo state.

Two parts:

* ``add_devices(spec, model)`` runs before compilation (``build_spec`` calls it): a site and
  MuJoCo sensors for every inertial or force device (accelerometer, gyro, frame orientation,
  force, torque), a spot light for every light, an offscreen buffer large enough for every
  camera, and a light from above when the model has cameras.
* ``SensorSuite(sim, overlay)`` reads them: one sampler per device (``samplers``: inertial,
  force; ``optical``: range, camera), each with its own rate, Gaussian noise (seeded: runs
  repeat) and saturation, values in SI units in the device frame.

Conventions (the neutral model's, see ``model/__init__.py``): accelerometers read proper
acceleration (at rest +9.81 m/s^2 along the axis that points up); force sensors read the force
and torque the link exerts through the sensor on its parent (Choreonoid's convention: a foot
standing on the ground pushes its leg up, a hand hanging from a wrist pulls it down), about the
sensor's origin; range sensors measure along rays ``(cos p cos y, cos p sin y, sin p)`` of yaw
``y`` (about +z, counter-clockwise from +x) and pitch ``p`` (up positive), in the device frame;
cameras render through the optical frame (z forward, x right, y down).
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ...device_overlay import DeviceSettings, Overlay
from ...errors import where
from ...model import Device, DeviceKind, Model
from .batch import SensorBatch
from .optical import (CameraSampler, RangeSampler, camera_intrinsics, camera_render_size,
                      scan_angles)
from .render import OffscreenRenderer, RenderError
from .samplers import (SITE_PREFIX, DeviceRefused, DeviceSampler, ForceSampler, ImageReading,
                       InertialReading, InertialSampler, RangeReading, SCHEDULE_TOLERANCE,
                       WrenchReading, changed)

__all__ = ['add_devices', 'spot_cone', 'SensorSuite', 'DeviceSampler', 'InertialSampler', 'ForceSampler',
           'RangeSampler', 'CameraSampler', 'InertialReading', 'WrenchReading',
           'RangeReading', 'ImageReading', 'camera_intrinsics', 'scan_angles', 'SITE_PREFIX']

#: Sites are in this geom group, which cameras do not render.
_SITE_GROUP = 5
_INERTIAL = (DeviceKind.ACCELEROMETER, DeviceKind.GYRO, DeviceKind.IMU)


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
            width, height = camera_render_size(device.params)
            widths.append(width)
            heights.append(height)
    if widths:
        glob = spec.visual.global_
        glob.offwidth = max(glob.offwidth, max(widths))
        glob.offheight = max(glob.offheight, max(heights))
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


def spot_cone(params) -> tuple[float, float]:
    """MuJoCo's spot ``cutoff`` [deg] and ``exponent`` for a spot light's parameters.

    No light falls beyond ``cut_off_angle`` [rad] (MuJoCo's cutoff). Inside ``beam_width``
    [rad] the light is at full strength (VRML's SpotLight, which Choreonoid follows): a beam
    at least as wide as the cut-off lights its cone evenly (exponent 0); a narrower beam
    falls off from the axis as cos(angle) ** ``cut_off_exponent`` (MuJoCo has one falloff
    law, not a flat top).
    """
    cutoff = float(params.get('cut_off_angle', math.radians(45.0)))
    beam = float(params.get('beam_width', math.pi / 2))
    exponent = 0.0 if beam >= cutoff else float(params.get('cut_off_exponent', 1.0))
    return math.degrees(cutoff), exponent


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
    light.cutoff, light.exponent = spot_cone(p)
    if 'attenuation' in p:
        light.attenuation = [float(a) for a in p['attenuation']]
    light.active = bool(p.get('on', True))
    light.castshadow = False
    light.info = device.source or ''

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
        self._overlay = overlay
        self._retired: list[OffscreenRenderer] = []
        hooks = getattr(sim, 'rebind_hooks', None)
        if hooks is not None:
            hooks.append(self.rebind)
        default_rate = 1.0 / sim.period
        #: The plain inertial and force devices, read with one gather (``batch``).
        self.batch = SensorBatch(self.samplers)
        for device in sim.model.devices:
            settings = overlay.settings.get(device.name, DeviceSettings())
            try:
                sampler = self._make(device, settings, overlay.seed, default_rate)
            except DeviceRefused as err:
                self.warnings.append(f'{where(device.source or sim.model.source)}: device '
                                     f'{device.name!r} ({device.type_name or device.kind.value}): '
                                     f'{err}; it does not publish')
                continue
            if sampler is not None:
                self.samplers[device.name] = sampler
                self.warnings += [f'{where(device.source or sim.model.source)}: device '
                                  f'{device.name!r}: {line}' for line in sampler.warnings]

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
        raise DeviceRefused('the bridge has no simulation of this kind of device')

    def due(self, time: float | None = None) -> list[DeviceSampler]:
        """The enabled devices whose next reading is due at ``time`` (default: now) [s].

        A time earlier than the last one (the simulation was reset) restarts every schedule
        and noise generator, so a run after a reset repeats the first.
        """
        time = self.sim.time if time is None else time
        if time < self._last_time - SCHEDULE_TOLERANCE:
            for sampler in self.samplers.values():
                sampler.restart()
            self._epoch += 1
        self._last_time = time
        return [s for s in self.samplers.values() if s.due(time)]

    def rebind(self) -> None:
        """Find every device again after the world was compiled anew (a model joined or
        left); schedules, rates, noise and on/off states carry on. The renderer is made again
        for the new world (the old one is closed by the thread that renders)."""
        overlay = self._overlay
        changed()
        for sampler in self.samplers.values():
            kept = {key: getattr(sampler, key)
                    for key in ('enabled', 'period', 'rate', '_next', 'rng', 'noise')}
            fresh = self._make(sampler.device, overlay.settings.get(sampler.name,
                                                                    DeviceSettings()),
                               overlay.seed, 1.0 / sampler.period)
            sampler.__dict__.update(fresh.__dict__)
            sampler.__dict__.update(kept)
        if self._renderer is not None:
            self._retired.append(self._renderer)
            self._renderer = None
        self._scene_key = None

    def _scene(self) -> OffscreenRenderer:
        """The renderer, its scene updated to the current state (once per instant)."""
        while self._retired:
            self._retired.pop().close()
        if self._render_error is not None:
            raise RenderError(self._render_error)
        if self._renderer is None:
            sizes = [camera_render_size(s.device.params) for s in self.samplers.values()
                     if isinstance(s, CameraSampler)]
            try:
                self._renderer = OffscreenRenderer(self.sim.mj, max(w for w, _ in sizes),
                                                   max(h for _, h in sizes))
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
        while self._retired:
            self._retired.pop().close()
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
