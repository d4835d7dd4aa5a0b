"""Force laws of spring-dampers and bushings, as Chrono evaluates them (pure numpy).

``spring_force`` follows ``chrono/utils/ChForceFunctors.cpp``: curves are interpolated
linearly and held constant beyond their ends; the map is bilinear and extrapolates linearly
from its edge cells; bump stops use the ADAMS/Car table Chrono enables with
``enable_stops``. ``rsda_angle`` follows ``ChLinkRSDA::CalcAngle``.
"""

from __future__ import annotations

import math

import numpy as np

from ...model import Spring

__all__ = ['spring_force', 'stop_force', 'map_force', 'rsda_angle', 'unwrap', 'small_rotation']

#: Chrono's default bump-stop and rebound table: deflection [m] -> force [N].
_STOP_TABLE = np.array([[0.0, 0.0], [2e-3, 200.0], [4e-3, 400.0], [6e-3, 600.0],
                        [8e-3, 800.0], [10e-3, 1000.0], [20e-3, 2500.0], [30e-3, 4500.0],
                        [40e-3, 7500.0], [50e-3, 12500.0], [60e-3, 125000.0]])


def stop_force(length: float, minimum: float, maximum: float) -> float:
    """Bump-stop force [N] at ``length`` [m] (pushing outward below ``minimum``)."""
    force = 0.0
    if length < minimum:
        force += float(np.interp(minimum - length, _STOP_TABLE[:, 0], _STOP_TABLE[:, 1]))
    if length > maximum:
        force -= float(np.interp(length - maximum, _STOP_TABLE[:, 0], _STOP_TABLE[:, 1]))
    return force


def _cell(values: np.ndarray, x: float) -> tuple[int, float]:
    """Lower index of the cell holding ``x`` (edge cells beyond the ends) and its weight."""
    i = int(np.searchsorted(values, x, side='left'))
    i = min(max(i, 1), len(values) - 1)
    lo, hi = values[i - 1], values[i]
    return i - 1, (x - lo) / (hi - lo)


def map_force(deformations: np.ndarray, data: np.ndarray, deformation: float,
              velocity: float) -> float:
    """Bilinear map ``F(deformation, velocity)``; rows of ``data`` are (velocity, forces...)."""
    d, wd = _cell(deformations, deformation)
    v, wv = _cell(data[:, 0], velocity)
    forces = data[:, 1:]
    f_lo = (1 - wv) * forces[v, d] + wv * forces[v + 1, d]
    f_hi = (1 - wv) * forces[v, d + 1] + wv * forces[v + 1, d + 1]
    return float((1 - wd) * f_lo + wd * f_hi)


def spring_force(spring: Spring, x: float, v: float) -> float:
    """The element's force [N or N m] at position ``x`` and rate ``v`` (positive: x grows)."""
    dx = x - spring.rest
    if spring.map_data is not None:
        return spring.preload - map_force(spring.map_deformations, spring.map_data, dx, v)
    force = spring.preload - spring.stiffness * dx
    if spring.degressivity is not None:
        compression, expansion = spring.degressivity
        if v >= 0:
            force -= spring.damping * v / (1.0 + expansion * v)
        else:
            force -= spring.damping * v / (1.0 - compression * v)
    else:
        force -= spring.damping * v
    if spring.spring_curve is not None:
        curve = spring.spring_curve
        force -= float(np.interp(dx, curve[:, 0], curve[:, 1]))
    if spring.damping_curve is not None:
        curve = spring.damping_curve
        force -= float(np.interp(v, curve[:, 0], curve[:, 1]))
    if spring.stops is not None:
        force += stop_force(x, *spring.stops)
    return force


def rsda_angle(rot1: np.ndarray, rot2: np.ndarray) -> float:
    """Angle [rad] in (-pi, pi] of frame 2's x axis about frame 1's z, from frame 1's x."""
    f1, g1, f2 = rot1[:, 0], rot1[:, 1], rot2[:, 0]
    return math.atan2(float(g1 @ f2), float(f1 @ f2))


def unwrap(angle: float, previous: float) -> float:
    """``angle`` plus the whole turns that bring it closest to ``previous``."""
    return angle + 2.0 * math.pi * round((previous - angle) / (2.0 * math.pi))


def small_rotation(rot: np.ndarray) -> np.ndarray:
    """The rotation vector [rad] of a rotation matrix (axis times angle)."""
    c = max(-1.0, min(1.0, (float(np.trace(rot)) - 1.0) / 2.0))
    angle = math.acos(c)
    w = np.array([rot[2, 1] - rot[1, 2], rot[0, 2] - rot[2, 0], rot[1, 0] - rot[0, 1]])
    if angle < 1e-9:
        return 0.5 * w
    return w * (angle / (2.0 * math.sin(angle))) if math.sin(angle) > 1e-9 else \
        _half_turn(rot, angle)


def _half_turn(rot: np.ndarray, angle: float) -> np.ndarray:
    """A rotation by (nearly) pi: ``R = 2 a a^T - I``, so ``R_ij = 2 a_i a_j`` off the diagonal."""
    i = int(np.argmax(np.diag(rot)))
    ai = math.sqrt(max((rot[i, i] + 1.0) / 2.0, 1e-12))
    axis = (rot[i] + rot[:, i]) / (4.0 * ai)
    axis[i] = ai
    return axis / np.linalg.norm(axis) * angle
