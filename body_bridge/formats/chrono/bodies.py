"""Chrono YAML bodies: placement, mass, contact and visualization geometry.

Facts from Chrono (``ChParserMbsYAML``, ``ChBodyGeometry``, ``ChBody``) this relies on:

* A body's ``location``/``orientation`` place its reference frame in the model frame; ``com``
  places the centroidal frame in the reference frame; ``inertia`` moments and products
  ``[Ixy, Ixz, Iyz]`` (Chrono's ``SetInertiaXY`` order) are about the centroidal frame.
  Mass and inertia are read for moving bodies only (required there).
* ``initial_linear_velocity`` is the centroid's velocity in the model frame;
  ``initial_angular_velocity`` is expressed in the centroidal frame.
* Shapes are in the reference frame. BOX ``dimensions`` are full lengths; CYLINDER is
  centred on ``location`` along ``axis`` (its ``orientation`` is not used); SPHERE has no
  orientation; MESH and HULL read OBJ files named relative to ``data_path``; a MESH collision
  shape's ``contact_radius`` sweeps a sphere over its surface.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ...fileaccess import file_problem
from ...model import Box, ContactMaterial, Cylinder, Material, Mesh, Pose, Shape, Sphere, freeze
from .node import Node

__all__ = ['BodySpec', 'DataPath', 'read_body', 'rotation_to_z']


@dataclass
class DataPath:
    """Where data files are: ``ABSOLUTE`` (names as given) or ``RELATIVE`` to model dir/root."""

    relative: bool = False
    root: str = '.'
    base: str = '.'

    def resolve(self, name: str) -> str:
        if self.relative:
            return os.path.normpath(os.path.join(self.base, self.root, name))
        return name


@dataclass
class BodySpec:
    """One body as the file states it, in the model frame."""

    name: str
    source: str
    fixed: bool
    pose: Pose
    com: Pose = field(default_factory=Pose)
    mass: float = 0.0
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    visuals: list[Shape] = field(default_factory=list)
    collisions: list[Shape] = field(default_factory=list)
    materials: list[ContactMaterial] = field(default_factory=list)
    radii: list[float] = field(default_factory=list)  # contact radius of each collision shape
    lin_vel: np.ndarray | None = None
    ang_vel: np.ndarray | None = None

    @property
    def centroid(self) -> Pose:
        """The centroidal frame in the model frame."""
        return self.pose @ self.com


def rotation_to_z(axis) -> np.ndarray:
    """The smallest rotation taking +z to ``axis`` (a unit vector).

    Rodrigues' formula about e_z x axis, with 1 / (1 + c) written as (1 - c) / (x^2 + y^2), which
    keeps its precision for an axis close to -z.
    """
    x, y, c = -float(axis[1]), float(axis[0]), float(axis[2])  # e_z x axis = (x, y, 0)
    s2 = x * x + y * y
    if s2 == 0.0:  # along +z or -z: no turn, or half a turn about x
        return np.diag([1.0, np.sign(c), np.sign(c)])
    k = np.array([[0.0, 0.0, y], [0.0, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + k + k @ k * ((1.0 - c) / s2)


_BODY_KEYS = ('name', 'fixed', 'location', 'orientation', 'mass', 'com', 'inertia',
              'initial_linear_velocity', 'initial_angular_velocity', 'contact', 'visualization')
_GUESSES = {'lin_vel': 'initial_linear_velocity', 'ang_vel': 'initial_angular_velocity',
            'linear_velocity': 'initial_linear_velocity',
            'angular_velocity': 'initial_angular_velocity'}


def read_body(node: Node, data_path: DataPath) -> BodySpec:
    """One entry of ``bodies``.

    Raises:
        ModelError: a missing or malformed value.
    """
    name = node.string('name', required=True)
    node.what = f'body {name!r}'
    fixed = node.boolean('fixed', default=False)
    pose = Pose(node.vector('location', required=True), node.rotation('orientation'))
    body = BodySpec(name, f'{node.ctx.path}:{node.line}', fixed, pose)
    com = node.child('com')
    if com is not None:
        body.com = Pose(com.vector('location', default=(0, 0, 0)), com.rotation('orientation'))
        com.warn_unused()
    _read_mass(node, body)
    body.lin_vel = node.vector('initial_linear_velocity')
    body.ang_vel = node.vector('initial_angular_velocity')
    contact = node.child('contact')
    if contact is not None:
        _read_contact(contact, body, data_path)
    visual = node.child('visualization')
    if visual is not None:
        _read_visualization(visual, body, data_path)
    for key in node.data:
        if key not in _BODY_KEYS and key in _GUESSES:
            node.used.add(key)
            node.warn(f'key "{key}" is not a Chrono body key (Chrono reads '
                      f'"{_GUESSES[key]}"); ignored, as Chrono ignores it')
    node.warn_unused()
    return body


def _read_mass(node: Node, body: BodySpec) -> None:
    inertia = node.child('inertia')
    required = not body.fixed
    body.mass = node.number('mass', required=required, default=0.0, minimum=0.0)
    if required and not body.mass > 0:
        raise node.error('a moving body needs a positive "mass"')
    if inertia is None:
        if required:
            raise node.error('a moving body needs "inertia" with "moments"')
        return
    moments = inertia.vector('moments', required=required, default=(0, 0, 0))
    products = inertia.vector('products', default=(0, 0, 0))
    inertia.warn_unused()
    ixy, ixz, iyz = products
    tensor = np.array([[moments[0], ixy, ixz], [ixy, moments[1], iyz], [ixz, iyz, moments[2]]])
    if required:
        eig = np.linalg.eigvalsh(tensor)
        if eig[0] <= 0:
            raise inertia.error(f'moments {moments.tolist()} and products {products.tolist()} '
                                'are not an inertia: its principal moments must be positive')
        if eig[0] + eig[1] < eig[2] * (1 - 1e-9):
            inertia.warn(f'principal moments {np.round(eig, 9).tolist()} violate A + B >= C '
                         '(no rigid body has them); kept as given, the integrator balances them')
    body.inertia = tensor


# --- contact -------------------------------------------------------------------------------

_SMC_PROPERTIES = {(9, 'properties'), (10, 'physical_properties')}
_SMC_COEFFICIENTS = {(9, 'Coefficients'), (10, 'coefficients')}


def _read_material(node: Node) -> ContactMaterial:
    name = node.string('name', required=True)
    node.what = f'{node.what} {name!r}'
    smc = {}
    major = node.ctx.version[0]
    for key in ('properties', 'physical_properties'):
        sub = node.child(key)
        if sub is None:
            continue
        if (major, key) not in _SMC_PROPERTIES:
            node.warn(f'"{key}" is the spelling of Chrono {19 - major}.x; read anyway')
        # the reference's spelling, named when neither is given
        young = 'Young_modulus' if sub.has('Young_modulus') else 'Youngs_modulus'
        smc['young_modulus'] = sub.number(young, required=True, positive=True)
        smc['poisson_ratio'] = sub.number('Poisson_ratio', required=True)
        sub.warn_unused()
    for key in ('Coefficients', 'coefficients'):
        sub = node.child(key)
        if sub is None:
            continue
        if (major, key) not in _SMC_COEFFICIENTS:
            node.warn(f'"{key}" is the spelling of Chrono {19 - major}.x; read anyway')
        for name_ in ('normal_stiffness', 'normal_damping', 'tangential_stiffness',
                      'tangential_damping'):
            smc[name_] = sub.number(name_, required=True, minimum=0.0)
        sub.warn_unused()
    friction = node.number('coefficient_of_friction', default=0.8, minimum=0.0)
    restitution = node.number('coefficient_of_restitution', default=0.01, minimum=0.0)
    if restitution > 1.0:
        raise node.error(f'"coefficient_of_restitution" must be at most 1, found {restitution:g}')
    node.warn_unused()
    unused = [k for k in smc if k not in ('young_modulus', 'poisson_ratio')]
    if unused:
        node.warn(f'SMC contact values {", ".join(unused)} are kept in the model but not '
                  'used, as in Chrono\'s YAML parser (its SMC contact takes Young\'s modulus, '
                  'Poisson ratio, restitution and friction: docs/materials.md)')
    # Chrono's default composition takes the smaller friction and restitution of the two.
    return ContactMaterial(name, friction, restitution, freeze(smc), rule='min')


def _read_contact(node: Node, body: BodySpec, data_path: DataPath) -> None:
    materials = {}
    for mnode in node.items('materials', f'body {body.name!r} contact material'):
        material = _read_material(mnode)
        materials[material.name] = material
    if not materials:
        raise node.error('"materials" is missing or empty')
    shapes = node.items('shapes', f'body {body.name!r} collision shape')
    if not shapes:
        raise node.error('"shapes" is missing or empty')
    if node.has('collision_family'):
        node.ignore('collision_family')
        node.warn('"collision_family" is not used (Chrono\'s YAML parser does not use it '
                  'either); every collision shape collides with every other')
    for snode in shapes:
        mat_name = snode.string('material', required=True)
        if mat_name not in materials:
            raise snode.error(f'material {mat_name!r} is not among the body\'s contact '
                              f'materials ({", ".join(materials)})')
        radius = snode.number('contact_radius', default=0.0, minimum=0.0)
        if radius and str(snode.data.get('type')).upper() != 'MESH':
            snode.warn('"contact_radius" applies to MESH shapes only; ignored')
            radius = 0.0
        for shape in _read_shape(snode, data_path, collision=True):
            body.collisions.append(shape)
            body.materials.append(materials[mat_name])
            body.radii.append(radius)
    node.warn_unused()


# --- shapes ----------------------------------------------------------------------------------


def _read_visualization(node: Node, body: BodySpec, data_path: DataPath) -> None:
    model_file = node.string('model_file')
    if model_file is not None:
        body.visuals.extend(_mesh_shapes(node, model_file, data_path, Pose(), 1.0, None))
    for snode in node.items('shapes', f'body {body.name!r} visualization shape'):
        body.visuals.extend(_read_shape(snode, data_path, collision=False))
    node.warn_unused()


def _read_shape(node: Node, data_path: DataPath, collision: bool) -> list[Shape]:
    kinds = ('SPHERE', 'BOX', 'CYLINDER', 'MESH', 'HULL') if collision else \
        ('SPHERE', 'BOX', 'CYLINDER', 'MESH')
    kind = node.choice('type', kinds, required=True)
    node.what = f'{node.what} {kind}'
    material = None
    if not collision:
        color = node.vector('color')
        if color is not None and np.all(color >= 0):
            material = Material(rgba=(*(float(c) for c in np.clip(color, 0, 1)), 1.0))
    else:
        node.ignore('material')
    src = f'{node.ctx.path}:{node.line}'
    shapes: list[Shape]
    if kind == 'SPHERE':
        pos = node.vector('location', required=True)
        shapes = [Shape(Sphere(node.number('radius', required=True, positive=True)), Pose(pos),
                        material, src)]
        _not_used(node, 'orientation', 'a sphere has no orientation')
    elif kind == 'BOX':
        dims = node.vector('dimensions', required=True)
        if np.any(dims <= 0):
            raise node.error(f'"dimensions" must be positive, found {dims.tolist()}')
        pose = Pose(node.vector('location', required=True), node.rotation('orientation', True))
        shapes = [Shape(Box(tuple(float(d) for d in dims)), pose, material, src)]
    elif kind == 'CYLINDER':
        axis = node.direction('axis', required=True)
        pose = Pose(node.vector('location', required=True), rotation_to_z(axis))
        shapes = [Shape(Cylinder(node.number('radius', required=True, positive=True),
                                 node.number('length', required=True, positive=True)),
                        pose, material, src)]
        _not_used(node, 'orientation', 'a cylinder is placed by its "axis"')
    else:
        filename = node.string('filename', required=True)
        scale = node.number('scale', default=1.0, positive=True)
        if kind == 'HULL':
            pose = Pose()
            for key in ('location', 'orientation', 'scale'):
                _not_used(node, key, 'Chrono reads a HULL file as it is')
            scale = 1.0
        else:
            pose = Pose(node.vector('location', default=(0, 0, 0)), node.rotation('orientation'))
        shapes = _mesh_shapes(node, filename, data_path, pose, scale, material)
    node.warn_unused()
    return shapes


_NEUTRAL = {'orientation': ([0, 0, 0], [1, 0, 0, 0]), 'location': ([0, 0, 0],), 'scale': (1,)}


def _not_used(node: Node, key: str, why: str) -> None:
    """A key Chrono does not use for this shape: a warning unless it changes nothing."""
    value = node.raw(key)
    if value is not None and value not in _NEUTRAL[key]:
        node.warn(f'"{key}" is not used: {why}')


def _mesh_shapes(node: Node, filename: str, data_path: DataPath, pose: Pose, scale: float,
                 material: Material | None) -> list[Shape]:
    """The parts of an OBJ (or other mesh) file as shapes placed at ``pose``."""
    path = data_path.resolve(filename)
    problem = file_problem(path)
    if problem is not None and problem.startswith('no such file'):
        how = (f'relative to {os.path.join(data_path.base, data_path.root)!r}'
               if data_path.relative else 'data_path is ABSOLUTE: the name is used as given')
        raise node.error(f'mesh file {filename!r} not found ({how})')
    if problem is not None:
        raise node.error(f'mesh file {filename!r} ({path}) {problem}')
    try:
        from ...meshfiles import load_mesh_file
    except ImportError as err:
        raise node.error(f'cannot read {filename!r}: this installation has no mesh file '
                         'reader (body_bridge.meshfiles)', unsupported=True) from err
    parts = load_mesh_file(path, warn=node.ctx.warnings.append)
    shapes = []
    stem = os.path.splitext(os.path.basename(filename))[0]
    for index, part in enumerate(parts):
        mesh = part.mesh
        name = stem if len(parts) == 1 else f'{stem}_{index}'
        scaled = Mesh(np.asarray(mesh.vertices) * scale, mesh.faces, name, path, mesh.texcoords)
        shapes.append(Shape(scaled, pose, material or part.material,
                            f'{node.ctx.path}:{node.line}'))
    return shapes

