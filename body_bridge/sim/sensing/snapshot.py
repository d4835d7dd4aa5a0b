"""Pictures of a model, rendered offscreen (``python -m body_bridge snapshot``).

Two views: the whole model seen by a camera placed to frame it (``overview``), or what one of
its camera devices sees, rendered exactly as the sensor renders it (``device_view``). Images
are written as PNG files with the standard library alone.
"""

from __future__ import annotations

import math
import struct
import zlib

import mujoco
import numpy as np

from .render import Intrinsics, OffscreenRenderer
from .sensors import CameraSampler, SensorSuite

__all__ = ['overview', 'device_view', 'depth_to_gray', 'write_png', 'visible_points']

#: Part of the picture left free around the model, on each side.
_MARGIN = 0.06


def visible_points(mj: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """Corners (N, 3) [m] of the world bounding boxes of every visible geom but planes, and
    the visible sites (the ends of springs)."""
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    points = []
    for g in range(mj.ngeom):
        if mj.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE or mj.geom_rgba[g, 3] <= 0.0 \
                or mj.geom_group[g] > 2:
            continue
        rot = data.geom_xmat[g].reshape(3, 3)
        centre, half = mj.geom_aabb[g, :3], mj.geom_aabb[g, 3:]
        points.append(data.geom_xpos[g] + (centre + corners * half) @ rot.T)
    points += [data.site_xpos[s][None, :] for s in range(mj.nsite) if mj.site_group[s] <= 2]
    if not points:
        return np.zeros((1, 3))
    return np.concatenate(points)


def _look(direction: np.ndarray) -> np.ndarray:
    """Optical axes (x right, y down, z forward) of a camera looking along ``direction``."""
    forward = direction / np.linalg.norm(direction)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    return np.column_stack([right, down, forward])


def overview(sim, width: int = 640, height: int = 480, azimuth: float = math.radians(35.0),
             elevation: float = math.radians(25.0),
             field_of_view: float = math.radians(40.0)) -> np.ndarray:
    """The whole model in its current state, framed by a pinhole camera.

    Args:
        sim: the model's Simulation (its current state is rendered).
        width, height: image size [pixels].
        azimuth: direction the camera looks from, about +z from +x [rad].
        elevation: height of the camera's position above the model's centre [rad].
        field_of_view: across the shorter image side [rad].

    Returns:
        rgb (height, width, 3) uint8, row 0 at the top.

    Raises:
        RenderError: offscreen rendering is not available.
    """
    points = visible_points(sim.mj, sim.data)
    centre = 0.5 * (points.min(axis=0) + points.max(axis=0))
    toward = np.array([math.cos(elevation) * math.cos(azimuth),
                       math.cos(elevation) * math.sin(azimuth), math.sin(elevation)])
    rot = _look(-toward)
    f = 0.5 * min(width, height) / math.tan(0.5 * field_of_view)
    tan_x = (0.5 - _MARGIN) * width / f
    tan_y = (0.5 - _MARGIN) * height / f
    local = (points - centre) @ rot
    distance = float(np.max(np.maximum(np.abs(local[:, 0]) / tan_x, np.abs(local[:, 1]) / tan_y)
                            - local[:, 2]))
    distance = max(distance, 0.05)
    size = float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)))
    k = Intrinsics(width, height, f, f, (width - 1) / 2, (height - 1) / 2,
                   near=max(0.002, 0.05 * distance), far=20.0 * (distance + size))
    mj = sim.mj
    glob = mj.vis.global_
    glob.offwidth, glob.offheight = max(glob.offwidth, width), max(glob.offheight, height)
    mj.vis.headlight.ambient[:] = 0.35
    mj.vis.headlight.diffuse[:] = 0.65
    renderer = OffscreenRenderer(mj, width, height)
    try:
        renderer.update(sim.data)
        rgb, depth = renderer.render(centre - distance * rot[:, 2], rot, k)
        return _with_background(rgb.copy(), depth)
    finally:
        renderer.close()


def _with_background(rgb: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Pixels where nothing was rendered painted with a light vertical gradient."""
    height = rgb.shape[0]
    shade = np.linspace(225.0, 175.0, height)[:, None, None] * np.array([0.96, 0.98, 1.0])
    sky = np.broadcast_to(shade, rgb.shape).astype(np.uint8)
    empty = ~np.isfinite(depth)
    rgb[empty] = sky[empty]
    return rgb


def device_view(sim, device: str) -> tuple[np.ndarray | None, np.ndarray | None]:
    """What a camera device of the model sees now, rendered as its topics publish it.

    Returns:
        (rgb (H, W, 3) uint8 or None, depth (H, W) float32 [m] or None), as the format gives.

    Raises:
        KeyError: the model has no camera of that name (the message lists the cameras).
        RenderError: offscreen rendering is not available.
    """
    suite = SensorSuite(sim)
    cameras = {n: s for n, s in suite.samplers.items() if isinstance(s, CameraSampler)}
    if device not in cameras:
        raise KeyError(f'{device!r} is not a simulated camera of {sim.model.name} (cameras: '
                       f'{", ".join(cameras) or "none"})')
    try:
        reading = cameras[device].read(color=True, depth=True)
        rgb = None if reading.rgb is None else reading.rgb.copy()
        depth = None if reading.depth is None else reading.depth.copy()
        return rgb, depth
    finally:
        suite.close()


def depth_to_gray(depth: np.ndarray) -> np.ndarray:
    """A depth image [m] as 8-bit grey: near white, far dark, black where nothing was seen."""
    finite = np.isfinite(depth)
    gray = np.zeros(depth.shape, np.uint8)
    if finite.any():
        near, far = float(depth[finite].min()), float(depth[finite].max())
        scale = (far - near) or 1.0
        gray[finite] = (255 - 200 * (depth[finite] - near) / scale).astype(np.uint8)
    return gray


def write_png(path: str, pixels: np.ndarray) -> None:
    """Write an 8-bit image, (H, W, 3) RGB or (H, W) grey, row 0 at the top, as PNG."""
    pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
    if pixels.ndim == 3 and pixels.shape[2] == 3:
        color_type = 2
    elif pixels.ndim == 2:
        color_type = 0
    else:
        raise ValueError(f'an image of shape {pixels.shape} is neither RGB nor grey')
    height, width = pixels.shape[:2]
    rows = pixels.reshape(height, -1)
    raw = np.hstack([np.zeros((height, 1), np.uint8), rows]).tobytes()  # filter 0 per row

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack('>I', len(data)) + tag + data + \
            struct.pack('>I', zlib.crc32(tag + data) & 0xFFFFFFFF)

    header = struct.pack('>IIBBBBB', width, height, 8, color_type, 0, 0, 0)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) +
                chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
