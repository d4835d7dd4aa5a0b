"""Reading Chrono YAML mappings: typed values with ``path:line`` errors, and the warnings.

Facts from Chrono's parser (``chrono_parsers/yaml``, ``ChUtilsYAML``) this relies on:

* Enum values are compared in upper case (any letter case is accepted).
* An orientation of three numbers is a Cardan sequence [a0, a1, a2], ``R = Rz(a0) Ry(a1)
  Rx(a2)`` (the format calls it [yaw, pitch, roll]), in degrees unless ``angle_degrees:
  false``; four numbers are a quaternion with the scalar first.
* Functions: CONSTANT ``value``; POLYNOMIAL ``coefficients``; SINE ``amplitude``,
  ``frequency`` [Hz], ``phase`` (in the model's angle unit from 10.0 on, radians in 9.x),
  ``shift`` (an offset added); RAMP ``slope``, ``intercept``; DATA ``data`` [[x, f], ...];
  CONTROLLER (10.x); ``repeat`` with ``start``, ``width``, ``shift``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ...errors import ModelError, UnsupportedError, where
from ...model import Function, FunctionKind, Repeat, axis_angle_matrix, quat_matrix
from ..yamlsource import kind_of, line_at, line_of

__all__ = ['Context', 'Node', 'kind_of', 'read_function']

#: A number in YAML 1.2's notation (the float forms YAML 1.1 leaves as text, such as 1e5).
_NUMBER = re.compile(r'[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?')


@dataclass
class Context:
    """One file being read: its path, angle unit, version and the warnings so far."""

    path: str
    version: tuple[int, int] = (10, 0)
    degrees: bool = True
    warnings: list[str] = field(default_factory=list)

    def warn(self, line: int | None, message: str) -> None:
        self.warnings.append(f'{where(self.path, line)}: {message}')

    @property
    def angle_scale(self) -> float:
        return math.pi / 180.0 if self.degrees else 1.0


class Node:
    """A mapping of the file: values by exact key; an error names the line of the key whose
    value it is about, else the mapping's line.

    Keys that no reader asked for are reported by ``warn_unused``.
    """

    __slots__ = ('data', 'line', 'ctx', 'what', 'used')

    def __init__(self, data, ctx: Context, what: str, line: int | None = None):
        if not isinstance(data, dict):
            raise ModelError(ctx.path, line_of(data, line), f'{what} must be a mapping, '
                             f'found {kind_of(data)}')
        self.data = data
        self.line = line_of(data, line)
        self.ctx = ctx
        self.what = what
        self.used: set[str] = set()
        for key in data:
            if not isinstance(key, str):
                raise self.error(f'key {key!r} is not a string')

    # --- plumbing -----------------------------------------------------------------------

    def at(self, key: str | None) -> int | None:
        """The line where ``key`` is written, or the mapping's line."""
        return line_at(self.data, key, self.line)

    def error(self, message: str, unsupported: bool = False, key: str | None = None
              ) -> ModelError:
        """An error about the mapping, or about the value of ``key`` (on its line)."""
        cls = UnsupportedError if unsupported else ModelError
        return cls(self.ctx.path, self.at(key), f'{self.what}: {message}')

    def warn(self, message: str) -> None:
        self.ctx.warn(self.line, f'{self.what}: {message}')

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def raw(self, key: str, required: bool = False):
        self.used.add(key)
        value = self.data.get(key)
        if value is None and required:
            raise self.error(f'"{key}" is missing')
        return value

    def ignore(self, *keys: str) -> None:
        """Mark keys as read (they are handled, or deliberately not used)."""
        self.used.update(keys)

    def warn_unused(self, note: str = 'not part of the Chrono model format; ignored') -> None:
        for key in self.data:
            if key not in self.used:
                self.warn(f'key "{key}" is {note}')

    # --- typed values -------------------------------------------------------------------

    def string(self, key: str, required: bool = False, default: str | None = None) -> str | None:
        value = self.raw(key, required)
        if value is None:
            return default
        if isinstance(value, (dict, list, bool)):
            raise self.error(f'"{key}" must be a string, found {kind_of(value)}', key=key)
        return str(value)

    def choice(self, key: str, choices, required: bool = False, default: str | None = None):
        """An enum value in any letter case, returned in upper case."""
        value = self.string(key, required)
        if value is None:
            return default
        upper = value.upper()
        if upper not in choices:
            raise self.error(f'"{key}" is {value!r}; expected one of {", ".join(choices)}',
                             unsupported=True, key=key)
        return upper

    def number(self, key: str, required: bool = False, default: float | None = None,
               minimum: float | None = None, positive: bool = False) -> float | None:
        value = self.raw(key, required)
        if value is None:
            return default
        number = self._float(value, key)
        if positive and not number > 0:
            raise self.error(f'"{key}" must be positive, found {number:g}', key=key)
        if minimum is not None and number < minimum:
            raise self.error(f'"{key}" must be at least {minimum:g}, found {number:g}', key=key)
        return number

    def boolean(self, key: str, required: bool = False, default: bool | None = None):
        value = self.raw(key, required)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(f'"{key}" must be true or false, found {kind_of(value)}', key=key)
        return value

    def vector(self, key: str, size: int | None = 3, required: bool = False,
               default=None) -> np.ndarray | None:
        value = self.raw(key, required)
        if value is None:
            return None if default is None else np.array(default, dtype=float)
        if not isinstance(value, list):
            raise self.error(f'"{key}" must be a list of numbers, found {kind_of(value)}',
                             key=key)
        if size is not None and len(value) != size:
            raise self.error(f'"{key}" must have {size} numbers, found {len(value)}', key=key)
        return np.array([self._float(v, key) for v in value])

    def direction(self, key: str, required: bool = False, default=None) -> np.ndarray | None:
        """A 3-vector, normalised; the zero vector is an error."""
        vec = self.vector(key, required=required, default=default)
        if vec is None:
            return None
        top = float(np.max(np.abs(vec)))
        if top < 1e-12:
            raise self.error(f'"{key}" is the zero vector', key=key)
        vec = vec / top  # a norm of the scaled vector cannot overflow
        return vec / np.linalg.norm(vec)

    def rotation(self, key: str, required: bool = False) -> np.ndarray:
        """A Cardan sequence or a quaternion (scalar first) as a rotation matrix."""
        value = self.vector(key, size=None, required=required)
        if value is None:
            return np.eye(3)
        if len(value) == 3:
            a = value * self.ctx.angle_scale
            return (axis_angle_matrix((0, 0, 1), a[0]) @ axis_angle_matrix((0, 1, 0), a[1])
                    @ axis_angle_matrix((1, 0, 0), a[2]))
        if len(value) == 4:
            top = float(np.max(np.abs(value)))
            if top < 1e-12:
                raise self.error(f'"{key}" is a zero quaternion', key=key)
            norm = top * float(np.linalg.norm(value / top))
            if abs(norm - 1.0) > 1e-3:
                self.warn(f'"{key}" quaternion has length {norm:g}; it was normalised')
            return quat_matrix(value / top)
        raise self.error(f'"{key}" must have 3 numbers (Cardan angles) or 4 (a quaternion '
                         f'e0, e1, e2, e3), found {len(value)}', key=key)

    def table(self, key: str, columns: int | None = 2, required: bool = False,
              min_rows: int = 1) -> np.ndarray | None:
        """A list of rows of numbers, (N, columns) (or N rows of equal length)."""
        value = self.raw(key, required)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(r, list) for r in value):
            raise self.error(f'"{key}" must be a list of rows [[...], ...]', key=key)
        if len(value) < min_rows:
            raise self.error(f'"{key}" needs at least {min_rows} rows, found {len(value)}',
                             key=key)
        width = columns if columns is not None else len(value[0])
        for row in value:
            if len(row) != width:
                raise self.error(f'"{key}": every row must have {width} numbers, found '
                                 f'a row of {len(row)}', key=key)
        return np.array([[self._float(v, key) for v in row] for row in value]).reshape(-1, width)

    def child(self, key: str, what: str | None = None, required: bool = False) -> Node | None:
        value = self.raw(key, required)
        if value is None:
            return None
        return Node(value, self.ctx, what or f'{self.what} {key}', self.at(key))

    def items(self, key: str, what: str) -> list[Node]:
        """A list of mappings (empty when the key is absent)."""
        value = self.raw(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(f'"{key}" must be a list, found {kind_of(value)}', key=key)
        return [Node(item, self.ctx, what, line_at(value, index, self.line))
                for index, item in enumerate(value)]

    def _float(self, value, key: str) -> float:
        if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
            value = float(value)  # YAML 1.1 reads 1e5 as text; Chrono's YAML 1.2 as a number
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(f'"{key}" must be numbers, found {kind_of(value)}', key=key)
        value = float(value)
        if not math.isfinite(value):
            raise self.error(f'"{key}" must be finite, found {value}', key=key)
        return value


_FUNCTIONS = ('CONSTANT', 'POLYNOMIAL', 'SINE', 'RAMP', 'DATA', 'CONTROLLER')


def read_function(node: Node) -> Function:
    """A function object (motor actuation, load modulation).

    Raises:
        ModelError: a missing or malformed parameter.
    """
    kind = node.choice('type', _FUNCTIONS, required=True)
    repeat = None
    rnode = node.child('repeat', f'{node.what} repeat')
    if rnode is not None:
        width = rnode.number('width', required=True, positive=True)
        repeat = Repeat(rnode.number('start', required=True), width,
                        rnode.number('shift', required=True))
        rnode.warn_unused()
    points = None
    if kind == 'CONSTANT':
        params = (node.number('value', required=True),)
    elif kind == 'POLYNOMIAL':
        params = tuple(node.vector('coefficients', size=None, required=True))
        if not params:
            raise node.error('"coefficients" is empty')
    elif kind == 'SINE':
        phase = node.number('phase', default=0.0)
        if node.ctx.version >= (10, 0):
            phase *= node.ctx.angle_scale
        params = (node.number('amplitude', required=True), node.number('frequency', required=True),
                  phase, node.number('shift', default=0.0))
    elif kind == 'RAMP':
        params = (node.number('intercept', default=0.0), node.number('slope', required=True))
    elif kind == 'DATA':
        params = ()
        points = node.table('data', 2, required=True)
        order = np.argsort(points[:, 0], kind='stable')
        points = points[order]
        if np.any(np.diff(points[:, 0]) == 0):
            raise node.error('"data" has two points with the same x')
    else:
        params = ()
        if repeat is not None:
            node.warn('"repeat" does not apply to a CONTROLLER function; ignored')
            repeat = None
    node.warn_unused()
    return Function(FunctionKind(kind.lower()), params, points, repeat)
