"""Choreonoid Body files (``.body``): YAML, links with elements.

The reference is Choreonoid's Body file manual. Facts this loader relies on:

* Angles are degrees unless ``angle_unit: radian`` (which format_version 2.0 forbids);
  ``rotation`` is axis-angle ``[x, y, z, angle]`` or a list of them, composed left to right.
* Keys may be snake_case or the older camelCase, mixed in one file.
* A link's frame is relative to its parent link; its joint is at the link origin, the axis in
  the link frame (default +Z). The first link is the root unless ``root_link`` names one.
* ``elements`` is a list of nodes, one node with ``type``, or a mapping from type to node.
* Cylinders, capsules and cones are built along the local +Y axis (VRML97).
* Cameras and range sensors look along their -Z axis, with +Y up.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from .. import geometry as geo
from ..errors import ModelError, UnsupportedError, where
from ..model import (Box, Cylinder, Device, DeviceKind, Inertial, Joint, JointType, Limits,
                     Link, Material, Mesh, Model, Pose, Shape, Sphere, axis_angle_matrix,
                     freeze)
from .yamlsource import LineDict, LineList, line_of, load_yaml

__all__ = ['load', 'EXTENSIONS']

EXTENSIONS = ('.body',)

_CAMEL = re.compile(r'(?<=[a-z0-9])([A-Z])')

# Choreonoid builds round shapes along +Y; the model builds them along +Z.
_Y_UP = axis_angle_matrix((1, 0, 0), -math.pi / 2)
# Choreonoid's camera/range frame (look along -Z, +Y up) to the model's (look along +X, +Z up):
# model x = -Z, model y = -X, model z = +Y, expressed in the Choreonoid device frame.
_LOOK_FRAME = np.array([[0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]])


def snake(key: str) -> str:
    """``jointType`` -> ``joint_type``; snake_case keys are unchanged."""
    return _CAMEL.sub(r'_\1', key).lower()


class _Node:
    """A mapping of the file with its line, read by snake_case key, tracking what was used."""

    __slots__ = ('data', 'line', 'keys', 'used', 'ctx')

    def __init__(self, data, ctx: _Context, line: int | None = None):
        if not isinstance(data, dict):
            raise ModelError(ctx.path, line, f'expected a mapping, found {_kind(data)}')
        self.data = data
        self.line = line_of(data, line)
        self.ctx = ctx
        self.keys = {}
        for key in data:
            if not isinstance(key, str):
                raise ModelError(ctx.path, self.line, f'mapping key {key!r} is not a string')
            self.keys.setdefault(snake(key), key)
        self.used: set[str] = set()

    def has(self, *names: str) -> bool:
        return any(n in self.keys for n in names)

    def raw(self, *names: str, default=None):
        for name in names:
            if name in self.keys:
                self.used.add(name)
                return self.data[self.keys[name]]
        return default

    def where(self) -> str:
        return where(self.ctx.path, self.line)

    def error(self, message: str) -> ModelError:
        return ModelError(self.ctx.path, self.line, message)

    def string(self, *names: str, default: str | None = None) -> str | None:
        value = self.raw(*names)
        if value is None:
            return default
        if isinstance(value, (dict, list)):
            raise self.error(f'{names[0]} must be a string, found {_kind(value)}')
        return str(value)

    def number(self, *names: str, default: float | None = None) -> float | None:
        value = self.raw(*names)
        if value is None:
            return default
        return self._to_float(value, names[0])

    def _to_float(self, value, name: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(f'{name} must be a number, found {_kind(value)}')
        value = float(value)
        if not math.isfinite(value):
            raise self.error(f'{name} must be finite, found {value}')
        return value

    def boolean(self, *names: str, default: bool | None = None) -> bool | None:
        value = self.raw(*names)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(f'{names[0]} must be true or false, found {value!r}')
        return value

    def vector(self, *names: str, size: int | None = 3, default=None) -> np.ndarray | None:
        value = self.raw(*names)
        if value is None:
            return None if default is None else np.asarray(default, dtype=float)
        if not isinstance(value, list):
            raise self.error(f'{names[0]} must be a list of numbers, found {_kind(value)}')
        if size is not None and len(value) != size:
            raise self.error(f'{names[0]} must have {size} numbers, found {len(value)}')
        return np.array([self._to_float(v, names[0]) for v in value])

    def angle(self, *names: str, default: float | None = None) -> float | None:
        value = self.number(*names)
        return default if value is None else value * self.ctx.angle_scale

    def rotation(self, name: str = 'rotation') -> np.ndarray | None:
        """An axis-angle rotation or a list of them, composed left to right."""
        value = self.raw(name)
        if value is None:
            return None
        if not isinstance(value, list) or not value:
            raise self.error(f'{name} must be [x, y, z, angle] or a list of them')
        items = value if isinstance(value[0], list) else [value]
        rot = np.eye(3)
        for item in items:
            if not isinstance(item, list) or len(item) != 4:
                raise self.error(f'{name} must be [x, y, z, angle] or a list of them')
            x, y, z, a = (self._to_float(v, name) for v in item)
            try:
                rot = rot @ axis_angle_matrix((x, y, z), a * self.ctx.angle_scale)
            except ValueError:
                raise self.error(f'{name} axis is the zero vector') from None
        return rot

    def warn_unused(self, what: str, allowed: frozenset = frozenset()) -> None:
        for snake_key, key in self.keys.items():
            if snake_key not in self.used and snake_key not in allowed:
                self.ctx.warn(self.line, f'{what}: key {key!r} is not supported and was ignored')


def _kind(value) -> str:
    if isinstance(value, dict):
        return 'a mapping'
    if isinstance(value, list):
        return 'a list'
    if value is None:
        return 'nothing'
    return f'{type(value).__name__} {value!r}'


@dataclass
class _Context:
    path: str
    angle_scale: float = math.pi / 180.0
    warnings: list[str] = field(default_factory=list)

    def warn(self, line: int | None, message: str) -> None:
        self.warnings.append(f'{where(self.path, line)}: {message}')


@dataclass
class _Frame:
    """An affine transform from a node's frame to the link frame (may carry scale)."""

    linear: np.ndarray = field(default_factory=lambda: np.eye(3))
    translation: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def then(self, rot: np.ndarray | None, pos: np.ndarray | None,
             scale: np.ndarray | None = None) -> _Frame:
        local = np.eye(3) if rot is None else rot
        if scale is not None:
            local = local @ np.diag(scale)
        t = np.zeros(3) if pos is None else pos
        return _Frame(self.linear @ local, self.linear @ t + self.translation)

    def rigid(self) -> tuple[Pose, np.ndarray] | None:
        """Split into a rigid pose and per-axis scale, or None if it shears."""
        scale = np.linalg.norm(self.linear, axis=0)
        if np.any(scale <= 0):
            return None
        rot = self.linear / scale
        if not np.allclose(rot.T @ rot, np.eye(3), atol=1e-9) or np.linalg.det(rot) < 0:
            return None
        return Pose(self.translation, rot), scale


@dataclass
class _LinkParts:
    """What the elements of one link contribute."""

    name: str
    masses: list[tuple[float, np.ndarray, np.ndarray]] = field(default_factory=list)
    visuals: list[Shape] = field(default_factory=list)
    collisions: list[Shape] = field(default_factory=list)
    devices: list[Device] = field(default_factory=list)


_GEOMETRY_KEYS = {
    'Box': frozenset({'type', 'size'}),
    'Sphere': frozenset({'type', 'radius'}),
    'Cylinder': frozenset({'type', 'radius', 'height', 'top', 'bottom', 'side', 'division_number'}),
}

_DEVICE_KINDS = {
    'AccelerationSensor': DeviceKind.ACCELEROMETER,
    'RateGyroSensor': DeviceKind.GYRO,
    'Imu': DeviceKind.IMU,
    'IMU': DeviceKind.IMU,
    'ForceSensor': DeviceKind.FORCE,
    'Camera': DeviceKind.CAMERA,
    'CameraDevice': DeviceKind.CAMERA,
    'RangeSensor': DeviceKind.RANGE,
    'SpotLight': DeviceKind.LIGHT,
}

_LINK_KEYS = frozenset({
    'type', 'name', 'parent', 'translation', 'rotation', 'joint_type', 'joint_axis',
    'joint_range', 'joint_angle', 'joint_displacement', 'max_joint_velocity',
    'joint_velocity_range', 'rotor_inertia', 'gear_ratio', 'joint_id', 'mass',
    'center_of_mass', 'inertia', 'elements', 'joint_name',
})


def load(path: str | os.PathLike) -> Model:
    """Load a Choreonoid Body file into the neutral model.

    Raises:
        ModelError: with ``path:line`` for anything the file gets wrong.
    """
    path = os.fspath(path)
    data = load_yaml(path)
    ctx = _Context(path)
    if not isinstance(data, dict):
        raise ModelError(path, line_of(data, 1), 'not a Choreonoid Body file: the top level is '
                         f'{_kind(data)}, not a mapping')
    top = _Node(data, ctx, 1)
    fmt = top.string('format')
    if fmt != 'ChoreonoidBody':
        raise ModelError(path, 1, 'not a Choreonoid Body file: "format: ChoreonoidBody" is missing'
                         if fmt is None else f'not a Choreonoid Body file: format is {fmt!r}')
    version = top.number('format_version', default=1.0)
    if version not in (1.0, 2.0):
        raise UnsupportedError(path, 1, f'format_version {version:g} is not supported (1.0, 2.0)')
    unit = top.string('angle_unit', default='degree')
    if unit == 'radian':
        if version >= 2.0:
            raise ModelError(path, 1, 'angle_unit: radian is not allowed with format_version 2.0')
        ctx.angle_scale = 1.0
    elif unit != 'degree':
        raise ModelError(path, 1, f'angle_unit must be degree or radian, found {unit!r}')

    links_value = top.raw('links')
    if links_value is None:
        raise ModelError(path, 1, 'the body has no "links"')
    link_nodes = _link_nodes(links_value, ctx)
    if not link_nodes:
        raise ModelError(path, line_of(links_value, 1), 'the "links" list is empty')

    links: list[Link] = []
    joints: list[Joint] = []
    devices: list[Device] = []
    local_poses: dict[str, Pose] = {}
    parents: dict[str, str | None] = {}
    link_lines: dict[str, int | None] = {}
    joint_specs: dict[str, tuple[_Node, JointType, np.ndarray | None]] = {}
    parts_of: dict[str, _LinkParts] = {}
    for node in link_nodes:
        name = node.string('name')
        if not name:
            raise node.error('a link has no name')
        if name in parts_of:
            raise node.error(f'duplicate link name {name!r}')
        parents[name] = node.string('parent')
        link_lines[name] = node.line
        rot = node.rotation()
        local_poses[name] = Pose(node.vector('translation', default=(0, 0, 0)),
                                 np.eye(3) if rot is None else rot)
        parts = _LinkParts(name)
        _read_link_mass(node, parts)
        elements = node.raw('elements')
        if elements is not None:
            _read_elements(elements, _Frame(), parts, ctx, node.line, depth=0)
        parts_of[name] = parts
        joint_specs[name] = (node, *_joint_type_and_axis(node))

    root_name = top.string('root_link') or link_nodes[0].string('name')
    if root_name not in parts_of:
        raise ModelError(path, 1, f'root_link {root_name!r} is not a link of this body')
    name = top.string('name') or os.path.splitext(os.path.basename(path))[0]

    # World poses, parents before children (the file may list them in any order).
    world: dict[str, Pose] = {}

    def world_pose(link: str, chain: tuple = ()) -> Pose:
        if link in world:
            return world[link]
        if link in chain:
            raise ModelError(path, link_lines[link], f'links form a cycle through {link!r}')
        parent = parents[link]
        if link == root_name:
            pose = local_poses[link]
        elif parent is None:
            raise ModelError(path, link_lines[link], f'link {link!r} has no parent')
        elif parent not in parts_of:
            raise ModelError(path, link_lines[link], f'parent link {parent!r} of {link!r} is not defined')
        else:
            pose = world_pose(parent, chain + (link,)) @ local_poses[link]
        world[link] = pose
        return pose

    root_type = JointType.FIXED
    for link_name, parts in parts_of.items():
        pose = world_pose(link_name)
        links.append(Link(link_name, pose, _combine_masses(parts.masses), tuple(parts.visuals),
                          tuple(parts.collisions), where(path, link_lines[link_name])))
        devices.extend(parts.devices)
        node, jtype, axis = joint_specs[link_name]
        if link_name == root_name:
            if jtype not in (JointType.FIXED, JointType.FREE):
                ctx.warn(node.line, f'root link {link_name!r} has joint_type {jtype.value}; '
                         'it is attached to the world as fixed')
                jtype = JointType.FIXED
            root_type = jtype
            if parents[link_name]:
                ctx.warn(node.line, f'root link {link_name!r} has a parent; it was ignored')
            continue
        if jtype == JointType.FREE:
            raise node.error(f'link {link_name!r}: joint_type free is only allowed for the root link')
        joints.append(_make_joint(node, link_name, parents[link_name], jtype, axis, ctx))

    for node in link_nodes:
        node.warn_unused(f'link {node.string("name")!r}', _LINK_KEYS)
    top.warn_unused('body', frozenset({'format', 'format_version', 'angle_unit', 'name',
                                       'root_link', 'links'}))
    return Model(name=name, links=tuple(links), joints=tuple(joints), root=root_name,
                 root_joint=root_type, devices=tuple(devices), source=path,
                 warnings=tuple(ctx.warnings))


def _link_nodes(value, ctx: _Context) -> list[_Node]:
    nodes = []
    if isinstance(value, list):
        items = [(None, item) for item in value]
    elif isinstance(value, dict):
        items = list(value.items())
    else:
        raise ModelError(ctx.path, None, f'"links" must be a list, found {_kind(value)}')
    for type_key, item in items:
        node = _Node(item, ctx, line_of(value))
        node_type = node.string('type', default=type_key or 'Link')
        if type_key and node_type != type_key:
            raise node.error(f'node type {node_type!r} differs from {type_key!r} given above it')
        if node_type == 'Link':
            nodes.append(node)
        elif node_type == 'Skip':
            continue
        else:
            raise UnsupportedError(ctx.path, node.line, f'{node_type} nodes in links are not supported')
    return nodes


def _joint_type_and_axis(node: _Node) -> tuple[JointType, np.ndarray | None]:
    value = node.string('joint_type', default='fixed')
    types = {'fixed': JointType.FIXED, 'free': JointType.FREE, 'revolute': JointType.REVOLUTE,
             'prismatic': JointType.PRISMATIC, 'slide': JointType.PRISMATIC}
    if value not in types:
        raise node.error(f'joint_type {value!r} is not one of fixed, free, revolute, prismatic')
    axis = None
    raw = node.raw('joint_axis')
    if raw is not None:
        if isinstance(raw, str):
            named = {'X': (1, 0, 0), 'Y': (0, 1, 0), 'Z': (0, 0, 1)}
            sign = -1.0 if raw.startswith('-') else 1.0
            key = raw.lstrip('+-').upper()
            if key not in named:
                raise node.error(f'joint_axis {raw!r} is not a vector or one of X, Y, Z, -X, -Y, -Z')
            axis = sign * np.array(named[key], dtype=float)
        else:
            axis = node.vector('joint_axis')
            norm = float(np.linalg.norm(axis))
            if norm < 1e-9:
                raise node.error('joint_axis is the zero vector')
            if abs(norm - 1.0) > 1e-6:
                node.ctx.warn(node.line, f'joint_axis {axis.tolist()} is not a unit vector; normalised')
            axis = axis / norm
    return types[value], axis


def _make_joint(node: _Node, child: str, parent: str, jtype: JointType,
                axis: np.ndarray | None, ctx: _Context) -> Joint:
    angular = jtype == JointType.REVOLUTE
    scale = ctx.angle_scale if angular else 1.0
    lower = upper = None
    raw_range = node.raw('joint_range')
    if raw_range is not None:
        items = raw_range if isinstance(raw_range, list) else None
        if items is None:
            upper = _limit(node, raw_range, scale, True)
            lower = None if upper is None else -upper
        elif len(items) == 2:
            lower = _limit(node, items[0], scale, False)
            upper = _limit(node, items[1], scale, True)
        else:
            raise node.error('joint_range must be [lower, upper] or one number')
    velocity = None
    if node.has('joint_velocity_range'):
        low, high = node.vector('joint_velocity_range', size=2) * scale
        velocity = min(abs(low), abs(high))
        if low != -high:
            ctx.warn(node.line, f'joint_velocity_range [{low:g}, {high:g}] is asymmetric; '
                     f'the limit used is {velocity:g}')
    elif node.has('max_joint_velocity'):
        velocity = abs(node.number('max_joint_velocity')) * scale
    initial = 0.0
    if node.has('joint_displacement'):
        initial = node.number('joint_displacement')
    elif node.has('joint_angle'):
        initial = node.number('joint_angle') * scale
    rotor = node.number('rotor_inertia', default=0.0)
    gear = node.number('gear_ratio', default=1.0)
    meta = {}
    joint_id = node.raw('joint_id')
    if joint_id is not None:
        meta['joint_id'] = joint_id
    name = node.string('joint_name', default=child)
    if jtype == JointType.REVOLUTE and lower is None and upper is None:
        jtype = JointType.CONTINUOUS
    return Joint(name=name, type=jtype, parent=parent, child=child,
                 axis=(0, 0, 1) if axis is None else axis,
                 limits=Limits(lower, upper, velocity, None), initial=initial,
                 armature=rotor * gear * gear, source=node.where(), meta=freeze(meta))


def _limit(node: _Node, value, scale: float, upper: bool) -> float | None:
    if value == 'unlimited':
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise node.error(f'joint_range value {value!r} is not a number or "unlimited"')
    return float(value) * scale


def _read_link_mass(node: _Node, parts: _LinkParts) -> None:
    if not node.has('mass', 'center_of_mass', 'inertia'):
        return
    mass = node.number('mass', default=0.0)
    com = node.vector('center_of_mass', default=(0, 0, 0))
    inertia = _inertia(node)
    parts.masses.append((mass, com, inertia))


def _inertia(node: _Node) -> np.ndarray:
    raw = node.raw('inertia')
    if raw is None:
        return np.zeros((3, 3))
    values = node.vector('inertia', size=None)
    if len(values) == 9:
        inertia = values.reshape(3, 3)
    elif len(values) == 6:
        xx, xy, xz, yy, yz, zz = values
        inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    else:
        raise node.error(f'inertia must have 6 or 9 numbers, found {len(values)}')
    return 0.5 * (inertia + inertia.T)


def _combine_masses(masses) -> Inertial | None:
    """Sum rigid bodies given in one link frame into one mass, centre and inertia."""
    if not masses:
        return None
    total = sum(m for m, _, _ in masses)
    if total <= 0.0:
        return Inertial(0.0, np.zeros(3), sum(i for _, _, i in masses))
    com = sum(m * c for m, c, _ in masses) / total
    inertia = np.zeros((3, 3))
    for m, c, i in masses:
        d = c - com
        inertia += i + m * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return Inertial(total, com, inertia)


# --- elements -----------------------------------------------------------------------------

_MAX_DEPTH = 64


def _read_elements(value, frame: _Frame, parts: _LinkParts, ctx: _Context,
                   line: int | None, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise ModelError(ctx.path, line, f'elements are nested deeper than {_MAX_DEPTH} levels')
    if isinstance(value, list):
        for item in value:
            node = _Node(item, ctx, line_of(value, line))
            node_type = node.string('type')
            if node_type is None:
                raise node.error('an element has no type')
            _read_node(node, node_type, frame, parts, ctx, depth)
    elif isinstance(value, dict):
        if 'type' in value:
            node = _Node(value, ctx, line)
            _read_node(node, node.string('type'), frame, parts, ctx, depth)
        else:
            for node_type, item in value.items():
                node = _Node(item, ctx, line_of(value, line))
                declared = node.string('type', default=node_type)
                if declared != node_type:
                    raise node.error(f'node type {declared!r} differs from {node_type!r} given above it')
                _read_node(node, node_type, frame, parts, ctx, depth)
    else:
        raise ModelError(ctx.path, line, f'elements must be a list or a mapping, found {_kind(value)}')


def _read_node(node: _Node, node_type: str, frame: _Frame, parts: _LinkParts,
               ctx: _Context, depth: int) -> None:
    if node_type in ('Transform', 'Group'):
        if node_type == 'Transform':
            scale = node.vector('scale')
            frame = frame.then(node.rotation(), node.vector('translation'), scale)
        node.string('name')
        children = node.raw('elements')
        if children is not None:
            _read_elements(children, frame, parts, ctx, node.line, depth + 1)
        node.warn_unused(node_type)
    elif node_type == 'Shape':
        _read_shape(node, frame, parts, ctx)
    elif node_type == 'RigidBody':
        inner = frame.then(node.rotation(), node.vector('translation'))
        mass = node.number('mass', default=0.0)
        com = inner.linear @ node.vector('center_of_mass', default=(0, 0, 0)) + inner.translation
        inertia = inner.linear @ _inertia(node) @ inner.linear.T
        parts.masses.append((mass, com, inertia))
        children = node.raw('elements')
        if children is not None:
            _read_elements(children, inner, parts, ctx, node.line, depth + 1)
        node.warn_unused('RigidBody')
    elif node_type in _DEVICE_KINDS:
        _read_device(node, node_type, frame, parts, ctx, depth)
    elif node_type == 'Skip':
        node.used.update(node.keys)
    else:
        raise UnsupportedError(ctx.path, node.line, f'{node_type} nodes are not supported')


def _read_shape(node: _Node, frame: _Frame, parts: _LinkParts, ctx: _Context) -> None:
    frame = frame.then(node.rotation(), node.vector('translation'))
    geometry_raw = node.raw('geometry')
    if geometry_raw is None:
        raise node.error('Shape has no geometry')
    gnode = _Node(geometry_raw, ctx, node.line)
    gtype = gnode.string('type')
    if gtype is None:
        raise gnode.error('geometry has no type')
    material = _read_appearance(node, ctx)
    split = frame.rigid()
    geometry, local = _read_geometry(gnode, gtype)
    if split is not None and _fits(geometry, local, split[1]):
        pose, scale = split
        geometry = _scaled(geometry, local, scale)
        pose = pose @ Pose(np.zeros(3), local)
    else:
        # Shear or a scale the primitive cannot take: bake everything into a mesh.
        mesh = geo.to_mesh(geometry)
        geometry = geo.transform_mesh(mesh, frame.linear @ local, name=f'{parts.name}_{gtype}'.lower())
        pose = Pose(frame.translation, np.eye(3))
    shape = Shape(geometry, pose, material, gnode.where())
    parts.visuals.append(shape)
    parts.collisions.append(shape)
    gnode.warn_unused(gtype, _GEOMETRY_KEYS.get(gtype, frozenset()))
    node.warn_unused('Shape')


def _read_geometry(gnode: _Node, gtype: str):
    """The geometry in the model's conventions and the rotation from it to the node frame."""
    if gtype == 'Box':
        size = gnode.vector('size')
        if size is None or np.any(size <= 0):
            raise gnode.error('Box size must be three positive numbers')
        return Box(tuple(size)), np.eye(3)
    if gtype == 'Sphere':
        radius = gnode.number('radius')
        if radius is None or radius <= 0:
            raise gnode.error('Sphere radius must be a positive number')
        return Sphere(radius), np.eye(3)
    if gtype == 'Cylinder':
        radius = gnode.number('radius')
        height = gnode.number('height')
        if radius is None or radius <= 0 or height is None or height <= 0:
            raise gnode.error('Cylinder radius and height must be positive numbers')
        top = gnode.boolean('top', default=True)
        bottom = gnode.boolean('bottom', default=True)
        if top and bottom:
            return Cylinder(radius, height), _Y_UP
        mesh = geo.cylinder_mesh(radius, height, bottom=bottom, top=top)
        return Mesh(mesh.vertices, mesh.faces, 'cylinder'), _Y_UP
    raise UnsupportedError(gnode.ctx.path, gnode.line, f'geometry type {gtype} is not supported')


def _fits(geometry, local: np.ndarray, scale: np.ndarray) -> bool:
    """Whether the primitive stays a primitive under a per-axis scale of its parent frame."""
    if np.allclose(scale, 1.0):
        return True
    if isinstance(geometry, Box):
        # Scaling along the parent's axes must be along the box's axes.
        return bool(np.allclose(np.abs(local), np.eye(3)) or np.allclose(scale, scale[0]))
    if isinstance(geometry, Mesh):
        return False
    return bool(np.allclose(scale, scale[0]))


def _scaled(geometry, local: np.ndarray, scale: np.ndarray):
    if np.allclose(scale, 1.0):
        return geometry
    if isinstance(geometry, Box):
        s = np.abs(local.T) @ scale  # scale along the box's own axes
        return Box(tuple(np.asarray(geometry.size) * s))
    k = float(scale[0])
    if isinstance(geometry, Sphere):
        return Sphere(geometry.radius * k)
    if isinstance(geometry, Cylinder):
        return Cylinder(geometry.radius * k, geometry.length * k)
    raise AssertionError(f'cannot scale {geometry!r}')


def _read_appearance(node: _Node, ctx: _Context) -> Material | None:
    raw = node.raw('appearance')
    if raw is None:
        return None
    anode = _Node(raw, ctx, node.line)
    mraw = anode.raw('material')
    texture = None
    traw = anode.raw('texture')
    if traw is not None:
        tnode = _Node(traw, ctx, anode.line)
        url = tnode.string('url')
        if url:
            texture = url if os.path.isabs(url) else os.path.join(os.path.dirname(ctx.path), url)
        tnode.warn_unused('texture', frozenset({'repeat_s', 'repeat_t'}))
    if mraw is None:
        anode.warn_unused('appearance', frozenset({'texture_transform'}))
        return Material(texture=texture) if texture else None
    mnode = _Node(mraw, ctx, anode.line)
    diffuse = mnode.vector('diffuse', 'diffuse_color')
    rgb = (0.8, 0.8, 0.8) if diffuse is None else tuple(float(c) for c in np.clip(diffuse, 0, 1))
    transparency = mnode.number('transparency', default=0.0)
    alpha = float(np.clip(1.0 - transparency, 0.0, 1.0))
    mnode.warn_unused('material', frozenset({'ambient', 'ambient_intensity', 'emissive',
                                             'emissive_color', 'specular', 'specular_color',
                                             'specular_exponent', 'shininess'}))
    anode.warn_unused('appearance', frozenset({'texture_transform'}))
    return Material(rgba=(*rgb, alpha), texture=texture)


def _read_device(node: _Node, node_type: str, frame: _Frame, parts: _LinkParts,
                 ctx: _Context, depth: int) -> None:
    kind = _DEVICE_KINDS[node_type]
    inner = frame.then(node.rotation(), node.vector('translation'))
    split = inner.rigid()
    if split is None or not np.allclose(split[1], 1.0):
        raise node.error(f'{node_type} is under a scaled Transform; a device frame cannot be scaled')
    pose = split[0]
    name = node.string('name') or f'{parts.name}_{node_type}'
    params: dict = {}
    if node.has('id'):
        params['id'] = node.raw('id')
    on = node.boolean('on')
    if on is not None:
        params['on'] = on
    if kind in (DeviceKind.CAMERA, DeviceKind.RANGE):
        pose = pose @ Pose(np.zeros(3), _LOOK_FRAME)
    _read_device_params(node, kind, params)
    parts.devices.append(Device(name, kind, parts.name, pose, freeze(params), node_type, node.where()))
    children = node.raw('elements')
    if children is not None:
        _read_elements(children, inner, parts, ctx, node.line, depth + 1)
    node.warn_unused(node_type)


def _read_device_params(node: _Node, kind: DeviceKind, params: dict) -> None:
    """The kind's parameters, in SI units and radians."""
    if kind in (DeviceKind.ACCELEROMETER, DeviceKind.IMU):
        value = node.vector('max_acceleration')
        if value is not None:
            params['max_acceleration'] = tuple(value)
    if kind in (DeviceKind.GYRO, DeviceKind.IMU):
        value = node.vector('max_angular_velocity')
        if value is not None:
            params['max_angular_velocity'] = tuple(value * node.ctx.angle_scale)
    if kind == DeviceKind.FORCE:
        for key in ('max_force', 'max_torque'):
            value = node.vector(key)
            if value is not None:
                params[key] = tuple(value)
    if kind == DeviceKind.CAMERA:
        params['format'] = node.string('format', default='COLOR')
        params['lens_type'] = node.string('lens_type', default='NORMAL')
        params['width'] = int(node.number('width', default=640))
        params['height'] = int(node.number('height', default=480))
        params['field_of_view'] = node.angle('field_of_view', default=math.radians(35.0))
        params['near_clip_distance'] = node.number('near_clip_distance', default=0.04)
        params['far_clip_distance'] = node.number('far_clip_distance', default=200.0)
        params['frame_rate'] = node.number('frame_rate', default=30.0)
    if kind == DeviceKind.RANGE:
        params['yaw_range'] = node.angle('yaw_range', default=0.0)
        params['yaw_step'] = node.angle('yaw_step', default=0.0)
        params['pitch_range'] = node.angle('pitch_range', default=0.0)
        params['pitch_step'] = node.angle('pitch_step', default=0.0)
        params['scan_rate'] = node.number('scan_rate', default=10.0)
        params['min_distance'] = node.number('min_distance', default=0.1)
        params['max_distance'] = node.number('max_distance', default=10.0)
    if kind == DeviceKind.LIGHT:
        color = node.vector('color')
        if color is not None:
            params['color'] = tuple(color)
        for key in ('intensity', 'cut_off_exponent'):
            value = node.number(key)
            if value is not None:
                params[key] = value
        direction = node.vector('direction')
        if direction is not None:
            params['direction'] = tuple(direction)
        for key in ('beam_width', 'cut_off_angle'):
            value = node.angle(key)
            if value is not None:
                params[key] = value
        attenuation = node.vector('attenuation')
        if attenuation is not None:
            params['attenuation'] = tuple(attenuation)
