"""Compressed images (``ros/stream/compression.py``): decoded by independent decoders (OpenCV,
Pillow, and a compressedDepth decoder written here from compressed_depth_image_transport's
layout), they give the raw image back within the codec's error."""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest
from PIL import Image

from body_bridge.ros.stream.compression import (COLOR_DEFAULTS, DEPTH_DEFAULTS, compress_color,
                                         compress_depth, inverse_depth_code)

cv2 = pytest.importorskip('cv2', reason='OpenCV (a test dependency) is not installed')


def picture(h=120, w=160) -> np.ndarray:
    """A rendered-looking rgb8 image: smooth shading, flat areas and sharp edges."""
    v, u = np.mgrid[0:h, 0:w]
    rgb = np.stack([(u * 255 // w), (v * 255 // h), np.full_like(u, 90)], axis=-1)
    rgb[30:60, 40:90] = (200, 30, 30)  # a red box
    return rgb.astype(np.uint8)


def test_png_decodes_to_the_raw_image_exactly_with_its_format_string():
    rgb = picture()
    fmt, data = compress_color(rgb, dict(COLOR_DEFAULTS, format='png'))
    assert fmt == 'rgb8; png compressed bgr8'  # as compressed_image_transport writes it
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    np.testing.assert_array_equal(bgr[..., ::-1], rgb)
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(data)).convert('RGB')), rgb)


@pytest.mark.parametrize('quality, mean_error', [(95, 1.5), (50, 4.0)])
def test_jpeg_decodes_within_jpeg_error(quality, mean_error):
    rgb = picture()
    fmt, data = compress_color(rgb, dict(COLOR_DEFAULTS, jpeg_quality=quality))
    assert fmt == 'rgb8; jpeg compressed bgr8'
    assert data[:2] == b'\xff\xd8'  # a JPEG file
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)[..., ::-1]
    error = np.abs(decoded.astype(int) - rgb)
    assert error.mean() < mean_error
    # the red box is red (the channels are not swapped)
    r, g, b = decoded[45, 65].astype(int)
    assert r > 170 and g < 60 and b < 60
    assert len(data) < rgb.nbytes / 5


def test_the_defaults_are_image_transports():
    # compressed_image_transport: jpeg, quality 95, PNG level 3; compressed_depth_image_transport:
    # format png, depth_max 10 m, depth_quantization 100 m, PNG level 3
    assert COLOR_DEFAULTS == {'format': 'jpeg', 'jpeg_quality': 95, 'png_level': 3}
    assert DEPTH_DEFAULTS == {'format': 'png', 'depth_max': 10.0, 'depth_quantization': 100.0,
                              'png_level': 3}


def test_a_lower_quality_is_smaller_and_an_unknown_format_is_refused():
    rgb = picture()
    sizes = [len(compress_color(rgb, dict(COLOR_DEFAULTS, jpeg_quality=q))[1]) for q in (95, 30)]
    assert sizes[1] < sizes[0]
    with pytest.raises(ValueError, match="compressed format 'tiff' is not jpeg or png"):
        compress_color(rgb, dict(COLOR_DEFAULTS, format='tiff'))


def decode_compressed_depth(fmt: str, data: bytes) -> np.ndarray:
    """compressed_depth_image_transport's decoding, written from its layout: a ConfigHeader
    (int32 format, float32 depthParam[2]) then a 16-bit PNG of q; depth = A / (q - B), q = 0:
    NaN."""
    assert fmt == '32FC1; compressedDepth png'
    kind, a, b = struct.unpack('=iff', data[:12])
    assert kind == 0  # INV_DEPTH
    q = cv2.imdecode(np.frombuffer(data[12:], np.uint8), cv2.IMREAD_UNCHANGED)
    assert q.dtype == np.uint16
    with np.errstate(divide='ignore'):
        depth = np.float32(a) / (q.astype(np.float32) - np.float32(b))
    return np.where(q == 0, np.nan, depth).astype(np.float32)


def test_compressed_depth_decodes_to_the_depth_within_its_quantisation():
    v, u = np.mgrid[0:60, 0:80]
    depth = (0.3 + 0.1 * u + 0.02 * v).astype(np.float32)  # 0.3 .. 9.38 m
    depth[0, :5] = (np.inf, -np.inf, np.nan, 10.0, 25.0)  # none, too close, none, at/over max
    fmt, data = compress_depth(depth, DEPTH_DEFAULTS)
    decoded = decode_compressed_depth(fmt, data)
    a = 100.0 * 101.0  # depth_quantization z0 = 100: A = z0 (z0 + 1)
    ok = np.isfinite(depth) & (depth > 0) & (depth < 10.0)
    step = depth[ok].astype(float) ** 2 / a  # one code step [m] at each depth
    error = decoded[ok] - depth[ok]
    # q is truncated: the decoded depth is never nearer, and less than a step farther
    assert np.all(error >= -1e-5 * depth[ok]) and np.all(error <= step * 1.01 + 1e-6)
    assert np.isnan(decoded[0, [0, 2, 3, 4]]).all()  # no reading, at or beyond depth_max
    assert np.isnan(decoded[0, 1])  # too close (-inf) codes 0 too


def test_compressed_depth_settings_change_the_code():
    depth = np.full((4, 4), 2.0, np.float32)
    q, a, b = inverse_depth_code(depth, 10.0, 100.0)
    assert (a, b) == (10100.0, pytest.approx(1.0 - 1010.0))
    assert q[0, 0] == int(np.float32(10100.0) / np.float32(2.0) + np.float32(b))
    fine, a2, _ = inverse_depth_code(depth, 10.0, 200.0)
    assert a2 == 200.0 * 201.0 and fine[0, 0] > q[0, 0]
    far, _, _ = inverse_depth_code(depth, 1.5, 100.0)
    assert far[0, 0] == 0  # beyond depth_max
    near, _, _ = inverse_depth_code(np.array([[0.1, 0.2]], np.float32), 10.0, 100.0)
    assert near.tolist() == [[65535, 49491]]  # nearer than A / 65536: the largest code
    _, data = compress_depth(depth, dict(DEPTH_DEFAULTS, depth_max=5.0))
    assert struct.unpack('=iff', data[:12])[2] == pytest.approx(1.0 - 10100.0 / 5.0)


def rvl_decode(stream: bytes, count: int) -> np.ndarray:
    """RVL decoded from its layout (compressed_depth_image_transport's ``rvl`` format):
    32-bit words in the machine's order, read from their most significant nibble; a number is
    3-bit groups, least significant first, while the nibble's fourth bit is set; runs of
    (zeros, non-zeros, zigzag differences of the non-zero values)."""
    words = np.frombuffer(stream, dtype='=u4')
    nibbles = iter([(int(w) >> shift) & 0xF for w in words for shift in range(28, -1, -4)])

    def number() -> int:
        value, shift = 0, 0
        while True:
            nibble = next(nibbles)
            value |= (nibble & 7) << shift
            shift += 3
            if not nibble & 8:
                return value
    out, previous = [], 0
    while len(out) < count:
        out += [0] * number()
        for _ in range(number()):
            zigzag = number()
            previous += (zigzag >> 1) ^ -(zigzag & 1)
            out.append(previous)
    assert len(out) == count and not any(nibbles)  # only padding after the last number
    return np.array(out, dtype=np.uint16)


def test_rvl_by_hand():
    from body_bridge.ros.stream.compression import rvl
    # 2 zeros, 2 non-zeros: 5 (zigzag 10: nibbles 0xA, 0x1), then 3 (a difference of -2:
    # zigzag 3); nibbles 2 2 A 1 3 and three of padding in one word
    assert rvl(np.array([0, 0, 5, 3], np.uint16)) == struct.pack('=I', 0x22A13000)
    # no zeros first, then a run of 2 zeros at the end: counts 0, 1, value 7 (zigzag 14:
    # 0xE 0x1), then 2 zeros and 0 non-zeros
    assert rvl(np.array([7, 0, 0], np.uint16)) == struct.pack('=I', 0x01E12000)
    assert rvl(np.zeros(0, np.uint16)) == b''
    # ending on a non-zero: no run pair after it (2 zeros, 4 non-zeros: 5, then differences
    # -2, -1, -1, zigzag 3 1 1; nibbles 2 4 A 1 3 1 1 and one of padding: one word)
    assert rvl(np.array([0, 0, 5, 3, 2, 1], np.uint16)) == struct.pack('=I', 0x24A13110)
    # 307200 zeros (a 640x480 image without readings): octal 1130000, 7 nibbles (least
    # significant group first: 0 0 0 0 3 1 1, continued: 8 8 8 8 B 9 1), then 0 non-zeros
    assert rvl(np.zeros((480, 640), np.uint16)) == struct.pack('=I', 0x8888B910)


@pytest.mark.parametrize('pixels', [
    [65535, 1, 65535, 0, 0, 0, 1],  # the largest differences, both signs
    [0] * 9 + [3] * 9,
    [4, 5, 6, 7, 8, 9, 10, 11, 12],  # a run longer than a word
    [1],
    [0],
    list(range(0, 65536, 257)) + [0] * 100 + list(range(65535, 0, -1000)),
])
def test_rvl_decodes_to_its_pixels(pixels):
    from body_bridge.ros.stream.compression import rvl
    code = np.array(pixels, np.uint16)
    assert rvl_decode(rvl(code), len(code)).tolist() == pixels


def test_compressed_depth_as_rvl_decodes_to_the_png_code():
    v, u = np.mgrid[0:48, 0:64]
    depth = (0.3 + 0.1 * u + 0.02 * v).astype(np.float32)
    depth[5, :6] = (np.inf, -np.inf, np.nan, 10.0, 25.0, 0.5)
    depth[20:30, 10:40] = np.nan  # a hole
    fmt, data = compress_depth(depth, dict(DEPTH_DEFAULTS, format='rvl'))
    assert fmt == '32FC1; compressedDepth rvl'
    kind, a, b = struct.unpack('=iff', data[:12])
    code, a0, b0 = inverse_depth_code(depth, 10.0, 100.0)
    assert (kind, a, b) == (0, a0, pytest.approx(b0))
    assert struct.unpack('=II', data[12:20]) == (64, 48)  # cols, rows
    decoded = rvl_decode(data[20:], 48 * 64).reshape(48, 64)
    assert np.array_equal(decoded, code)
    png = decode_compressed_depth(*compress_depth(depth, DEPTH_DEFAULTS))
    with np.errstate(divide='ignore'):
        again = np.where(decoded == 0, np.nan, np.float32(a) / (decoded - np.float32(b)))
    np.testing.assert_array_equal(again.astype(np.float32), png)
    assert len(data) < 48 * 64 * 2  # smaller than the 16-bit code itself
    with pytest.raises(ValueError, match="compressedDepth format 'jpeg' is not png or rvl"):
        compress_depth(depth, dict(DEPTH_DEFAULTS, format='jpeg'))
