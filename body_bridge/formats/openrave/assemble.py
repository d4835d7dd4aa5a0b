"""Raw OpenRAVE bodies -> the neutral model's tree of links and joints.

OpenRAVE keeps a graph: joints between pairs of links, each joint remembering the relative
transform of its links when it was read. The tree grows from each body's first link, as in
OpenRAVE; joints left over close loops (:class:`LoopClosure`). Link poses follow the tree from
the root link through the recorded transforms, with the joints at zero (a joint's ``<initial>``
value is the position the file's transforms were written at).

The model wants a joint axis through its child link's origin (URDF). A hinge's child frame is
moved onto the axis (the nearest point: unchanged when it is already there); ball, universal
and hinge2 children move to the anchor. Geometry, masses, sensors and tool frames stay where
they are. Universal and hinge2 joints become two revolute joints with a massless link between.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ...errors import ModelError
from ...fparser import parse_formula
from ...formula import FormulaError
from ...model import (Inertial, Joint, JointType, Limits, Link, LoopClosure, Mimic, Pose,
                     axis_angle_matrix, freeze)
from .geom import MeshCache, geom_shapes, place
from .raw import RawBody, RawJoint, RawLink, inverse, rotation_matrix, \
    translation_matrix

__all__ = ['BodyParts', 'BodyAssembler', 'assemble_body', 'DEFAULT_MAXVEL', 'DEFAULT_MAXACCEL',
           'DEFAULT_MAXTORQUE']

#: OpenRAVE's joint defaults (``KinBody::JointInfo``) for what a file does not give:
#: speed [rad/s or m/s], acceleration [rad/s^2 or m/s^2], torque [N m or N].
DEFAULT_MAXVEL = 10.0
DEFAULT_MAXACCEL = 50.0
DEFAULT_MAXTORQUE = 1e5


@dataclass
class BodyParts:
    """One body in the model: its links, joints and closures, names already final."""

    root: str
    root_static: bool
    links: list[Link] = field(default_factory=list)
    joints: list[Joint] = field(default_factory=list)
    closures: list[LoopClosure] = field(default_factory=list)
    #: joints that move freely (no servo holds them): passive wheels
    passive: list[str] = field(default_factory=list)
    #: disabled spherical joints, held fixed: a ball drawn on one is a welded ball caster
    welded_balls: list[str] = field(default_factory=list)
    #: raw link -> (model link name, model frame F (world, 4x4), OpenRAVE frame T (world))
    frames: dict = field(default_factory=dict)


def _motion(kind: str, anchor: np.ndarray, axes: list[np.ndarray], q: list[float]) -> np.ndarray:
    """The joint's motion in body0's frame at positions ``q`` [rad or m]."""
    if kind == 'slider':
        return translation_matrix(axes[0] * q[0])
    rot = np.eye(3)
    for axis, angle in zip(axes, q):
        rot = rot @ axis_angle_matrix(axis, angle)
    return translation_matrix(anchor) @ rotation_matrix(rot) @ translation_matrix(-anchor)


def _is_fixed(joint: RawJoint) -> bool:
    """Passive joints without a formula only attach parts (OpenRAVE keeps them at 0), but a
    circular hinge (a caster or a wheel nothing drives: OpenRAVE's physics lets it turn)."""
    return not joint.active and not joint.mimic and not _is_rolling(joint)


def _is_rolling(joint: RawJoint) -> bool:
    """A passive circular hinge without a formula: a wheel that rolls freely."""
    return (not joint.active and not joint.mimic and joint.circular and joint.type == 'hinge')


def _is_locked(joint: RawJoint) -> bool:
    """A one-axis joint that cannot move: equal lower and upper limits, no formula."""
    return (joint.active and not joint.mimic and joint.dof == 1 and not joint.circular
            and joint.lower[0] == joint.upper[0])


class _Tree:
    """Which joints form the tree from the first link, in breadth-first order."""

    def __init__(self, body: RawBody):
        self.root = body.links[0]
        touching: dict[RawLink, list[RawJoint]] = {}
        for joint in body.joints:
            touching.setdefault(joint.body0, []).append(joint)
            touching.setdefault(joint.body1, []).append(joint)
        self.edges: list[tuple[RawJoint, RawLink, RawLink]] = []   # joint, parent, child
        seen, used = {self.root}, set()
        queue = deque([self.root])
        while queue:
            link = queue.popleft()
            for joint in touching.get(link, []):
                if joint in used:
                    continue
                other = joint.body1 if joint.body0 is link else joint.body0
                if other in seen:
                    continue
                used.add(joint)
                seen.add(other)
                self.edges.append((joint, link, other))
                queue.append(other)
        self.closing = [j for j in body.joints if j not in used and j.body0 is not j.body1]
        self.detached = [link for link in body.links if link not in seen]


def _reference_transforms(tree: _Tree) -> dict[RawLink, np.ndarray]:
    """World transform of every link with all joints at zero (OpenRAVE's link frames)."""
    ref = {tree.root: tree.root.transform}
    for joint, parent, child in tree.edges:
        if _is_fixed(joint) or _is_locked(joint) or joint.type == 'spherical':
            offset = np.eye(4)
        else:
            init = list(joint.initial[:joint.dof]) + [0.0] * (joint.dof - len(joint.initial))
            offset = _motion(joint.type, joint.anchor, joint.axes, [-q for q in init])
        if joint.body0 is parent:
            ref[child] = ref[parent] @ offset @ joint.relative
        else:
            ref[child] = ref[parent] @ inverse(joint.relative) @ inverse(offset)
    for link in tree.detached:
        ref[link] = link.transform
    return ref


class BodyAssembler:
    """Builds one body's part of the model."""

    def __init__(self, body: RawBody, name_of, warn, cache: MeshCache):
        self.body = body
        self.name_of = name_of      # raw name -> model name (prefixes bodies in environments)
        self.warn = warn
        self.cache = cache
        self.tree = _Tree(body)
        self.ref = _reference_transforms(self.tree)
        self.frame = dict(self.ref)  # model link frames F, moved onto joint axes below
        self.parts = BodyParts(name_of(body.links[0].name), body.links[0].static)
        self._raw_names = {j.name for j in body.joints}

    # --- frames -------------------------------------------------------------------------

    def _axis_world(self, joint: RawJoint, index: int) -> np.ndarray:
        return self.ref[joint.body0][:3, :3] @ joint.axes[index]

    def _anchor_world(self, joint: RawJoint) -> np.ndarray:
        return self.ref[joint.body0][:3, :3] @ joint.anchor + self.ref[joint.body0][:3, 3]

    def _move_frames(self) -> None:
        for joint, _, child in self.tree.edges:
            if _is_fixed(joint) or _is_locked(joint) or joint.type == 'slider':
                continue
            anchor = self._anchor_world(joint)
            frame = self.frame[child].copy()
            if joint.type == 'hinge':
                u = self._axis_world(joint, 0)
                frame[:3, 3] = anchor + u * float(u @ (frame[:3, 3] - anchor))
            else:
                frame[:3, 3] = anchor
            self.frame[child] = frame

    # --- links --------------------------------------------------------------------------

    def _link(self, raw: RawLink) -> Link:
        name = self.name_of(raw.name)
        local = inverse(self.frame[raw]) @ self.ref[raw]   # OpenRAVE link frame in F
        local_pose = Pose.from_matrix(local)
        visuals, collisions = [], []
        for index, geom in enumerate(raw.geoms):
            draw, collide = geom_shapes(geom, self.cache, self.warn, f'{raw.name}_{index}')
            at = local_pose @ Pose.from_matrix(geom.pose)
            shapes = place(collide, at, geom.element.where())
            collisions.extend(shapes)
            visuals.extend(shapes if draw is collide else place(draw, at, geom.element.where()))
        if not raw.enabled:   # a disabled link (OpenRAVE enable="false") collides with nothing
            collisions = []
        inertial = raw.inertial
        if inertial is not None:
            if not (np.isfinite(inertial.mass) and np.all(np.isfinite(inertial.com))
                    and np.all(np.isfinite(inertial.inertia))):
                raise raw.element.error(f'link {raw.name!r}: its mass properties overflow '
                                        '(numbers too large)')
            rot = local[:3, :3]
            inertia = _physical(rot @ inertial.inertia @ rot.T, raw, self.warn)
            inertial = Inertial(inertial.mass, local_pose.apply(inertial.com), inertia)
        self.parts.frames[raw] = (name, self.frame[raw], self.ref[raw])
        return Link(name, Pose.from_matrix(self.frame[raw]), inertial, tuple(visuals),
                    tuple(collisions), raw.element.where())

    def _warn_default_masses(self) -> None:
        """Once per Robot whose moving links give no ``<mass>``: OpenRAVE's defaults, named
        (a KinBody without masses is most often a thing a planner moves, never weighed)."""
        moving = [raw for raw in self.body.links if not raw.static]
        if self.body.kind != 'robot' or not moving or any(raw.mass_given for raw in moving):
            return
        untorqued = sum(1 for j in self.body.joints if j.active and not j.mimic
                        and not j.maxtorque)
        plural = 's' if untorqued != 1 else ''
        torque = (f'; its {untorqued} joint{plural} without <maxtorque> take'
                  f'{"" if plural else "s"} {DEFAULT_MAXTORQUE:g} N m (or N)' if untorqued else '')
        self.warn(self.body.element, f'{self.body.kind} {self.body.name!r} gives no <mass>: '
                                     'each of its links weighs OpenRAVE\'s default 1 kg with '
                                     f'the inertia of a 1 m sphere{torque}')

    # --- joints -------------------------------------------------------------------------

    def build(self) -> BodyParts:
        self._move_frames()
        self._warn_default_masses()
        for raw in self.body.links:
            self.parts.links.append(self._link(raw))
        for joint, parent, child in self.tree.edges:
            self._tree_joint(joint, parent, child)
        for link in self.tree.detached:
            self.parts.joints.append(Joint(
                f'{self.name_of(link.name)}_attached', JointType.FIXED, self.parts.root,
                self.name_of(link.name), source=link.element.where(),
                meta=freeze({'body': self.body.name, 'implicit': True})))
        for joint in self.tree.closing:
            self._closure(joint)
        for raw in self.body.links[1:]:
            if raw.static and not self.parts.root_static:
                self.warn(raw.element, f'link {raw.name!r} is static but its body moves; it '
                                       'moves with its body')
        return self.parts

    def _meta(self, joint: RawJoint, **extra) -> dict:
        meta = {'body': self.body.name, 'openrave_type': joint.type}
        for key in ('weight', 'resolution', 'rotorinertia', 'mode', 'hardmaxvel'):
            if key in joint.meta:
                meta[key] = joint.meta[key]
        meta['maxaccel'] = tuple(joint.maxaccel) if joint.maxaccel is not None else \
            (DEFAULT_MAXACCEL,) * joint.dof
        if not joint.active:
            meta['passive'] = True
        for index, eqs in joint.mimic.items():
            for kind in ('vel', 'accel'):
                if kind in eqs:
                    meta[f'mimic_{kind}{index or ""}'] = eqs[kind][0]
        meta.update(extra)
        return meta

    def _tree_joint(self, joint: RawJoint, parent: RawLink, child: RawLink) -> None:
        pname, cname = self.name_of(parent.name), self.name_of(child.name)
        name = self.name_of(joint.name or f'J_{child.name}')
        src = joint.element.where()
        sign = 1.0 if joint.body0 is parent else -1.0
        if _is_fixed(joint):
            if not (joint.limits_given and max(map(abs, joint.lower + joint.upper)) == 0.0):
                self.warn(joint.element, f'passive joint {joint.name!r} has no formula; it is '
                                         'held at 0 (fixed), as OpenRAVE keeps it')
            self.parts.joints.append(Joint(name, JointType.FIXED, pname, cname, source=src,
                                           meta=freeze(self._meta(joint))))
            if joint.type == 'spherical':
                self.parts.welded_balls.append(name)
            return
        if _is_locked(joint):
            self.warn(joint.element, f'joint {joint.name!r} has equal lower and upper limits '
                                     f'({joint.lower[0]:g}); it is fixed')
            self.parts.joints.append(Joint(name, JointType.FIXED, pname, cname, source=src,
                                           meta=freeze(self._meta(joint))))
            return
        if joint.type == 'spherical':
            if joint.limits_given:
                self.warn(joint.element, f'limits of spherical joint {joint.name!r} are not '
                                         'enforced')
            self.parts.joints.append(Joint(name, JointType.BALL, pname, cname, source=src,
                                           meta=freeze(self._meta(joint))))
            return
        if joint.dof == 1:
            axis = sign * (self.frame[child][:3, :3].T @ self._axis_world(joint, 0))
            self.parts.joints.append(self._one_dof(joint, 0, name, pname, cname, axis))
            if _is_rolling(joint):
                self.parts.passive.append(name)
            return
        # universal / hinge2: two revolute joints through a massless link at the anchor
        order = [0, 1] if sign > 0 else [1, 0]
        middle = self.name_of(f'{joint.name or child.name}_link')
        frame = self.frame[parent].copy()
        frame[:3, 3] = self._anchor_world(joint)
        self.parts.links.append(Link(middle, Pose.from_matrix(frame), None, (), (), src))
        ends = [(pname, middle, frame), (middle, cname, self.frame[child])]
        for (p, c, f), index in zip(ends, order):
            axis = sign * (f[:3, :3].T @ self._axis_world(joint, index))
            self.parts.joints.append(self._one_dof(joint, index, f'{name}_axis{index + 1}',
                                                   p, c, axis))

    def _one_dof(self, joint: RawJoint, index: int, name: str, parent: str, child: str,
                 axis: np.ndarray) -> Joint:
        kind = JointType.PRISMATIC if joint.type == 'slider' else JointType.REVOLUTE
        lower, upper = joint.lower[index], joint.upper[index]
        velocity = joint.maxvel[index] if joint.maxvel and index < len(joint.maxvel) \
            else DEFAULT_MAXVEL
        effort = joint.maxtorque[index] if joint.maxtorque and index < len(joint.maxtorque) \
            else DEFAULT_MAXTORQUE
        rotor = joint.meta.get('rotorinertia', ())
        armature = float(rotor[min(index, len(rotor) - 1)]) if rotor else 0.0
        if not (math.isfinite(armature) and armature >= 0):
            raise joint.element.error(f'joint {joint.name!r}: <rotorinertia> must be a '
                                      'non-negative number')
        mimic = self._mimic(joint, index)
        if joint.circular and kind == JointType.REVOLUTE:
            kind, lower, upper = JointType.CONTINUOUS, None, None
        initial = joint.initial[index] if index < len(joint.initial) else 0.0
        meta = self._meta(joint, circular=True) if joint.circular else self._meta(joint)
        return Joint(name, kind, parent, child, axis / np.linalg.norm(axis),
                     Limits(lower, upper, velocity, effort), float(initial), armature=armature,
                     mimic=mimic, source=joint.element.where(), meta=freeze(meta))

    def _mimic(self, joint: RawJoint, index: int) -> Mimic | None:
        eqs = joint.mimic.get(index)
        if not eqs:
            return None
        if 'pos' not in eqs:
            raise joint.element.error(f'joint {joint.name!r}: a mimic joint needs mimic_pos')
        text, element = eqs['pos']
        try:
            formula = parse_formula(text)
            for renames in joint.meta.get('renames', []):
                formula = formula.renamed(renames)
            for kind in ('vel', 'accel'):
                if kind in eqs:
                    _check_derivatives(eqs[kind][0])
        except FormulaError as err:
            raise element.error(f'joint {joint.name!r}: mimic formula: {err}') from None
        names = {}
        for var in formula.variables:
            if var not in self._raw_names:
                raise element.error(f'joint {joint.name!r}: mimic formula {text!r} names '
                                    f'unknown joint {var!r}')
            names[var] = self.name_of(var)
        formula = formula.renamed(names)
        try:
            poly = formula.polynomial()
        except FormulaError as err:  # a constant part undefined: sqrt(-1), 1/0
            raise element.error(f'joint {joint.name!r}: mimic formula: {err}') from None
        if poly is not None and len(poly[1]) <= 2:
            coeffs = poly[1] + [0.0] * (2 - len(poly[1]))
            return Mimic(poly[0], float(coeffs[1]), float(coeffs[0]))
        return Mimic(formula.variables[0] if formula.variables else '', expression=formula.text)

    # --- closures -----------------------------------------------------------------------

    def _closure(self, joint: RawJoint) -> None:
        kinds = {'hinge': 'hinge', 'slider': 'slider', 'spherical': 'ball',
                 'universal': 'universal', 'hinge2': 'universal'}
        kind = 'weld' if _is_fixed(joint) else kinds[joint.type]
        if joint.mimic:
            self.warn(joint.element, f'joint {joint.name!r} closes a loop: its mimic formula '
                                     'is not enforced')
        if joint.limits_given and kind != 'weld':
            self.warn(joint.element, f'joint {joint.name!r} closes a loop: its limits are not '
                                     'enforced')
        f0, f1 = self.frame[joint.body0], self.frame[joint.body1]
        anchor_world = self._anchor_world(joint)
        rot = np.eye(3)
        axis = np.array([0.0, 0.0, 1.0])
        if kind in ('hinge', 'slider'):
            axis = f0[:3, :3].T @ self._axis_world(joint, 0)
        elif kind == 'universal':
            u0 = f0[:3, :3].T @ self._axis_world(joint, 0)
            u1 = f0[:3, :3].T @ self._axis_world(joint, 1)
            if abs(float(u0 @ u1)) > 1e-6:
                self.warn(joint.element, f'joint {joint.name!r} closes a loop with axes that '
                                         'are not perpendicular; they are made perpendicular')
            u1 = u1 - u0 * float(u0 @ u1)
            u1 /= np.linalg.norm(u1)
            # closures.py turns hinge x/y of a frame whose z is `axis`; pick it so they are u0/u1
            rot = np.column_stack([u1, -u0, np.cross(u0, u1)])
        pose1 = Pose(f0[:3, :3].T @ (anchor_world - f0[:3, 3]), rot)
        pose2 = Pose.from_matrix(inverse(f1) @ f0) @ pose1
        name = self.name_of(joint.name or f'J_{joint.body1.name}')
        self.parts.closures.append(LoopClosure(
            name, kind, self.name_of(joint.body0.name), self.name_of(joint.body1.name),
            pose1, pose2, axis, joint.element.where()))


def _physical(inertia: np.ndarray, raw: RawLink, warn) -> np.ndarray:
    """The inertia, or (with a warning) its principal moments replaced by their mean when they
    break the triangle inequality A + B >= C, as MuJoCo's ``balanceinertia`` does."""
    moments, axes = np.linalg.eigh(inertia)
    if np.any(moments < -1e-12) or moments[0] + moments[1] < moments[2] * (1 - 1e-9):
        mean = float(np.mean(np.abs(moments)))
        why = 'a negative moment' if np.any(moments < -1e-12) else 'A + B < C'
        warn(raw.element, f'link {raw.name!r}: principal inertia moments '
                          f'{", ".join(f"{m:.3g}" for m in moments)} kg m^2 are not physical '
                          f'({why}); each set to their mean, {mean:.3g}')
        return mean * np.eye(3)
    return inertia


def _check_derivatives(text: str) -> None:
    """``mimic_vel``/``mimic_accel``: ``|joint expression`` terms, each a valid formula."""
    terms = [t for t in text.split('|') if t.strip()]
    if not text.strip().startswith('|') or not terms:
        raise FormulaError(f'{text!r} needs "|joint expression" terms')
    for term in terms:
        words = term.split(None, 1)
        if len(words) != 2:
            raise FormulaError(f'{text!r}: "|{term.strip()}" needs a joint and an expression')
        parse_formula(words[1])


def assemble_body(body: RawBody, name_of, warn, cache: MeshCache) -> BodyParts:
    """The model's links, joints and closures of one OpenRAVE body."""
    if not body.links:
        raise ModelError(body.element.path, body.element.line, f'body {body.name!r} has no links')
    return BodyAssembler(body, name_of, warn, cache).build()


