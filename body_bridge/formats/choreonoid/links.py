"""Choreonoid ``Link`` nodes: placement, joint and mass.

Facts from the Body file reference and Choreonoid's loader:

* ``translation``/``rotation`` place the link frame in its parent's; the joint sits at the
  link origin with ``joint_axis`` in the link frame (default +Z; a vector or X, Y, Z, -X,
  -Y, -Z). ``joint_type``: fixed, free, revolute, prismatic (or ``slide``),
  pseudo_continuous_track.
* ``joint_range`` [lower, upper] or one number for +-it, ``unlimited`` for no bound;
  ``max_joint_velocity`` (one number) or ``joint_velocity_range`` (wins). Angles of revolute
  joints are in the file's angle unit; ``joint_displacement`` is in radians and wins over
  ``joint_angle``. Armature is ``rotor_inertia * gear_ratio**2``.
* Mass: the link's ``mass``, ``center_of_mass`` and ``inertia`` combine with its RigidBody
  nodes. Keys the link omits are taken, when it has no RigidBody, from Choreonoid's Link
  defaults (centre 0, mass 0, inertia the identity); otherwise they are zero. A total mass
  of 0 leaves no mass (centre and inertia 0).
* ``import`` (a mapping or a list of them, usually an alias) adds its keys to the link;
  the link's own keys win.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...model import Inertial, Pose
from .elements import LinkParts, read_elements, read_inertia
from .nodes import Context, Frame, Node, kind

__all__ = ['LinkSpec', 'read_link', 'read_joint', 'combine_masses', 'import_keys',
           'JOINT_TYPES', 'LINK_KEYS', 'JOINT_KEYS']

JOINT_TYPES = {'fixed': 'fixed', 'free': 'free', 'revolute': 'revolute',
               'prismatic': 'prismatic', 'slide': 'prismatic',
               'pseudo_continuous_track': 'pseudo_continuous_track',
               'pseudoContinuousTrack': 'pseudo_continuous_track'}

_ACTUATION_MODES = {
    'jointEffort': 'effort', 'jointTorque': 'effort', 'jointForce': 'effort',
    'jointDisplacement': 'position', 'jointAngle': 'position', 'jointVelocity': 'velocity',
    'jointSurfaceVelocity': 'surface_velocity', 'linkPosition': 'link_position',
}

JOINT_KEYS = frozenset({
    'joint_type', 'joint_axis', 'joint_range', 'joint_angle', 'joint_displacement',
    'max_joint_velocity', 'joint_velocity_range', 'rotor_inertia', 'gear_ratio', 'joint_id',
    'actuation_mode', 'max_joint_effort', 'joint_effort_range',
})
LINK_KEYS = JOINT_KEYS | {'type', 'name', 'parent', 'translation', 'rotation', 'mass',
                          'center_of_mass', 'inertia', 'elements', 'joint_name', 'import',
                          'material'}


@dataclass
class LinkSpec:
    """A link as read from a file, before the model is assembled (mutable on purpose)."""

    name: str
    parent: str | None
    offset: Pose
    source: str
    joint_type: str = 'fixed'
    axis: np.ndarray | None = None
    lower: float | None = None
    upper: float | None = None
    velocity: tuple[float, float] | None = None
    effort: tuple[float, float] | None = None
    initial: float = 0.0
    armature: float = 0.0
    joint_id: int | None = None
    joint_name: str | None = None
    actuation: str | None = None
    inertial: Inertial | None = None
    parts: LinkParts = field(default_factory=lambda: LinkParts(''))
    line: int | None = None
    #: The contact material the link names (Choreonoid's material table), or None.
    material: str | None = None
    #: Shoes of the ContinuousTrack chain this link approximates (0: not one).
    shoes: int = 0


def import_keys(node_data: dict, ctx: Context, line: int | None) -> dict | None:
    """The keys an ``import`` value adds to a link (earlier imports win over later ones)."""
    value = node_data.get('import')
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    merged: dict = {}
    for item in reversed(items):
        if not isinstance(item, dict):
            raise Node({}, ctx, line).error(f'import must be a mapping or a list of mappings, '
                                            f'found {kind(item)}')
        merged.update(item)
    return merged


def read_link(node: Node) -> LinkSpec:
    """A Link node (its ``import`` already merged into ``node``)."""
    name = node.string('name')
    if not name:
        raise node.error('a link has no name')
    rot = node.rotation()
    spec = LinkSpec(name=name, parent=node.string('parent'),
                    offset=Pose(_or_zero(node.translation()), np.eye(3) if rot is None else rot),
                    source=node.where(), line=node.line, parts=LinkParts(name))
    spec.joint_name = node.string('joint_name')
    spec.material = node.string('material')
    read_joint(node, spec)
    elements = node.raw('elements')
    if elements is not None:
        read_elements(elements, Frame(), spec.parts, node.ctx, node.at('elements'))
    with np.errstate(over='ignore', invalid='ignore'):
        spec.inertial = combine_masses(_link_masses(node, spec))
    if spec.inertial is not None and not (
            np.isfinite(spec.inertial.mass) and np.all(np.isfinite(spec.inertial.com))
            and np.all(np.isfinite(spec.inertial.inertia))):
        raise node.error(f'link {name!r}: its mass properties overflow (numbers too large)')
    node.use('import')
    return spec


def _or_zero(value):
    return np.zeros(3) if value is None else value


def _link_masses(node: Node, spec: LinkSpec) -> list:
    masses = list(spec.parts.masses)
    if not node.has('mass', 'center_of_mass', 'inertia'):
        return masses
    alone = not masses
    mass = node.number('mass', default=0.0)
    if mass < 0:
        raise node.error(f'mass must not be negative, found {mass:g}', 'mass')
    com = node.vector('center_of_mass', default=(0, 0, 0))
    if node.has('inertia'):
        inertia = read_inertia(node)
    elif alone and mass > 0:
        inertia = np.eye(3)
        node.ctx.warn(node.line, f'link {spec.name!r} gives a mass but no inertia; Choreonoid\'s '
                      'default inertia (the identity, 1 kg m^2 about each axis) was used')
    else:
        inertia = np.zeros((3, 3))
    masses.append((mass, com, inertia))
    return masses


def combine_masses(masses) -> Inertial | None:
    """Rigid bodies given in one link frame as one mass [kg], centre [m], inertia [kg m^2]."""
    if not masses:
        return None
    total = sum(m for m, _, _ in masses)
    if total <= 0.0:
        return None
    com = sum(m * c for m, c, _ in masses) / total
    inertia = np.zeros((3, 3))
    for m, c, i in masses:
        d = c - com
        inertia += i + m * (float(d @ d) * np.eye(3) - np.outer(d, d))
    return Inertial(total, com, inertia)


def read_joint(node: Node, spec: LinkSpec) -> None:
    """Update ``spec`` with the joint keys ``node`` gives (others keep their value)."""
    if node.has('joint_id'):
        spec.joint_id = node.integer('joint_id')
        if spec.joint_id < 0:
            raise node.error(f'joint_id must not be negative, found {spec.joint_id}', 'joint_id')
    if node.has('joint_type'):
        value = node.string('joint_type')
        if value not in JOINT_TYPES:
            raise node.error(f'joint_type {value!r} is not one of fixed, free, revolute, '
                             'prismatic, pseudo_continuous_track', 'joint_type')
        spec.joint_type = JOINT_TYPES[value]
    if node.has('joint_axis'):
        spec.axis = _axis(node, 'joint_axis')
    if node.has('actuation_mode'):
        _actuation(node, spec)
    angular = spec.joint_type == 'revolute'
    scale = node.ctx.angle_scale if angular else 1.0
    if node.has('joint_angle'):
        spec.initial = node.number('joint_angle') * node.ctx.angle_scale
    if node.has('joint_displacement'):
        spec.initial = node.number('joint_displacement')
    if node.has('joint_range'):
        spec.lower, spec.upper = _range(node, scale)
    if node.has('max_joint_velocity'):
        v = _magnitude(node, 'max_joint_velocity') * scale
        spec.velocity = (-v, v)
    if node.has('joint_velocity_range'):
        low, high = node.vector('joint_velocity_range', size=2) * scale
        spec.velocity = (float(low), float(high))
    if node.has('max_joint_effort'):
        e = _magnitude(node, 'max_joint_effort')
        spec.effort = (-e, e)
    if node.has('joint_effort_range'):
        low, high = node.vector('joint_effort_range', size=2)
        spec.effort = (float(low), float(high))
    if node.has('rotor_inertia', 'gear_ratio'):
        rotor = node.number('rotor_inertia', default=0.0)
        gear = node.number('gear_ratio', default=1.0)
        spec.armature = rotor * gear * gear


def _magnitude(node: Node, key: str) -> float:
    """A maximum: a negative one is taken by its magnitude, with a warning."""
    value = node.number(key)
    if value < 0:
        node.ctx.warn(node.at(key), f'{key} {value:g} is negative; {-value:g} is used')
    return abs(value)


def _axis(node: Node, key: str) -> np.ndarray:
    raw = node.raw(key)
    if isinstance(raw, str):
        named = {'X': (1, 0, 0), 'Y': (0, 1, 0), 'Z': (0, 0, 1)}
        text = raw.strip().upper()
        sign = -1.0 if text.startswith('-') else 1.0
        letter = text.lstrip('+-')
        if letter not in named:
            raise node.error(f'{key} {raw!r} is not a vector or one of X, Y, Z, -X, -Y, -Z',
                             key)
        return sign * np.array(named[letter], dtype=float)
    axis = node.vector(key)
    norm = float(np.linalg.norm(axis))
    if norm < 1e-9:
        raise node.error(f'{key} is the zero vector', key)
    if abs(norm - 1.0) > 1e-6:
        node.ctx.warn(node.at(key), f'{key} {axis.tolist()} is not a unit vector; normalised')
    return axis / norm


def _actuation(node: Node, spec: LinkSpec) -> None:
    mode = node.string('actuation_mode')
    if mode not in _ACTUATION_MODES:
        raise node.error(f'actuation_mode {mode!r} is not one of '
                         f'{", ".join(_ACTUATION_MODES)}', 'actuation_mode')
    spec.actuation = _ACTUATION_MODES[mode]
    if spec.actuation == 'surface_velocity':
        spec.joint_type = 'pseudo_continuous_track'  # the deprecated way to say it


def _range(node: Node, scale: float) -> tuple[float | None, float | None]:
    raw = node.raw('joint_range')
    if isinstance(raw, list):
        if len(raw) != 2:
            raise node.error('joint_range must be [lower, upper] or one number', 'joint_range')
        return _limit(node, raw[0], scale), _limit(node, raw[1], scale)
    upper = _limit(node, raw, scale)
    return (None if upper is None else -upper), upper


def _limit(node: Node, value, scale: float) -> float | None:
    if value == 'unlimited':
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise node.error(f'joint_range value {value!r} is not a number or "unlimited"',
                         'joint_range')
    return float(value) * scale
