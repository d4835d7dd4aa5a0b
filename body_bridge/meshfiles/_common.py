"""What every mesh reader shares: limits, file access, parts and their names.

Readers are hardened against broken or hostile files: a file larger than ``MAX_FILE_BYTES``
is refused before it is read, counts a file states are checked against what it holds before
anything is allocated from them, nesting and includes are bounded, and the total number of
vertices and triangles is capped. Each limit is a module attribute read at call time, so a
program (or a test) may change it.
"""

from __future__ import annotations

import bisect
import os
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError, where
from ..fileaccess import read_regular
from ..model import Material, Mesh

#: Largest mesh file read [bytes].
MAX_FILE_BYTES = 256 * 1024 * 1024
#: Most vertices in all parts of one file.
MAX_VERTICES = 20_000_000
#: Most triangles in all parts of one file.
MAX_TRIANGLES = 20_000_000
#: Deepest nesting of nodes (VRML, Inventor, COLLADA, glTF scene graphs).
MAX_DEPTH = 100
#: Most scene nodes visited while expanding one file (bounds DEF/USE and instancing blow-ups).
MAX_NODE_VISITS = 2_000_000
#: Deepest chain of included files (VRML Inline, Inventor File).
MAX_INCLUDE_DEPTH = 8
#: A face with more corners than this is refused.
MAX_POLYGON_CORNERS = 100_000

Warn = Callable[[str], None]
#: Reads a mesh file another one names: ``(path, node, warnings, chain) -> parts`` (the
#: dispatcher in ``meshfiles/__init__.py``, handed to the readers of formats that include).
Include = Callable[[str, 'str | None', 'Warnings', 'tuple[str, ...]'], 'list[MeshPart]']


@dataclass(frozen=True)
class MeshPart:
    """One material's geometry from a mesh file.

    Attributes:
        mesh: triangles, transforms inside the file already applied; in metres when the
            file states its unit (COLLADA ``<unit>``, Inventor ``Units``), else in the
            file's own numbers (the caller scales).
        material: diffuse RGBA (transparency becomes alpha) and texture path, or None
            when the file says nothing about appearance.
    """

    mesh: Mesh
    material: Material | None


def read_bytes(path: str) -> bytes:
    """The whole file, refused before reading when larger than ``MAX_FILE_BYTES``.

    Devices, FIFOs, sockets and directories are refused without being read (see
    :mod:`body_bridge.fileaccess`).

    Raises:
        ModelError: the file is missing, not a regular file, unreadable or too large.
    """
    return read_regular(path, MAX_FILE_BYTES, 'mesh file')


def decode_text(data: bytes, path: str) -> str:
    """Bytes of a text format as str (UTF-8, falling back to Latin-1 byte for byte)."""
    if b'\x00' in data[:4096]:
        raise ModelError(path, None, 'binary data where a text file was expected')
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError:
        return data.decode('latin-1')


class LineIndex:
    """Line numbers of character offsets in a text."""

    def __init__(self, text: str):
        if text.isascii():  # characters are bytes: numpy finds the newlines
            raw = np.frombuffer(text.encode('ascii'), dtype=np.uint8)
            self._starts = np.flatnonzero(raw == 10).tolist()
        else:
            self._starts = [m.start() for m in re.finditer('\n', text)]

    def line(self, pos: int) -> int:
        """1-based line of character offset ``pos``."""
        return bisect.bisect_left(self._starts, pos) + 1


class Budget:
    """Counts what a file produces and visits, failing once a limit is passed."""

    def __init__(self, path: str):
        self.path = path
        self.vertices = 0
        self.triangles = 0
        self.visits = 0

    def visit(self, line: int | None = None) -> None:
        self.visits += 1
        if self.visits > MAX_NODE_VISITS:
            raise ModelError(self.path, line, f'more than {MAX_NODE_VISITS} scene nodes to '
                             'expand (instancing too deep or too wide)')

    def add(self, vertices: int, triangles: int, line: int | None = None) -> None:
        self.vertices += int(vertices)
        self.triangles += int(triangles)
        if self.vertices > MAX_VERTICES:
            raise ModelError(self.path, line, f'more than {MAX_VERTICES} vertices')
        if self.triangles > MAX_TRIANGLES:
            raise ModelError(self.path, line, f'more than {MAX_TRIANGLES} triangles')


def check_count(path: str, line: int | None, what: str, count: int, available: int) -> None:
    """Refuse a stated count larger than what the data can hold."""
    if count < 0:
        raise ModelError(path, line, f'{what}: negative count {count}')
    if count > available:
        raise ModelError(path, line, f'{what}: the file states {count} but holds at most '
                         f'{available}')


def check_indices(path: str, line: int | None, what: str, indices: np.ndarray, n: int) -> None:
    """Every index lies in ``[0, n)``."""
    if indices.size and (int(indices.min()) < 0 or int(indices.max()) >= n):
        bad = int(indices.max()) if int(indices.max()) >= n else int(indices.min())
        raise ModelError(path, line, f'{what}: index {bad} out of range (there are {n})')


def check_finite(path: str, line: int | None, what: str, values: np.ndarray) -> None:
    if values.size and not np.isfinite(values).all():
        raise ModelError(path, line, f'{what}: a value is not finite')


_SAFE = re.compile(r'[^A-Za-z0-9_.-]+')


def safe_name(text: str) -> str:
    """A name made of letters, digits, ``_ . -`` (stable, usable in file names)."""
    return _SAFE.sub('_', text).strip('_') or 'part'


class Parts:
    """Collects triangles by material and makes the parts of a file.

    Geometry added with equal materials is merged into one part, in the order the
    materials first appear.
    """

    def __init__(self, path: str, node: str | None, budget: Budget):
        self.path = path
        self.node = node
        self.budget = budget
        self._groups: dict[Material | None, list[tuple]] = {}

    def add(self, vertices: np.ndarray, faces: np.ndarray, material: Material | None,
            line: int | None = None, texcoords: np.ndarray | None = None) -> None:
        """Add triangles (vertices (N, 3) already placed, faces (M, 3) into them, texture
        coordinates (N, 2) or None)."""
        faces = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
        if not len(faces):
            return
        vertices = np.asarray(vertices, dtype=float).reshape(-1, 3)
        check_finite(self.path, line, 'vertex coordinates', vertices)
        if texcoords is not None:
            texcoords = np.asarray(texcoords, dtype=float).reshape(-1, 2)
            check_finite(self.path, line, 'texture coordinates', texcoords)
        self.budget.add(len(vertices), len(faces), line)
        self._groups.setdefault(material, []).append((vertices, faces, texcoords))

    def __bool__(self) -> bool:
        return bool(self._groups)

    def result(self) -> list[MeshPart]:
        """The parts, one per material.

        Raises:
            ModelError: the file (or the named node) holds no triangles.
        """
        if not self._groups:
            what = f'node {self.node!r}' if self.node else 'the file'
            raise ModelError(self.path, None, f'{what} holds no surface geometry (no triangles)')
        stem = safe_name(os.path.splitext(os.path.basename(self.path))[0])
        if self.node:
            stem = f'{stem}_{safe_name(self.node)}'
        several = len(self._groups) > 1
        taken: set[str] = set()
        parts = []
        for i, (material, chunks) in enumerate(self._groups.items()):
            name = stem
            if several:
                label = material.name if material is not None and material.name else f'part{i}'
                name = f'{stem}_{safe_name(label)}'
            while name in taken:
                name = f'{name}_{i}'
            taken.add(name)
            parts.append(MeshPart(_merge(chunks, name, self.path), material))
        return parts


def _merge(chunks: list[tuple], name: str, source: str) -> Mesh:
    """One mesh of (vertices, faces, texcoords or None) chunks; texture coordinates are kept
    when any chunk has them (the others' vertices get (0, 0))."""
    texcoords = None
    if any(t is not None for _, _, t in chunks):
        texcoords = np.concatenate([np.zeros((len(v), 2)) if t is None else t
                                    for v, _, t in chunks])
    if len(chunks) == 1:
        v, f, _ = chunks[0]
        return Mesh(v, f, name, source, texcoords)
    offsets = np.cumsum([0] + [len(v) for v, _, _ in chunks[:-1]])
    vertices = np.concatenate([v for v, _, _ in chunks])
    faces = np.concatenate([f + off for (_, f, _), off in zip(chunks, offsets, strict=True)])
    return Mesh(vertices, faces, name, source, texcoords)


def drop_unused(vertices: np.ndarray, faces: np.ndarray, texcoords: np.ndarray | None = None):
    """Keep only the vertices the faces use (reindexing the faces).

    Returns:
        (vertices, faces), or (vertices, faces, texcoords) when ``texcoords`` is given.
    """
    used, inverse = np.unique(faces.reshape(-1), return_inverse=True)
    if texcoords is None:
        return vertices[used], inverse.reshape(-1, 3)
    return vertices[used], inverse.reshape(-1, 3), texcoords[used]


def unweld(points: np.ndarray, indices: np.ndarray, texcoords: np.ndarray,
           tex_indices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One vertex per (point, texture coordinate) pair of the polygon corners.

    Args:
        points: (N, 3) positions; ``indices`` the corners' indices into them.
        texcoords: (K, 2); ``tex_indices`` the corners' indices into them (same length as
            ``indices``, both range-checked by the caller).

    Returns:
        (vertices, corner indices into them, per-vertex texture coordinates).
    """
    pairs = np.stack([np.asarray(indices, np.int64), np.asarray(tex_indices, np.int64)], 1)
    unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
    return points[unique[:, 0]], inverse.reshape(-1), texcoords[unique[:, 1]]


def rgba(color, transparency: float = 0.0) -> tuple[float, float, float, float]:
    """An RGBA tuple in 0..1 from an RGB colour and a transparency."""
    c = np.clip(np.asarray(color, dtype=float).reshape(-1)[:3], 0.0, 1.0)
    if c.size < 3 or not np.isfinite(c).all():
        c = np.array([0.8, 0.8, 0.8])
    alpha = 1.0 - float(np.clip(transparency, 0.0, 1.0)) if np.isfinite(transparency) else 1.0
    return (round(float(c[0]), 6), round(float(c[1]), 6), round(float(c[2]), 6), round(alpha, 6))


def colour(values) -> tuple[float, float, float]:
    """An RGB colour in 0..1 from three numbers (strings or floats; not finite: 0).

    Raises:
        ValueError: a value is not a number.
    """
    c = np.clip(np.nan_to_num(np.asarray([float(x) for x in values][:3], dtype=float),
                              nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return (round(float(c[0]), 6), round(float(c[1]), 6), round(float(c[2]), 6))


def shininess_of_exponent(exponent: float) -> float:
    """A 0..1 shininess (VRML's, OpenGL exponent / 128) from a specular exponent."""
    return round(float(np.clip(np.nan_to_num(exponent) / 128.0, 0.0, 1.0)), 6)


def texture_path(base_dir: str, uri: str) -> str:
    """A texture reference as a path (relative ones resolved against the mesh file)."""
    uri = uri.strip()
    if uri.startswith('file://'):
        uri = uri[len('file://'):]
    elif uri.startswith('file:'):
        uri = uri[len('file:'):]
    if '://' in uri or os.path.isabs(uri):
        return uri
    return os.path.normpath(os.path.join(base_dir, uri))


class Warnings:
    """Collects ``path:line: message`` warnings, each distinct message once."""

    def __init__(self, sink: Warn | None):
        self._sink = sink
        self._seen: set[str] = set()

    def __call__(self, path: str, line: int | None, message: str) -> None:
        text = f'{where(path, line)}: {message}'
        key = f'{path}: {message}'
        if key in self._seen:
            return
        self._seen.add(key)
        if self._sink is None:
            warnings.warn(text, MeshFileWarning, stacklevel=_caller_level())
        else:
            self._sink(text)


def _caller_level() -> int:
    """The ``stacklevel`` that ``Warnings.__call__`` gives ``warnings.warn``: the first frame
    outside this package (the code that called ``load_mesh_file``), however deep the reader."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(2), 2  # 2: the frame that called Warnings.__call__
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        frame, level = frame.f_back, level + 1
    return level


class MeshFileWarning(UserWarning):
    """Something a mesh file holds that the reader ignored (when no ``warn`` is given)."""
