"""The state of a MuJoCo world carried into a recompiled one, element by element, by name.

When a model joins or leaves a running world (:meth:`~body_bridge.sim.building.world.World.add`,
:meth:`~body_bridge.sim.building.world.World.remove`) the MjSpec is compiled again, and the element
indices of the models that stay may change. What they were doing is carried across by their
MuJoCo names, never by index: the time, every joint's position, velocity, warm-start
acceleration and applied force, every actuator's activation and control, every body's applied
wrench. Elements without a counterpart (a new model's) keep the new data's initial values.
"""

from __future__ import annotations

import mujoco

__all__ = ['carry_state', 'JOINT_WIDTH']

#: (positions, velocities) of each MuJoCo joint type.
JOINT_WIDTH = {
    int(mujoco.mjtJoint.mjJNT_FREE): (7, 6),
    int(mujoco.mjtJoint.mjJNT_BALL): (4, 3),
    int(mujoco.mjtJoint.mjJNT_SLIDE): (1, 1),
    int(mujoco.mjtJoint.mjJNT_HINGE): (1, 1),
}


def _named(mj: mujoco.MjModel, kind: mujoco.mjtObj, count: int) -> dict[str, int]:
    """Name -> id of the named elements of one kind."""
    out = {}
    for i in range(count):
        name = mujoco.mj_id2name(mj, kind, i)
        if name:
            out[name] = i
    return out


def carry_state(old_mj: mujoco.MjModel, old: mujoco.MjData,
                new_mj: mujoco.MjModel, new: mujoco.MjData) -> int:
    """Copy the state of ``old`` into ``new`` for every element both models name alike.

    Joints must have the same type in both (a joint that changed type is left at its new
    initial value). Finishes with ``mj_forward`` on the new data.

    Returns:
        The number of joints carried.
    """
    new.time = old.time
    carried = 0
    before = _named(old_mj, mujoco.mjtObj.mjOBJ_JOINT, old_mj.njnt)
    for name, j in _named(new_mj, mujoco.mjtObj.mjOBJ_JOINT, new_mj.njnt).items():
        i = before.get(name)
        if i is None or old_mj.jnt_type[i] != new_mj.jnt_type[j]:
            continue
        nq, nv = JOINT_WIDTH[int(new_mj.jnt_type[j])]
        qa, qb = int(old_mj.jnt_qposadr[i]), int(new_mj.jnt_qposadr[j])
        new.qpos[qb:qb + nq] = old.qpos[qa:qa + nq]
        da, db = int(old_mj.jnt_dofadr[i]), int(new_mj.jnt_dofadr[j])
        for field in ('qvel', 'qacc_warmstart', 'qfrc_applied'):
            getattr(new, field)[db:db + nv] = getattr(old, field)[da:da + nv]
        carried += 1
    before = _named(old_mj, mujoco.mjtObj.mjOBJ_ACTUATOR, old_mj.nu)
    for name, j in _named(new_mj, mujoco.mjtObj.mjOBJ_ACTUATOR, new_mj.nu).items():
        i = before.get(name)
        if i is None:
            continue
        new.ctrl[j] = old.ctrl[i]
        width = int(new_mj.actuator_actnum[j])
        if width and width == int(old_mj.actuator_actnum[i]):
            a, b = int(old_mj.actuator_actadr[i]), int(new_mj.actuator_actadr[j])
            new.act[b:b + width] = old.act[a:a + width]
    before = _named(old_mj, mujoco.mjtObj.mjOBJ_BODY, old_mj.nbody)
    for name, j in _named(new_mj, mujoco.mjtObj.mjOBJ_BODY, new_mj.nbody).items():
        i = before.get(name)
        if i is not None:
            new.xfrc_applied[j] = old.xfrc_applied[i]
    mujoco.mj_forward(new_mj, new)
    return carried
