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
  With ``format`` ``rvl`` (the plug-in's other format) the ``format`` is
  ``"32FC1; compressedDepth rvl"`` and the PNG is replaced by the code's width and height
  (uint32 each, the machine's byte order) and its RVL stream (:func:`rvl`).
* RVL (A. D. Wilson, "Fast Lossless Depth Image Compression", 2017, as the plug-in writes it):
  the pixels in row order as runs, each a count of zeros then a count of non-zeros followed by
  each non-zero value as the difference to the non-zero value before it (0 before the first),
  zigzag-coded (``2 d`` for ``d >= 0``, ``-2 d - 1`` below); every number is written in
  nibbles of 3 bits, least significant first, the fourth bit set on every nibble but the
  last, eight nibbles to a 32-bit word from its most significant end (the last word filled
  with zero nibbles), the words in the machine's byte order. The last run's count of non-zeros
  is 0 when the image ends with zeros.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

__all__ = ['COLOR_DEFAULTS', 'DEPTH_DEFAULTS', 'compress_color', 'compress_depth',
           'inverse_depth_code', 'rvl']

#: image_transport's defaults: compressed (format, jpeg_quality, png_level) and
#: compressedDepth (format png or rvl, depth_max [m], depth_quantization [m], png_level).
COLOR_DEFAULTS = {'format': 'jpeg', 'jpeg_quality': 95, 'png_level': 3}
DEPTH_DEFAULTS = {'format': 'png', 'depth_max': 10.0, 'depth_quantization': 100.0,
                  'png_level': 3}
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
    :data:`DEPTH_DEFAULTS`.

    Raises:
        ValueError: a format other than png or rvl.
    """
    fmt = settings.get('format', 'png')
    if fmt not in ('png', 'rvl'):
        raise ValueError(f'compressedDepth format {fmt!r} is not png or rvl')
    code, a, b = inverse_depth_code(depth, settings['depth_max'],
                                    settings['depth_quantization'])
    out = io.BytesIO()
    out.write(np.array([_INV_DEPTH], dtype='=i4').tobytes())
    out.write(np.array([a, b], dtype='=f4').tobytes())
    if fmt == 'png':
        Image.fromarray(code).save(out, 'PNG', compress_level=int(settings['png_level']))
    else:
        out.write(np.array([code.shape[1], code.shape[0]], dtype='=u4').tobytes())
        out.write(rvl(code))
    return f'32FC1; compressedDepth {fmt}', out.getvalue()


def rvl(code: np.ndarray) -> bytes:
    """The RVL stream of a uint16 image (rows after rows), as described above."""
    pixels = np.asarray(code, dtype=np.uint16).ravel()
    n = pixels.size
    if n == 0:
        return b''
    lit = pixels != 0
    edges = np.diff(np.concatenate(([False], lit, [False])).astype(np.int8))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    zeros = starts - np.concatenate(([0], ends[:-1]))
    counts = ends - starts
    values = pixels[lit].astype(np.int64)
    delta = values - np.concatenate(([0], values[:-1]))
    zigzag = (delta << 1) ^ (delta >> 63)
    runs = len(starts)
    seq = np.empty(2 * runs + len(values), dtype=np.int64)
    heads = 2 * np.arange(runs) + np.concatenate(([0], np.cumsum(counts)[:-1]))
    seq[heads], seq[heads + 1] = zeros, counts
    slots = np.ones(len(seq), dtype=bool)  # the values fill what the counts leave
    slots[heads] = slots[heads + 1] = False
    seq[slots] = zigzag
    last = ends[-1] if runs else 0
    if last < n:  # the image ends with zeros (or is all zeros)
        seq = np.concatenate((seq, [n - last, 0]))
    return _nibble_words(seq)


def _nibble_words(numbers: np.ndarray) -> bytes:
    """Numbers >= 0 in 3-bit nibbles, least significant first, 8 to a 32-bit word."""
    numbers = numbers.astype(np.uint32)
    bits = np.frexp(numbers.astype(np.float64))[1]  # bit lengths (0 for 0)
    sizes = np.maximum(1, (bits + 2) // 3)  # nibbles of each number
    ends = np.cumsum(sizes)
    flat = np.zeros(int(ends[-1]) + (-int(ends[-1]) % 8), dtype=np.uint8)
    starts = ends - sizes
    for k in range(int(sizes.max())):
        rows = np.flatnonzero(sizes > k)  # the numbers with a k-th nibble
        more = (sizes[rows] > k + 1).astype(np.uint8) << 3
        flat[starts[rows] + k] = ((numbers[rows] >> 3 * k) & 7).astype(np.uint8) | more
    pairs = flat.reshape(-1, 2)
    packed = (pairs[:, 0] << 4) | pairs[:, 1]  # two nibbles a byte, the first the high one
    return np.frombuffer(packed.tobytes(), dtype='>u4').astype('=u4').tobytes()
