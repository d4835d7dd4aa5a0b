"""Choreonoid geometry and appearance nodes into model shapes.

Facts from the Body file reference and Choreonoid's scene reader this module relies on:

* Cylinder, Capsule and Cone are built along the node's +Y axis, centred at the origin;
  a cone's apex is at +height/2. A capsule's ``height`` is the length of its cylindrical
  part (the hemisphere centres are ``height`` apart).
* Extrusion (``cross_section`` in x-z, ``spine``, ``orientation``, ``scale``,
  ``begin_cap``, ``end_cap``) and ElevationGrid (heights along +Y over an x-z grid) follow
  VRML97; their vertices are in the node frame.
* IndexedFaceSet takes ``vertices`` (or VRML's ``coordinate``) and ``faces`` (or
  ``coordIndex``): polygons closed by -1, counter-clockwise; TriangleMesh takes
  ``vertices`` and ``triangles``.
* Material: ``diffuse``/``diffuseColor`` RGB and ``transparency`` (0 opaque), ``emissive``
  and ``specular`` RGB, ``specular_exponent`` or ``shininess`` (0..1, VRML's: an exponent of
  128 times it), ``ambient``/``ambientIntensity``; a texture's ``url``/``uri`` is relative
  to the file that names it.
"""

from __future__ import annotations

import math
import os

import numpy as np

from ... import geometry as geo
from ...errors import ModelError, UnsupportedError
from ...model import Box, Capsule, Cone, Cylinder, Material, Mesh, Pose, Sphere, axis_angle_matrix
from .nodes import Frame, Node
from .resources import mesh_parts, resolve_uri

__all__ = ['read_geometry', 'read_appearance', 'place', 'MIN_BOX_EDGE', 'Y_UP']

#: Choreonoid builds round shapes along +Y; the model builds them along +Z.
Y_UP = axis_angle_matrix((1, 0, 0), -math.pi / 2)

#: A Box edge of 0 (a plane) becomes this thin [m]: physics engines need a volume.
MIN_BOX_EDGE = 1e-6

#: Keys of geometry nodes that do not change the shape here (rendering hints).
_RENDER_KEYS = frozenset({'type', 'division_number', 'extra_division_number',
                          'extra_division_mode', 'crease_angle', 'solid', 'normals',
                          'normal_indices', 'tex_coord', 'tex_coords', 'tex_coord_index',
                          'tex_coord_indices', 'convex', 'ccw_normals',
                          'remove_redundant_vertices'})

def _positive(gnode: Node, *names: str) -> list[float]:
    values = []
    for name in names:
        value = gnode.number(name)
        if value is None or value <= 0:
            raise gnode.error(f'{gnode.data.get("type")} {name} must be a positive number')
        values.append(value)
    return values


def read_geometry(gnode: Node, gtype: str, name: str):
    """A geometry node as (geometry, rotation from the model's convention to the node frame).

    Args:
        gnode: the geometry node.
        gtype: its ``type``.
        name: a name for generated meshes.

    Raises:
        ModelError: bad or missing values (``path:line``).
        UnsupportedError: an unknown geometry type.
    """
    reader = _READERS.get(gtype)
    if reader is None:
        raise UnsupportedError(gnode.ctx.path, gnode.line, f'geometry type {gtype} is not '
                               'supported (Box, Sphere, Cylinder, Capsule, Cone, Extrusion, '
                               'ElevationGrid, IndexedFaceSet, TriangleMesh, Resource)')
    geometry, local = reader(gnode, name)
    gnode.warn_unused(gtype, _RENDER_KEYS)
    return geometry, local


def _box(gnode: Node, name: str):
    size = gnode.vector('size')
    if size is None or np.any(size < 0):
        raise gnode.error('Box size must be three numbers, none negative')
    if np.any(size == 0):
        gnode.ctx.warn(gnode.line, f'Box size {size.tolist()} has a zero edge; it was made '
                       f'{MIN_BOX_EDGE:g} m thick so that physics engines accept it')
        size = np.where(size == 0, MIN_BOX_EDGE, size)
    return Box(tuple(float(s) for s in size)), np.eye(3)


def _sphere(gnode: Node, name: str):
    (radius,) = _positive(gnode, 'radius')
    return Sphere(radius), np.eye(3)


def _cylinder(gnode: Node, name: str):
    radius, height = _positive(gnode, 'radius', 'height')
    top = gnode.boolean('top', default=True)
    bottom = gnode.boolean('bottom', default=True)
    side = gnode.boolean('side', default=True)
    if top and bottom and side:
        return Cylinder(radius, height), Y_UP
    if not side:
        raise gnode.error('a Cylinder without its side has no volume; use Extrusion or faces')
    mesh = geo.cylinder_mesh(radius, height, bottom=bottom, top=top)
    return Mesh(mesh.vertices, mesh.faces, f'{name}_cylinder'), Y_UP


def _capsule(gnode: Node, name: str):
    radius, height = _positive(gnode, 'radius', 'height')
    return Capsule(radius, height), Y_UP


def _cone(gnode: Node, name: str):
    radius, height = _positive(gnode, 'radius', 'height')
    bottom = gnode.boolean('bottom', default=True)
    if gnode.boolean('side', default=True) is False:
        raise gnode.error('a Cone without its side has no volume')
    if bottom:
        return Cone(radius, height), Y_UP
    mesh = geo.cone_mesh(radius, height, bottom=False)
    return Mesh(mesh.vertices, mesh.faces, f'{name}_cone'), Y_UP


def _extrusion(gnode: Node, name: str):
    cross = gnode.numbers('cross_section', multiple=2, minimum=4)
    spine = gnode.numbers('spine', multiple=3, minimum=6)
    if cross is None:  # VRML97 default: the unit square
        cross = np.array([1, 1, 1, -1, -1, -1, -1, 1, 1, 1], dtype=float)
    if spine is None:
        spine = np.array([0, 0, 0, 0, 1, 0], dtype=float)
    scale = gnode.numbers('scale', multiple=2)
    orientation = gnode.numbers('orientation', multiple=4)
    if orientation is not None:
        orientation = orientation.reshape(-1, 4).copy()
        orientation[:, 3] *= gnode.ctx.angle_scale
    try:
        mesh = geo.extrusion_mesh(cross.reshape(-1, 2), spine.reshape(-1, 3), scale,
                                  orientation, gnode.boolean('begin_cap', default=True),
                                  gnode.boolean('end_cap', default=True), f'{name}_extrusion')
    except ValueError as err:
        raise gnode.error(f'Extrusion: {err}') from None
    return mesh, np.eye(3)


def _elevation_grid(gnode: Node, name: str):
    nx = gnode.integer('x_dimension', default=0)
    nz = gnode.integer('z_dimension', default=0)
    dx = gnode.number('x_spacing', default=1.0)
    dz = gnode.number('z_spacing', default=1.0)
    if dx <= 0 or dz <= 0:
        raise gnode.error('ElevationGrid x_spacing and z_spacing must be positive')
    heights = gnode.numbers('height')
    try:
        mesh = geo.elevation_grid_mesh(nx, nz, dx, dz, [] if heights is None else heights,
                                       gnode.boolean('ccw', default=True),
                                       f'{name}_elevation_grid')
    except ValueError as err:
        raise gnode.error(f'ElevationGrid: {err}') from None
    return mesh, np.eye(3)


def _polygon_list(gnode: Node, indices, what: str) -> list[list[int]]:
    """Index lists closed by -1 (the last one may stay open), polygons of under three
    corners dropped."""
    polygons, current = [], []
    for value in indices:
        if isinstance(value, bool) or not isinstance(value, int):
            raise gnode.error(f'IndexedFaceSet {what} {value!r} is not an integer')
        if value < 0:
            if len(current) >= 3:
                polygons.append(current)
            current = []
        else:
            current.append(value)
    if len(current) >= 3:
        polygons.append(current)
    return polygons


def _face_set(gnode: Node, name: str):
    vertices = gnode.numbers('vertices', 'coordinate', multiple=3, minimum=9)
    if vertices is None:
        raise gnode.error('IndexedFaceSet has no vertices')
    indices = gnode.raw('faces', 'coord_index')
    if not isinstance(indices, list):
        raise gnode.error('IndexedFaceSet faces must be a list of vertex indices closed by -1')
    polygons = _polygon_list(gnode, indices, 'face index')
    if not polygons:
        raise gnode.error('IndexedFaceSet has no face of three or more vertices')
    texcoords = gnode.numbers('tex_coord', 'tex_coords', multiple=2)
    tex_polygons = None
    raw = gnode.raw('tex_coord_index', 'tex_coord_indices')
    if texcoords is not None and isinstance(raw, list) and raw:
        tex_polygons = _polygon_list(gnode, raw, 'texture coordinate index')
    try:
        mesh = geo.face_set_mesh(vertices.reshape(-1, 3), polygons, f'{name}_faces',
                                 texcoords, tex_polygons)
    except ValueError as err:
        raise gnode.error(f'IndexedFaceSet: {err}') from None
    return mesh, np.eye(3)


def _triangle_mesh(gnode: Node, name: str):
    vertices = gnode.numbers('vertices', 'coordinate', multiple=3, minimum=9)
    triangles = gnode.numbers('triangles', 'faces', multiple=3, minimum=3)
    if vertices is None or triangles is None:
        raise gnode.error('TriangleMesh needs vertices and triangles')
    tri = triangles.astype(np.int64)
    if np.any(tri != triangles) or np.any(tri < 0) or np.any(tri >= len(vertices) // 3):
        raise gnode.error('TriangleMesh triangles must be vertex indices')
    return Mesh(vertices.reshape(-1, 3), tri.reshape(-1, 3), f'{name}_triangles'), np.eye(3)


def _resource_geometry(gnode: Node, name: str):
    parts = mesh_parts(gnode, Frame())
    meshes = [geo.transform_mesh(p.mesh, p.frame.linear, p.frame.translation) for p in parts]
    if not meshes:
        raise gnode.error('the resource has no mesh')
    stem = os.path.splitext(os.path.basename(parts[0].uri))[0]
    mesh = geo.merge_meshes(meshes, f'{name}_{stem}')
    return Mesh(mesh.vertices, mesh.faces, mesh.name, parts[0].source, mesh.texcoords), \
        np.eye(3)


_READERS = {
    'Box': _box, 'Sphere': _sphere, 'Cylinder': _cylinder, 'Capsule': _capsule,
    'Cone': _cone, 'Extrusion': _extrusion, 'ElevationGrid': _elevation_grid,
    'IndexedFaceSet': _face_set, 'TriangleMesh': _triangle_mesh,
    'Resource': _resource_geometry,
}


def place(geometry, local: np.ndarray, frame: Frame, name: str):
    """Put a geometry (built in the model's convention, ``local`` to its node) in a link.

    Returns:
        (geometry, pose): a primitive stays one when the frame's scale allows it; otherwise
        the geometry becomes a mesh with the scale (and any shear) baked in.
    """
    split = frame.rigid()
    if split is not None and _fits(geometry, local, split[1]):
        pose, scale = split
        return _scaled(geometry, local, scale), pose @ Pose(np.zeros(3), local)
    mesh = geo.to_mesh(geometry)
    baked = geo.transform_mesh(mesh, frame.linear @ local, name=name if not isinstance(
        geometry, Mesh) else mesh.name)
    return Mesh(baked.vertices, baked.faces, baked.name, mesh.source, baked.texcoords), \
        Pose(frame.translation, np.eye(3))


def _unit(scale: np.ndarray) -> bool:
    """Whether every factor is 1: within 1e-5 of it (``np.allclose``'s relative tolerance,
    without its 1e-8 absolute one; plain floats, called for every shape)."""
    return all(abs(s - 1.0) <= 1.00001e-5 for s in scale.tolist())


def _fits(geometry, local: np.ndarray, scale: np.ndarray) -> bool:
    """Whether the primitive stays a primitive under a per-axis scale of its parent frame."""
    if _unit(scale):
        return True
    if isinstance(geometry, Box):
        # Scaling along the parent's axes must be along the box's axes.
        return bool(np.allclose(np.abs(local), np.eye(3)) or np.allclose(scale, scale[0]))
    if isinstance(geometry, Mesh):
        return False
    if isinstance(geometry, Sphere):
        return bool(np.allclose(scale, scale[0]))
    return bool(np.allclose(scale, scale[0]))


def _scaled(geometry, local: np.ndarray, scale: np.ndarray):
    if _unit(scale):
        return geometry
    if isinstance(geometry, Box):
        s = np.abs(local.T) @ scale  # scale along the box's own axes
        return Box(tuple(np.asarray(geometry.size) * s))
    k = float(scale[0])
    if isinstance(geometry, Sphere):
        return Sphere(geometry.radius * k)
    return type(geometry)(geometry.radius * k, geometry.length * k)


def read_appearance(node: Node) -> Material | None:
    """The ``appearance`` of a Shape node as a material (None when it has none)."""
    raw = node.raw('appearance')
    if raw is None:
        return None
    anode = Node(raw, node.ctx, node.line)
    texture = None
    traw = anode.raw('texture')
    if traw is not None:
        tnode = Node(traw, node.ctx, anode.line)
        url = tnode.string('url', 'uri')
        if url:
            texture = resolve_uri(tnode, url)
            if not os.path.isfile(texture):
                node.ctx.warn(tnode.line, f'texture {url!r} does not exist ({texture})')
        tnode.warn_unused('texture', frozenset({'repeat', 'repeat_s', 'repeat_t'}))
    mraw = anode.raw('material')
    anode.warn_unused('appearance', frozenset({'texture_transform'}))
    if mraw is None:
        return Material(texture=texture) if texture else None
    mnode = Node(mraw, node.ctx, anode.line)
    diffuse = mnode.vector('diffuse', 'diffuse_color')
    rgb = (0.8, 0.8, 0.8) if diffuse is None else tuple(float(c) for c in np.clip(diffuse, 0, 1))
    transparency = mnode.number('transparency', default=0.0)
    alpha = float(np.clip(1.0 - transparency, 0.0, 1.0))
    extras = _lighting(mnode)
    mnode.warn_unused('material')
    return Material(rgba=(*rgb, alpha), texture=texture, **extras)


def _lighting(mnode: Node) -> dict:
    """The material's emissive and specular colours, shininess (0..1: a specular exponent
    of 128 times it) and ambient intensity, those the file gives."""
    extras = {}

    def read(what, *names):
        try:
            return what(*names)
        except ModelError as err:  # only looks: the model loads, this value does not count
            mnode.ctx.warn(mnode.line, f'{err.message}; ignored')
            return None

    for key, names in (('emission', ('emissive', 'emissive_color')),
                       ('specular', ('specular', 'specular_color'))):
        value = read(mnode.vector, *names)
        if value is not None:
            extras[key] = tuple(float(c) for c in np.clip(value, 0.0, 1.0))
    exponent = read(mnode.number, 'specular_exponent')
    shininess = read(mnode.number, 'shininess')
    if exponent is not None:
        extras['shininess'] = float(np.clip(exponent / 128.0, 0.0, 1.0))
    elif shininess is not None:
        extras['shininess'] = float(np.clip(shininess, 0.0, 1.0))
    ambient = read(mnode.number, 'ambient', 'ambient_intensity')
    if ambient is not None:
        extras['ambient'] = float(np.clip(ambient, 0.0, 1.0))
    return extras
