"""The state of a whole model in the world, as the simulator API sees an *entity*.

An entity is one model of the world; its pose is its root link's, in the world frame. Its
twist is the velocity of the root link's origin (linear) and the root link's angular velocity,
both in world axes; its acceleration likewise. A free-floating model is teleported by writing
its free joint (the velocity as given); a model fixed to the ground is moved by moving where it
is fixed (it has no velocity); a model whose root is the world itself cannot move.
Its bounds are the box around its collision and visual geometry, in its root link's frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import mujoco
import numpy as np

from ...model import JointType, Pose

__all__ = ['BodyState', 'entity_state', 'set_entity_state', 'entity_bounds', 'StateRefused']


class StateRefused(ValueError):
    """The state asked for cannot be given to this entity (one line saying why)."""


@dataclass(frozen=True)
class BodyState:
    """Pose, twist and acceleration of a root link in the world frame (SI units).

    Attributes:
        pos: position [m]. quat: orientation (w, x, y, z).
        linear, angular: velocity [m/s], [rad/s], world axes.
        linear_acc, angular_acc: acceleration [m/s^2], [rad/s^2], world axes.
    """

    pos: np.ndarray
    quat: np.ndarray
    linear: np.ndarray
    angular: np.ndarray
    linear_acc: np.ndarray
    angular_acc: np.ndarray


def _root(sim) -> int:
    return sim.body_id(sim.model.root)


def entity_state(sim) -> BodyState:
    """The state of ``sim``'s model (its root link) now (the world's derived quantities are
    computed again for it: call with the world locked)."""
    mj, data, body = sim.mj, sim.data, _root(sim)
    velocity, acceleration = np.zeros(6), np.zeros(6)
    if body:
        mujoco.mj_forward(mj, data)  # a period ends with the link velocities of its last step
        mujoco.mj_objectVelocity(mj, data, mujoco.mjtObj.mjOBJ_BODY, body, velocity, 0)
        mujoco.mj_rnePostConstraint(mj, data)
        mujoco.mj_objectAcceleration(mj, data, mujoco.mjtObj.mjOBJ_BODY, body, acceleration, 0)
    # MuJoCo's accelerations are proper ones (what an accelerometer reads); the state's is
    # the coordinate acceleration: gravity added back.
    linear_acc = acceleration[3:] + mj.opt.gravity if body else np.zeros(3)
    return BodyState(data.xpos[body].copy(), data.xquat[body].copy(), velocity[3:].copy(),
                     velocity[:3].copy(), linear_acc, acceleration[:3].copy())


def _free_joint(sim) -> int | None:
    if sim.model.root_joint != JointType.FREE:
        return None
    body = _root(sim)
    return int(sim.mj.body_jntadr[body])


def set_entity_state(sim, pose: Pose | None, linear=None, angular=None) -> None:
    """Teleport ``sim``'s model: its root link to ``pose`` (world frame; None: where it is),
    its velocity as given (world axes; None: unchanged). Call on the stepping thread.

    Raises:
        StateRefused: the model cannot move (its root is the world), or a fixed model is
            given a velocity other than zero.
    """
    mj, data, body = sim.mj, sim.data, _root(sim)
    if body == 0:
        raise StateRefused(f'{sim.model.name}: its root link is the world itself; it cannot '
                           'be moved')
    joint = _free_joint(sim)
    if joint is None:
        moving = [v for v in (linear, angular) if v is not None and np.any(np.asarray(v))]
        if moving:
            raise StateRefused(f'{sim.model.name} is fixed in the world: it cannot be given a '
                               'velocity')
        if pose is not None:
            _move_fixed(sim, body, pose)
    else:
        qa, da = int(mj.jnt_qposadr[joint]), int(mj.jnt_dofadr[joint])
        if pose is not None:
            data.qpos[qa:qa + 3] = pose.pos
            data.qpos[qa + 3:qa + 7] = pose.quat()
        rot = data.xmat[body].reshape(3, 3) if pose is None else pose.rot
        if linear is not None:
            data.qvel[da:da + 3] = linear
        if angular is not None:
            data.qvel[da + 3:da + 6] = rot.T @ np.asarray(angular, dtype=float)
        data.qacc_warmstart[da:da + 6] = 0.0
    mujoco.mj_forward(mj, data)


def _move_fixed(sim, body: int, pose: Pose) -> None:
    """Move where a fixed model is fixed: in the compiled model now, and in the world's
    entries, so that a later rebuild of the world keeps it there."""
    sim.mj.body_pos[body] = pose.pos
    sim.mj.body_quat[body] = pose.quat()
    world = sim.world
    model, options = world.entries[sim.index]
    placement = pose @ model.link(model.root).pose.inverse()
    world.entries[sim.index] = (model, replace(options, initial_pose=placement))


def entity_bounds(sim, local: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The lower and upper corners [m] of the box around the model's geometry (its geoms'
    bounding boxes, as MuJoCo keeps them), aligned with the root link's frame and relative to
    it (``local``, as the simulator API gives an entity's bounds) or with the world's."""
    mj, data = sim.mj, sim.data
    root = _root(sim)
    origin = data.xpos[root] if local else np.zeros(3)
    axes = data.xmat[root].reshape(3, 3) if local else np.eye(3)
    bodies = set()
    for link in sim.model.links:
        try:
            bodies.add(sim.body_id(link.name))
        except KeyError:
            continue  # a link MuJoCo merged into its parent
    lower, upper = np.full(3, np.inf), np.full(3, -np.inf)
    for g in range(mj.ngeom):  # the ground plane (infinite) is no model's
        if int(mj.geom_bodyid[g]) not in bodies or \
                mj.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE:
            continue
        rot = axes.T @ data.geom_xmat[g].reshape(3, 3)
        middle = axes.T @ (data.geom_xpos[g] - origin) + rot @ mj.geom_aabb[g, :3]
        extent = np.abs(rot) @ mj.geom_aabb[g, 3:]
        lower = np.minimum(lower, middle - extent)
        upper = np.maximum(upper, middle + extent)
    if not np.all(np.isfinite(lower)):  # no geometry: a point at the root
        point = np.zeros(3) if local else data.xpos[root].copy()
        return point, point.copy()
    return lower, upper
