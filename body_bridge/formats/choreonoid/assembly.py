"""The model of a Body file as read: world poses, joints, closures and devices checked.

``body`` reads the file into a :class:`ReadBody` (links as :class:`LinkSpec`, extra joints as
:class:`ReadClosure`); :func:`assemble` makes it the neutral :class:`Model`. Lengths [m],
angles [rad], masses [kg].
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ...errors import ModelError
from ...model import Device, Joint, JointType, Limits, Link, LoopClosure, Model, Pose, freeze
from . import materials
from .links import LinkSpec
from .nodes import Context

__all__ = ['ReadBody', 'ReadClosure', 'assemble']

#: Farthest apart [m] the two points of an extra joint may be at the reference pose.
_CLOSURE_GAP = 1e-6


@dataclass
class ReadClosure:
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
class ReadBody:
    """A body file as read, before it becomes a model (sub-bodies are merged as these)."""

    name: str
    root: str
    links: list[LinkSpec]
    closures: list[ReadClosure] = field(default_factory=list)
    #: Link pairs that never touch (collision_detection_rules).
    excluded: tuple[tuple[str, str], ...] = ()
    #: Links that touch only AGX's wires (collisionDetection.excludeLinksDynamic).
    wire_only: tuple[str, ...] = ()


def assemble(body: ReadBody, ctx: Context) -> Model:
    world = _world_poses(body, ctx)
    links, joints, devices = [], [], []
    root_type = JointType.FIXED
    for spec in body.links:
        collisions = () if spec.name in body.wire_only else tuple(spec.parts.collisions)
        links.append(Link(spec.name, world[spec.name], spec.inertial, tuple(spec.parts.visuals),
                          collisions, spec.source))
        _check_inertia(spec, ctx)
        devices.extend(spec.parts.devices)
        if spec.name == body.root:
            root_type = _root_joint(spec, ctx)
        else:
            joints.append(_joint(spec, ctx))
    closures = [_closure(c, world, ctx) for c in body.closures]
    pairs, ground = _contact_table(body, ctx)
    return Model(name=body.name, links=tuple(links), joints=tuple(joints), root=body.root,
                 root_joint=root_type, devices=tuple(_unique_names(devices, ctx)),
                 closures=tuple(closures), source=ctx.path, warnings=_counted(ctx.warnings),
                 contact_pairs=pairs, contact_ground=ground, adjacent=body.excluded,
                 passive_joints=_without_id(joints), dropped=tuple(ctx.session.dropped))


def _without_id(joints: list[Joint]) -> tuple[str, ...]:
    """In a body that numbers its joints (``joint_id``), the movable joints it leaves without
    a number: no controller drives them (FourWheelCar's front wheels and steering linkage),
    so they start free, as in Choreonoid, until a command names them."""
    movable = [j for j in joints if j.type.dof == 1 and j.type != JointType.TRACK
               and j.mimic is None]
    if not any('joint_id' in j.meta for j in movable):
        return ()
    return tuple(j.name for j in movable if 'joint_id' not in j.meta)


def with_link_contacts(model: Model, body: ReadBody) -> Model:
    """The model with a contact material on every collision shape, from its link's
    ``material`` and the material table (once the shapes are final: belts replace some)."""
    if not model.contact_pairs:
        return model
    named = {spec.name: spec.material for spec in body.links if spec.material}
    return replace(model, contacts=materials.link_contacts(model.links, named,
                                                           model.contact_pairs))


def _contact_table(body: ReadBody, ctx: Context):
    """(pairs, ground material) of the material table, when a link names a material."""
    named = {spec.name: spec.material for spec in body.links if spec.material}
    if not named:
        return (), None
    path = ctx.session.material_table or materials.find_table(ctx.path)
    if path is None:
        ctx.warnings.append(f'{ctx.path}: links name contact materials '
                            f'({", ".join(sorted(set(named.values())))}) but no Choreonoid '
                            'material table was found (default/materials.yaml above the model, '
                            'or the material_table parameter); contacts use the integrator\'s '
                            'default values')
        return (), None
    try:
        pairs = materials.read_table(path, ctx.warnings.append)
    except ModelError as err:
        ctx.warnings.append(f'{err}; contacts use the integrator\'s default values')
        return (), None
    return pairs, materials.GROUND_MATERIAL


def _counted(warnings: list[str]) -> tuple[str, ...]:
    """Each warning once, in order, with how often it came (aliases repeat nodes)."""
    counts: dict[str, int] = {}
    for line in warnings:
        counts[line] = counts.get(line, 0) + 1
    return tuple(line if n == 1 else f'{line} ({n} times)' for line, n in counts.items())


def _world_poses(body: ReadBody, ctx: Context) -> dict[str, Pose]:
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
    if spec.shoes:
        meta['shoes'] = spec.shoes
    jtype = spec.joint_type
    axis = np.array([0.0, 0.0, 1.0]) if spec.axis is None else spec.axis
    name = spec.joint_name or spec.name
    if jtype in ('fixed', 'free'):
        return Joint(name=name, type=JointType(jtype), parent=spec.parent, child=spec.name,
                     source=spec.source, meta=freeze(meta))
    velocity = _symmetric(spec, spec.velocity, 'joint_velocity_range', ctx)
    effort = _symmetric(spec, spec.effort, 'joint_effort_range', ctx)
    if jtype == 'pseudo_continuous_track':
        # A track: its surface speed [m/s] is the joint velocity (no position range).
        return Joint(name=name, type=JointType.TRACK, parent=spec.parent, child=spec.name,
                     axis=_unit(axis), limits=Limits(None, None, velocity, effort),
                     source=spec.source, meta=freeze(meta))
    kind_ = JointType.PRISMATIC if jtype == 'prismatic' else JointType.REVOLUTE
    if kind_ == JointType.REVOLUTE and spec.lower is None and spec.upper is None:
        kind_ = JointType.CONTINUOUS
    return Joint(name=name, type=kind_, parent=spec.parent, child=spec.name, axis=axis,
                 limits=Limits(spec.lower, spec.upper, velocity, effort), initial=spec.initial,
                 armature=spec.armature, source=spec.source, meta=freeze(meta))


def _unit(axis: np.ndarray) -> np.ndarray:
    """The axis scaled to length 1 (a zero axis stays, and the model refuses it)."""
    norm = float(np.linalg.norm(axis))
    return axis / norm if norm > 0 else axis


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


def _closure(c: ReadClosure, world: dict[str, Pose], ctx: Context) -> LoopClosure:
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
