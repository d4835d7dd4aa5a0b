"""Wavefront OBJ with its MTL material libraries.

Read: ``v`` (extra colour numbers ignored), ``f`` (``v``, ``v/vt``, ``v//vn``, ``v/vt/vn``,
negative indices count back from the last vertex), ``o`` and ``g`` (the names ``node``
selects), ``usemtl`` and ``mtllib`` (``Kd``, ``d`` or ``Tr``, ``Ks``, ``Ns``, ``Ke``,
``map_Kd``), ``vt`` (kept for the faces of a textured material). Normals, smoothing groups,
lines and points carry no surface and are skipped.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import ModelError
from ..model import Material
from . import _common
from ._common import Budget, Parts, Warnings
from ._polygons import triangulate

_SKIPPED = frozenset({'vn', 'vp', 's', 'l', 'p', 'cstype', 'deg', 'curv', 'curv2',
                      'surf', 'parm', 'trim', 'hole', 'scrv', 'sp', 'end', 'con', 'mg',
                      'bevel', 'c_interp', 'd_interp', 'lod', 'shadow_obj', 'trace_obj',
                      'maplib', 'usemap', 'ctech', 'stech', 'bmat', 'step', 'call', 'csh'})


class _Group:
    """Faces of one (material, selected) run, as flat corner indices and counts."""

    __slots__ = ('counts', 'indices', 'tex', 'line')

    def __init__(self, line: int):
        self.indices: list[int] = []
        self.tex: list[int] = []  # texture coordinate of each corner, -1 where none
        self.counts: list[int] = []
        self.line = line


def load(path: str, data: bytes, node: str | None, warn: Warnings) -> list[_common.MeshPart]:
    """Read an OBJ file (``node`` names an ``o`` object or a ``g`` group)."""
    text = _common.decode_text(data, path)
    base = os.path.dirname(path)
    vertices: list[tuple[float, float, float]] = []
    texcoords: list[tuple[float, float]] = []
    groups: dict[str | None, _Group] = {}
    materials: dict[str, Material] = {}
    current_mtl: str | None = None
    mtl_line = 0
    names_now: set[str] = set()
    seen_names: list[str] = []
    corners = 0
    for lineno, raw in _lines(text):
        words = raw.split()
        if not words or words[0].startswith('#'):
            continue
        key = words[0]
        if key == 'v':
            vertices.append(_vertex(path, lineno, words))
            if len(vertices) > _common.MAX_VERTICES:
                raise ModelError(path, lineno, f'more than {_common.MAX_VERTICES} vertices')
        elif key == 'vt':
            texcoords.append(_texcoord(path, lineno, words))
            if len(texcoords) > _common.MAX_VERTICES:
                raise ModelError(path, lineno, f'more than {_common.MAX_VERTICES} texture '
                                 'coordinates')
        elif key == 'f' or key == 'fo':
            if node is not None and node not in names_now:
                continue
            face, tex = _face(path, lineno, words, len(vertices), len(texcoords))
            group = groups.get(current_mtl)
            if group is None:
                group = groups[current_mtl] = _Group(mtl_line or lineno)
            group.indices.extend(face)
            group.tex.extend(tex)
            group.counts.append(len(face))
            corners += len(face)
            if corners > 3 * _common.MAX_TRIANGLES:
                raise ModelError(path, lineno, f'more than {_common.MAX_TRIANGLES} triangles')
        elif key in ('o', 'g'):
            names = [' '.join(words[1:])] if key == 'o' else words[1:]
            names_now = set(names) if key == 'g' else {names[0]}
            seen_names.extend(n for n in names if n not in seen_names)
        elif key == 'usemtl':
            current_mtl, mtl_line = ' '.join(words[1:]), lineno
        elif key == 'mtllib':
            for name in _mtl_names(raw, base):
                _read_mtl(path, lineno, os.path.join(base, name), materials, warn)
        elif key not in _SKIPPED:
            warn(path, lineno, f'OBJ statement {key[:40]!r} is not understood; ignored')
    if node is not None and node not in seen_names:
        listed = ', '.join(repr(n) for n in seen_names[:10]) or 'none'
        raise ModelError(path, None, f'no object or group named {node!r} (names: {listed})')
    return _parts(path, node, np.array(vertices, dtype=float).reshape(-1, 3),
                  np.array(texcoords, dtype=float).reshape(-1, 2), groups, materials, warn)


def _lines(text: str):
    """(line number, logical line), joining lines that end with a backslash."""
    pending, start = '', 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.endswith('\\'):
            if not pending:
                start = number
            pending += line[:-1] + ' '
            continue
        if pending:
            yield start, pending + line
            pending = ''
        else:
            yield number, line
    if pending:
        yield start, pending


def _vertex(path: str, line: int, words: list[str]) -> tuple[float, float, float]:
    if len(words) < 4:
        raise ModelError(path, line, 'OBJ vertex needs 3 coordinates')
    try:
        x, y, z = float(words[1]), float(words[2]), float(words[3])
    except ValueError:
        raise ModelError(path, line, f'OBJ vertex: {" ".join(words[1:4])[:60]!r} are not '
                         'three numbers') from None
    return x, y, z


def _texcoord(path: str, line: int, words: list[str]) -> tuple[float, float]:
    try:
        u = float(words[1])
        v = float(words[2]) if len(words) > 2 else 0.0
    except (IndexError, ValueError):
        raise ModelError(path, line, f'OBJ texture coordinate: {" ".join(words[1:3])[:60]!r} '
                         'is not one or two numbers') from None
    return u, v


def _face(path: str, line: int, words: list[str], count: int,
          tex_count: int) -> tuple[list[int], list[int]]:
    """The corners' vertex indices and texture coordinate indices (-1 where none)."""
    out, tex = [], []
    if len(words) - 1 > _common.MAX_POLYGON_CORNERS:
        raise ModelError(path, line,
                         f'OBJ face with more than {_common.MAX_POLYGON_CORNERS} corners')
    for word in words[1:]:
        fields = word.split('/', 2)
        out.append(_reference(path, line, fields[0], count, 'vertex', word))
        tex.append(_reference(path, line, fields[1], tex_count, 'texture coordinate', word)
                   if len(fields) > 1 and fields[1] else -1)
    return out, tex


def _reference(path: str, line: int, text: str, count: int, what: str, word: str) -> int:
    """A 0-based index from an OBJ reference (1-based, negative counts back)."""
    try:
        index = int(text)
    except ValueError:
        raise ModelError(path, line,
                         f'OBJ face: {word[:40]!r} is not a {what} reference') from None
    index = index + count if index < 0 else index - 1
    if not 0 <= index < count:
        raise ModelError(path, line, f'OBJ face: {what} {text} does not exist (there are '
                         f'{count} so far)')
    return index


def _mtl_names(raw: str, base: str) -> list[str]:
    """The libraries ``mtllib`` names: several, separated by spaces, or one whose name has
    spaces (when a file of that whole name is there)."""
    rest = raw.split(None, 1)[1] if len(raw.split(None, 1)) > 1 else ''
    rest = rest.strip()
    if ' ' in rest and os.path.isfile(os.path.join(base, rest)):
        return [rest]
    return rest.split()


def _read_mtl(obj_path: str, line: int, path: str, materials: dict[str, Material],
              warn: Warnings) -> None:
    try:
        data = _common.read_bytes(path)
    except ModelError as err:
        warn(obj_path, line, f'material library {os.path.basename(path)!r}: {err.message}; '
             'its materials are not used')
        return
    text = _common.decode_text(data, path)
    base = os.path.dirname(path)
    name, kd, alpha, texture, has_d = None, (0.8, 0.8, 0.8), 1.0, None, False
    extras: dict = {}  # emission, specular, shininess when the library gives them

    def flush():
        if name is not None:
            materials[name] = Material(_common.rgba(kd, 1.0 - alpha), name, texture, **extras)

    for lineno, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if not words or words[0].startswith('#'):
            continue
        key = words[0]
        try:
            if key == 'newmtl':
                flush()
                name, kd, alpha, texture = ' '.join(words[1:]), (0.8, 0.8, 0.8), 1.0, None
                has_d, extras = False, {}
            elif key == 'Kd' and len(words) >= 4:
                kd = (float(words[1]), float(words[2]), float(words[3]))
            elif key in ('Ks', 'Ke') and len(words) >= 4:
                extras['specular' if key == 'Ks' else 'emission'] = _common.colour(words[1:4])
            elif key == 'Ns' and len(words) >= 2:  # the specular exponent, 0..1000
                extras['shininess'] = _common.shininess_of_exponent(float(words[1]))
            elif key == 'd' and len(words) >= 2:
                alpha, has_d = float(words[-1]), True
            elif key == 'Tr' and len(words) >= 2 and not has_d:
                alpha = 1.0 - float(words[-1])  # Tr is 1 - d; d wins when both are given
            elif key == 'map_Kd' and len(words) >= 2:
                texture = _common.texture_path(base, words[-1])
                if not os.path.exists(texture):
                    warn(path, lineno, f'texture {words[-1]!r} not found')
        except ValueError:
            raise ModelError(path, lineno, f'MTL {key}: {" ".join(words[1:])[:60]!r} is not '
                             'a number') from None
    flush()


def _parts(path: str, node: str | None, vertices: np.ndarray, texcoords: np.ndarray,
           groups: dict[str | None, _Group], materials: dict[str, Material],
           warn: Warnings) -> list[_common.MeshPart]:
    parts = Parts(path, node, Budget(path))
    _common.check_finite(path, None, 'vertex coordinates', vertices)
    for mtl, group in groups.items():
        material = None
        if mtl is not None:
            material = materials.get(mtl)
            if material is None:
                warn(path, group.line, f'material {mtl!r} is not defined in a material library')
        points, indices, uv = vertices, np.array(group.indices, dtype=np.int64), None
        tex = np.array(group.tex, dtype=np.int64)
        if material is not None and material.texture is not None and len(tex) and \
                tex.min() >= 0:
            points, indices, uv = _common.unweld(vertices, indices, texcoords, tex)
        faces, _ = triangulate(points, indices, np.array(group.counts, dtype=np.int64))
        if len(faces):
            if uv is None:
                parts.add(*_common.drop_unused(points, faces), material, group.line)
            else:
                v, f, t = _common.drop_unused(points, faces, uv)
                parts.add(v, f, material, group.line, t)
    return parts.result()
