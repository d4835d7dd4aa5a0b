"""The ``elements`` of a Choreonoid link: shapes, masses and devices, at any depth.

Facts from Choreonoid's Body loader this module relies on:

* ``elements`` is a list of nodes, one node with ``type``, or a mapping from type to node.
* Transform (``translation``, ``rotation``, ``scale``), Group, RigidBody and devices frame
  their children; Visual and Collision also do, and mark everything below as visual-only or
  collision-only (a Visual below a Collision, or the reverse, is an error). Shapes outside
  them are both. Visual and Collision take children in ``elements``, ``shape`` or
  ``resource``.
* RigidBody: ``mass``, ``center_of_mass`` and ``inertia`` in the node's frame; several
  combine into the link's mass (``links.py`` adds the link's own keys).
* Skip nodes are skipped; an unknown node type with ``is_optional: true`` is skipped with a
  warning (as Choreonoid does).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ...errors import ModelError, UnsupportedError
from ...model import Device, Material, Mesh, Shape
from . import resources as res
from .devices import DEVICE_KINDS, OTHER_DEVICE_TYPES, read_device
from .nodes import Context, Frame, Node, kind
from .shapes import place, read_appearance, read_geometry
from ..yamlsource import line_at, line_of

__all__ = ['LinkParts', 'read_elements', 'read_inertia', 'MAX_DEPTH']

#: Deepest nesting of elements (aliases can make a small file a deep tree).
MAX_DEPTH = 64

#: Scene-graph node types that carry nothing a robot model needs.
_SCENE_ONLY = frozenset({'DirectionalLight', 'PerspectiveCamera', 'OrthographicCamera',
                         'Fog', 'Node', 'Text'})

BOTH, VISUAL, COLLISION = 'both', 'visual', 'collision'


@dataclass
class LinkParts:
    """What the elements of one link contribute (in the link frame)."""

    name: str
    masses: list[tuple[float, np.ndarray, np.ndarray]] = field(default_factory=list)
    visuals: list[Shape] = field(default_factory=list)
    collisions: list[Shape] = field(default_factory=list)
    devices: list[Device] = field(default_factory=list)

    def add_shape(self, shape: Shape, mode: str) -> None:
        if mode in (BOTH, VISUAL):
            self.visuals.append(shape)
        if mode in (BOTH, COLLISION):
            self.collisions.append(shape)


def read_inertia(node: Node) -> np.ndarray:
    """``inertia``: 9 numbers (row by row) or the 6 of the upper triangle [kg m^2]."""
    values = node.vector('inertia', size=None)
    if values is None:
        return np.zeros((3, 3))
    if len(values) == 9:
        inertia = values.reshape(3, 3)
        if np.abs(inertia - inertia.T).max() > 1e-9 * max(1.0, float(np.abs(inertia).max())):
            node.ctx.warn(node.line, 'inertia is not symmetric; its symmetric part is used')
    elif len(values) == 6:
        xx, xy, xz, yy, yz, zz = values
        inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    else:
        raise node.error(f'inertia must have 6 or 9 numbers, found {len(values)}', 'inertia')
    return 0.5 * (inertia + inertia.T)


def read_elements(value, frame: Frame, parts: LinkParts, ctx: Context, line: int | None,
                  depth: int = 0, mode: str = BOTH) -> None:
    """Read an ``elements`` value into ``parts``.

    Raises:
        ModelError: a malformed node (``path:line``).
        UnsupportedError: an unknown node type.
    """
    if depth > MAX_DEPTH:
        raise ModelError(ctx.path, line, f'elements are nested deeper than {MAX_DEPTH} levels')
    if isinstance(value, list):
        for index, item in enumerate(value):
            ctx.session.count_element(ctx.path, line_of(item, line_of(value, line)))
            node = Node(item, ctx, line_at(value, index, line))
            node_type = node.string('type')
            if node_type is None:
                raise node.error('an element has no type')
            _read_node(node, node_type, frame, parts, depth, mode)
    elif isinstance(value, dict):
        ctx.session.count_element(ctx.path, line_of(value, line))
        if 'type' in value:
            node = Node(value, ctx, line)
            _read_node(node, node.string('type'), frame, parts, depth, mode)
            return
        for node_type, item in value.items():
            ctx.session.count_element(ctx.path, line_of(item, line_of(value, line)))
            node = Node(item, ctx, line_at(value, node_type, line))
            declared = node.string('type', default=str(node_type))
            if declared != node_type:
                raise node.error(f'node type {declared!r} differs from {node_type!r} given '
                                 'above it')
            _read_node(node, str(node_type), frame, parts, depth, mode)
    else:
        raise ModelError(ctx.path, line, 'elements must be a list or a mapping, found '
                         f'{kind(value)}')


def _children(node: Node, frame: Frame, parts: LinkParts, depth: int, mode: str) -> None:
    children = node.raw('elements')
    if children is not None:
        read_elements(children, frame, parts, node.ctx, node.at('elements'), depth + 1, mode)


def _read_node(node: Node, node_type: str, frame: Frame, parts: LinkParts, depth: int,
               mode: str) -> None:
    node.string('name')
    if node_type == 'Transform':
        _children(node, frame.of_node(node), parts, depth, mode)
        node.warn_unused('Transform')
    elif node_type == 'Group':
        _children(node, frame, parts, depth, mode)
        node.warn_unused('Group')
    elif node_type == 'RigidBody':
        _read_rigid_body(node, frame, parts, depth, mode)
    elif node_type in ('Visual', 'Collision'):
        _read_visual_or_collision(node, node_type, frame, parts, depth, mode)
    elif node_type == 'Shape':
        _read_shape(node, frame, parts, mode)
    elif node_type == 'Resource':
        _read_resource(node, frame, parts, depth, mode)
    elif node_type in DEVICE_KINDS or node_type in OTHER_DEVICE_TYPES:
        device, inner = read_device(node, node_type, frame, parts.name)
        parts.devices.append(device)
        _children(node, inner, parts, depth, mode)
    elif node_type == 'Skip':
        pass  # nothing of a Skip node is read, nor are its keys warned about
    elif node_type in _SCENE_ONLY:
        node.ctx.warn(node.line, f'{node_type} is a scene-only node with no meaning for a '
                      'robot model; it was ignored')
    elif node.boolean('is_optional', default=False):
        node.ctx.warn(node.line, f'{node_type} nodes are not supported; this one is optional '
                      '(is_optional: true) and was skipped, as Choreonoid does')
    else:
        raise UnsupportedError(node.ctx.path, node.line, f'{node_type} nodes are not supported')


def _read_rigid_body(node: Node, frame: Frame, parts: LinkParts, depth: int, mode: str):
    inner = frame.of_node(node)
    mass = node.number('mass', default=0.0)
    if mass < 0:
        raise node.error(f'mass must not be negative, found {mass:g}', 'mass')
    com = inner.linear @ node.vector('center_of_mass', default=(0, 0, 0)) + inner.translation
    inertia = inner.linear @ read_inertia(node) @ inner.linear.T
    parts.masses.append((mass, com, inertia))
    _children(node, inner, parts, depth, mode)
    node.warn_unused('RigidBody')


def _read_visual_or_collision(node: Node, node_type: str, frame: Frame, parts: LinkParts,
                              depth: int, mode: str) -> None:
    new_mode = VISUAL if node_type == 'Visual' else COLLISION
    if mode not in (BOTH, new_mode):
        raise node.error(f'a {node_type} node is inside a '
                         f'{"Collision" if mode == COLLISION else "Visual"} node')
    inner = frame.of_node(node)
    _children(node, inner, parts, depth, new_mode)
    shape = node.raw('shape')
    if shape is not None:
        _read_shape(Node(shape, node.ctx, node.at('shape')), inner, parts, new_mode)
    resource = node.raw('resource')
    if resource is not None:
        _read_resource(Node(resource, node.ctx, node.at('resource')), inner, parts, depth,
                       new_mode)
    node.warn_unused(node_type)


def _read_shape(node: Node, frame: Frame, parts: LinkParts, mode: str) -> None:
    inner = frame.of_node(node)
    material = read_appearance(node)
    geometry_raw = node.raw('geometry')
    if geometry_raw is None:
        node.ctx.warn(node.line, 'Shape has no geometry; it was ignored')
        node.warn_unused('Shape')
        return
    gnode = Node(geometry_raw, node.ctx, node.at('geometry'))
    gtype = gnode.string('type')
    if gtype is None:
        raise gnode.error('geometry has no type')
    name = _mesh_name(f'{parts.name}_{gtype}')
    geometry, local = read_geometry(gnode, gtype, name)
    geometry, pose = place(geometry, local, inner, name)
    parts.add_shape(Shape(geometry, pose, material, gnode.where()), mode)
    node.warn_unused('Shape')


def _read_resource(node: Node, frame: Frame, parts: LinkParts, depth: int, mode: str) -> None:
    uri = node.string('uri')
    if uri and res.is_yaml(uri):
        content, ctx, inner, line = res.yaml_resource(node, frame)
        read_elements(content, inner, parts, ctx, line or node.line, depth + 1, mode)
    else:
        for part in res.mesh_parts(node, frame):
            name = _mesh_name(f'{parts.name}_{_stem(part.uri)}')
            geometry, pose = place(part.mesh, np.eye(3), part.frame, name)
            if isinstance(geometry, Mesh) and geometry.name != name:
                geometry = dataclasses.replace(geometry, name=name)
            material = part.material if isinstance(part.material, Material) else None
            parts.add_shape(Shape(geometry, pose, material, part.source), mode)
    node.warn_unused('Resource', frozenset({'node', 'fragment', 'uri', 'crease_angle',
                                           'remove_redundant_vertices'}))


def _mesh_name(text: str) -> str:
    """A mesh name fit for a file name (mesh files written for a URDF are named after it)."""
    return ''.join(c if c.isalnum() or c in '-_' else '_' for c in text.lower())


def _stem(uri: str) -> str:
    base = uri.rstrip('/').rsplit('/', 1)[-1]
    return base.rsplit('.', 1)[0] or 'mesh'
