"""Chrono functions (``body_bridge.functions``) against closed forms the test computes itself:
DATA values and slopes on every segment and at every point (the slope is a motor's
velocity), polynomial derivatives, repeats of negative arguments, integrals."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from body_bridge import functions
from body_bridge.model import Function, FunctionKind, Repeat


def _data(seed: int, n: int = 7) -> tuple[Function, list[tuple[float, float]]]:
    rng = random.Random(seed)
    xs = sorted(rng.uniform(-5, 5) for _ in range(n))
    pts = [(x, rng.uniform(-3, 3)) for x in xs]
    return Function(FunctionKind.DATA, points=pts), pts


def _segment(pts, x):
    """(index, slope) of the segment holding x (the right one at an inner point)."""
    for i in range(len(pts) - 1):
        (x0, y0), (x1, y1) = pts[i], pts[i + 1]
        if x0 <= x < x1:
            return i, (y1 - y0) / (x1 - x0)
    return None, 0.0


@pytest.mark.parametrize('seed', range(5))
def test_data_values_and_slopes_equal_linear_interpolation(seed):
    fn, pts = _data(seed)
    rng = random.Random(100 + seed)
    for _ in range(40):
        x = rng.uniform(-6, 6)
        i, slope = _segment(pts, x)
        if i is None:
            expected = pts[0][1] if x < pts[0][0] else pts[-1][1]
        else:
            expected = pts[i][1] + slope * (x - pts[i][0])
        assert functions.value(fn, x) == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert functions.derivative(fn, x) == pytest.approx(slope, rel=1e-12)
    for k, (x, y) in enumerate(pts):  # at the points: their value, the next segment's slope
        assert functions.value(fn, x) == y
        assert functions.derivative(fn, x) == pytest.approx(_segment(pts, x)[1], rel=1e-12)
    assert functions.derivative(fn, pts[-1][0]) == 0.0  # the last point holds its value
    assert functions.derivative(fn, math.nextafter(pts[-1][0], -math.inf)) == pytest.approx(
        (pts[-1][1] - pts[-2][1]) / (pts[-1][0] - pts[-2][0]), rel=1e-12)
    assert functions.derivative(fn, math.nextafter(pts[0][0], -math.inf)) == 0.0


def test_data_of_one_or_two_points():
    one = Function(FunctionKind.DATA, points=[(1.0, 2.0)])
    assert [functions.value(one, x) for x in (0.0, 1.0, 2.0)] == [2.0, 2.0, 2.0]
    assert [functions.derivative(one, x) for x in (0.0, 1.0, 2.0)] == [0.0, 0.0, 0.0]
    two = Function(FunctionKind.DATA, points=[(0.0, 0.0), (2.0, 1.0)])
    assert [functions.derivative(two, x) for x in (-0.1, 0.0, 1.0, 2.0, 3.0)] == \
        [0.0, 0.5, 0.5, 0.0, 0.0]


def test_data_slope_is_the_derivative_of_its_value():
    fn, pts = _data(7, n=12)
    h = 1e-7
    for (x0, _), (x1, _) in zip(pts, pts[1:]):
        if x1 - x0 < 1e-3:
            continue
        x = 0.5 * (x0 + x1)
        numeric = (functions.value(fn, x + h) - functions.value(fn, x - h)) / (2 * h)
        assert functions.derivative(fn, x) == pytest.approx(numeric, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize('coeffs', [(2.0,), (1.0, -2.0), (0.5, 0.0, 3.0, -1.25), (0, 0, 0, 0, 2)])
def test_polynomial_value_and_derivative(coeffs):
    fn = Function(FunctionKind.POLYNOMIAL, params=coeffs)
    for x in (-1.5, 0.0, 0.7, 2.0):
        assert functions.value(fn, x) == pytest.approx(sum(a * x ** i for i, a in
                                                          enumerate(coeffs)), rel=1e-14)
        assert functions.derivative(fn, x) == pytest.approx(
            sum(i * a * x ** (i - 1) for i, a in enumerate(coeffs) if i), rel=1e-14, abs=0)


def test_sine_ramp_constant():
    sine = Function(FunctionKind.SINE, params=(1.5, 0.4, 0.3, -0.2))
    w = 2 * math.pi * 0.4
    for x in (-1.0, 0.0, 0.9, 3.3):
        assert functions.value(sine, x) == pytest.approx(1.5 * math.sin(w * x + 0.3) - 0.2)
        assert functions.derivative(sine, x) == pytest.approx(1.5 * w * math.cos(w * x + 0.3))
    ramp = Function(FunctionKind.RAMP, params=(0.5, -2.0))
    assert (functions.value(ramp, 3.0), functions.derivative(ramp, 3.0)) == (-5.5, -2.0)
    const = Function(FunctionKind.CONSTANT, params=(4.0,))
    assert (functions.value(const, 3.0), functions.derivative(const, 3.0)) == (4.0, 0.0)


def test_repeat_of_negative_arguments_follows_cs_fmod():
    base = Function(FunctionKind.RAMP, params=(0.0, 1.0), repeat=Repeat(1.0, 2.0, 0.5))
    for x in (-3.7, -0.5, 0.0, 0.4, 5.2):
        r = math.fmod(x + 0.5, 2.0)  # the sign of x + shift, as C's fmod
        assert functions.value(base, x) == pytest.approx(1.0 + r, abs=1e-15)
        assert functions.derivative(base, x) == 1.0
    data = Function(FunctionKind.DATA, points=[(0, 0), (1, 2), (2, 0)],
                    repeat=Repeat(0.0, 2.0, 0.0))
    assert functions.derivative(data, 2.5) == 2.0 and functions.derivative(data, 3.5) == -2.0
    assert functions.derivative(data, -0.5) == 0.0  # fmod(-0.5, 2) = -0.5: before the points


def test_integral_is_the_area():
    fn, pts = _data(3)
    x0, x1 = pts[0][0] - 1.0, pts[-1][0] + 1.0
    area = sum(0.5 * (ya + yb) * (xb - xa) for (xa, ya), (xb, yb) in zip(pts, pts[1:]))
    area += pts[0][1] * 1.0 + pts[-1][1] * 1.0
    assert functions.integral(fn, x0, x1, steps=20000) == pytest.approx(area, rel=1e-6)
    ramp = Function(FunctionKind.RAMP, params=(1.0, 2.0))
    assert functions.integral(ramp, 1.0, 3.0) == pytest.approx(2.0 + 8.0, rel=1e-15)
    quad = Function(FunctionKind.POLYNOMIAL, params=(0.0, 0.0, 3.0))
    assert functions.integral(quad, 0.0, 1.0, steps=1) == 0.75  # the midpoint rule, once
    assert functions.integral(quad, 0.0, 1.0, steps=2) == pytest.approx(0.9375)


def test_controller_functions_refuse_value_and_derivative():
    fn = Function(FunctionKind.CONTROLLER)
    for call in (functions.value, functions.derivative):
        with pytest.raises(ValueError, match='a controller function has no value of its own'):
            call(fn, 0.0)


def test_points_are_sorted_arrays():
    fn, _ = _data(1)
    assert isinstance(fn.points, np.ndarray) and fn.points.shape == (7, 2)
