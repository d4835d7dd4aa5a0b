"""Sensor messages built from readings, without publishers (testable alone).

Stamps are simulated time; images are rgb8 or 32FC1 depth in metres (REP-118); point clouds
are float32 x, y, z [m] (and packed rgb), organised like the image they come from; ranges follow
REP-117 (+Inf for no return).
"""

from __future__ import annotations

import math
import sys

import numpy as np
from builtin_interfaces.msg import Time
from sensor_msgs.msg import CameraInfo, CompressedImage, Image, PointCloud2, PointField

from ...sim.sensing.render import Intrinsics

__all__ = ['camera_info', 'image_message', 'cloud_fields', 'fill_cloud', 'camera_points',
           'range_points', 'stamp_of', 'covariance', 'covariance_of', 'compressed_image']

_BIG_ENDIAN = sys.byteorder == 'big'


def stamp_of(seconds: float) -> Time:
    sec = math.floor(seconds)
    return Time(sec=int(sec), nanosec=min(int(round((seconds - sec) * 1e9)), 999_999_999))


def covariance(sigma: float | None) -> list[float]:
    """Row-major 3x3 covariance: -1 in element 0 when the quantity is not reported."""
    if sigma is None:
        return [-1.0] + [0.0] * 8
    var = float(sigma) ** 2
    return [var, 0.0, 0.0, 0.0, var, 0.0, 0.0, 0.0, var]


def covariance_of(variances) -> list[float]:
    """Row-major 3x3 covariance with ``variances`` (x, y, z) on the diagonal; -1 in element 0
    when None (the quantity is not reported, REP-145)."""
    if variances is None:
        return [-1.0] + [0.0] * 8
    vx, vy, vz = (float(v) for v in variances)
    return [vx, 0.0, 0.0, 0.0, vy, 0.0, 0.0, 0.0, vz]


def compressed_image(frame_id: str, stamp: Time,
                     compressed: tuple[str, bytes]) -> CompressedImage:
    """A CompressedImage of (format, data) from :mod:`.compression`."""
    msg = CompressedImage()
    msg.header.frame_id, msg.header.stamp = frame_id, stamp
    msg.format, msg.data = compressed
    return msg


def camera_info(k: Intrinsics, frame_id: str, model: str = 'plumb_bob') -> CameraInfo:
    """CameraInfo of an image without distortion: K, P = [K | 0], R = I, D = 0.

    ``model`` is ``plumb_bob`` (a pinhole image), ``equidistant`` (a fisheye image whose
    pixel distance from (cx, cy) is fx times the angle from the optical axis) or
    ``dual_equidistant`` (two such circles side by side, K the left one's: sim/sensing/fisheye.py).
    """
    msg = CameraInfo()
    msg.header.frame_id = frame_id
    msg.width, msg.height = k.width, k.height
    msg.distortion_model = model
    msg.d = [0.0] * (4 if model.endswith('equidistant') else 5)
    msg.k = [k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg


def image_message(msg: Image, pixels: np.ndarray, encoding: str) -> Image:
    """Fill an Image from an array (H, W) or (H, W, C), row 0 at the top."""
    msg.height, msg.width = int(pixels.shape[0]), int(pixels.shape[1])
    msg.encoding = encoding
    msg.is_bigendian = int(_BIG_ENDIAN and pixels.dtype.itemsize > 1)
    channels = pixels.shape[2] if pixels.ndim > 2 else 1
    msg.step = int(pixels.shape[1] * pixels.dtype.itemsize * channels)
    msg.data = pixels.tobytes()  # C order, whatever the strides of the view
    return msg


def cloud_fields(rgb: bool) -> list[PointField]:
    """x, y, z float32 (and rgb: float32 holding 0x00RRGGBB, the PCL convention)."""
    names = ('x', 'y', 'z', 'rgb') if rgb else ('x', 'y', 'z')
    return [PointField(name=n, offset=4 * i, datatype=PointField.FLOAT32, count=1)
            for i, n in enumerate(names)]


def fill_cloud(msg: PointCloud2, points: np.ndarray, rgb: bool) -> PointCloud2:
    """Fill a PointCloud2 from a structured float32 array of shape (H, W) or (N,)."""
    msg.height = int(points.shape[0]) if points.ndim == 2 else 1
    msg.width = int(points.shape[-1]) if points.ndim == 2 else int(points.shape[0])
    msg.fields = cloud_fields(rgb)
    msg.is_bigendian = _BIG_ENDIAN
    msg.point_step = 16 if rgb else 12
    msg.row_step = msg.point_step * msg.width
    msg.data = points.tobytes()
    return msg


def camera_points(k: Intrinsics, depth: np.ndarray, rgb: np.ndarray | None) -> np.ndarray:
    """Organised points (H, W) in the optical frame from a depth image; NaN where no depth."""
    xr, yr = k.rays()
    z = np.where(np.isfinite(depth), depth, np.nan).astype(np.float32)
    fields = [('x', 'f4'), ('y', 'f4'), ('z', 'f4')] + ([('rgb', 'f4')] if rgb is not None else [])
    out = np.empty(depth.shape, dtype=fields)
    out['x'] = xr[None, :].astype(np.float32) * z
    out['y'] = yr[:, None].astype(np.float32) * z
    out['z'] = z
    if rgb is not None:
        packed = ((rgb[..., 0].astype(np.uint32) << 16) | (rgb[..., 1].astype(np.uint32) << 8)
                  | rgb[..., 2].astype(np.uint32))
        out['rgb'] = packed.view(np.float32)
    return out


def range_points(directions: np.ndarray, ranges: np.ndarray) -> np.ndarray:
    """Points (N,) x, y, z float32 in the device frame of the beams that returned."""
    r = ranges.reshape(-1)
    hit = np.isfinite(r)
    xyz = (directions[hit] * r[hit, None]).astype(np.float32)
    out = np.empty(len(xyz), dtype=[('x', 'f4'), ('y', 'f4'), ('z', 'f4')])
    out['x'], out['y'], out['z'] = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    return out
