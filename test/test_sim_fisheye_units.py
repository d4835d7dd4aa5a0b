"""sim/sensing/fisheye.py without a GL context: a renderer that writes into each pixel which render
and which pixel it is shows, so every fisheye pixel can be traced to the cube-face ray it was
taken from and checked against the equidistant model's direction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from body_bridge.sim.sensing.fisheye import FisheyeLens
from body_bridge.sim.sensing.render import Intrinsics


class Tracer:
    """Renders each call's number, row and column into the pixels; keeps the calls."""

    def __init__(self):
        self.calls = []

    def render(self, pos, rot, k, color, depth, headlight=None):
        assert (color, depth) == (True, False)
        self.calls.append((np.array(rot), k, np.array(headlight)))
        rows, cols = np.mgrid[0:k.height, 0:k.width]
        rgb = np.stack([np.full(rows.shape, len(self.calls)), rows, cols], axis=-1)
        return rgb.astype(np.uint8), None


def equidistant(size, f):
    """The directions (optical frame) of a size x size equidistant image, and its circle."""
    c = (size - 1) / 2
    y, x = np.mgrid[0:size, 0:size] - c
    theta, phi = np.hypot(x, y) / f, np.arctan2(y, x)
    d = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)], -1)
    return d, np.hypot(x, y) <= size / 2


def traced_directions(image, tracer):
    """The direction (optical frame) of the face ray each pixel of ``image`` shows."""
    out = np.zeros(image.shape, float)
    for n, (rot, k, _) in enumerate(tracer.calls, start=1):
        mask = image[..., 0] == n
        ray = np.stack([(image[mask][:, 2] - k.cx) / k.fx, (image[mask][:, 1] - k.cy) / k.fy,
                        np.ones(mask.sum())], -1)
        out[mask] = (ray / np.linalg.norm(ray, axis=1)[:, None]) @ rot.T
    return out


@pytest.mark.parametrize('width, fov', [(40, math.pi), (31, math.radians(120))])
def test_each_fisheye_pixel_shows_its_equidistant_direction(width, fov):
    lens = FisheyeLens(width, fov, 0.1, 20.0, limit=64)
    tracer = Tracer()
    turned = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # about z
    image = lens.render(tracer, np.zeros(3), turned)
    f = width / fov
    assert lens.intrinsics == Intrinsics(width, width, f, f, (width - 1) / 2, (width - 1) / 2,
                                         0.1, 20.0)
    s = lens.face.width
    assert lens.face == Intrinsics(s, s, s / 2, s / 2, (s - 1) / 2, (s - 1) / 2, 0.1, 20.0)
    assert s == math.ceil(2 * width / fov)  # the centre at the fisheye's resolution
    d, inside = equidistant(width, f)
    seen = traced_directions(image, tracer)
    angle = np.arccos(np.clip(np.sum(seen[inside] * (d[inside] @ turned.T), -1), -1, 1))
    assert angle.max() < 1.5 / (s / 2)  # within a face pixel and a half
    assert not image[~inside].any()  # black outside the circle
    for rot, _, light in tracer.calls:  # proper rotations, lit along the camera's axis
        assert np.allclose(rot.T @ rot, np.eye(3)) and np.isclose(np.linalg.det(rot), 1.0)
        assert np.allclose(light, turned[:, 2])
    assert len(tracer.calls) == 5  # front, right, left, down, up: none looks back


def test_a_dual_fisheye_shows_the_front_and_the_back_hemispheres():
    lens = FisheyeLens(60, math.pi, 0.1, 20.0, limit=64, dual=True)
    tracer = Tracer()
    image = lens.render(tracer, np.zeros(3), np.eye(3))
    assert image.shape == (30, 60, 3) and len(tracer.calls) == 6
    f = 30 / math.pi
    assert lens.intrinsics == Intrinsics(60, 30, f, f, 14.5, 14.5, 0.1, 20.0)
    d, inside = equidistant(30, f)
    back = d * np.array([-1.0, 1.0, -1.0])  # half a turn about the optical y axis
    seen = traced_directions(image, tracer)
    for half, want in ((seen[:, :30], d), (seen[:, 30:], back)):
        angle = np.arccos(np.clip(np.sum(half[inside] * want[inside], -1), -1, 1))
        assert angle.max() < 1.5 / (lens.face.width / 2)
    assert not image[:, :30][~inside].any() and not image[:, 30:][~inside].any()
    for rot, _, light in tracer.calls:  # each face lit along its own view
        assert np.allclose(light, rot[:, 2])
