"""A Choreonoid Body file as a whole: its header, links list and extra joints.

The reference is Choreonoid's Body file manual (``../shared/specs``); where it is silent,
Choreonoid's own loader. This module reads the header, the ``links`` list (Link, SubBody,
ContinuousTrack, Skip) and ``extra_joints``; ``assembly`` makes the model of what it read.

Facts this module relies on:

* Header: ``format: ChoreonoidBody``; ``format_version`` 1.0 or 2.0 (Choreonoid reads any
  version below 2.1; a missing one is 1.0 here); ``angle_unit`` degree (default) or radian,
  which 2.0 forbids; ``name`` (default: the file name); ``root_link`` (default: the first).
* SubBody: ``uri`` names another body file whose links join this body, renamed
  ``prefix + name + suffix`` (devices ``device_prefix + name``; joint ids shifted by
  ``joint_id_offset``); the node's ``parent``, placement and joint keys apply to the
  sub-body's root link, and so do its ``elements``: the devices there (track devices too)
  join that link, in its frame; Choreonoid adds no shape or mass from them (a warning says
  they were not used). An element this loader cannot read there is a warning naming it and
  its line, and a part of the model dropped (``Model.dropped``: ``check`` reports it).
* ContinuousTrack: ``num_joints`` links ``name0 ... nameN-1`` chained from ``parent``: the
  first with a free joint, the others revolute, each ``joint_offset`` from the previous,
  at ``initial_joint_angles``.
* ``extra_joints`` (ball, hinge, piston) close loops: ``link1_name``/``link2_name``,
  ``link1_local_pos``/``link2_local_pos``, ``axis`` in link1's frame.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace

import numpy as np

from ...errors import ModelError, UnsupportedError
from ...fileaccess import file_problem
from ...model import Model, Pose
from .elements import LinkParts, read_elements
from .assembly import ReadBody, ReadClosure, assemble, with_link_contacts
from .belts import approximate_belts
from .chains import belt_of_chain
from .collision_rules import excluded_pairs, wire_only_links
from .links import LINK_KEYS, LinkSpec, _axis, import_keys, read_joint, read_link
from .nodes import Context, Frame, Node, kind
from .resources import resolve_uri
from ..yamlsource import line_at, line_of, load_yaml

__all__ = ['load', 'EXTENSIONS']

EXTENSIONS = ('.body',)

# link_group and collision_detection_rules: read by the SRDF writer (groups.py).
_HEADER_KEYS = frozenset({'format', 'format_version', 'angle_unit', 'name', 'root_link',
                          'links', 'extra_joints', 'link_group', 'collision_detection_rules'})
_SUB_BODY_KEYS = frozenset({'type', 'uri', 'prefix', 'suffix', 'device_prefix',
                            'joint_id_offset', 'parent', 'translation', 'rotation'}) | \
    (LINK_KEYS - {'name', 'joint_name', 'mass', 'center_of_mass', 'inertia'})
_TRACK_KEYS = LINK_KEYS | {'num_joints', 'joint_offset', 'initial_joint_angles'}
_CLOSURE_TYPES = {'ball': 'ball', 'hinge': 'hinge', 'piston': 'piston'}
#: Most links of one model, sub-bodies and tracks included (sub-bodies included several times
#: at several levels multiply: a small set of files could otherwise make millions).
MAX_LINKS = 10_000


def load(path: str | os.PathLike, material_table: str | None = None) -> Model:
    """Load a Choreonoid Body file into the neutral model.

    ``material_table`` names Choreonoid's contact material table to use (default: the one
    found above the model file, see ``materials.py``).

    Raises:
        ModelError: with ``path:line`` for anything the file gets wrong.
        UnsupportedError: a node or feature this loader does not read.
    """
    ctx = Context(os.fspath(path))
    ctx.session.material_table = material_table or None
    body = _read_body(ctx)
    return with_link_contacts(approximate_belts(assemble(body, ctx)), body)


# --- header and links ----------------------------------------------------------------------


def _read_body(ctx: Context) -> ReadBody:
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
    body = ReadBody(name=top.string('name') or os.path.splitext(os.path.basename(path))[0],
                 root='', links=[])
    ctx.session.loading.append(os.path.abspath(path))
    try:
        _read_links(links_value, ctx, body, top.at('links'))
    finally:
        ctx.session.loading.pop()
    if not body.links:
        raise ModelError(path, line_of(links_value, 1), 'the body has no link')
    names = {spec.name for spec in body.links}
    root = top.string('root_link') or body.links[0].name
    if root not in names:
        raise ModelError(path, 1, f'root_link {root!r} is not a link of this body')
    body.root = root
    parents = {spec.name: spec.parent for spec in body.links}
    body.excluded = excluded_pairs(top, parents)
    body.wire_only = tuple(wire_only_links(top, parents))
    extra = top.raw('extra_joints')
    if extra is not None:
        _read_extra_joints(extra, ctx, body, names, top.at('extra_joints'))
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


def _read_links(value, ctx: Context, body: ReadBody, key_line: int | None) -> None:
    """The links (``key_line``: where ``links`` is written)."""
    if isinstance(value, list):
        items = [(None, index, item) for index, item in enumerate(value)]
    elif isinstance(value, dict):
        items = [(key, key, item) for key, item in value.items()]
    else:
        raise ModelError(ctx.path, key_line, f'"links" must be a list, found {kind(value)}')
    for type_key, at, item in items:
        if not isinstance(item, dict):
            raise ModelError(ctx.path, line_at(value, at), f'a link must be a mapping, found '
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


def _add_links(body: ReadBody, specs: list[LinkSpec], node: Node) -> None:
    if len(body.links) + len(specs) > MAX_LINKS:
        raise node.error(f'the body has more than {MAX_LINKS} links (sub-bodies and tracks '
                         'included); refused')
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
    if count > MAX_LINKS:
        raise node.error(f'num_joints {count} is more than the {MAX_LINKS} links a body may have')
    offset = node.vector('joint_offset')
    if offset is None:
        raise node.error('a ContinuousTrack needs joint_offset')
    angles = node.numbers('initial_joint_angles')
    angles = [] if angles is None else list(angles * node.ctx.angle_scale)
    first = read_link(node)
    node.warn_unused(f'ContinuousTrack {first.name!r}', _TRACK_KEYS)
    axis = np.array([0.0, 0.0, 1.0]) if first.axis is None else np.asarray(first.axis, float)
    if not np.linalg.norm(axis) > 0:
        raise node.error('a ContinuousTrack needs a joint_axis that is not zero')
    belt = belt_of_chain(first, count, offset, angles, axis / np.linalg.norm(axis))
    belt.parent = parent
    belt.parts.devices.extend(first.parts.devices)
    node.ctx.warn(node.line, f'ContinuousTrack {first.name!r}: the chain of {count} shoe links '
                  'is approximated by one link with a track joint (a rigid belt around the '
                  'shoes at their initial angles, moved at the joint\'s surface speed [m/s])')
    return [belt]


# --- sub-bodies ------------------------------------------------------------------------------


def _read_sub_body(node: Node, body: ReadBody) -> None:
    uri = node.string('uri')
    if not uri:
        raise node.error('a SubBody needs a uri')
    path = os.path.abspath(resolve_uri(node, uri))
    session = node.ctx.session
    if path in session.loading:
        raise node.error(f'sub-body {uri!r} includes itself')
    problem = file_problem(path)
    if problem is not None:
        raise node.error(f'sub-body {uri!r} does not exist ({path})' if problem.startswith('no ')
                         else f'sub-body {uri!r} ({path}) {problem}')
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
    _read_sub_body_elements(node, root, uri)
    node.warn_unused(f'SubBody {uri!r}', _SUB_BODY_KEYS)
    _add_links(body, specs, node)
    body.closures.extend(replace(c, name=f'{prefix}{c.name}{suffix}', link1=rename[c.link1],
                                 link2=rename[c.link2]) for c in sub.closures)


def _read_sub_body_elements(node: Node, root: LinkSpec, uri: str) -> None:
    """A SubBody's ``elements``, as Choreonoid reads them (module text)."""
    value, line, ctx = node.raw('elements'), node.at('elements'), node.ctx
    if value is None:
        return
    if isinstance(value, list):
        chunks = [([item], line_at(value, index, line)) for index, item in enumerate(value)]
    elif isinstance(value, dict) and 'type' not in value:
        chunks = [({key: item}, line_at(value, key, line)) for key, item in value.items()]
    else:
        chunks = [(value, line)]
    parts = LinkParts(root.name)
    for chunk, at in chunks:
        try:
            read_elements(chunk, Frame(), parts, ctx, at)
        except UnsupportedError as err:
            message = f'{err}; this element of SubBody {uri!r} was ignored'
            ctx.warnings.append(message)
            ctx.session.dropped.append(message)
    root.parts.devices.extend(parts.devices)
    unused = [what for what, there in (('shapes', parts.visuals or parts.collisions),
                                       ('masses', parts.masses)) if there]
    if unused:
        ctx.warn(line, f'SubBody {uri!r}: the {" and ".join(unused)} of its elements are not '
                 'used (Choreonoid takes only devices from them); ignored')


# --- extra joints ----------------------------------------------------------------------------


def _read_extra_joints(value, ctx: Context, body: ReadBody, names: set[str],
                       key_line: int | None) -> None:
    if not isinstance(value, list):
        raise ModelError(ctx.path, key_line, f'extra_joints must be a list, found '
                         f'{kind(value)}')
    for index, item in enumerate(value):
        node = Node(item, ctx, line_at(value, index))
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
        body.closures.append(ReadClosure(
            name, _CLOSURE_TYPES[jtype], ends[0], ends[1],
            node.vector('link1_local_pos', default=(0, 0, 0)),
            node.vector('link2_local_pos', default=(0, 0, 0)), axis, node.where(), ctx.path,
            node.line))
        node.warn_unused('extra joint')


