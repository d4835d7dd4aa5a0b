"""OpenRAVE ``<geom>``: geometry records and their shapes (``mass`` reads ``<mass>``).

Facts from OpenRAVE's reader this module relies on:

* ``<extents>`` of a box are half sizes; cylinders (``radius``, ``height``) are built along the
  geometry's y axis; a geometry's ``translation`` adds up and its rotations multiply from the
  left, like every OpenRAVE transform.
* A trimesh collides with its ``<collision>`` (older name ``<data>``) file, or its ``<render>``
  file when there is none; it is drawn with its render file, or its collision mesh. Each file
  name may be followed by a scale (one number, or three). A primitive with a ``<render>`` file
  is drawn with that file and collides as the primitive. ``render="false"`` hides a geometry.
"""

from __future__ import annotations

import math
import os

import numpy as np

from ... import geometry as geo
from ...errors import ModelError
from ...fileaccess import read_regular
from ...meshfiles import load_mesh_file
from ...model import Box, Cylinder, Material, Mesh, Pose, Shape, Sphere, \
    axis_angle_matrix
from .raw import RawGeom, TransformTags, rotation_matrix
from .xmlfile import Element

__all__ = ['read_geom', 'geom_shapes', 'MeshCache']

#: OpenRAVE builds cylinders along y; the model along z: a quarter turn about x.
CYLINDER_TURN = rotation_matrix(axis_angle_matrix((1, 0, 0), math.pi / 2))

_GEOM_TAGS = frozenset({'translation', 'rotationaxis', 'rotationmat', 'quat', 'render',
                        'collision', 'data', 'diffusecolor', 'ambientcolor', 'transparency',
                        'extents', 'radius', 'height', 'vertices'})


def _file_and_scale(element: Element, resolve) -> tuple[str, np.ndarray] | None:
    """``file [s | sx sy sz]`` from the text, or the ``file``/``scale`` attributes."""
    name = element.attr('file')
    scale_text = element.attr('scale')
    words = element.words()
    if name is None:
        if not words:
            return None
        name, scale_words = words[0], words[1:]
    else:
        scale_words = scale_text.split() if scale_text else []
    try:
        values = [float(w) for w in scale_words[:3]]
    except ValueError:
        raise element.error(f'<{element.tag}>: the scale after the file name must be numbers, '
                            f'found {" ".join(scale_words)!r}') from None
    if len(values) == 0:
        scale = np.ones(3)
    elif len(values) == 1 or len(values) == 2:
        scale = np.full(3, values[0])
    else:
        scale = np.array(values)
    if not np.all(np.isfinite(scale)) or np.any(scale == 0):
        raise element.error(f'<{element.tag}>: the scale must be finite and not zero')
    return resolve(element, name), scale


def _color(element: Element) -> tuple[float, float, float]:
    values = element.numbers(at_least=3)[:3]
    return tuple(float(c) for c in np.clip(values, 0.0, 1.0))


def read_geom(element: Element, resolve, warn) -> RawGeom | None:
    """A ``<geom>`` element as a :class:`RawGeom` (None if its type is not supported).

    Args:
        element: the ``<geom>`` element.
        resolve: ``(element, file name) -> path`` for mesh files (None if not found).
        warn: ``(element, message)`` to record a warning.
    """
    kind = (element.attr('type') or 'box').strip().lower()
    if kind not in ('box', 'sphere', 'cylinder', 'trimesh'):
        warn(element, f'geometry type {kind!r} is not one of box, sphere, cylinder, trimesh; '
                      'the geometry was ignored')
        return None
    visible = element.flag('render', True)
    element.attr('modifiable')  # a planning hint (convex padding), no meaning here
    element.attr('name')
    for key in element.attrs:
        if key not in ('type', 'render', 'modifiable', 'name'):
            warn(element, f'<geom> attribute {key!r} is not known and was ignored')
    tags = TransformTags()
    geom = RawGeom(kind, np.eye(4), element, visible=visible)
    for child in element.children:
        tag = child.tag
        if tags.read(child):
            continue
        element.used.add(tag)
        if tag == 'render':
            geom.render = geom.render or _file_and_scale(child, resolve)
        elif tag in ('collision', 'data') and kind == 'trimesh':
            geom.collision = geom.collision or _file_and_scale(child, resolve)
        elif tag == 'diffusecolor':
            geom.diffuse = _color(child)
        elif tag == 'ambientcolor':
            geom.ambient = _color(child)
            warn(child, '<ambientcolor> is not kept (the model has no ambient colour)')
        elif tag == 'transparency':
            geom.transparency = float(np.clip(child.number(), 0.0, 1.0))
        elif tag == 'extents' and kind == 'box':
            geom.extents = child.numbers(3)
        elif tag == 'radius' and kind in ('sphere', 'cylinder'):
            geom.radius = child.number()
        elif tag == 'height' and kind == 'cylinder':
            geom.height = child.number()
        elif tag == 'vertices' and kind == 'trimesh':
            values = child.numbers()
            if len(values) % 9:
                raise child.error(f'<vertices> must hold 9 numbers per triangle, found '
                                  f'{len(values)}')
            geom.vertices = values.reshape(-1, 3)
        else:
            element.used.discard(tag)
            warn(child, f'<{tag}> is not used by a {kind} geometry and was ignored')
    _check_sizes(geom, warn)
    geom.pose = tags.matrix()
    if kind == 'cylinder':
        geom.pose = geom.pose @ CYLINDER_TURN
    return geom


#: Half size [m] given to a box side that a file makes 0 (a flat box has no volume).
THIN = 5e-5


def _check_sizes(geom: RawGeom, warn) -> None:
    e = geom.element
    if geom.kind == 'box':
        if geom.extents is None or np.any(geom.extents < 0) or not np.any(geom.extents > 0):
            raise e.error('a box geometry needs <extents> (three half sizes, not negative)')
        if np.any(geom.extents == 0):
            warn(e, f'box extents {geom.extents.tolist()} have a zero; that side is made '
                    f'{2 * THIN * 1000:g} mm thick')
            geom.extents = np.where(geom.extents == 0, THIN, geom.extents)
    elif geom.kind == 'sphere':
        if geom.radius is None or geom.radius <= 0:
            raise e.error('a sphere geometry needs a positive <radius>')
    elif geom.kind == 'cylinder':
        if geom.radius is None or geom.radius <= 0 or geom.height is None or geom.height <= 0:
            raise e.error('a cylinder geometry needs a positive <radius> and <height>')


class MeshCache:
    """Mesh files read once per load: path -> list of (Mesh, Material | None), or an error.

    Args:
        warn: receives one ``path:line: message`` line for each thing a mesh reader ignored.
    """

    def __init__(self, warn=None):
        self._warn = warn
        self._parts: dict[str, list[tuple[Mesh, Material | None]] | ModelError] = {}
        self._scaled: dict[tuple, list[tuple[Mesh, Material | None]]] = {}

    def parts(self, path: str) -> list[tuple[Mesh, Material | None]]:
        """The meshes of a file, in the file's units with its own transforms applied.

        Raises:
            ModelError: the file cannot be read (the same error every time it is asked for).
        """
        if path not in self._parts:
            try:
                parts = load_mesh_file(path, warn=self._warn)
                self._parts[path] = [(part.mesh, part.material) for part in parts]
            except ModelError as err:
                self._parts[path] = err
        result = self._parts[path]
        if isinstance(result, ModelError):
            raise result
        return result

    def scaled_parts(self, path: str, scale, name: str) -> list[tuple[Mesh, Material | None]]:
        """``parts`` with small ones merged, scaled and named; the same mesh objects for the
        same file, scale and name (a geometry's render and collision meshes are often one)."""
        key = (path, tuple(float(s) for s in scale), name)
        if key not in self._scaled:
            self._scaled[key] = [
                (geo.transform_mesh(mesh, np.diag(scale), name=f'{name}_{index}'), material)
                for index, (mesh, material) in enumerate(_merge_small(self.parts(path)))]
        return self._scaled[key]


def _material(geom: RawGeom, file_material: Material | None) -> Material | None:
    alpha = None if geom.transparency is None else 1.0 - geom.transparency
    if geom.diffuse is not None:
        return Material((*geom.diffuse, 1.0 if alpha is None else alpha))
    if file_material is not None:
        if alpha is None:
            return file_material
        return Material((*file_material.rgba[:3], alpha), file_material.name,
                        file_material.texture)
    if alpha is not None:
        return Material((0.7, 0.7, 0.7, alpha))
    return None


def _merge_small(parts):
    """Parts with triangles; those with fewer than 4 vertices (a mesh needs 4) join the
    largest part (their own colour is then that part's). When every part is that small they
    join the first, or are left out if all of them hold fewer than 4 vertices together."""
    parts = [(m, mat) for m, mat in parts if len(m.faces)]
    big = [p for p in parts if len(p[0].vertices) >= 4]
    small = [p for p in parts if len(p[0].vertices) < 4]
    if not big:
        if sum(len(m.vertices) for m, _ in small) < 4:
            return []
        big = [small.pop(0)]
    largest = max(range(len(big)), key=lambda i: len(big[i][0].faces))
    mesh, material = big[largest]
    for other, _ in small:
        mesh = _join(mesh, other)
    big[largest] = (mesh, material)
    return big


def _join(a: Mesh, b: Mesh) -> Mesh:
    return Mesh(np.vstack([a.vertices, b.vertices]),
                np.vstack([a.faces, b.faces + len(a.vertices)]), a.name, a.source)


def _scaled_parts(geom, file_and_scale, cache: MeshCache, warn, name: str):
    """Shapes of a mesh file in the geometry frame, or None (with a warning) if unreadable."""
    path, scale = file_and_scale
    try:
        parts = cache.scaled_parts(path, scale, name)
    except ModelError as err:
        warn(geom.element, f'mesh {os.path.basename(path)} cannot be read ({err.message})')
        return None
    shapes = [(mesh, Pose(), _material(geom, material)) for mesh, material in parts]
    if not shapes:
        warn(geom.element, f'mesh {os.path.basename(path)} has no triangles')
        return None
    return shapes


def _stand_in(geom, file_and_scale, name: str, warn):
    """A box over the coordinates a mesh file lists, when the file cannot be read."""
    path, scale = file_and_scale
    points = rough_points(path)
    if points is None:
        warn(geom.element, f'no geometry for {os.path.basename(path)}: nothing in it could be '
                           'read, not even its coordinates')
        return None
    points = points * scale
    lo, hi = geo.bounds(points)
    size = np.maximum(hi - lo, 1e-4)
    warn(geom.element, f'{os.path.basename(path)}: a bounding box of its coordinates '
                       f'({size[0]:.3g} x {size[1]:.3g} x {size[2]:.3g} m) stands in for it')
    return [(Box(tuple(float(s) for s in size)), Pose(0.5 * (lo + hi)), _material(geom, None))]


#: Largest mesh file whose coordinates are scanned for a stand-in box [bytes] (50 MB).
_ROUGH_LIMIT = 50_000_000


def rough_points(path: str) -> np.ndarray | None:
    """Coordinates listed in a text mesh file (VRML/Inventor ``point [...]``, OBJ ``v``,
    ASCII STL ``vertex``), for a bounding-box stand-in. None if there are fewer than two
    (one point spans no box) or the file is over ``_ROUGH_LIMIT``."""
    import re
    try:
        text = read_regular(path, _ROUGH_LIMIT, 'mesh file').decode('latin-1')
    except ModelError:
        return None
    numbers: list[float] = []
    for block in re.findall(r'point\s*\[([^\]]*)\]', text):
        numbers.extend(float(x) for x in re.findall(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?',
                                                    block))
    for line in re.findall(r'^\s*(?:v|vertex)\s+(\S+)\s+(\S+)\s+(\S+)', text, re.M):
        try:
            numbers.extend(float(x) for x in line)
        except ValueError:
            continue
    pts = np.array(numbers[:len(numbers) // 3 * 3], dtype=float).reshape(-1, 3)
    pts = pts[np.all(np.isfinite(pts), axis=1)]
    return pts if len(pts) >= 2 else None


def _mesh_shapes(geom, which, cache, warn, name):
    file_and_scale = getattr(geom, which)
    if file_and_scale is None or file_and_scale[0] is None:
        return None
    shapes = _scaled_parts(geom, file_and_scale, cache, warn, name)
    if shapes is None:
        shapes = _stand_in(geom, file_and_scale, name, warn)
    return shapes


def _solid(items, geom: RawGeom, warn):
    """Collision items whose flat meshes (all vertices in a plane, no convex hull for a
    collision engine) are replaced by thin boxes over them; the same list if none is flat.
    A part is flat when its thickness is at most a millionth of its length (its principal
    box's smallest and largest sides)."""
    out, changed = [], False
    for geometry, pose, material in items:
        if isinstance(geometry, Mesh) and len(geometry.vertices):
            frame, extent = geo.principal_box(geometry.vertices)
            if extent[2] <= 1e-6 * max(extent[0], 1e-12):
                size = np.maximum(extent, 2 * THIN)
                warn(geom.element, f'mesh part {geometry.name!r} is flat; it collides as a '
                                   f'{size[0]:.3g} x {size[1]:.3g} x {size[2]:.3g} m box')
                out.append((Box(tuple(float(x) for x in size)), pose @ frame, material))
                changed = True
                continue
        out.append((geometry, pose, material))
    return out if changed else items


def _primitive(geom: RawGeom):
    if geom.kind == 'box':
        return Box(tuple(2.0 * float(e) for e in geom.extents))
    if geom.kind == 'sphere':
        return Sphere(float(geom.radius))
    return Cylinder(float(geom.radius), float(geom.height))


def geom_shapes(geom: RawGeom, cache: MeshCache, warn, name: str):
    """Visual and collision items of a geometry: lists of (geometry, pose in the geometry
    frame, material). Meshes are scaled; files that cannot be read give warnings."""
    if geom.kind == 'trimesh':
        collide = _mesh_shapes(geom, 'collision', cache, warn, name)
        if collide is None and geom.vertices is not None and len(geom.vertices) >= 3:
            faces = geom.faces if geom.faces is not None else \
                np.arange(len(geom.vertices)).reshape(-1, 3)
            collide = [(Mesh(geom.vertices, faces, name), Pose(), _material(geom, None))]
        draw = _mesh_shapes(geom, 'render', cache, warn, name)
        collide = collide or draw or []
        draw = draw or collide
        solid = _solid(collide, geom, warn)
        if solid is not collide:
            draw, collide = (collide if draw is collide else draw), solid
    else:
        collide = [(_primitive(geom), Pose(), _material(geom, None))]
        draw = _mesh_shapes(geom, 'render', cache, warn, name) or collide
    return (draw if geom.visible else []), collide


def place(items, link_from_geom: Pose, source: str) -> list[Shape]:
    """Shapes in the link frame from (geometry, pose in geometry frame, material) items."""
    return [Shape(g, link_from_geom @ p, m, source) for g, p, m in items]
