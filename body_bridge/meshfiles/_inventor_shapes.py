"""Inventor shape nodes as triangles, and VertexProperty (shared by the shape nodes).

Each shape function takes the scene walker, the node and the current state and returns
``(vertices, faces, owner)`` in the node's own coordinates, or None: ``owner`` numbers the
face or part of each triangle that a PER_FACE or PER_PART material binding colours. A face
is a polygon of a face set, a triangle of a strip set and a cell of a QuadMesh; a part is a
polygon of a face set, a strip of a strip set and a row of cells of a QuadMesh.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .. import geometry as geo
from ..errors import ModelError
from ..model import axis_angle_matrix
from . import _common
from . import _fields as fields
from ._polygons import split_polygons, triangulate
from ._scenetext import Node

# Inventor builds cylinders and cones along +Y; the model's meshes along +Z.
_Z_TO_Y = axis_angle_matrix((1, 0, 0), -math.pi / 2)


def vertex_property(scene, node: Node, state):
    """The state after a VertexProperty: its vertices, and its packed colours if any."""
    state = replace(state, coords=fields.points(scene.path, node, 'vertex'))
    rgba = node.fields.get('orderedRGBA')
    if isinstance(rgba, np.ndarray) and len(rgba):
        packed = rgba.astype(np.int64) & 0xFFFFFFFF
        colors = np.stack([(packed >> 24) & 255, (packed >> 16) & 255, (packed >> 8) & 255],
                          axis=1) / 255.0
        alpha = float(((packed[0]) & 255) / 255.0)
        binding = str(node.fields.get('materialBinding', 'OVERALL'))
        state = replace(state, colors=colors, transparency=1.0 - alpha, binding=binding)
    return state




def _coords(scene, node: Node, state) -> np.ndarray:
    """The shape's coordinates (its own ``vertexProperty`` is already in ``state``)."""
    if state.coords is None:
        raise ModelError(scene.path, node.line, f'{node.type} without coordinates before it')
    return state.coords


def _face_set(scene, node: Node, state):
    coords = _coords(scene, node, state)
    counts = fields.indices(scene.path, node, 'numVertices')
    start = int(fields.number(scene.path, node, 'startIndex', 0))
    if not len(counts) or (len(counts) == 1 and counts[0] == -1):
        counts = np.array([len(coords) - start])
    if (counts < 0).any() or start < 0 or start + int(counts.sum()) > len(coords):
        raise ModelError(scene.path, node.line, f'FaceSet uses {int(counts.sum())} vertices from '
                         f'{start} but there are {len(coords)}')
    indices = np.arange(start, start + int(counts.sum()))
    return _polygons(scene, node, coords, indices, counts)


def _indexed_face_set(scene, node: Node, state):
    coords = _coords(scene, node, state)
    indices, counts = split_polygons(fields.indices(scene.path, node, 'coordIndex'))
    _common.check_indices(scene.path, node.line, f'{node.type} coordIndex', indices, len(coords))
    return _polygons(scene, node, coords, indices, counts)


def _polygons(scene, node: Node, coords, indices, counts):
    if counts.size and int(counts.max()) > _common.MAX_POLYGON_CORNERS:
        raise ModelError(scene.path, node.line, f'a face has more than '
                         f'{_common.MAX_POLYGON_CORNERS} corners')
    faces, owner = triangulate(coords, indices, counts)
    if not len(faces):
        return None
    used, inverse = np.unique(faces.reshape(-1), return_inverse=True)
    return coords[used], inverse.reshape(-1, 3), owner


def _by_part(state) -> bool:
    """Whether the material binding colours parts (PER_PART, PER_PART_INDEXED)."""
    return state.binding.startswith('PER_PART')


def _strips(scene, node: Node, coords, indices, counts, by_strip: bool):
    """Triangles of strips (alternate triangles reversed to keep one winding), each owned
    by its strip (``by_strip``) or by itself."""
    tris, owner = [], []
    start = made = 0
    for s, n in enumerate(counts):
        strip = indices[start:start + n]
        start += n
        if n < 3:
            continue
        k = np.arange(n - 2)
        t = np.stack([strip[k], strip[k + 1], strip[k + 2]], axis=1)
        odd = (k % 2) == 1
        t[odd] = t[odd][:, [1, 0, 2]]
        tris.append(t)
        owner.append(np.full(n - 2, s) if by_strip else made + k)
        made += n - 2
    if not tris:
        return None
    faces = np.concatenate(tris)
    used, inverse = np.unique(faces.reshape(-1), return_inverse=True)
    return coords[used], inverse.reshape(-1, 3), np.concatenate(owner)


def _triangle_strip_set(scene, node: Node, state):
    coords = _coords(scene, node, state)
    counts = fields.indices(scene.path, node, 'numVertices')
    start = int(fields.number(scene.path, node, 'startIndex', 0))
    if (counts < 0).any() or start < 0 or start + int(counts.sum()) > len(coords):
        raise ModelError(scene.path, node.line,
                         'TriangleStripSet uses more vertices than there are')
    return _strips(scene, node, coords, np.arange(start, start + int(counts.sum())), counts,
                   _by_part(state))


def _indexed_triangle_strip_set(scene, node: Node, state):
    coords = _coords(scene, node, state)
    indices, counts = split_polygons(fields.indices(scene.path, node, 'coordIndex'))
    _common.check_indices(scene.path, node.line, 'IndexedTriangleStripSet coordIndex', indices,
                          len(coords))
    return _strips(scene, node, coords, indices, counts, _by_part(state))


def _quad_mesh(scene, node: Node, state):
    coords = _coords(scene, node, state)
    rows = int(fields.number(scene.path, node, 'verticesPerColumn', 1))
    cols = int(fields.number(scene.path, node, 'verticesPerRow', 1))
    start = int(fields.number(scene.path, node, 'startIndex', 0))
    if start < 0 or start + rows * cols > len(coords):
        raise ModelError(scene.path, node.line, 'QuadMesh uses more vertices than there are')
    if rows < 2 or cols < 2:
        return None
    grid = np.arange(start, start + rows * cols).reshape(rows, cols)
    quads = np.stack([grid[:-1, :-1], grid[1:, :-1], grid[1:, 1:], grid[:-1, 1:]], axis=-1)
    quads = quads.reshape(-1, 4)
    vertices, faces, cell = _polygons(scene, node, coords, quads.ravel(), np.full(len(quads), 4))
    return vertices, faces, cell // (cols - 1) if _by_part(state) else cell


def _parts_mask(node: Node) -> set[str]:
    value = str(node.fields.get('parts', 'ALL')).upper()
    return {'SIDES', 'TOP', 'BOTTOM'} if 'ALL' in value else set(value.split('|'))


def _primitive(mesh) -> tuple[np.ndarray, np.ndarray, None]:
    return mesh.vertices, mesh.faces, None


def _cube(scene, node: Node, state):
    size = [fields.positive(scene.path, node, k, 2.0) for k in ('width', 'height', 'depth')]
    return _primitive(geo.box_mesh(size))


def _sphere(scene, node: Node, state):
    return _primitive(geo.sphere_mesh(fields.positive(scene.path, node, 'radius', 1.0)))


def _cylinder(scene, node: Node, state):
    mask = _parts_mask(node)
    if 'SIDES' not in mask:
        scene.warn(scene.path, node.line, 'Cylinder without SIDES is not supported; sides drawn')
    mesh = geo.cylinder_mesh(fields.positive(scene.path, node, 'radius', 1.0),
                             fields.positive(scene.path, node, 'height', 2.0),
                             bottom='BOTTOM' in mask, top='TOP' in mask)
    return _primitive(geo.transform_mesh(mesh, _Z_TO_Y))


def _cone(scene, node: Node, state):
    mask = _parts_mask(node)
    mesh = geo.cone_mesh(fields.positive(scene.path, node, 'bottomRadius', 1.0),
                         fields.positive(scene.path, node, 'height', 2.0),
                         bottom='BOTTOM' in mask)
    return _primitive(geo.transform_mesh(mesh, _Z_TO_Y))


def _unsupported_shape(scene, node: Node, state):
    scene.warn(scene.path, node.line, f'{node.type} is not supported; skipped')


SHAPES = {
    'FaceSet': _face_set, 'IndexedFaceSet': _indexed_face_set,
    'TriangleStripSet': _triangle_strip_set,
    'IndexedTriangleStripSet': _indexed_triangle_strip_set, 'QuadMesh': _quad_mesh,
    'Cube': _cube, 'Sphere': _sphere, 'Cylinder': _cylinder, 'Cone': _cone,
    'AsciiText': _unsupported_shape, 'Text2': _unsupported_shape, 'Text3': _unsupported_shape,
    'NurbsSurface': _unsupported_shape, 'IndexedNurbsSurface': _unsupported_shape,
}
