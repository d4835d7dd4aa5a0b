"""Images compressed as image_transport's plug-ins write them (pure: numpy and Pillow).

* ``compressed`` (compressed_image_transport): a JPEG or PNG file of the image; the message's
  ``format`` is ``"<encoding>; jpeg compressed bgr8"`` or ``"<encoding>; png compressed bgr8"``
  for a colour image (the plug-in converts to OpenCV's BGR order before encoding, and the
  file holds the colours as they are, so any JPEG/PNG decoder reads the picture).
* ``compressedDepth`` (compressed_depth_image_transport), for a 32FC1 depth image [m]: the
  ``format`` is ``"32FC1; compressedDepth png"``; the data is a 12-byte header (the C struct
  ``ConfigHeader``: int32 format, 0 for inverse depth, then float32 ``A`` and ``B``, in the
  machine's byte order) followed by a 16-bit greyscale PNG of the inverse-depth code
  ``q = A / d + B`` truncated to an integer, 0 where there is no reading (``d`` not below
  ``depth_max``, or not a number), with ``A = z0 (z0 + 1)`` (``z0``: ``depth_quantization``)
  and ``B = 1 - A / depth_max``. A decoder reads ``d = A / (q - B)``; one step of ``q`` is
  ``d^2 / A`` metres at depth ``d``.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

__all__ = ['COLOR_DEFAULTS', 'DEPTH_DEFAULTS', 'compress_color', 'compress_depth',
           'inverse_depth_code']

#: image_transport's defaults: compressed (format, jpeg_quality, png_level) and
#: compressedDepth (depth_max [m], depth_quantization [m], png_level).
COLOR_DEFAULTS = {'format': 'jpeg', 'jpeg_quality': 95, 'png_level': 3}
DEPTH_DEFAULTS = {'depth_max': 10.0, 'depth_quantization': 100.0, 'png_level': 3}
_INV_DEPTH = 0  # compressionFormat INV_DEPTH


def compress_color(rgb: np.ndarray, settings) -> tuple[str, bytes]:
    """(format, data) of an rgb8 image (H, W, 3) uint8 with ``settings`` as
    :data:`COLOR_DEFAULTS`.

    Raises:
        ValueError: a format other than jpeg or png.
    """
    fmt = settings['format']
    out = io.BytesIO()
    image = Image.fromarray(np.ascontiguousarray(rgb))
    if fmt == 'jpeg':
        image.save(out, 'JPEG', quality=int(settings['jpeg_quality']))
    elif fmt == 'png':
        image.save(out, 'PNG', compress_level=int(settings['png_level']))
    else:
        raise ValueError(f'compressed format {fmt!r} is not jpeg or png')
    return f'rgb8; {fmt} compressed bgr8', out.getvalue()


def inverse_depth_code(depth: np.ndarray, depth_max: float,
                       depth_quantization: float) -> tuple[np.ndarray, float, float]:
    """The 16-bit inverse-depth code of a depth image [m] and its ``A``, ``B`` (float32, as
    the plug-in computes them)."""
    z0, dmax = np.float32(depth_quantization), np.float32(depth_max)
    a = np.float32(z0 * (z0 + np.float32(1.0)))
    b = np.float32(np.float32(1.0) - a / dmax)
    d = np.asarray(depth, dtype=np.float32)
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        q = a / d + b
        keep = d < dmax  # False for NaN
        q = np.where(keep & np.isfinite(q), q, 0.0)
    return np.clip(q, 0.0, 65535.0).astype(np.uint16), float(a), float(b)


def compress_depth(depth: np.ndarray, settings) -> tuple[str, bytes]:
    """(format, data) of a 32FC1 depth image [m] with ``settings`` as
    :data:`DEPTH_DEFAULTS`."""
    code, a, b = inverse_depth_code(depth, settings['depth_max'],
                                    settings['depth_quantization'])
    out = io.BytesIO()
    out.write(np.array([_INV_DEPTH], dtype='=i4').tobytes())
    out.write(np.array([a, b], dtype='=f4').tobytes())
    Image.fromarray(code).save(out, 'PNG', compress_level=int(settings['png_level']))
    return '32FC1; compressedDepth png', out.getvalue()
