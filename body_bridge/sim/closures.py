"""Loop closures in MuJoCo: any joint type, closing a loop the kinematic tree cannot hold.

A closure of type T between ``link1`` (at ``pose1``) and ``link2`` (at ``pose2``) becomes a
short chain of *virtual* bodies hanging from link1 at pose1, whose joints give the freedoms of T,
and an equality constraint that ties the chain's end to link2 at pose2. The virtual bodies carry
a negligible mass and do not appear in the URDF or in TF.

Freedoms per type, in the closure frame (pose1; ``axis`` is its z unless given):

=================  =============================================  =====================
type               chain from link1                               tie to link2
=================  =============================================  =====================
weld               none                                           weld
ball               none                                           connect (point)
hinge              hinge z                                        weld
slider             slide z                                        weld
piston             slide z, hinge z (cylindrical)                 weld
universal          hinge x, hinge y                               weld
point_line         slide z                                        connect (point)
point_plane        slide x, slide y                               connect (point)
distance           ball, rod of ``length`` along x                connect (point)
=================  =============================================  =====================

Both frames must coincide at the reference configuration (the model is assembled there); the
equality holds the relative pose it finds there.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ..model import LoopClosure, Pose

__all__ = ['add_closure', 'CLOSURE_TYPES', 'VIRTUAL_MASS']

#: Mass [kg] and inertia [kg m^2] of each virtual body of a closure chain.
VIRTUAL_MASS = 1e-4
_VIRTUAL_INERTIA = 1e-8
#: Armature of the virtual joints: keeps the virtual degrees of freedom well conditioned.
_VIRTUAL_ARMATURE = 1e-6

_X, _Y, _Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
_CHAINS = {
    'weld': ((), 'weld'),
    'ball': ((), 'connect'),
    'hinge': ((('hinge', _Z),), 'weld'),
    'slider': ((('slide', _Z),), 'weld'),
    'piston': ((('slide', _Z), ('hinge', _Z)), 'weld'),
    'universal': ((('hinge', _X), ('hinge', _Y)), 'weld'),
    'point_line': ((('slide', _Z),), 'connect'),
    'point_plane': ((('slide', _X), ('slide', _Y)), 'connect'),
    'distance': ((('ball', None),), 'connect'),
}
CLOSURE_TYPES = frozenset(_CHAINS)


def _frame_with_z(axis) -> np.ndarray:
    """A rotation whose third column is ``axis``."""
    z = np.asarray(axis, dtype=float)
    z = z / np.linalg.norm(z)
    helper = np.array(_X) if abs(z[0]) < 0.9 else np.array(_Y)
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def add_closure(spec: mujoco.MjSpec, closure: LoopClosure, length: float = 0.0,
                timestep: float = 0.001) -> None:
    """Add a loop closure to a spec whose bodies are named after the model's links.

    Args:
        spec: the spec (link bodies already added).
        closure: the closure.
        length: for ``distance`` closures, the rod length [m] (the points' distance).
        timestep: the integrator step [s]; the constraint is made as stiff as it allows.

    Raises:
        ValueError: an unknown closure type.
    """
    if closure.type not in _CHAINS:
        raise ValueError(f'closure {closure.name!r}: type {closure.type!r} is not one of '
                         f'{", ".join(sorted(_CHAINS))}')
    joints, tie = _CHAINS[closure.type]
    link1 = spec.body(closure.link1)
    # The closure frame on link1: pose1, turned so that z is the closure axis.
    frame = closure.pose1 @ Pose(np.zeros(3), _frame_with_z(closure.axis))
    parent, anchor = link1, frame
    for index, (kind, axis) in enumerate(joints):
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
        parent, anchor = body, Pose()
    end_point = (length, 0.0, 0.0) if closure.type == 'distance' else (0.0, 0.0, 0.0)
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
    eq.solimp = [0.99, 0.999, 0.001, 0.5, 2.0]
    if tie == 'connect':
        eq.type = mujoco.mjtEq.mjEQ_CONNECT
        eq.data[:3] = [float(x) for x in point]
    else:
        eq.type = mujoco.mjtEq.mjEQ_WELD
        eq.data[:3] = [float(x) for x in closure.pose2.pos]  # a weld's anchor is on body2
        eq.data[3:10] = [0.0] * 7  # keep the relative pose of the reference configuration
        eq.data[10] = 1.0
