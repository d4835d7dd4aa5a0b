"""How a model's root link meets the world (the ``root`` parameter), and its free joints.

* ``fixed``: welded to the world where the file puts it.
* ``free``: a free body (six degrees of freedom) that stands on the ground on what it has.
* ``planar``: a free body moved in the plane by ``cmd_vel`` (x, y, yaw), kinematically, as
  Gazebo's planar-move plug-in moves a model: for a base whose wheels the model does not
  have (:mod:`body_bridge.sim.mechanics.planar`).
* ``auto``: what the file says, except that a fixed root whose wheels could carry it starts
  free: at least three contact points, not in one line, at the lowest level of its wheels
  and ball casters (:mod:`.casters`), one of them a wheel's. A
  wheel is a joint that turns without limits about a horizontal axis (at the initial pose),
  whose child link has a round collision shape (cylinder or sphere: its contact point is
  below the shape's centre by its radius) or a mesh (its lowest vertex), and that hangs from
  the root through no free or ball joint. An environment's ``world`` root stays fixed.
  OpenRAVE's Robot files, which cannot say "free", get their wheeled robots free this way
  (its differential-drive sample, the PR2's casters, a robot on two wheels and ball casters
  its file welds). Why the root was taken is said in a few words, naming the wheels and
  casters found (or why they do not carry it).

Passive joints (``Model.passive_joints``, and more named by the ``passive_joints`` parameter)
start without a servo holding them, until a command names them.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...kinematics import forward_kinematics
from ...model import Cylinder, JointType, Mesh, Model, Sphere
from .casters import Caster, ball_casters, held_by_root

__all__ = ['ROOT_CHOICES', 'choose_root', 'wheel_contacts', 'ground_contacts', 'with_passive',
           'LEVEL']

ROOT_CHOICES = ('auto', 'fixed', 'free', 'planar')
#: Wheel contact points within this of the lowest [m] are on the ground together.
LEVEL = 0.005


def wheel_contacts(model: Model) -> dict[str, np.ndarray]:
    """The wheels of a model at its initial pose: joint name -> the world point [m] below its
    round collision shape by the shape's radius (the lowest such shape of the wheel link)."""
    poses = forward_kinematics(model, {})
    parent_joint = {j.child: j for j in model.joints}
    out = {}
    for joint in model.joints:
        if joint.type not in (JointType.CONTINUOUS, JointType.REVOLUTE) or \
                joint.limits.lower is not None or joint.limits.upper is not None or \
                not held_by_root(model, parent_joint, joint.parent):
            continue
        pose = poses[joint.child]
        if abs(float((pose.rot @ joint.axis)[2])) > 0.1:
            continue
        points = []
        for shape in model.link(joint.child).collisions:
            at = pose @ shape.pose
            if isinstance(shape.geometry, (Cylinder, Sphere)):
                points.append(at.pos - np.array([0.0, 0.0, shape.geometry.radius]))
            elif isinstance(shape.geometry, Mesh) and len(shape.geometry.vertices):
                world = np.asarray(shape.geometry.vertices) @ at.rot.T + at.pos
                points.append(world[int(np.argmin(world[:, 2]))])
        if points:
            out[joint.name] = min(points, key=lambda p: float(p[2]))
    return out


def _carried(points: list[np.ndarray]) -> bool:
    """Whether contact points hold a body up: three or more, not all on one line (the
    smallest singular value of the centred ground points, their spread across the line that
    fits them best, above 1 mm)."""
    if len(points) < 3:
        return False
    xy = np.array([p[:2] for p in points])
    xy = xy - xy.mean(axis=0)
    return bool(np.linalg.svd(xy, compute_uv=False)[-1] > 1e-3)


def choose_root(model: Model, choice: str) -> tuple[Model, str, str]:
    """The model with the root joint asked for.

    Returns:
        The model, the choice taken (``fixed``, ``free`` or ``planar``), and why, in a few
        words for the start-up line.

    Raises:
        ValueError: a choice not in :data:`ROOT_CHOICES`, or a free or planar root asked of a
            model whose root link is the world itself.
    """
    if choice not in ROOT_CHOICES:
        raise ValueError(f'{choice!r} is not one of {", ".join(ROOT_CHOICES)}')
    own = 'free' if model.root_joint == JointType.FREE else 'fixed'
    if choice == 'auto':
        if own == 'free' or model.root == 'world':
            return model, own, 'as the model file says'
        wheels, casters = ground_contacts(model)
        points = [*wheels.values(), *(c.point for c in casters)]
        if wheels and _carried(points):
            with_casters = f' with ball casters {_names(casters)}' if casters else ''
            return (dataclasses.replace(model, root_joint=JointType.FREE), 'free',
                    f'its wheels carry it ({", ".join(wheels)}){with_casters}')
        return model, 'fixed', 'as the model file says' + _not_carried(wheels, casters)
    if choice != 'fixed' and model.link(model.root).name == 'world':
        raise ValueError(f'the root link of {model.name} is the world itself; it cannot be '
                         f'{choice}')
    kind = JointType.FIXED if choice == 'fixed' else JointType.FREE
    changed = model if model.root_joint == kind else \
        dataclasses.replace(model, root_joint=kind)
    return changed, choice, 'as the root parameter asks'


def ground_contacts(model: Model) -> tuple[dict[str, np.ndarray], list[Caster]]:
    """The wheels (joint name -> contact point) and ball casters whose contact points are at
    the lowest level of them all (within :data:`LEVEL`)."""
    wheels, casters = wheel_contacts(model), ball_casters(model)
    heights = [float(p[2]) for p in wheels.values()] + [float(c.point[2]) for c in casters]
    if not heights:
        return {}, []
    low = min(heights) + LEVEL
    return ({n: p for n, p in wheels.items() if float(p[2]) <= low},
            [c for c in casters if float(c.point[2]) <= low])


def _names(casters: list[Caster]) -> str:
    return ', '.join(c.link for c in casters)


def _not_carried(wheels: dict, casters: list[Caster]) -> str:
    """Why wheels found do not free the root ('' when there are none)."""
    if not wheels:
        return ''
    found = ', '.join(wheels) + (f' and ball casters {_names(casters)}' if casters else '')
    count = len(wheels) + len(casters)
    return (f'; its wheels {found} touch the ground at {count} point{"s" * (count != 1)}, '
            'which do not carry it (three or more, not in one line); root:=free frees it')


def with_passive(model: Model, names: list[str]) -> Model:
    """The model with more passive joints (each a joint that takes commands).

    Raises:
        ValueError: a name that is no such joint.
    """
    commanded = {j.name for j in model.movable_joints if j.mimic is None}
    for name in names:
        if name not in commanded:
            raise ValueError(f'{name!r} is not a joint of {model.name} that takes commands')
    extra = tuple(n for n in dict.fromkeys(names) if n not in model.passive_joints)
    if not extra:
        return model
    return dataclasses.replace(model, passive_joints=tuple(model.passive_joints) + extra)
