"""Values and derivatives of ``model.Function`` (Project Chrono's ChFunction kinds).

Closed forms, by kind (``x`` is usually time [s]):

* CONSTANT ``c``; POLYNOMIAL ``a0 + a1 x + a2 x^2 + ...``; RAMP ``intercept + slope x``;
* SINE ``amplitude sin(2 pi frequency x + phase) + offset``;
* DATA: linear interpolation between points, the end values beyond them (Chrono's
  ChFunctionInterp without extrapolation);
* ``repeat``: ``f(x) = base(start + fmod(x + shift, width))`` (C's ``fmod``: the sign of
  ``x + shift``), as Chrono's ChFunctionRepeat.

CONTROLLER functions have no value of their own: the caller supplies it.
"""

from __future__ import annotations

import math

import numpy as np

from .model import Function, FunctionKind

__all__ = ['value', 'derivative', 'integral']


def _argument(fn: Function, x: float) -> float:
    rep = fn.repeat
    if rep is None:
        return x
    return rep.start + math.fmod(x + rep.shift, rep.width)


def value(fn: Function, x: float) -> float:
    """``fn(x)``.

    Raises:
        ValueError: a CONTROLLER function (its value comes from outside).
    """
    x = _argument(fn, x)
    kind, p = fn.kind, fn.params
    if kind == FunctionKind.CONSTANT:
        return p[0]
    if kind == FunctionKind.POLYNOMIAL:
        out = 0.0
        for a in reversed(p):
            out = out * x + a
        return out
    if kind == FunctionKind.SINE:
        amplitude, frequency, phase, offset = p
        return amplitude * math.sin(2.0 * math.pi * frequency * x + phase) + offset
    if kind == FunctionKind.RAMP:
        return p[0] + p[1] * x
    if kind == FunctionKind.DATA:
        pts = fn.points
        return float(np.interp(x, pts[:, 0], pts[:, 1]))
    raise ValueError(f'a {kind.value} function has no value of its own')


def derivative(fn: Function, x: float) -> float:
    """``fn'(x)``; for DATA the slope of the segment (0 beyond the points)."""
    x = _argument(fn, x)
    kind, p = fn.kind, fn.params
    if kind == FunctionKind.CONSTANT:
        return 0.0
    if kind == FunctionKind.POLYNOMIAL:
        out = 0.0
        for i in range(len(p) - 1, 0, -1):
            out = out * x + i * p[i]
        return out
    if kind == FunctionKind.SINE:
        amplitude, frequency, phase, _ = p
        w = 2.0 * math.pi * frequency
        return amplitude * w * math.cos(w * x + phase)
    if kind == FunctionKind.RAMP:
        return p[1]
    if kind == FunctionKind.DATA:
        pts = fn.points
        if len(pts) < 2 or x < pts[0, 0] or x >= pts[-1, 0]:
            return 0.0
        i = int(np.searchsorted(pts[:, 0], x, side='right')) - 1
        return float((pts[i + 1, 1] - pts[i, 1]) / (pts[i + 1, 0] - pts[i, 0]))
    raise ValueError(f'a {kind.value} function has no value of its own')


def integral(fn: Function, x0: float, x1: float, steps: int = 1) -> float:
    """``int_x0^x1 fn`` by the midpoint rule over ``steps`` equal parts.

    The midpoint rule is exact on each straight piece, so it is exact for CONSTANT, RAMP
    and DATA pieces that the parts do not straddle; the integrator calls it once per step.
    """
    h = (x1 - x0) / steps
    return h * sum(value(fn, x0 + (i + 0.5) * h) for i in range(steps))
