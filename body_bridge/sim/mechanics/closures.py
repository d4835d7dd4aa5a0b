"""Loop closures in MuJoCo: any joint type, closing a loop the kinematic tree cannot hold.

A closure of type T between ``link1`` (at ``pose1``) and ``link2`` (at ``pose2``) becomes a
short chain of *virtual* bodies hanging from link1 at pose1, whose joints give the freedoms of T,
and an equality constraint that ties the chain's end to link2 at pose2. The virtual bodies carry
a negligible mass and do not appear in the URDF or in TF.

Freedoms per type, in the closure frame (pose1 turned so that its z is ``axis``; use
``pose_for_frame`` when the frame's x and y matter). ``L`` is ``closure.length``:

======================  =============================================  =====================
type                    chain from link1                               tie to link2
======================  =============================================  =====================
weld                    none                                           weld
ball                    none                                           connect (point)
hinge                   hinge z                                        weld
slider                  slide z                                        weld
piston                  slide z, hinge z (cylindrical)                 weld
universal               hinge x, hinge y                               weld
point_line              slide z                                        connect (point)
point_plane             slide x, slide y                               connect (point)
distance                ball, rod of length L along x                  connect at (L, 0, 0)
revolute_spherical      hinge z, rod of length L along x               connect at (L, 0, 0)
revolute_translational  hinge z, then at (L, 0, 0) slide y             weld
======================  =============================================  =====================

Both frames must coincide at the reference configuration (the model is assembled there),
except for the last three types, where pose2 is at (L, 0, 0) of the closure frame; the
equality holds the relative pose it finds there.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ...model import LoopClosure, Pose

__all__ = ['add_closure', 'closure_gaps', 'driven_joint', 'pose_for_frame',
           'weigh_virtual_bodies', 'weigh_closure_drives', 'CLOSURE_TYPES', 'VIRTUAL_MASS']

#: Mass [kg] and inertia [kg m^2] of each virtual body of a closure chain.
VIRTUAL_MASS = 1e-4
_VIRTUAL_INERTIA = 1e-8
#: Armature of the virtual joints: keeps the virtual degrees of freedom well conditioned.
_VIRTUAL_ARMATURE = 1e-6

_X, _Y, _Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
_AT_L = 'L'  # a chain body placed at (L, 0, 0) of the previous one
#: type -> (chain joints (kind, axis[, offset]), tie, tie point at the chain end)
_CHAINS = {
    'weld': ((), 'weld', None),
    'ball': ((), 'connect', None),
    'hinge': ((('hinge', _Z),), 'weld', None),
    'slider': ((('slide', _Z),), 'weld', None),
    'piston': ((('slide', _Z), ('hinge', _Z)), 'weld', None),
    'universal': ((('hinge', _X), ('hinge', _Y)), 'weld', None),
    'point_line': ((('slide', _Z),), 'connect', None),
    'point_plane': ((('slide', _X), ('slide', _Y)), 'connect', None),
    'distance': ((('ball', None),), 'connect', _AT_L),
    'revolute_spherical': ((('hinge', _Z),), 'connect', _AT_L),
    'revolute_translational': ((('hinge', _Z), ('slide', _Y, _AT_L)), 'weld', None),
}
CLOSURE_TYPES = frozenset(_CHAINS)
#: The freedom a motor on a closure drives: (type, motor kind) -> index in the chain.
_DRIVEN = {('hinge', 'rotation'): 0, ('slider', 'linear'): 0, ('piston', 'rotation'): 1,
           ('piston', 'linear'): 0}


def _frame_with_z(axis) -> np.ndarray:
    """A rotation whose third column is ``axis`` (its first from a fixed helper axis)."""
    z = np.asarray(axis, dtype=float)
    z = z / np.linalg.norm(z)
    helper = np.array(_X) if abs(z[0]) < 0.9 else np.array(_Y)
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def pose_for_frame(frame: Pose) -> Pose:
    """The ``pose1`` (with ``axis`` +z) whose closure frame is ``frame`` exactly.

    For the types whose chain uses the frame's x and y (universal, point_plane, distance,
    revolute_spherical, revolute_translational).
    """
    return Pose(frame.pos, frame.rot @ _frame_with_z(_Z).T)


def driven_joint(closure: LoopClosure, motor_kind: str) -> str:
    """The MuJoCo joint of the closure's chain that a motor of ``motor_kind`` drives.

    Raises:
        ValueError: the closure type has no such freedom.
    """
    index = _DRIVEN.get((closure.type, motor_kind))
    if index is None:
        raise ValueError(f'closure {closure.name!r} ({closure.type}) has no {motor_kind} '
                         'freedom a motor could drive')
    kind = _CHAINS[closure.type][0][index][0]
    return f'{closure.name}:{kind}{index}'


def add_closure(spec: mujoco.MjSpec, closure: LoopClosure, length: float = 0.0,
                timestep: float = 0.001) -> None:
    """Add a loop closure to a spec whose bodies are named after the model's links.

    Args:
        spec: the spec (link bodies already added).
        closure: the closure.
        length: the rod length [m] of the types that have one (default ``closure.length``).
        timestep: the integrator step [s]; the constraint is made as stiff as it allows.

    Raises:
        ValueError: an unknown closure type.
    """
    if closure.type not in _CHAINS:
        raise ValueError(f'closure {closure.name!r}: type {closure.type!r} is not one of '
                         f'{", ".join(sorted(_CHAINS))}')
    joints, tie, tie_at = _CHAINS[closure.type]
    length = length or closure.length
    link1 = spec.body(closure.link1)
    # The closure frame on link1: pose1, turned so that z is the closure axis.
    frame = closure.pose1 @ Pose(np.zeros(3), _frame_with_z(closure.axis))
    parent, anchor = link1, frame
    for index, (kind, axis, *offset) in enumerate(joints):
        if offset:
            anchor = anchor @ Pose((length, 0.0, 0.0))
        parent = _virtual_body(parent, anchor, closure, index, kind, axis)
        anchor = Pose()
    end_point = (length, 0.0, 0.0) if tie_at == _AT_L else (0.0, 0.0, 0.0)
    eq = spec.add_equality()
    eq.name = closure.name
    eq.info = closure.source or ''
    eq.objtype = mujoco.mjtObj.mjOBJ_BODY
    if parent is link1:
        # No chain: tie link1 at its closure frame directly.
        eq.name1 = closure.link1
        point = frame.apply(end_point)
    else:
        eq.name1 = parent.name
        point = np.asarray(end_point, dtype=float)
    eq.name2 = closure.link2
    # Stiff: a time constant of two steps (the stable minimum), critically damped, and an
    # impedance close to 1 (MuJoCo's default 0.02 s lets a loop open by millimetres).
    eq.solref = [2.0 * timestep, 1.0]
    eq.solimp = [0.9999, 0.9999, 0.001, 0.5, 2.0]
    if tie == 'connect':
        eq.type = mujoco.mjtEq.mjEQ_CONNECT
        eq.data[:3] = [float(x) for x in point]
    else:
        eq.type = mujoco.mjtEq.mjEQ_WELD
        eq.data[:3] = [float(x) for x in closure.pose2.pos]  # a weld's anchor is on body2
        eq.data[3:10] = [0.0] * 7  # keep the relative pose of the reference configuration
        eq.data[10] = 1.0


def _virtual_body(parent, anchor: Pose, closure: LoopClosure, index: int, kind: str, axis):
    body = parent.add_body()
    body.name = f'{closure.name}:virtual{index}'
    body.info = closure.source or ''
    body.pos = [float(x) for x in anchor.pos]
    body.quat = [float(x) for x in anchor.quat()]
    body.explicitinertial = True
    body.mass = VIRTUAL_MASS
    body.ipos = [0.0, 0.0, 0.0]
    body.iquat = [1.0, 0.0, 0.0, 0.0]
    body.inertia = [_VIRTUAL_INERTIA] * 3
    joint = body.add_joint()
    joint.name = f'{closure.name}:{kind}{index}'
    joint.info = closure.source or ''
    joint.type = {'hinge': mujoco.mjtJoint.mjJNT_HINGE, 'slide': mujoco.mjtJoint.mjJNT_SLIDE,
                  'ball': mujoco.mjtJoint.mjJNT_BALL}[kind]
    if axis is not None:
        joint.axis = list(axis)
    joint.armature = _VIRTUAL_ARMATURE
    joint.limited = mujoco.mjtLimited.mjLIMITED_FALSE
    return body


def closure_gaps(mj: mujoco.MjModel, data: mujoco.MjData) -> dict[str, float]:
    """How far each active equality constraint is open, by its MuJoCo name: the norm of the
    first three rows of its residual (a closure's tie: the gap [m] between its points).

    Every active equality is listed, not only the closures' ties: a mimic joint's coupling and
    a motor's drive appear under their own names, each with its one-row residual (a joint
    equality's in rad or m). ``data`` must hold a forward pass (``mj_forward`` or a step) of
    the current state.
    """
    gaps = {}
    rows = np.flatnonzero(data.efc_type[:data.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY)
    for eq_id in np.unique(data.efc_id[rows]):
        name = mj.eq(int(eq_id)).name
        eq_rows = rows[data.efc_id[rows] == eq_id][:3]
        gaps[name] = float(np.linalg.norm(data.efc_pos[eq_rows]))
    return gaps


def weigh_virtual_bodies(mj: mujoco.MjModel, model, prefix: str = '') -> None:
    """Make MuJoCo treat each closure's tie as if it joined link1 and link2 directly.

    MuJoCo softens a constraint by its estimate of the inverse inertia it acts on (from the
    bodies' ``body_invweight0``); for the light virtual bodies that estimate is huge, so the
    rotation of a weld at the end of a chain would hardly be held. Each virtual body gets the
    estimate of the link its chain hangs from instead (the motion itself is unchanged).
    ``prefix`` is the model's MuJoCo name prefix in a world of several models.
    """
    for closure in model.closures:
        base = mj.body(prefix + closure.link1).id
        for index in range(len(_CHAINS[closure.type][0])):
            body = mj.body(f'{prefix}{closure.name}:virtual{index}').id
            mj.body_invweight0[body] = mj.body_invweight0[base]


def weigh_closure_drives(m: mujoco.MjModel, d: mujoco.MjData, model, prefix: str,
                         dofs: list[int]) -> None:
    """Give each motor-driven closure joint (its dof in ``dofs``) the inverse inertia the
    loop really has.

    MuJoCo softens a constraint by its estimate of the inverse inertia it acts on; for a
    virtual joint of a closure chain that estimate is the virtual body's (tiny) one, which
    would make the motor's equality soft. The constrained value, at the current (reference)
    configuration, is ``e M^-1 e - (J M^-1 e)^T (J M^-1 J^T)^+ (J M^-1 e)`` with ``J`` the
    loop's constraint rows.
    """
    mujoco.mj_forward(m, d)
    full = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, full)
    inverse = np.linalg.inv(full)
    jac = np.zeros((d.nefc, m.nv))
    if mujoco.mj_isSparse(m):
        mujoco.mju_sparse2dense(jac, d.efc_J, d.efc_J_rownnz, d.efc_J_rowadr, d.efc_J_colind)
    else:
        jac[:] = d.efc_J[:d.nefc * m.nv].reshape(d.nefc, m.nv)
    closures = {m.eq(prefix + c.name).id for c in model.closures}
    rows = [i for i in range(d.nefc)
            if d.efc_type[i] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
            and int(d.efc_id[i]) in closures]
    loop = jac[rows]
    for dof in dofs:
        e = inverse[:, dof]
        coupling = loop @ e
        effective = e[dof] - coupling @ np.linalg.pinv(loop @ inverse @ loop.T) @ coupling
        m.dof_invweight0[dof] = max(float(effective), 1e-9)
