"""Chrono YAML joints, motors and constraints, as connections between two bodies.

Facts from Chrono (``ChParserMbsYAML::ReadJointFrame``, ``ChJoint``, ``ChLinkLock*``,
``ChLinkMotor*``) this relies on:

* Joints are located in the model frame. REVOLUTE and PRISMATIC move about/along the frame's
  z = ``axis``; UNIVERSAL's frame has x = ``axis1`` (on body1) and y = ``axis2`` (on body2).
  Chrono's parser gives POINT_LINE and POINT_PLANE the identity frame: the line is the model
  x axis, the plane is normal to the model z axis. This loader takes ``axis`` as the line's
  direction or the plane's normal when it is given (Chrono ignores it).
* Joint and motor coordinates are the motion of body1's frame relative to body2's (body2 is
  the master). Motors act along/about z = ``axis``; ``guide`` (LINEAR: PRISMATIC, SPHERICAL,
  FREE) and ``spindle`` (ROTATION: REVOLUTE, CYLINDRICAL, FREE) say what else they constrain.
* ``bushing_data`` makes a joint compliant: a 6-axis spring-damper in the joint frame with
  the "constrained" stiffness on the joint's constrained axes and the ``DOF`` values on its
  free rotations (REVOLUTE: z; UNIVERSAL: x, y; SPHERICAL: all). PRISMATIC, POINT_LINE and
  POINT_PLANE cannot be bushings.
* Constraints: DISTANCE keeps ``point1`` and ``point2`` at their distance. Chrono's parser
  does not implement REVOLUTE-SPHERICAL and REVOLUTE-TRANSLATIONAL and its schema has no key
  for their revolute axis: this loader reads ``axis`` (the revolute axis on body1) for both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...model import Actuation, Function, MotorKind, Pose, axis_angle_matrix
from .bodies import rotation_to_z
from .node import Node, read_function

__all__ = ['Dof', 'MotorSpec', 'Connection', 'ConstraintSpec', 'read_joint', 'read_motor',
           'read_constraint']

_X, _Y, _Z = np.eye(3)


@dataclass
class Dof:
    """One elementary freedom of a connection, in the connection frame."""

    kind: str  # 'hinge', 'slide' or 'ball'
    axis: np.ndarray | None
    suffix: str = ''
    stiffness: float = 0.0
    damping: float = 0.0


@dataclass
class MotorSpec:
    kind: MotorKind
    actuation: Actuation
    function: Function


@dataclass
class Connection:
    """A joint or motor: the freedoms of body1 relative to body2, from body2's side.

    Attributes:
        frame: the connection frame in the model frame.
        dofs: the freedoms, in order from body2 (empty: the bodies are locked).
        closure: the loop-closure type that holds the same freedoms (None: none does).
        closure_on_body1: the closure's chain starts on body1 (else on body2).
        closure_axis: the closure axis in the connection frame.
        driven: index in ``dofs`` of the freedom a motor drives.
        bushing: (stiffness, damping), 6 values each, for a compliant joint.
    """

    name: str
    kind: str  # 'joint', 'bushing' or 'motor'
    body1: str
    body2: str
    frame: Pose
    source: str
    dofs: list[Dof] = field(default_factory=list)
    closure: str | None = None
    closure_on_body1: bool = False
    closure_axis: np.ndarray = field(default_factory=lambda: _Z.copy())
    motor: MotorSpec | None = None
    driven: int = 0
    bushing: tuple[np.ndarray, np.ndarray] | None = None


@dataclass
class ConstraintSpec:
    name: str
    type: str
    body1: str
    body2: str
    point1: np.ndarray
    point2: np.ndarray
    axis: np.ndarray | None
    source: str


def frame_with_x(direction) -> np.ndarray:
    """A rotation whose x axis is ``direction`` (unit)."""
    return rotation_to_z(direction) @ axis_angle_matrix((0, 1, 0), -np.pi / 2)


def _universal_frame(node: Node) -> np.ndarray:
    x = node.direction('axis1', required=True)
    y = node.direction('axis2', required=True)
    z = np.cross(x, y)
    if np.linalg.norm(z) < 1e-6:
        raise node.error('"axis1" and "axis2" are parallel')
    z /= np.linalg.norm(z)
    return np.column_stack([x, np.cross(z, x), z])


_JOINT_TYPES = ('LOCK', 'REVOLUTE', 'SPHERICAL', 'PRISMATIC', 'UNIVERSAL', 'POINT_LINE',
                'POINT_PLANE')


def _bodies(node: Node) -> tuple[str, str]:
    body1 = node.string('body1', required=True)
    body2 = node.string('body2', required=True)
    if body1 == body2:
        raise node.error(f'body1 and body2 are the same body {body1!r}')
    return body1, body2


def read_joint(node: Node) -> Connection:
    """One entry of ``joints``."""
    name = node.string('name', required=True)
    node.what = f'joint {name!r}'
    kind = node.choice('type', _JOINT_TYPES, required=True)
    body1, body2 = _bodies(node)
    pos = node.vector('location', required=True)
    rot, dofs, closure, axis = _joint_freedoms(node, kind)
    conn = Connection(name, 'joint', body1, body2, Pose(pos, rot), f'{node.ctx.path}:{node.line}',
                      dofs, closure, kind == 'UNIVERSAL', axis)
    bushing = node.child('bushing_data')
    if bushing is not None:
        if kind in ('PRISMATIC', 'POINT_LINE', 'POINT_PLANE'):
            raise node.error(f'a {kind} joint cannot be a bushing (Chrono allows bushing_data on '
                             'LOCK, REVOLUTE, SPHERICAL and UNIVERSAL joints)')
        _make_bushing(conn, bushing, kind)
    node.warn_unused()
    return conn


def _joint_freedoms(node: Node, kind: str):
    """Frame rotation, freedoms, closure type and closure axis of a kinematic joint."""
    if kind == 'LOCK':
        return np.eye(3), [], 'weld', _Z
    if kind == 'SPHERICAL':
        return np.eye(3), [Dof('ball', None)], 'ball', _Z
    if kind in ('REVOLUTE', 'PRISMATIC'):
        rot = rotation_to_z(node.direction('axis', required=True))
        dof = 'hinge' if kind == 'REVOLUTE' else 'slide'
        return rot, [Dof(dof, _Z)], 'hinge' if dof == 'hinge' else 'slider', _Z
    if kind == 'UNIVERSAL':
        return _universal_frame(node), [Dof('hinge', _Y, '_axis2'), Dof('hinge', _X, '_axis1')], \
            'universal', _Z
    if kind == 'POINT_LINE':
        rot = frame_with_x(node.direction('axis', default=(1, 0, 0)))
        return rot, [Dof('slide', _X, '_slide'), Dof('ball', None, '_ball')], 'point_line', _X
    rot = rotation_to_z(node.direction('axis', default=(0, 0, 1)))
    return rot, [Dof('slide', _X, '_x'), Dof('slide', _Y, '_y'), Dof('ball', None, '_ball')], \
        'point_plane', _Z


def _make_bushing(conn: Connection, node: Node, kind: str) -> None:
    """Replace the joint's freedoms by six compliant ones."""
    k = np.array([node.number('stiffness_linear', required=True, minimum=0.0)] * 3 +
                 [node.number('stiffness_rotational', required=True, minimum=0.0)] * 3)
    d = np.array([node.number('damping_linear', required=True, minimum=0.0)] * 3 +
                 [node.number('damping_rotational', required=True, minimum=0.0)] * 3)
    free = {'LOCK': (), 'SPHERICAL': (3, 4, 5), 'REVOLUTE': (5,), 'UNIVERSAL': (3, 4)}[kind]
    dof = node.child('DOF', f'{node.what} DOF')
    k_dof = d_dof = 0.0
    if dof is not None:
        k_dof = dof.number('stiffness_rotational', required=True, minimum=0.0)
        d_dof = dof.number('damping_rotational', required=True, minimum=0.0)
        for key in ('stiffness_linear', 'damping_linear'):
            value = dof.number(key, required=True, minimum=0.0)
            if value:
                dof.warn(f'"{key}" {value:g} is not used: a {kind} joint has no free '
                         'translation (Chrono does not use it either)')
        dof.warn_unused()
    for i in free:
        k[i], d[i] = k_dof, d_dof
    node.warn_unused()
    axes = (_X, _Y, _Z)
    conn.dofs = [Dof('slide', axes[i], f'_t{"xyz"[i]}', k[i], d[i]) for i in range(3)] + \
        [Dof('hinge', axes[i], f'_r{"xyz"[i]}', k[3 + i], d[3 + i]) for i in range(3)]
    conn.kind = 'bushing'
    conn.closure = None
    conn.bushing = (k, d)


_GUIDES = ('FREE', 'PRISMATIC', 'SPHERICAL')
_SPINDLES = ('FREE', 'REVOLUTE', 'CYLINDRICAL')


def read_motor(node: Node) -> Connection:
    """One entry of ``motors``: a joint whose main freedom is driven by a function."""
    name = node.string('name', required=True)
    node.what = f'motor {name!r}'
    kind = MotorKind(node.choice('type', ('LINEAR', 'ROTATION'), required=True).lower())
    body1, body2 = _bodies(node)
    frame = Pose(node.vector('location', required=True),
                 rotation_to_z(node.direction('axis', required=True)))
    actuation = Actuation(node.choice('actuation_type', ('POSITION', 'SPEED', 'FORCE'),
                                      required=True).lower())
    fnode = node.child('actuation_function', f'{node.what} actuation_function', required=True)
    spec = MotorSpec(kind, actuation, read_function(fnode))
    if kind == MotorKind.LINEAR:
        guide = node.choice('guide', _GUIDES, default='PRISMATIC')
        _misplaced(node, 'spindle', 'LINEAR', f'the guide is {guide}')
        dofs = {'PRISMATIC': [Dof('slide', _Z)],
                'SPHERICAL': [Dof('slide', _Z), Dof('ball', None, '_ball')],
                'FREE': [Dof('slide', _Z), Dof('slide', _X, '_x'), Dof('slide', _Y, '_y'),
                         Dof('ball', None, '_ball')]}[guide]
        closure = 'slider' if guide == 'PRISMATIC' else None
    else:
        spindle = node.choice('spindle', _SPINDLES, default='REVOLUTE')
        _misplaced(node, 'guide', 'ROTATION', f'the spindle is {spindle}')
        dofs = {'REVOLUTE': [Dof('hinge', _Z)],
                'CYLINDRICAL': [Dof('slide', _Z, '_slide'), Dof('hinge', _Z)],
                'FREE': [Dof('slide', _X, '_x'), Dof('slide', _Y, '_y'), Dof('slide', _Z, '_z'),
                         Dof('hinge', _Z), Dof('hinge', _X, '_rx'),
                         Dof('hinge', _Y, '_ry')]}[spindle]
        closure = {'REVOLUTE': 'hinge', 'CYLINDRICAL': 'piston'}.get(spindle)
    driven = next(i for i, dof in enumerate(dofs) if dof.suffix == '')
    node.warn_unused()
    return Connection(name, 'motor', body1, body2, frame, f'{node.ctx.path}:{node.line}', dofs,
                      closure, False, _Z, spec, driven)


def _misplaced(node: Node, key: str, kind: str, result: str) -> None:
    value = node.string(key)
    if value is not None:
        node.warn(f'"{key}: {value}" does not apply to a {kind} motor; ignored ({result})')


_CONSTRAINTS = ('DISTANCE', 'REVOLUTE-SPHERICAL', 'REVOLUTE-TRANSLATIONAL')


def read_constraint(node: Node) -> ConstraintSpec:
    """One entry of ``constraints``."""
    name = node.string('name', required=True)
    node.what = f'constraint {name!r}'
    raw = node.string('type', required=True).upper().replace('_', '-')
    if raw not in _CONSTRAINTS:
        raise node.error(f'"type" is {node.raw("type")!r}; expected one of '
                         f'{", ".join(_CONSTRAINTS)}', unsupported=True)
    body1, body2 = _bodies(node)
    p1 = node.vector('point1', required=True)
    p2 = node.vector('point2', required=True)
    length = float(np.linalg.norm(p2 - p1))
    if length < 1e-9:
        raise node.error('"point1" and "point2" coincide (a SPHERICAL joint holds that)')
    axis = None
    if raw != 'DISTANCE':
        if not node.has('axis'):
            raise node.error(f'a {raw} constraint needs "axis", the revolute axis on body1 '
                             '(Chrono\'s schema has no key for it)')
        axis = node.direction('axis')
        if abs(float(axis @ (p2 - p1))) > 1e-6 * length:
            raise node.error('"point2" must lie in the plane through "point1" normal to "axis"')
    node.warn_unused()
    return ConstraintSpec(name, raw, body1, body2, p1, p2, axis, f'{node.ctx.path}:{node.line}')
