"""Rigid transforms and rotations: :class:`Pose` and rotation-matrix helpers.

Lengths [m], angles [rad], quaternions (w, x, y, z); rotation matrices map child to parent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ._values import frozen_array, vector

__all__ = [
    'Pose', 'is_rotation', 'axis_angle_matrix', 'quat_matrix', 'matrix_quat', 'matrix_rpy'
]


@dataclass(frozen=True, slots=True, eq=False)
class Pose:
    """A rigid transform: ``p_parent = rot @ p_child + pos``.

    Attributes:
        pos: translation [m], shape (3,).
        rot: rotation matrix, shape (3, 3).
    """

    pos: np.ndarray = field(default_factory=lambda: vector((0, 0, 0)))
    rot: np.ndarray = field(default_factory=lambda: frozen_array(np.eye(3)))

    def __post_init__(self):
        object.__setattr__(self, 'pos', vector(self.pos))
        rot = np.array(self.rot, dtype=float).reshape(3, 3)
        object.__setattr__(self, 'rot', frozen_array(rot))

    @staticmethod
    def identity() -> Pose:
        return Pose()

    @staticmethod
    def from_matrix(matrix) -> Pose:
        m = np.asarray(matrix, dtype=float)
        return Pose(m[:3, 3], m[:3, :3])

    @staticmethod
    def from_axis_angle(axis, angle: float, pos=(0, 0, 0)) -> Pose:
        """Rotation by ``angle`` [rad] about ``axis`` (normalised here)."""
        return Pose(pos, axis_angle_matrix(axis, angle))

    @staticmethod
    def from_quat(quat, pos=(0, 0, 0)) -> Pose:
        """From a quaternion (w, x, y, z), normalised here."""
        return Pose(pos, quat_matrix(quat))

    @staticmethod
    def from_rpy(rpy, pos=(0, 0, 0)) -> Pose:
        """From fixed-axis roll, pitch, yaw [rad] (URDF convention: R = Rz(y) Ry(p) Rx(r))."""
        r, p, y = rpy
        rz = axis_angle_matrix((0, 0, 1), y)
        ry = axis_angle_matrix((0, 1, 0), p)
        rx = axis_angle_matrix((1, 0, 0), r)
        return Pose(pos, rz @ ry @ rx)

    def matrix(self) -> np.ndarray:
        m = np.eye(4)
        m[:3, :3] = self.rot
        m[:3, 3] = self.pos
        return m

    def __matmul__(self, other: Pose) -> Pose:
        return Pose(self.rot @ other.pos + self.pos, self.rot @ other.rot)

    def inverse(self) -> Pose:
        rt = self.rot.T
        return Pose(-rt @ self.pos, rt)

    def apply(self, points) -> np.ndarray:
        """Transform points (shape (3,) or (N, 3)) from the child to the parent frame."""
        return np.asarray(points, dtype=float) @ self.rot.T + self.pos

    def quat(self) -> np.ndarray:
        """The rotation as a unit quaternion (w, x, y, z) with w >= 0."""
        return matrix_quat(self.rot)

    def rpy(self) -> np.ndarray:
        """The rotation as URDF roll, pitch, yaw [rad]."""
        return matrix_rpy(self.rot)

    def is_identity(self, tol: float = 1e-12) -> bool:
        return bool(np.allclose(self.pos, 0, atol=tol)
                    and np.allclose(self.rot, np.eye(3), atol=tol))

    def __repr__(self) -> str:
        return f'Pose(pos={self.pos.tolist()}, quat={self.quat().round(6).tolist()})'


def is_rotation(rot, tol: float = 1e-9) -> bool:
    """Whether the 3x3 ``rot`` is orthonormal within ``tol`` and right-handed (no mirror).

    Plain floats rather than numpy: loaders call this for every pose, and on 3x3 matrices
    numpy's cost per call is most of the work. NaN and infinity are not rotations.
    """
    (a, b, c), (d, e, f), (g, h, i) = np.asarray(rot, dtype=float).tolist()
    columns = ((a, d, g), (b, e, h), (c, f, i))
    for j in range(3):
        u = columns[j]
        for k in range(j, 3):
            v = columns[k]
            dot = u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
            if not abs(dot - (1.0 if j == k else 0.0)) <= tol:
                return False
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) > 0


def axis_angle_matrix(axis, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` [rad] about ``axis`` (Rodrigues)."""
    a = np.asarray(axis, dtype=float).reshape(3)
    norm = float(np.linalg.norm(a))
    if norm == 0.0 or not math.isfinite(norm):
        raise ValueError('rotation axis has zero length')
    x, y, z = a / norm
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return np.array([
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
    ])


def quat_matrix(quat) -> np.ndarray:
    """Rotation matrix of a quaternion (w, x, y, z); normalised first."""
    q = np.asarray(quat, dtype=float).reshape(4)
    norm = float(np.linalg.norm(q))
    if norm == 0.0 or not math.isfinite(norm):
        raise ValueError('quaternion has zero length')
    w, x, y, z = q / norm
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def matrix_quat(rot) -> np.ndarray:
    """Unit quaternion (w, x, y, z), w >= 0, of a rotation matrix."""
    m = np.asarray(rot, dtype=float)
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = [(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s]
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s]
    q = np.array(q)
    q /= np.linalg.norm(q)
    return -q if q[0] < 0 else q


def matrix_rpy(rot) -> np.ndarray:
    """URDF roll, pitch, yaw [rad] of a rotation matrix (R = Rz(y) Ry(p) Rx(r))."""
    m = np.asarray(rot, dtype=float)
    sp = -m[2, 0]
    if abs(sp) >= 1.0 - 1e-12:
        # Gimbal lock: roll and yaw share one axis; put it all in yaw.
        p = math.copysign(math.pi / 2, sp)
        return np.array([0.0, p, math.atan2(-m[0, 1], m[1, 1])])
    return np.array([math.atan2(m[2, 1], m[2, 2]), math.asin(sp), math.atan2(m[1, 0], m[0, 0])])
