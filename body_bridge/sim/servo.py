"""Joint servos: one MuJoCo actuator per commanded joint, and the gains they start with.

Each actuator has *integrator* dynamics: its activation ``act`` is the servo's setpoint and
``ctrl`` is the rate at which the setpoint moves [/s]. Its force is ``gain * act + bias``:

=========  ===========================  ====================================
mode       act                          force
=========  ===========================  ====================================
position   position setpoint q*         kp (q* - q) - kv dq + b
velocity   velocity setpoint dq*        kv (dq* - dq) + b
effort     effort u                     u
=========  ===========================  ====================================

``b`` is set once per control period (gravity feed-forward and a trajectory's velocity
feed-forward ``kv dq*``). Because the position setpoint moves at a bounded rate inside the
physics steps, a position step becomes a ramp at the joint's velocity limit with no
per-step Python code. The actuator's force range is the joint's effort limit, so every
torque the servo applies, feed-forward included, respects it.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ..model import JointType, Model
from .build import ACTUATOR_PREFIX

__all__ = ['add_servos', 'passive_dofs', 'effective_inertia', 'servo_gains']


def add_servos(spec: mujoco.MjSpec, model: Model) -> None:
    """Add a servo actuator for every 1-DOF joint that no other joint drives (mimic)."""
    for joint in model.movable_joints:
        if joint.mimic is not None:
            continue
        act = spec.add_actuator()
        act.name = ACTUATOR_PREFIX + joint.name
        act.target = joint.name
        act.trntype = mujoco.mjtTrn.mjTRN_JOINT
        act.dyntype = mujoco.mjtDyn.mjDYN_INTEGRATOR
        act.gaintype = mujoco.mjtGain.mjGAIN_FIXED
        act.biastype = mujoco.mjtBias.mjBIAS_AFFINE
        act.ctrllimited = mujoco.mjtLimited.mjLIMITED_FALSE
        act.actlimited = mujoco.mjtLimited.mjLIMITED_FALSE
        act.info = joint.source or ''
        if joint.limits.effort is not None and joint.limits.effort > 0:
            act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
            act.forcerange = [-joint.limits.effort, joint.limits.effort]


def passive_dofs(mj: mujoco.MjModel, model: Model, prefix: str) -> np.ndarray:
    """DOF indices of the model's free and ball joints (no servo drives them)."""
    names = [j.name for j in model.joints if j.type in (JointType.FREE, JointType.BALL)]
    if model.root_joint == JointType.FREE:
        names.append(f'{model.root}_free')
    dofs = []
    for name in names:
        joint = mj.joint(prefix + name)
        count = 6 if mj.jnt_type[joint.id] == mujoco.mjtJoint.mjJNT_FREE else 3
        dofs.extend(range(int(joint.dofadr[0]), int(joint.dofadr[0]) + count))
    return np.array(dofs, dtype=int)


def effective_inertia(mass_matrix: np.ndarray, dofs: np.ndarray,
                      passive: np.ndarray) -> np.ndarray:
    """Inertia each joint drives when the other joints hold still [kg m^2 or kg].

    With a fixed base this is the diagonal of the joint-space mass matrix. A free-floating
    base (or a ball joint) moves in reaction to every joint torque, so the inertia the joint
    feels is smaller: the Schur complement ``M_ii - M_iP M_PP^-1 M_Pi`` over the passive
    degrees of freedom P. Tuning a floating robot's servos with the fixed-base diagonal
    would make a joint between a light and a heavy part far stiffer than intended.
    """
    m = mass_matrix
    diag = m[dofs, dofs].copy()
    if len(passive) == 0 or len(dofs) == 0:
        return diag
    coupling = m[np.ix_(passive, dofs)]
    reduced = np.einsum('pi,pi->i', coupling, np.linalg.solve(m[np.ix_(passive, passive)],
                                                              coupling))
    return diag - reduced


def servo_gains(inertia: np.ndarray, frequency: float, damping: float,
                overrides: list[tuple[float | None, float | None]]
                ) -> tuple[np.ndarray, np.ndarray]:
    """Stiffness kp [N m/rad] and damping kv [N m s/rad] of each servo.

    ``kp = I w^2``, ``kv = 2 zeta I w`` with ``w = 2 pi frequency``: a critically damped
    second-order response of that bandwidth. An override ``(p, d)`` replaces either; a
    given ``p`` without ``d`` gets the ``d`` of the same damping ratio for that stiffness.
    """
    inertia = np.maximum(np.asarray(inertia, dtype=float), 1e-6)
    w = 2.0 * math.pi * frequency
    kp = inertia * w * w
    kv = 2.0 * damping * inertia * w
    for row, (p, d) in enumerate(overrides):
        if p is not None:
            kp[row] = p
            if d is None:
                kv[row] = 2.0 * damping * math.sqrt(max(p, 0.0) * inertia[row])
        if d is not None:
            kv[row] = d
    return kp, kv
