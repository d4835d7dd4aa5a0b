"""Reading Choreonoid YAML nodes: keys in either case style, values with their lines (an
error about a key's value names the line of the key).

Shared by the Choreonoid Body loader modules (``choreonoid*.py``); nothing here knows the
meaning of a node, only how to read its keys the way Choreonoid does:

* Keys may be snake_case or the older camelCase, mixed in one file (``jointType`` and
  ``joint_type`` are the same key).
* ``translation`` is a 3-vector or a list of 3-vectors (summed); ``rotation`` is an
  axis-angle ``[x, y, z, angle]`` or a list of them, composed left to right. Angles are in
  the file's angle unit (degrees unless ``angle_unit: radian``).
* Every key a reader does not use is reported as a warning naming the file, line and key.
"""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from ...errors import ModelError, where
from ...model import Pose, axis_angle_matrix, is_rotation
from ..yamlsource import kind_of as kind
from ..yamlsource import line_at, line_of

__all__ = ['snake', 'kind', 'key_text', 'Node', 'Context', 'Session', 'Frame', 'plain',
           'TooLarge', 'MAX_ELEMENTS', 'MAX_PLAIN_VALUES']

_CAMEL = re.compile(r'(?<=[a-z0-9])([A-Z])')


@functools.lru_cache(maxsize=4096)
def snake(key: str) -> str:
    """``jointType`` -> ``joint_type``; snake_case keys are unchanged."""
    return _CAMEL.sub(r'_\1', key).lower()


def key_text(key, ctx: Context, line: int | None) -> str:
    """A mapping key as Choreonoid reads it: always text.

    YAML 1.1 (PyYAML) turns the key ``on`` into True and ``off`` into False; Choreonoid, like
    YAML 1.2, keeps them as words. Numbers keep their text.
    """
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return 'on' if key else 'off'
    if isinstance(key, (int, float)):
        return str(key)
    raise ModelError(ctx.path, line, f'mapping key {key!r} is not a string')


#: Most values one device parameter may hold once its aliases are expanded.
MAX_PLAIN_VALUES = 100_000


class TooLarge(ValueError):
    """A value that expands to more than ``MAX_PLAIN_VALUES`` values (an alias bomb)."""


def plain(value, depth: int = 0, budget: list[int] | None = None):
    """A YAML value as plain dicts, lists and scalars (kept in device parameters).

    Raises:
        TooLarge: the value expands (through aliases) to more than ``MAX_PLAIN_VALUES``.
    """
    budget = [MAX_PLAIN_VALUES] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:
        raise TooLarge(f'more than {MAX_PLAIN_VALUES} values once its aliases are expanded')
    if depth > 32:
        return '...'
    if isinstance(value, dict):
        return {k if isinstance(k, str) else ('on' if k is True else 'off' if k is False
                                              else str(k)): plain(v, depth + 1, budget)
                for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v, depth + 1, budget) for v in value]
    return value


#: Most element nodes read for one model, aliases and resources expanded (the real models read
#: at most 701, about 0.1 ms each; an alias bomb, a small file whose aliases repeat a node
#: width**depth times, is refused on reaching it, within about 2.5 s).
MAX_ELEMENTS = 20_000


class Session:
    """What every file read for one model shares: caches and the chain of open files.

    Attributes:
        meshes: mesh file parts by (path, node name).
        yaml: YAML resource files by path: (document, anchors).
        bodies: sub-body files by path.
        loading: the body files being read, outermost first (a sub-body cycle guard).
        elements: element nodes read so far (bounded by ``MAX_ELEMENTS``).
        material_table: the contact material table file the caller names (None: the one
            found beside the model, see ``materials.py``).
        dropped: warnings about parts of the file the model lacks (``Model.dropped``).
    """

    def __init__(self):
        self.material_table: str | None = None
        self.meshes: dict = {}
        self.yaml: dict = {}
        self.bodies: dict = {}
        self.loading: list[str] = []
        self.elements = 0
        self.dropped: list[str] = []

    def count_element(self, path: str, line: int | None) -> None:
        """Count one element node read.

        Raises:
            ModelError: more than ``MAX_ELEMENTS`` (aliases repeating nodes exponentially).
        """
        self.elements += 1
        if self.elements > MAX_ELEMENTS:
            raise ModelError(path, line, f'more than {MAX_ELEMENTS} element nodes to read '
                             '(aliases repeating nodes too often); refused')


@dataclass
class Context:
    """Where a node comes from and what the reading has collected so far.

    Attributes:
        path: the file being read (errors and warnings name it).
        angle_scale: radians per angle unit of the file.
        warnings: shared by every file read for one model.
        session: caches shared by every file read for one model (see ``body.py``).
    """

    path: str
    angle_scale: float = math.pi / 180.0
    warnings: list[str] = field(default_factory=list)
    session: Session = field(default_factory=Session)

    @property
    def directory(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    def warn(self, line: int | None, message: str) -> None:
        self.warnings.append(f'{where(self.path, line)}: {message}')

    def for_file(self, path: str) -> Context:
        """The context of another file read for the same model (same unit, shared state)."""
        return Context(path, self.angle_scale, self.warnings, self.session)


class Node:
    """A mapping of the file with its line, read by snake_case key, tracking what was used."""

    __slots__ = ('data', 'line', 'source', 'keys', 'used', 'ctx')

    def __init__(self, data, ctx: Context, line: int | None = None, extra: dict | None = None):
        if not isinstance(data, dict):
            raise ModelError(ctx.path, line_of(data, line),
                             f'expected a mapping, found {kind(data)}')
        self.line = line_of(data, line)
        self.source = data  # the mapping as loaded: where its own keys are written (``at``)
        if extra:
            # Keys merged in (``import``) never override the node's own keys.
            own = {snake(key_text(k, ctx, line)) for k in data}
            merged = dict(data)
            for key, value in extra.items():
                if snake(key_text(key, ctx, line)) not in own:
                    merged[key] = value
            data = merged
        self.data = data
        self.ctx = ctx
        self.keys: dict[str, object] = {}
        for key in data:
            self.keys.setdefault(snake(key_text(key, ctx, self.line)), key)
        self.used: set[str] = set()

    def has(self, *names: str) -> bool:
        """Whether the node gives one of these keys a value (``key: ~`` gives none)."""
        return any(n in self.keys and self.data[self.keys[n]] is not None for n in names)

    def raw(self, *names: str, default=None):
        for name in names:
            if name in self.keys:
                self.used.add(name)
                return self.data[self.keys[name]]
        return default

    def use(self, *names: str) -> None:
        """Mark keys as read (their meaning is handled elsewhere or is nil here)."""
        self.used.update(names)

    def where(self) -> str:
        return where(self.ctx.path, self.line)

    def at(self, *names: str) -> int | None:
        """The line of the first key of ``names`` (snake_case) the node has, or its line."""
        for name in names:
            if name in self.keys:
                return line_at(self.source, self.keys[name], self.line)
        return self.line

    def error(self, message: str, *names: str) -> ModelError:
        """An error about the node, or about the value of its key (the first of ``names``
        it has), on that key's line."""
        return ModelError(self.ctx.path, self.at(*names), message)

    def string(self, *names: str, default: str | None = None) -> str | None:
        value = self.raw(*names)
        if value is None:
            return default
        if isinstance(value, (dict, list)):
            raise self.error(f'{names[0]} must be a string, found {kind(value)}', *names)
        if isinstance(value, bool):
            return 'true' if value else 'false'
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

    def number(self, *names: str, default: float | None = None) -> float | None:
        value = self.raw(*names)
        if value is None:
            return default
        return self.to_float(value, *names)

    def integer(self, *names: str, default: int | None = None) -> int | None:
        value = self.raw(*names)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(f'{names[0]} must be an integer, found {kind(value)}', *names)
        return value

    def to_float(self, value, name: str, *names: str) -> float:
        """A number read from the key ``name`` (or the first of ``names`` the node has)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(f'{name} must be a number, found {kind(value)}', name, *names)
        value = float(value)
        if not math.isfinite(value):
            raise self.error(f'{name} must be finite, found {value}', name, *names)
        return value

    def boolean(self, *names: str, default: bool | None = None) -> bool | None:
        value = self.raw(*names)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(f'{names[0]} must be true or false, found {value!r}', *names)
        return value

    def numbers(self, *names: str, multiple: int = 1, minimum: int = 0) -> np.ndarray | None:
        """A flat list of numbers whose length is a multiple of ``multiple``."""
        value = self.raw(*names)
        if value is None:
            return None
        if not isinstance(value, list):
            raise self.error(f'{names[0]} must be a list of numbers, found {kind(value)}',
                             *names)
        out = np.array([self.to_float(v, *names) for v in value], dtype=float)
        extra = len(out) % multiple
        if extra:
            # Choreonoid reads whole groups and drops the rest.
            self.ctx.warn(line_of(value, self.line), f'{names[0]} has {len(out)} numbers, not '
                          f'a multiple of {multiple}; the last {extra} were ignored')
            out = out[:len(out) - extra]
        if len(out) < minimum:
            raise self.error(f'{names[0]} must have at least {minimum} numbers, found '
                             f'{len(out)}', *names)
        return out

    def vector(self, *names: str, size: int | None = 3, default=None) -> np.ndarray | None:
        value = self.raw(*names)
        if value is None:
            return None if default is None else np.asarray(default, dtype=float)
        if not isinstance(value, list):
            raise self.error(f'{names[0]} must be a list of numbers, found {kind(value)}',
                             *names)
        if size is not None and len(value) != size:
            raise self.error(f'{names[0]} must have {size} numbers, found {len(value)}',
                             *names)
        return np.array([self.to_float(v, *names) for v in value])

    def angle(self, *names: str, default: float | None = None) -> float | None:
        """An angle in the file's unit, returned in radians."""
        value = self.number(*names)
        return default if value is None else value * self.ctx.angle_scale

    def translation(self, name: str = 'translation') -> np.ndarray | None:
        """A 3-vector [m], or a list of 3-vectors that are summed (as Choreonoid does)."""
        value = self.raw(name)
        if value is None:
            return None
        if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
            total = np.zeros(3)
            for item in value:
                total += self._vec3(item, name)
            return total
        return self._vec3(value, name)

    def _vec3(self, value, name: str) -> np.ndarray:
        if not isinstance(value, list) or len(value) != 3:
            raise self.error(f'{name} must be [x, y, z] or a list of them, found {kind(value)}',
                             name)
        return np.array([self.to_float(v, name) for v in value])

    def rotation(self, name: str = 'rotation') -> np.ndarray | None:
        """An axis-angle rotation or a list of them, composed left to right."""
        value = self.raw(name)
        if value is None:
            return None
        if not isinstance(value, list) or not value:
            raise self.error(f'{name} must be [x, y, z, angle] or a list of them', name)
        items = value if isinstance(value[0], list) else [value]
        rot = np.eye(3)
        for item in items:
            rot = rot @ self.axis_angle(item, name)
        return rot

    def axis_angle(self, item, name: str) -> np.ndarray:
        if not isinstance(item, list) or len(item) != 4:
            raise self.error(f'{name} must be [x, y, z, angle] or a list of them', name)
        x, y, z, a = (self.to_float(v, name) for v in item)
        try:
            return axis_angle_matrix((x, y, z), a * self.ctx.angle_scale)
        except ValueError:
            raise self.error(f'{name} axis is the zero vector', name) from None

    def warn_unused(self, what: str, allowed: frozenset = frozenset()) -> None:
        """One warning naming every key of this node that nothing read."""
        left = [(key, self.data[key]) for snake_key, key in self.keys.items()
                if snake_key not in self.used and snake_key not in allowed]
        empty = [repr(key_text(key, self.ctx, self.line)) for key, value in left if value is None]
        unused = [repr(key_text(key, self.ctx, self.line)) for key, value in left
                  if value is not None]
        if empty:
            self.ctx.warn(self.line, f'{what}: {", ".join(empty)} given no value; ignored')
        if len(unused) == 1:
            self.ctx.warn(self.line, f'{what}: key {unused[0]} is not supported and was ignored')
        elif unused:
            self.ctx.warn(self.line, f'{what}: keys {", ".join(unused)} are not supported and '
                          'were ignored')


@dataclass
class Frame:
    """An affine transform from a node's frame to the link frame (may carry scale)."""

    linear: np.ndarray = field(default_factory=lambda: np.eye(3))
    translation: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def then(self, rot: np.ndarray | None, pos: np.ndarray | None,
             scale: np.ndarray | None = None) -> Frame:
        """This frame followed by a child transform: ``T_parent @ [R t] @ diag(scale)``."""
        local = np.eye(3) if rot is None else rot
        if scale is not None:
            local = local @ np.diag(scale)
        t = np.zeros(3) if pos is None else pos
        return Frame(self.linear @ local, self.linear @ t + self.translation)

    def of_node(self, node: Node, scale: bool = True) -> Frame:
        """This frame followed by a node's ``translation``, ``rotation`` (and ``scale``)."""
        rot = node.rotation()
        pos = node.translation()
        factors = node.vector('scale') if scale else None
        if factors is not None and np.any(factors == 0):
            raise node.error('scale must not be zero', 'scale')
        return self.then(rot, pos, factors)

    def rigid(self) -> tuple[Pose, np.ndarray] | None:
        """Split into a rigid pose and per-axis scale, or None if it shears or mirrors."""
        scale = np.sqrt(np.einsum('ij,ij->j', self.linear, self.linear))
        if scale.min() <= 0:
            return None
        rot = self.linear / scale
        if not is_rotation(rot):
            return None
        return Pose(self.translation, rot), scale

    def pose(self) -> Pose | None:
        """The frame as a rigid pose, or None if it scales."""
        split = self.rigid()
        if split is None or np.abs(split[1] - 1.0).max() > 1e-9:
            return None
        return split[0]
