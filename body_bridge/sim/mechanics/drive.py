"""A mobile base: left and right tracks, or a pair of driven wheels on one axis.

:func:`find_drive` finds them in a model (or takes the joints named), measures the separation
and derives, per joint, the forward speed of the base [m/s] per unit of joint velocity: for a
track or wheel whose axis is ``a`` (in the root link's frame, x forward, z up) that is
``r (a x z) . x``, with ``r`` 1 m for a track (its velocity is already a surface speed) and
the wheel's radius for a wheel. :meth:`Drive.joint_speeds` turns a twist into joint
velocities with skid-steer / differential kinematics (``v_left = v - w B / 2``,
``v_right = v + w B / 2``), scaled down together when one would pass its velocity limit.

Where a wheel is: the centre of its largest round collision shape, brought onto its axis
(the wheel's shape along its axis): a file may put every wheel's joint anchor, and so its
link frame, at the middle of the axle, with the wheels' shapes to each side. A track is where
its collision shapes are (the mean of their centres: a belt made for a track device of the
root link has its frame at the root's, its shapes to the side), else where its link is.
When no drive is found, the error says which wheels there are and why they make none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...model import Cylinder, JointType, Model, Sphere
from ...kinematics import forward_kinematics

__all__ = ['Drive', 'DriveError', 'find_drive', 'base_state']


class DriveError(ValueError):
    """The model has no drive that cmd_vel can command, or the joints named make none."""


@dataclass(frozen=True)
class Drive:
    """Joints that move the base, per side, with their gains and limits.

    Attributes:
        left, right: joint names.
        gains: forward speed of the base [m/s] per unit joint velocity, per joint (left then
            right).
        limits: velocity limit of each joint [m/s or rad/s] (inf: none).
        separation: distance between the left and right contact lines [m].
        kind: 'tracks' or 'wheels'.
    """

    left: tuple[str, ...]
    right: tuple[str, ...]
    gains: tuple[float, ...]
    limits: tuple[float, ...]
    separation: float
    kind: str

    @property
    def joints(self) -> list[str]:
        return [*self.left, *self.right]

    def joint_speeds(self, linear: float, angular: float) -> tuple[np.ndarray, bool]:
        """Joint velocities for a forward speed [m/s] and a yaw rate [rad/s].

        Returns:
            The velocities (left joints, then right), and whether they were scaled down to
            stay within the joints' limits (the curvature is kept).
        """
        half = 0.5 * self.separation * angular
        side = np.array([linear - half] * len(self.left) + [linear + half] * len(self.right))
        speeds = side / np.asarray(self.gains)
        limits = np.asarray(self.limits)
        ratio = float(np.max(np.abs(speeds) / limits)) if len(speeds) else 0.0
        if ratio > 1.0:
            return speeds / ratio, True
        return speeds, False


def find_drive(model: Model, left: list[str] | None = None, right: list[str] | None = None,
               separation: float = 0.0, default_limit: float = 0.0) -> Drive:
    """The model's mobile base.

    Args:
        model: a model with a free root.
        left, right: the joints of each side (None or empty: found from the model: every
            track, by the side its link is on; else the wheels of one axis).
        separation: the distance between the sides [m]; 0: measured from the model.
        default_limit: velocity limit of joints whose model gives none (0: none).

    Raises:
        DriveError: no drive found, or the joints named are not tracks or wheels.
    """
    if model.root_joint != JointType.FREE:
        raise DriveError(f'{model.name}: the root link is fixed to the world; cmd_vel drives '
                         'mobile models (a free root) only')
    poses = forward_kinematics(model, {})
    base = poses[model.root].inverse()
    if not left and not right:
        left, right = _found(model, poses)
    elif not left or not right:
        raise DriveError('drive joints: name both the left and the right joints')
    gains, limits, lateral = [], [], {}
    for name in [*left, *right]:
        try:
            joint = model.joint(name)
        except KeyError:
            raise DriveError(f'drive joint {name!r} is not a joint of {model.name}') from None
        gain, y = _gain(model, joint, base @ poses[joint.child])
        gains.append(gain)
        lateral[name] = y
        lim = joint.limits.velocity or default_limit
        limits.append(float(lim) if lim and lim > 0 else math.inf)
    if not separation:
        # Measured between the joints on the root link (main tracks, not flippers') if any.
        main = [n for n in lateral if model.joint(n).parent == model.root]
        left_y = [lateral[n] for n in left if n in main] or [lateral[n] for n in left]
        right_y = [lateral[n] for n in right if n in main] or [lateral[n] for n in right]
        separation = float(np.mean(left_y) - np.mean(right_y))
    if not separation > 0:
        raise DriveError(f'drive joints: the left joints are not left of the right ones '
                         f'(separation {separation:.4g} m)')
    kind = 'tracks' if model.joint(left[0]).type == JointType.TRACK else 'wheels'
    return Drive(tuple(left), tuple(right), tuple(gains), tuple(limits), separation, kind)


def _gain(model: Model, joint, pose) -> tuple[float, float]:
    """Forward speed per unit velocity of a track or wheel, and its link's lateral offset."""
    axis = pose.rot @ joint.axis
    forward = float(axis[1])  # (a x z) . x: the axis's component along y
    if joint.type not in (JointType.TRACK, JointType.REVOLUTE, JointType.CONTINUOUS):
        raise DriveError(f'drive joint {joint.name!r} is a {joint.type.value} joint, not a '
                         'track or a wheel')
    if abs(forward) < 0.9:
        raise DriveError(f'drive joint {joint.name!r}: its axis is not across the base '
                         '(along y of the root link)')
    radius = 1.0 if joint.type == JointType.TRACK else _wheel_radius(model, joint.child)
    return radius * forward, float(_position(model, joint, pose)[1])


def _position(model: Model, joint, pose) -> np.ndarray:
    """Where a wheel or track is in the frame ``pose`` is given in (its link's pose there):
    the centre of a wheel's largest round collision shape on its axis; the mean of a track's
    collision shapes' centres; without them, the link's frame."""
    shapes = model.link(joint.child).collisions
    if joint.type == JointType.TRACK and shapes:
        return pose.apply(np.mean([s.pose.pos for s in shapes], axis=0))
    round_shapes = [s for s in shapes if isinstance(s.geometry, (Cylinder, Sphere))]
    if not round_shapes:
        return pose.pos
    centre = max(round_shapes, key=lambda s: s.geometry.radius).pose.pos
    axis = joint.axis / np.linalg.norm(joint.axis)
    return pose.apply(axis * float(axis @ centre))


def _wheel_radius(model: Model, link: str) -> float:
    """The radius [m] of the largest round collision shape of a wheel link."""
    radii = [s.geometry.radius for s in model.link(link).collisions
             if isinstance(s.geometry, (Cylinder, Sphere))]
    if not radii:
        raise DriveError(f'wheel {link!r} has no cylinder or sphere collision shape to take '
                         'its radius from')
    return float(max(radii))


def _found(model: Model, poses) -> tuple[list[str], list[str]]:
    """Every track by side; else the driven wheels of one axis (side by side, one left and
    one right of the base, their centres within 1 mm of each other along x and z)."""
    base = poses[model.root].inverse()
    tracks = [j for j in model.joints if j.type == JointType.TRACK]
    if tracks:
        side = {j.name: _position(model, j, base @ poses[j.child])[1] for j in tracks}
        left = [n for n, y in side.items() if y > 0]
        right = [n for n, y in side.items() if y < 0]
        if left and right:
            return left, right
    hinges = [j for j in model.joints if j.type in (JointType.REVOLUTE, JointType.CONTINUOUS)
              and j.limits.lower is None]
    wheels, why_not = [], []
    for j in hinges:
        if j.mimic is not None:
            why_not.append(f'{j.name} follows another joint')
        elif j.parent != model.root:
            why_not.append(f'{j.name} is not on the root link')
        elif abs((poses[model.root].rot.T @ poses[j.child].rot @ j.axis)[1]) <= 0.99:
            why_not.append(f'{j.name} turns about an axis not across the base')
        else:
            wheels.append(j)
    at = {j.name: _position(model, j, base @ poses[j.child]) for j in wheels}
    for a in wheels:
        pa = at[a.name]
        for b in wheels:
            pb = at[b.name]
            if pa[1] > 0 > pb[1] and abs(pa[0] - pb[0]) < 1e-3 and abs(pa[2] - pb[2]) < 1e-3:
                return [a.name], [b.name]
    if wheels:
        why_not.insert(0, ', '.join(f'{j.name} at ({at[j.name][0]:.3g}, {at[j.name][1]:.3g}, '
                                    f'{at[j.name][2]:.3g}) m' for j in wheels) +
                       ' make no pair side by side on one axis')
    found = f' ({"; ".join(why_not)})' if why_not else ''
    raise DriveError(f'{model.name} has no left and right tracks, nor two wheels on one axis'
                     f'{found}; name them with drive_left_joints and drive_right_joints')


def base_state(sim) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The root link of a Simulation with a free root: world position [m], orientation
    (w, x, y, z), linear [m/s] and angular [rad/s] velocity in the root link's frame.

    Read from the free joint's coordinates (current after every period).
    """
    data = sim.data
    joint = sim.mj.joint(sim.mj_name(f'{sim.model.root}_free'))
    q, d = int(joint.qposadr[0]), int(joint.dofadr[0])
    quat = data.qpos[q + 3:q + 7].copy()
    body = sim.body_id(sim.model.root)
    rot = data.xmat[body].reshape(3, 3)
    # A free joint's velocity: linear in the world frame, angular in the body frame.
    return (data.qpos[q:q + 3].copy(), quat, rot.T @ data.qvel[d:d + 3],
            data.qvel[d + 3:d + 6].copy())
