"""Choreonoid Body files (``.body``): YAML, links with elements.

The reference is Choreonoid's Body file manual (``../shared/specs``); where it is silent,
Choreonoid's own loader. The file is read in these modules:

* ``choreonoid_nodes``: keys in snake_case or camelCase, translations, rotations, units.
* ``choreonoid_links``: Link nodes (placement, joint, mass, ``import``).
* ``choreonoid_elements``: the elements tree (Transform, Group, RigidBody, Visual,
  Collision, Shape, Resource, devices); ``choreonoid_shapes`` its geometry and appearance,
  ``choreonoid_resources`` mesh files and YAML scene resources, ``choreonoid_devices``
  the devices.
* this module: the header, the ``links`` list (Link, SubBody, ContinuousTrack, Skip),
  ``extra_joints``, and the assembly of the model.

Facts this module relies on:

* Header: ``format: ChoreonoidBody``; ``format_version`` 1.0 or 2.0 (Choreonoid reads any
  version below 2.1; a missing one is 1.0 here); ``angle_unit`` degree (default) or radian,
  which 2.0 forbids; ``name`` (default: the file name); ``root_link`` (default: the first).
* SubBody: ``uri`` names another body file whose links join this body, renamed
  ``prefix + name + suffix`` (devices ``device_prefix + name``; joint ids shifted by
  ``joint_id_offset``); the node's ``parent``, placement and joint keys apply to the
  sub-body's root link.
* ContinuousTrack: ``num_joints`` links ``name0 ... nameN-1`` chained from ``parent``: the
  first with a free joint, the others revolute, each ``joint_offset`` from the previous,
  at ``initial_joint_angles``.
* ``extra_joints`` (ball, hinge, piston) close loops: ``link1_name``/``link2_name``,
  ``link1_local_pos``/``link2_local_pos``, ``axis`` in link1's frame.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import ModelError, UnsupportedError
from ..model import Device, Joint, JointType, Limits, Link, LoopClosure, Model, Pose, freeze
from .choreonoid_elements import LinkParts
from .choreonoid_links import LINK_KEYS, LinkSpec, _axis, import_keys, read_joint, read_link
from .choreonoid_nodes import Context, Node, kind
from .choreonoid_resources import resolve_uri
from .yamlsource import line_of, load_yaml

__all__ = ['load', 'EXTENSIONS']

EXTENSIONS = ('.body',)

_HEADER_KEYS = frozenset({'format', 'format_version', 'angle_unit', 'name', 'root_link',
                          'links', 'extra_joints'})
_SUB_BODY_KEYS = frozenset({'type', 'uri', 'prefix', 'suffix', 'device_prefix',
                            'joint_id_offset', 'parent', 'translation', 'rotation'}) | \
    (LINK_KEYS - {'name', 'joint_name', 'elements', 'mass', 'center_of_mass', 'inertia'})
_TRACK_KEYS = LINK_KEYS | {'num_joints', 'joint_offset', 'initial_joint_angles'}
_CLOSURE_TYPES = {'ball': 'ball', 'hinge': 'hinge', 'piston': 'piston'}
#: Farthest apart [m] the two points of an extra joint may be at the reference pose.
_CLOSURE_GAP = 1e-6


@dataclass
class _Closure:
    name: str
    type: str
    link1: str
    link2: str
    pos1: np.ndarray
    pos2: np.ndarray
    axis: np.ndarray
    source: str
    path: str
    line: int | None


@dataclass
class _Body:
    """A body file as read, before it becomes a model (sub-bodies are merged as these)."""

    name: str
    root: str
    links: list[LinkSpec]
    closures: list[_Closure] = field(default_factory=list)
    extra_devices: list[Device] = field(default_factory=list)


def load(path: str | os.PathLike) -> Model:
    """Load a Choreonoid Body file into the neutral model.

    Raises:
        ModelError: with ``path:line`` for anything the file gets wrong.
        UnsupportedError: a node or feature this loader does not read.
    """
    ctx = Context(os.fspath(path))
    body = _read_body(ctx)
    return _assemble(body, ctx)


# --- header and links ----------------------------------------------------------------------


def _read_body(ctx: Context) -> _Body:
    path = ctx.path
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise ModelError(path, line_of(data, 1), 'not a Choreonoid Body file: the top level is '
                         f'{kind(data)}, not a mapping')
    top = Node(data, ctx, 1)
    _read_header(top)
    links_value = top.raw('links')
    if links_value is None:
        raise ModelError(path, 1, 'the body has no "links"')
    body = _Body(name=top.string('name') or os.path.splitext(os.path.basename(path))[0],
                 root='', links=[])
    ctx.session.loading.append(os.path.abspath(path))
    try:
        _read_links(links_value, ctx, body)
    finally:
        ctx.session.loading.pop()
    if not body.links:
        raise ModelError(path, line_of(links_value, 1), 'the body has no link')
    names = {spec.name for spec in body.links}
    root = top.string('root_link') or body.links[0].name
    if root not in names:
        raise ModelError(path, 1, f'root_link {root!r} is not a link of this body')
    body.root = root
    extra = top.raw('extra_joints')
    if extra is not None:
        _read_extra_joints(extra, ctx, body, names)
    top.warn_unused('body', _HEADER_KEYS)
    return body


def _read_header(top: Node) -> None:
    path = top.ctx.path
    fmt = top.string('format')
    if fmt != 'ChoreonoidBody':
        raise ModelError(path, 1, 'not a Choreonoid Body file: "format: ChoreonoidBody" is missing'
                         if fmt is None else f'not a Choreonoid Body file: format is {fmt!r}')
    version = top.number('format_version', default=1.0)
    if not 1.0 <= version < 2.1:
        raise UnsupportedError(path, 1, f'format_version {version:g} is not supported '
                               '(1.0 to 2.0)')
    if version not in (1.0, 2.0):
        top.ctx.warn(1, f'format_version {version:g} is read as 1.0/2.0 files are')
    unit = top.string('angle_unit', default='degree')
    if unit == 'radian':
        if version >= 2.0:
            raise ModelError(path, 1, 'angle_unit: radian is not allowed with format_version 2.0')
        top.ctx.angle_scale = 1.0
    elif unit == 'degree':
        top.ctx.angle_scale = math.pi / 180.0  # each file has its own unit (sub-bodies too)
    else:
        raise ModelError(path, 1, f'angle_unit must be degree or radian, found {unit!r}')


def _read_links(value, ctx: Context, body: _Body) -> None:
    if isinstance(value, list):
        items = [(None, item) for item in value]
    elif isinstance(value, dict):
        items = list(value.items())
    else:
        raise ModelError(ctx.path, line_of(value), f'"links" must be a list, found {kind(value)}')
    for type_key, item in items:
        if not isinstance(item, dict):
            raise ModelError(ctx.path, line_of(value), f'a link must be a mapping, found '
                             f'{kind(item)}')
        line = line_of(item, line_of(value))
        node = Node(item, ctx, line, extra=import_keys(item, ctx, line))
        node_type = node.string('type', default=type_key or 'Link')
        if type_key and node_type != type_key:
            raise node.error(f'node type {node_type!r} differs from {type_key!r} given above it')
        if node_type == 'Link':
            spec = read_link(node)
            node.warn_unused(f'link {spec.name!r}', LINK_KEYS)
            _add_links(body, [spec], node)
        elif node_type == 'SubBody':
            _read_sub_body(node, body)
        elif node_type == 'ContinuousTrack':
            _add_links(body, _read_track(node), node)
        elif node_type == 'Skip':
            node.use(*node.keys)
        else:
            raise UnsupportedError(ctx.path, node.line,
                                   f'{node_type} nodes in links are not supported')


def _add_links(body: _Body, specs: list[LinkSpec], node: Node) -> None:
    taken = {spec.name for spec in body.links}
    for spec in specs:
        if spec.name in taken:
            raise node.error(f'duplicate link name {spec.name!r}')
        taken.add(spec.name)
        body.links.append(spec)


def _read_track(node: Node) -> list[LinkSpec]:
    parent = node.string('parent')
    if not parent:
        raise node.error('a ContinuousTrack needs a parent')
    count = node.integer('num_joints')
    if count is None or count < 3:
        raise node.error('a ContinuousTrack needs num_joints of 3 or more')
    offset = node.vector('joint_offset')
    if offset is None:
        raise node.error('a ContinuousTrack needs joint_offset')
    angles = node.numbers('initial_joint_angles')
    angles = [] if angles is None else list(angles * node.ctx.angle_scale)
    first = read_link(node)
    node.warn_unused(f'ContinuousTrack {first.name!r}', _TRACK_KEYS)
    base = first.name
    specs = [replace(first, name=f'{base}0', joint_type='free', joint_name=None,
                     parts=_renamed_parts(first.parts, f'{base}0', True))]
    angles += [0.0] * (count - 1 - len(angles))
    for i in range(1, count):
        specs.append(replace(first, name=f'{base}{i}', parent=specs[-1].name,
                             offset=Pose(offset, first.offset.rot), joint_type='revolute',
                             joint_name=None, initial=angles[i - 1],
                             parts=_renamed_parts(first.parts, f'{base}{i}', False)))
    specs[0].parent = parent
    return specs


def _renamed_parts(parts: LinkParts, name: str, devices: bool) -> LinkParts:
    """A copy of a link's parts for another link (devices stay on the first track link)."""
    moved = [replace(d, link=name) for d in parts.devices] if devices else []
    return LinkParts(name, list(parts.masses), list(parts.visuals), list(parts.collisions),
                     moved)


# --- sub-bodies ------------------------------------------------------------------------------


def _read_sub_body(node: Node, body: _Body) -> None:
    uri = node.string('uri')
    if not uri:
        raise node.error('a SubBody needs a uri')
    path = os.path.abspath(resolve_uri(node, uri))
    session = node.ctx.session
    if path in session.loading:
        raise node.error(f'sub-body {uri!r} includes itself')
    if not os.path.isfile(path):
        raise node.error(f'sub-body {uri!r} does not exist ({path})')
    if path not in session.bodies:
        session.bodies[path] = _read_body(node.ctx.for_file(path))
    sub = session.bodies[path]
    prefix = node.string('prefix', default='')
    suffix = node.string('suffix', default='')
    device_prefix = node.string('device_prefix', default=prefix)
    id_offset = node.integer('joint_id_offset', default=0)
    rename = {spec.name: f'{prefix}{spec.name}{suffix}' for spec in sub.links}
    specs = []
    for spec in sub.links:
        name = rename[spec.name]
        devices = [replace(d, name=device_prefix + d.name, link=name) for d in spec.parts.devices]
        specs.append(replace(
            spec, name=name, parent=rename.get(spec.parent) if spec.parent else None,
            joint_id=None if spec.joint_id is None else spec.joint_id + id_offset,
            joint_name=None if spec.joint_name is None else f'{prefix}{spec.joint_name}{suffix}',
            parts=LinkParts(name, spec.parts.masses, spec.parts.visuals, spec.parts.collisions,
                            devices)))
    root = next(spec for spec in specs if spec.name == rename[sub.root])
    # The node's own keys apply to the sub-body's root link.
    root.parent = node.string('parent')
    translation, rotation = node.translation(), node.rotation()
    root.offset = Pose(root.offset.pos if translation is None else translation,
                       root.offset.rot if rotation is None else rotation)
    read_joint(node, root)
    node.warn_unused(f'SubBody {uri!r}', _SUB_BODY_KEYS)
    _add_links(body, specs, node)
    body.closures.extend(replace(c, name=f'{prefix}{c.name}{suffix}', link1=rename[c.link1],
                                 link2=rename[c.link2]) for c in sub.closures)


# --- extra joints ----------------------------------------------------------------------------


def _read_extra_joints(value, ctx: Context, body: _Body, names: set[str]) -> None:
    if not isinstance(value, list):
        raise ModelError(ctx.path, line_of(value), f'extra_joints must be a list, found '
                         f'{kind(value)}')
    for index, item in enumerate(value):
        node = Node(item, ctx, line_of(value))
        ends = []
        for key in ('link1_name', 'link2_name'):
            name = node.string(key)
            if not name:
                raise node.error(f'an extra joint needs {key}')
            if name not in names:
                raise node.error(f'{key} {name!r} is not a link of this body')
            ends.append(name)
        jtype = node.string('joint_type')
        if jtype is None:
            raise node.error('an extra joint needs joint_type (ball, hinge, piston)')
        if jtype not in _CLOSURE_TYPES:
            raise UnsupportedError(ctx.path, node.line, f'extra joint type {jtype!r} is not '
                                   'supported (ball, hinge, piston)')
        key = 'axis' if node.has('axis') else 'joint_axis'
        if node.has(key):
            axis = _axis(node, key)
        elif jtype == 'ball':
            axis = np.array([0.0, 0.0, 1.0])
        else:
            raise node.error(f'a {jtype} extra joint needs an axis')
        name = node.string('name', default=f'extra_joint{index}_{ends[0]}_{ends[1]}')
        body.closures.append(_Closure(
            name, _CLOSURE_TYPES[jtype], ends[0], ends[1],
            node.vector('link1_local_pos', default=(0, 0, 0)),
            node.vector('link2_local_pos', default=(0, 0, 0)), axis, node.where(), ctx.path,
            node.line))
        node.warn_unused('extra joint')


# --- the model -------------------------------------------------------------------------------


def _assemble(body: _Body, ctx: Context) -> Model:
    world = _world_poses(body, ctx)
    links, joints, devices = [], [], []
    root_type = JointType.FIXED
    for spec in body.links:
        links.append(Link(spec.name, world[spec.name], spec.inertial, tuple(spec.parts.visuals),
                          tuple(spec.parts.collisions), spec.source))
        _check_inertia(spec, ctx)
        devices.extend(spec.parts.devices)
        if spec.name == body.root:
            root_type = _root_joint(spec, ctx)
        else:
            joints.append(_joint(spec, ctx))
    closures = [_closure(c, world, ctx) for c in body.closures]
    return Model(name=body.name, links=tuple(links), joints=tuple(joints), root=body.root,
                 root_joint=root_type, devices=tuple(_unique_names(devices, ctx)),
                 closures=tuple(closures), source=ctx.path, warnings=_counted(ctx.warnings))


def _counted(warnings: list[str]) -> tuple[str, ...]:
    """Each warning once, in order, with how often it came (aliases repeat nodes)."""
    counts: dict[str, int] = {}
    for line in warnings:
        counts[line] = counts.get(line, 0) + 1
    return tuple(line if n == 1 else f'{line} ({n} times)' for line, n in counts.items())


def _world_poses(body: _Body, ctx: Context) -> dict[str, Pose]:
    specs = {spec.name: spec for spec in body.links}
    world: dict[str, Pose] = {}
    for name in specs:
        chain = []
        while name not in world:
            spec = specs[name]
            if name == body.root:
                world[name] = spec.offset
                break
            if name in chain:
                raise ModelError(ctx.path, spec.line, f'links form a cycle through {name!r}')
            if spec.parent is None:
                raise ModelError(_path(spec), spec.line, f'link {name!r} has no parent')
            if spec.parent not in specs:
                raise ModelError(_path(spec), spec.line,
                                 f'parent link {spec.parent!r} of {name!r} is not defined')
            chain.append(name)
            name = spec.parent
        for child in reversed(chain):
            world[child] = world[specs[child].parent] @ specs[child].offset
    return world


def _path(spec: LinkSpec) -> str:
    return spec.source.rsplit(':', 1)[0] if spec.line is not None else spec.source


def _warn(ctx: Context, spec: LinkSpec, message: str) -> None:
    ctx.warnings.append(f'{spec.source}: {message}')


def _root_joint(spec: LinkSpec, ctx: Context) -> JointType:
    if spec.parent:
        _warn(ctx, spec, f'root link {spec.name!r} has a parent; it was ignored')
    if spec.joint_type in ('fixed', 'free'):
        return JointType(spec.joint_type)
    _warn(ctx, spec, f'root link {spec.name!r} has joint_type {spec.joint_type}; it is '
          'attached to the world as fixed')
    return JointType.FIXED


def _joint(spec: LinkSpec, ctx: Context) -> Joint:
    meta: dict = {}
    if spec.joint_id is not None:
        meta['joint_id'] = spec.joint_id
    if spec.actuation:
        meta['actuation_mode'] = spec.actuation
    jtype = spec.joint_type
    axis = np.array([0.0, 0.0, 1.0]) if spec.axis is None else spec.axis
    name = spec.joint_name or spec.name
    if jtype == 'pseudo_continuous_track':
        _warn(ctx, spec, f'link {spec.name!r}: joint_type pseudo_continuous_track (a track whose '
              'surface moves along the joint axis) is kept as a fixed joint; the surface '
              'velocity is not simulated')
        meta.update(choreonoid_joint_type=jtype, track_axis=tuple(float(a) for a in axis))
        jtype = 'fixed'
    if jtype in ('fixed', 'free'):
        return Joint(name=name, type=JointType(jtype), parent=spec.parent, child=spec.name,
                     source=spec.source, meta=freeze(meta))
    velocity = _symmetric(spec, spec.velocity, 'joint_velocity_range', ctx)
    effort = _symmetric(spec, spec.effort, 'joint_effort_range', ctx)
    kind_ = JointType.PRISMATIC if jtype == 'prismatic' else JointType.REVOLUTE
    if kind_ == JointType.REVOLUTE and spec.lower is None and spec.upper is None:
        kind_ = JointType.CONTINUOUS
    return Joint(name=name, type=kind_, parent=spec.parent, child=spec.name, axis=axis,
                 limits=Limits(spec.lower, spec.upper, velocity, effort), initial=spec.initial,
                 armature=spec.armature, source=spec.source, meta=freeze(meta))


def _check_inertia(spec: LinkSpec, ctx: Context) -> None:
    if spec.inertial is None:
        return
    moments = np.linalg.eigvalsh(spec.inertial.inertia)
    tol = 1e-9 * max(1.0, float(np.max(np.abs(moments))))
    if moments[0] < -tol or moments[0] + moments[1] < moments[2] - tol:
        _warn(ctx, spec, f'link {spec.name!r}: the inertia (principal moments '
              f'{", ".join(f"{m:.4g}" for m in moments)} kg m^2) is not one of a rigid body '
              '(A + B >= C fails); the integrator balances it')


def _symmetric(spec: LinkSpec, bounds, key: str, ctx: Context) -> float | None:
    """The model's symmetric limit of a [low, high] range (the tighter side)."""
    if bounds is None:
        return None
    low, high = bounds
    limit = min(abs(low), abs(high))
    if low != -high:
        _warn(ctx, spec, f'{key} [{low:g}, {high:g}] is asymmetric; the limit used is '
              f'{limit:g}')
    return limit


def _closure(c: _Closure, world: dict[str, Pose], ctx: Context) -> LoopClosure:
    pose1, pose2 = world[c.link1], world[c.link2]
    gap = float(np.linalg.norm(pose1.apply(c.pos1) - pose2.apply(c.pos2)))
    if gap > _CLOSURE_GAP:
        ctx.warnings.append(f'{c.source}: the points of extra joint {c.name!r} are {gap:.3g} m '
                            'apart at the reference pose; the integrator holds them there')
    # The constraint frame coincides on both links at the reference pose.
    rot2 = pose2.rot.T @ pose1.rot
    return LoopClosure(c.name, c.type, c.link1, c.link2, Pose(c.pos1, np.eye(3)),
                       Pose(c.pos2, rot2), c.axis, c.source)


def _unique_names(devices: list[Device], ctx: Context) -> list[Device]:
    taken: set[str] = set()
    out = []
    for device in devices:
        name, n = device.name, 2
        while name in taken:
            name, n = f'{device.name}_{n}', n + 1
        if name != device.name:
            ctx.warnings.append(f'{device.source or ctx.path}: device name {device.name!r} is '
                                f'used twice; this one is called {name!r}')
            device = replace(device, name=name)
        taken.add(name)
        out.append(device)
    return out
