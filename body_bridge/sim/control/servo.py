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

from ...model import JointType, Model
from ..names import ACTUATOR_PREFIX

__all__ = ['add_servos', 'passive_dofs', 'model_dofs', 'coupling_map', 'servo_terms',
           'grounded_inertia', 'tuning_inertia', 'servo_gains', 'MAX_INERTIA_RATIO']


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


def model_dofs(mj: mujoco.MjModel, joint_dofs) -> np.ndarray:
    """Every degree of freedom in the kinematic trees that hold the given ones."""
    trees = set(int(t) for t in mj.dof_treeid[np.asarray(joint_dofs, dtype=int)])
    return np.flatnonzero(np.isin(mj.dof_treeid, sorted(trees)))


def coupling_map(n: int, followers: list[tuple[int, dict[int, float]]]) -> np.ndarray:
    """Velocities of all ``n`` degrees of freedom from the independent ones, (n, n - f).

    ``followers``: (index, {leader index: d q_follower / d q_leader}) for each mimic joint,
    leaders before the joints that follow them.
    """
    following = {index for index, _ in followers}
    free = [k for k in range(n) if k not in following]
    tmap = np.zeros((n, len(free)))
    tmap[free, np.arange(len(free))] = 1.0
    for index, gradient in followers:
        tmap[index] = sum(g * tmap[lead] for lead, g in gradient.items())
    return tmap


def servo_terms(mass: np.ndarray, bias: np.ndarray, tmap: np.ndarray | None,
                actuated: np.ndarray, passive: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least inertia [kg m^2 or kg] and gravity torque [N m or N] of each servo, and the
    mass matrix in the coordinates ``tmap`` spans.

    All in the model's own degrees of freedom: ``mass`` (n, n), ``bias`` (n,) the gravity and
    Coriolis forces, ``tmap`` from :func:`coupling_map` (mimic joints move with their
    leaders; None: no mimic joints, the identity), ``actuated`` and ``passive`` (free and
    ball joints) as columns of ``tmap``.

    The inertia a servo drives is that of its joint with every other servo holding still,
    while the joints that mimic it move with it and a floating base moves in reaction: in the
    coordinates ``tmap`` spans, ``M' = T^T M T`` and ``I = M'_ii - M'_iP M'_PP^-1 M'_Pi`` (the
    Schur complement over the passive freedoms P). Tuning a floating robot's servos with the
    fixed-base diagonal ``M_ii`` would make a joint between a light and a heavy part far
    stiffer than intended; leaving out the mimicking joints, a gripper's far softer.

    The gravity torques ``(T^T b)_i`` hold the model still, the mimic joints' weight included
    (with a fixed base). Loop closures are not counted: a closed chain's servo drives a
    little more than its tree part.
    """
    reduced = mass if tmap is None else tmap.T @ mass @ tmap
    forces = bias if tmap is None else tmap.T @ bias
    inertia = reduced[actuated, actuated].copy()
    if len(passive):
        coupling = reduced[np.ix_(passive, actuated)]
        inertia -= np.einsum('pi,pi->i', coupling,
                             np.linalg.solve(reduced[np.ix_(passive, passive)], coupling))
    return inertia, forces[actuated], reduced


#: A servo is tuned for at most this many times the least inertia its joint can meet: the
#: integrator's explicit stiffness stays stable (kp / I_least dt^2 < 1 needs < 1 / (w dt)^2).
MAX_INERTIA_RATIO = 100.0


def grounded_inertia(reduced: np.ndarray, jacobians: np.ndarray, base: np.ndarray,
                     actuated: np.ndarray) -> np.ndarray:
    """Inertia each joint of a floating robot drives when its child link is held still (a
    foot on the ground): the base and everything not beyond the joint turn about it instead.

    Args:
        reduced: mass matrix in the coordinates of :func:`coupling_map`.
        jacobians: (k, 6, r): per servo, the Jacobian of its child link in those coordinates.
        base: the six columns of the floating base.
        actuated: the servos' columns.
    """
    jac = np.asarray(jacobians)                          # (k, 6, r)
    k = len(actuated)
    out = np.full(k, np.inf)
    if not k:
        return out
    bases = jac[:, :, base]                              # (k, 6, 6)
    ok = np.abs(np.linalg.det(bases)) > 1e-12
    velocity = np.zeros((k, len(reduced)))
    velocity[np.arange(k), actuated] = 1.0
    rhs = -jac[np.arange(k), :, actuated]                # (k, 6)
    velocity[np.ix_(ok, base)] = np.linalg.solve(bases[ok], rhs[ok][..., None])[..., 0]
    energy = np.einsum('ki,ij,kj->k', velocity, reduced, velocity)
    out[ok] = energy[ok]
    return out


def tuning_inertia(least: np.ndarray, fixed: np.ndarray, grounded: np.ndarray | None
                   ) -> np.ndarray:
    """The inertia a servo is tuned for.

    A fixed-base joint drives its distal part: ``least`` (which is then ``fixed``). A
    floating robot's joint drives a part that depends on what touches the ground: the part
    beyond it (``fixed``, base held) when the base stands, the rest of the robot
    (``grounded``) when the link beyond it stands, both reacting (``least``) in the air.
    Tuning for the larger of the first two lets a stance leg hold the body up (a knee, an
    ankle); capped at ``MAX_INERTIA_RATIO`` times ``least`` so that the servo stays stable
    when the load is lifted (it is then overdamped).
    """
    if grounded is None:
        return least
    return np.minimum(np.maximum(fixed, grounded), MAX_INERTIA_RATIO * least)


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
