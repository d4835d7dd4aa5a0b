"""Typed access to the fields of parsed VRML and Inventor nodes, with clear errors."""

from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..model import axis_angle_matrix
from . import _common
from ._scenetext import Node, Word


def nodes(node: Node, name: str) -> list[Node]:
    value = node.fields.get(name)
    if isinstance(value, Node):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, Node)]
    return []


def array(path: str, node: Node, name: str) -> np.ndarray:
    value = node.fields.get(name)
    if value is None:
        return np.zeros(0)
    if not isinstance(value, np.ndarray):
        raise ModelError(path, node.line, f'{node.type} {name} must be numbers')
    return value


def points(path: str, node: Node, name: str) -> np.ndarray:
    values = array(path, node, name)
    if len(values) % 3:
        raise ModelError(path, node.line, f'{node.type} {name}: {len(values)} numbers are not '
                         'a whole number of triples')
    _common.check_finite(path, node.line, f'{node.type} {name}', values)
    return values.reshape(-1, 3)


def indices(path: str, node: Node, name: str) -> np.ndarray:
    values = array(path, node, name)
    if len(values) and not (np.isfinite(values).all() and (values == np.round(values)).all()):
        raise ModelError(path, node.line, f'{node.type} {name} must be whole numbers')
    if len(values) and np.abs(values).max() > 2 ** 53:
        raise ModelError(path, node.line, f'{node.type} {name}: an index is too large')
    return values.astype(np.int64)


def vector(path: str, node: Node, name: str, default, size: int) -> np.ndarray:
    value = node.fields.get(name)
    if value is None:
        return np.asarray(default, dtype=float)
    if not isinstance(value, np.ndarray) or len(value) != size or not np.isfinite(value).all():
        raise ModelError(path, node.line, f'{node.type} {name} must be {size} numbers')
    return value


def number(path: str, node: Node, name: str, default: float) -> float:
    return float(vector(path, node, name, [default], 1)[0])


def positive(path: str, node: Node, name: str, default: float) -> float:
    value = number(path, node, name, default)
    if value <= 0:
        raise ModelError(path, node.line, f'{node.type} {name} must be positive, found {value}')
    return value


def flag(node: Node, name: str, default: bool) -> bool:
    value = node.fields.get(name)
    if isinstance(value, Word):
        return value.upper() == 'TRUE'
    return default


def rotation(path: str, node: Node, name: str) -> np.ndarray:
    """A SFRotation field (axis x y z, angle [rad]) as a matrix; identity when it is zero."""
    if node.fields.get(name) is None:
        return np.eye(3)
    value = vector(path, node, name, None, 4)
    if value[3] == 0.0 or not np.any(value[:3]):
        return np.eye(3)
    return axis_angle_matrix(value[:3], float(value[3]))


def transform(path: str, node: Node, scale: str) -> np.ndarray:
    """The 4x4 matrix of a VRML Transform or an Inventor Transform (its scale field is
    ``scale``): T C R SR S -SR -C."""
    t = vector(path, node, 'translation', (0, 0, 0), 3)
    c = vector(path, node, 'center', (0, 0, 0), 3)
    r = rotation(path, node, 'rotation')
    sr = rotation(path, node, 'scaleOrientation')
    linear = r @ sr @ np.diag(vector(path, node, scale, (1, 1, 1), 3)) @ sr.T
    m = np.eye(4)
    m[:3, :3] = linear
    m[:3, 3] = t + c - linear @ c
    return m


def texture_transform(path: str, node: Node, uv: np.ndarray) -> np.ndarray:
    """Texture coordinates through a VRML97 TextureTransform: ``-C S R C T`` applied to each
    (translation T, then center C, rotation R [rad] about it, scale S, and -C)."""
    translation = vector(path, node, 'translation', (0.0, 0.0), 2)
    center = vector(path, node, 'center', (0.0, 0.0), 2)
    scale = vector(path, node, 'scale', (1.0, 1.0), 2)
    angle = number(path, node, 'rotation', 0.0)
    c, s = math.cos(angle), math.sin(angle)
    moved = np.asarray(uv, dtype=float) + translation + center
    turned = moved @ np.array([[c, -s], [s, c]]).T
    return turned * scale - center
