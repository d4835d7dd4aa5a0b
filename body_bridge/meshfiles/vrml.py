"""VRML97 (``.wrl``, ``#VRML V2.0 utf8``; files without the header are read as VRML97 too).

Read: Transform, Group, Collision, Anchor, Billboard (as a group), Switch (the chosen child),
LOD (the first level), Inline (VRML and the other mesh formats), Shape, Appearance, Material
(diffuse, emissive and specular colours, shininess, ambientIntensity, transparency),
ImageTexture (its url becomes the texture path), IndexedFaceSet (polygons triangulated,
``ccw``, ``Color`` per face or vertex: faces are split into one part per colour;
``texCoord`` and ``texCoordIndex`` of a textured shape, through the appearance's
TextureTransform), Box, Sphere, Cylinder, Cone, ElevationGrid, DEF/USE.
Lines, points, lights, sensors, viewpoints and other nodes without surface are skipped;
Text and Extrusion are skipped with a warning. Numbers are the file's (VRML's unit is the
metre).

With ``node``, the first node DEFined with that name is read, placed as Choreonoid places a
Resource node: with the rotation and scale of it and its ancestors, without their
translation.
"""

from __future__ import annotations

import math
import os

import numpy as np

from .. import geometry as geo
from ..errors import ModelError
from ..model import Material, axis_angle_matrix
from . import _common
from . import _fields as fields
from ._common import Budget, Include, Parts, Warnings
from ._polygons import split_polygons, triangulate
from ._scenetext import Node, parse

_GROUPS = frozenset({'Transform', 'Group', 'Collision', 'Anchor', 'Billboard'})
_NO_SURFACE = frozenset({
    'IndexedLineSet', 'PointSet', 'DirectionalLight', 'PointLight', 'SpotLight', 'Viewpoint',
    'NavigationInfo', 'Background', 'Fog', 'WorldInfo', 'Sound', 'AudioClip', 'Script',
    'TimeSensor', 'TouchSensor', 'PlaneSensor', 'CylinderSensor', 'SphereSensor',
    'ProximitySensor', 'VisibilitySensor', 'ColorInterpolator', 'CoordinateInterpolator',
    'NormalInterpolator', 'OrientationInterpolator', 'PositionInterpolator',
    'ScalarInterpolator'})
#: Faces coloured with more distinct colours than this share one averaged colour.
MAX_COLOR_PARTS = 16
# VRML builds cylinders and cones along +Y; the model's meshes are built along +Z.
_Z_TO_Y = axis_angle_matrix((1, 0, 0), -math.pi / 2)


def load(path: str, data: bytes, node: str | None, warn: Warnings, include: Include,
         stack: tuple[str, ...] = ()) -> list[_common.MeshPart]:
    """Read a VRML97 file (``node``: a DEF name; ``include`` reads the files it inlines)."""
    budget = Budget(path)
    parts = Parts(path, node, budget)
    scene = _Scene(path, warn, budget, parts, stack)
    scene.load_parts = include
    scene.read(data, node)
    return parts.result()


class _Scene:
    """Walks a parsed file, adding each shape's triangles to ``parts``."""

    def __init__(self, path: str, warn: Warnings, budget: Budget, parts: Parts,
                 stack: tuple[str, ...]):
        self.path = path
        self.warn = warn
        self.budget = budget
        self.parts = parts
        self.stack = stack + (os.path.realpath(path),)
        self.base = os.path.dirname(path)

    def read(self, data: bytes, node: str | None) -> None:
        text = _common.decode_text(data, self.path)
        start = 0
        if text.startswith('#VRML'):
            start = text.find('\n') + 1 or len(text)
        roots = parse(self.path, text, start)
        if node is None:
            for root in roots:
                self.walk(root, np.eye(4), 0)
            return
        found = _find(self.path, roots, node, np.eye(4), 0, self.budget)
        if found is None:
            names = _def_names(roots)
            listed = ', '.join(repr(n) for n in names[:12]) or 'none'
            raise ModelError(self.path, None, f'no node DEFined as {node!r} (DEF names: {listed})')
        target, matrix = found
        matrix = matrix.copy()
        if target.type == 'Transform':
            matrix = matrix @ fields.transform(self.path, target, 'scale')
            matrix[:3, 3] = 0.0
            self.walk_children(target, matrix, 1)
        else:
            matrix[:3, 3] = 0.0
            self.walk(target, matrix, 1)

    # --- grouping -------------------------------------------------------------------------

    def walk(self, node: Node | None, matrix: np.ndarray, depth: int) -> None:
        if node is None:
            return
        self.budget.visit(node.line)
        if depth > _common.MAX_DEPTH:
            raise ModelError(self.path, node.line, f'nodes nested deeper than {_common.MAX_DEPTH}')
        kind = node.type
        if node.fields.get('#untyped'):
            self.warn(self.path, node.line, f'"DEF {node.name} {{" has no node type; read as a '
                      f'{kind} node (as Choreonoid does)')
        if kind == 'Transform':
            self.walk_children(node, matrix @ fields.transform(self.path, node, 'scale'), depth)
        elif kind in _GROUPS:
            self.walk_children(node, matrix, depth)
        elif kind == 'Switch':
            choice = int(fields.number(self.path, node, 'whichChoice', -1))
            children = fields.nodes(node, 'choice') or fields.nodes(node, 'children')
            if 0 <= choice < len(children):
                self.walk(children[choice], matrix, depth + 1)
        elif kind == 'LOD':
            levels = fields.nodes(node, 'level') or fields.nodes(node, 'children')
            if levels:
                self.walk(levels[0], matrix, depth + 1)
        elif kind == 'Inline':
            self.inline(node, matrix)
        elif kind == 'Shape':
            self.shape(node, matrix)
        elif kind not in _NO_SURFACE:
            self.warn(self.path, node.line, f'{kind} node is not supported; skipped')

    def walk_children(self, node: Node, matrix: np.ndarray, depth: int) -> None:
        for child in fields.nodes(node, 'children') + node.children:
            self.walk(child, matrix, depth + 1)

    def inline(self, node: Node, matrix: np.ndarray) -> None:
        urls = node.fields.get('url') or []
        if not isinstance(urls, list) or not urls:
            raise ModelError(self.path, node.line, 'Inline without a url')
        target = _common.texture_path(self.base, str(urls[0]))
        if os.path.realpath(target) in self.stack:
            raise ModelError(self.path, node.line, f'Inline {urls[0]!r} includes itself')
        if len(self.stack) > _common.MAX_INCLUDE_DEPTH:
            raise ModelError(self.path, node.line, f'Inline files nested deeper than '
                             f'{_common.MAX_INCLUDE_DEPTH}')
        for part in self.load_parts(target, None, self.warn, self.stack):
            mesh = part.mesh
            v = mesh.vertices @ matrix[:3, :3].T + matrix[:3, 3]
            f = mesh.faces if np.linalg.det(matrix[:3, :3]) >= 0 else mesh.faces[:, ::-1]
            self.parts.add(v, f, part.material, node.line)

    # --- shapes ---------------------------------------------------------------------------

    def shape(self, node: Node, matrix: np.ndarray) -> None:
        geometry = node.fields.get('geometry')
        if not isinstance(geometry, Node):
            return
        material, transparency = self.appearance(node.fields.get('appearance'))
        textured = material is not None and material.texture is not None
        result = self.geometry(geometry, textured)
        if result is None:
            return
        vertices, faces, colors, uv = result
        appearance = node.fields.get('appearance')
        if uv is not None and isinstance(appearance, Node):
            transform = appearance.fields.get('textureTransform')
            if isinstance(transform, Node) and transform.type == 'TextureTransform':
                uv = fields.texture_transform(self.path, transform, uv)
        linear = matrix[:3, :3]
        placed = vertices @ linear.T + matrix[:3, 3]
        if np.linalg.det(linear) < 0:
            faces = faces[:, ::-1]
        if colors is None:
            self.parts.add(placed, faces, material, geometry.line, uv)
            return
        self.colored(placed, faces, colors, material, transparency, geometry.line, uv)

    def colored(self, vertices, faces, colors, material, transparency, line, uv) -> None:
        keys = np.round(np.clip(colors, 0, 1), 4)
        unique, which = np.unique(keys, axis=0, return_inverse=True)
        which = which.reshape(-1)
        texture = material.texture if material is not None else None
        if len(unique) > MAX_COLOR_PARTS:
            self.warn(self.path, line, f'{len(unique)} face colours averaged into one (at most '
                      f'{MAX_COLOR_PARTS} are kept apart)')
            unique, which = keys.mean(axis=0, keepdims=True), np.zeros(len(faces), np.int64)
        for k, color in enumerate(unique):
            sub = faces[which == k]
            if uv is None:
                v, f = _common.drop_unused(vertices, sub)
                t = None
            else:
                v, f, t = _common.drop_unused(vertices, sub, uv)
            self.parts.add(v, f, Material(_common.rgba(color, transparency), None, texture),
                           line, t)

    def appearance(self, node) -> tuple[Material | None, float]:
        if not isinstance(node, Node):
            return None, 0.0
        mat = node.fields.get('material')
        texture = None
        tex = node.fields.get('texture')
        if isinstance(tex, Node) and tex.type in ('ImageTexture', 'MovieTexture'):
            urls = tex.fields.get('url') or []
            if isinstance(urls, list) and urls:
                texture = _common.texture_path(self.base, str(urls[0]))
                if not os.path.exists(texture):
                    self.warn(self.path, tex.line, f'texture {urls[0]!r} not found')
        if not isinstance(mat, Node):
            if texture is None:
                return None, 0.0
            return Material((1.0, 1.0, 1.0, 1.0), None, texture), 0.0
        diffuse = fields.vector(self.path, mat, 'diffuseColor', (0.8, 0.8, 0.8), 3)
        transparency = fields.number(self.path, mat, 'transparency', 0.0)
        extras = {}
        for field, key in (('emissiveColor', 'emission'), ('specularColor', 'specular')):
            if field in mat.fields:
                extras[key] = _common.colour(fields.vector(self.path, mat, field, (0, 0, 0), 3))
        if 'shininess' in mat.fields:
            extras['shininess'] = float(np.clip(fields.number(self.path, mat, 'shininess',
                                                              0.2), 0.0, 1.0))
        if 'ambientIntensity' in mat.fields:
            extras['ambient'] = float(np.clip(fields.number(self.path, mat,
                                                            'ambientIntensity', 0.2), 0.0, 1.0))
        return Material(_common.rgba(diffuse, transparency), mat.name, texture, **extras), \
            transparency

    def geometry(self, node: Node, textured: bool = False):
        """(vertices, faces, per-face colours or None, texture coordinates or None) of a
        geometry node, or None (texture coordinates only when ``textured``)."""
        kind = node.type
        if kind == 'IndexedFaceSet':
            return _face_set(self.path, node, textured)
        if kind == 'Box':
            size = fields.vector(self.path, node, 'size', (2.0, 2.0, 2.0), 3)
            mesh = geo.box_mesh(size)
        elif kind == 'Sphere':
            mesh = geo.sphere_mesh(fields.positive(self.path, node, 'radius', 1.0))
        elif kind == 'Cylinder':
            if not fields.flag(node, 'side', True):
                self.warn(self.path, node.line,
                          'Cylinder side FALSE is not supported; the side is drawn')
            mesh = geo.transform_mesh(geo.cylinder_mesh(
                fields.positive(self.path, node, 'radius', 1.0),
                fields.positive(self.path, node, 'height', 2.0),
                bottom=fields.flag(node, 'bottom', True), top=fields.flag(node, 'top', True)),
                _Z_TO_Y)
        elif kind == 'Cone':
            mesh = geo.transform_mesh(geo.cone_mesh(
                fields.positive(self.path, node, 'bottomRadius', 1.0),
                fields.positive(self.path, node, 'height', 2.0),
                bottom=fields.flag(node, 'bottom', True)),
                _Z_TO_Y)
        elif kind == 'ElevationGrid':
            grid = _elevation_grid(self.path, node)
            return None if grid is None else (*grid, None)
        elif kind in ('IndexedLineSet', 'PointSet'):
            return None
        else:
            self.warn(self.path, node.line, f'{kind} geometry is not supported; skipped')
            return None
        return mesh.vertices, mesh.faces, None, None


# --- geometry nodes -------------------------------------------------------------------------


def _face_set(path: str, node: Node, textured: bool = False):
    coord = node.fields.get('coord')
    if not isinstance(coord, Node):
        return None
    points = fields.points(path, coord, 'point')
    stream = fields.indices(path, node, 'coordIndex')
    if not len(stream) or not len(points):
        return None
    indices, counts = split_polygons(stream)
    _common.check_indices(path, node.line, 'IndexedFaceSet coordIndex', indices, len(points))
    if counts.size and int(counts.max()) > _common.MAX_POLYGON_CORNERS:
        raise ModelError(path, node.line,
                         f'a face has more than {_common.MAX_POLYGON_CORNERS} corners')
    uv = None
    corners = indices
    if textured:
        points, corners, uv = _texcoords(path, node, points, indices, counts)
    faces, owner = triangulate(points, corners, counts)
    if not fields.flag(node, 'ccw', True):
        faces = faces[:, ::-1]
    colors = _face_colors(path, node, indices, counts, owner)
    used, inverse = np.unique(faces.reshape(-1), return_inverse=True)
    return points[used], inverse.reshape(-1, 3), colors, None if uv is None else uv[used]


def _texcoords(path: str, node: Node, points, indices, counts):
    """(vertices, corner indices, texture coordinates) of a textured IndexedFaceSet: one
    vertex per (coordinate, texture coordinate) pair; without a ``texCoord`` the points and
    no texture coordinates (the renderer maps the image itself)."""
    coord = node.fields.get('texCoord')
    if not isinstance(coord, Node):
        return points, indices, None
    uv = fields.array(path, coord, 'point')
    if len(uv) % 2:
        raise ModelError(path, coord.line, f'TextureCoordinate point: {len(uv)} numbers are '
                         'not a whole number of pairs')
    uv = uv.reshape(-1, 2)
    _common.check_finite(path, coord.line, 'TextureCoordinate point', uv)
    stream = fields.indices(path, node, 'texCoordIndex')
    tex = indices
    if len(stream):
        tex, tex_counts = split_polygons(stream)
        if len(tex_counts) != len(counts) or np.any(tex_counts != counts):
            raise ModelError(path, node.line, 'IndexedFaceSet texCoordIndex does not match '
                             'coordIndex face for face')
    _common.check_indices(path, node.line, 'IndexedFaceSet texCoordIndex', tex, len(uv))
    return _common.unweld(points, indices, uv, tex)


def _face_colors(path: str, node: Node, indices, counts, owner):
    """The colour of each triangle from a Color node, or None."""
    color = node.fields.get('color')
    if not isinstance(color, Node):
        return None
    palette = fields.points(path, color, 'color')
    if not len(palette):
        return None
    color_index = fields.indices(path, node, 'colorIndex')
    if not fields.flag(node, 'colorPerVertex', True):
        per_poly = color_index[color_index >= 0] if len(color_index) else np.arange(len(counts))
        if len(per_poly) < len(counts):
            raise ModelError(path, node.line, f'IndexedFaceSet has {len(counts)} faces but '
                             f'{len(per_poly)} colours')
        _common.check_indices(path, node.line, 'colorIndex', per_poly[:len(counts)], len(palette))
        return palette[per_poly[:len(counts)]][owner]
    if len(color_index):
        corner_colors, _ = split_polygons(color_index)
        if len(corner_colors) != len(indices):
            raise ModelError(path, node.line,
                             'IndexedFaceSet colorIndex does not match coordIndex')
    else:
        corner_colors = indices
    _common.check_indices(path, node.line, 'IndexedFaceSet colour index', corner_colors,
                          len(palette))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    per_poly = np.add.reduceat(palette[corner_colors], starts, axis=0) / counts[:, None]
    return per_poly[owner]


def _elevation_grid(path: str, node: Node):
    nx = int(fields.number(path, node, 'xDimension', 0))
    nz = int(fields.number(path, node, 'zDimension', 0))
    heights = node.fields.get('height')
    heights = heights if isinstance(heights, np.ndarray) else np.zeros(0)
    if nx < 2 or nz < 2:
        return None
    if nx * nz > _common.MAX_VERTICES or len(heights) < nx * nz:
        raise ModelError(path, node.line, f'ElevationGrid {nx} x {nz} needs {nx * nz} heights, '
                         f'found {len(heights)}')
    dx = fields.number(path, node, 'xSpacing', 1.0)
    dz = fields.number(path, node, 'zSpacing', 1.0)
    i, j = np.meshgrid(np.arange(nx), np.arange(nz))
    vertices = np.stack([i.ravel() * dx, heights[:nx * nz], j.ravel() * dz], axis=1)
    a = (i[:-1, :-1] + j[:-1, :-1] * nx).ravel()
    faces = np.concatenate([np.stack([a, a + nx, a + nx + 1], 1),
                            np.stack([a, a + nx + 1, a + 1], 1)])
    if not fields.flag(node, 'ccw', True):
        faces = faces[:, ::-1]
    return vertices, faces, None


# --- named nodes ----------------------------------------------------------------------------


def _children_for_search(node: Node) -> list[Node]:
    if node.type in _GROUPS:
        return fields.nodes(node, 'children') + node.children
    if node.type == 'Switch':
        return fields.nodes(node, 'choice') or fields.nodes(node, 'children')
    if node.type == 'LOD':
        return fields.nodes(node, 'level') or fields.nodes(node, 'children')
    return []


def _find(path: str, nodes: list[Node], name: str, matrix: np.ndarray, depth: int,
          budget: Budget):
    """The first node named ``name`` in document order, and its parent's matrix."""
    if depth > _common.MAX_DEPTH:
        return None
    for node in nodes:
        if node is None:
            continue
        budget.visit(node.line)
        if node.name == name:
            return node, matrix
        inner = matrix
        if node.type == 'Transform':
            inner = matrix @ fields.transform(path, node, 'scale')
        found = _find(path, _children_for_search(node), name, inner, depth + 1, budget)
        if found is not None:
            return found
    return None


def _def_names(nodes: list[Node], out: list[str] | None = None, seen: set | None = None,
               depth: int = 0) -> list[str]:
    """DEF names of grouping nodes and shapes, in document order (each subtree once)."""
    out = [] if out is None else out
    seen = set() if seen is None else seen
    for node in nodes:
        if node is None or depth > _common.MAX_DEPTH or id(node) in seen:
            continue
        seen.add(id(node))
        if node.name and node.name not in out:
            out.append(node.name)
        _def_names(_children_for_search(node), out, seen, depth + 1)
    return out

