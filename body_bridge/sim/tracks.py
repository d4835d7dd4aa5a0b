"""Continuous tracks and conveyor belts: a link whose surface moves (joint type TRACK).

The link itself is rigid on its parent. Its surface speed [m/s] is the velocity of a joint of
the track's name: a hinge on a small body of its own (``<track>:belt``, no geometry, its
inertia the track link's mass as armature), driven by the track's servo like any joint, so
that velocity commands, position commands (the distance travelled [m]), trajectories and
controller groups work unchanged and ``joint_states`` reports the speed and the travel.

Where a collision geom of the track link touches something, the surface moves at that speed
along ``axis x n`` (``axis`` the track's axis in the world, ``n`` the contact normal pointing
from the track to the other body; as Choreonoid's AIST simulator defines a pseudo continuous
track): a track on the ground with its axis to the left moves its underside backwards and
drives the vehicle forwards. The integrator is told so at each contact: between
``mj_step1`` and ``mj_step2`` the contact's frame is turned so that its first tangent runs
along ``axis x n`` (:meth:`TrackDrive.align`), and the reference acceleration of that
friction row is shifted by ``B * v_surface`` (``B`` the row's damping coefficient), so that
friction drives the relative tangential velocity towards the surface's, within the friction
cone (no slip while friction allows, slip beyond), with pyramidal and elliptic cones alike.
This uses only ``mjData`` fields and functions MuJoCo 3.x and 4.x both have (``contact``,
``efc_aref``, ``efc_KBIP``, ``mj_makeConstraint`` and the others of
:func:`rebuild_constraints`).

A track's friction is anisotropic, as tracked-vehicle plug-ins of other simulators make it
(Gazebo's take 2.0 along the track and 0.5 across): along the surface's motion it is the
contact's friction, across it ``lateral`` times that (``SimOptions.track_lateral_friction``,
0.25 by default; 1 for isotropic Coulomb friction, as Choreonoid's AIST simulator has). Before
the reference accelerations are shifted, :meth:`TrackDrive.align` also sets each track
contact's second friction coefficient, and :func:`rebuild_constraints` makes MuJoCo build the
constraint rows again from the contacts so changed. Without it a vehicle turning in place
would have to slide its track ends sideways against the full friction: with contact at the
ends, half a contact length ``a`` ahead and behind and ``b`` to the side, the yaw rate is
``v b / (b^2 + r^2 a^2)`` for surface speeds ``+-v`` and ratio ``r``: the Tank's 0.95 rad/s
at ``r = 1``, 2.09 rad/s at 0.25, against the 2.27 rad/s (``v / b``) of tracks that would not
slip at all.

Limits: the surface speed is the same over the whole contact patch and the belt is as rigid
as the link's collision shapes (no sagging, no grousers, no wrap-around at the ends beyond
what the normal direction gives); the motor is ideal (the load does not slow the belt: the
servo holds its speed whatever the traction; only friction limits what it transmits, as in
Choreonoid's pseudo track). Where the normal is almost along the axis (a side plate touching
a wall) the drive fades out below 30 degrees, rather than flipping direction.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ..model import JointType, Model
from .names import BELT_SUFFIX

__all__ = ['add_belt', 'has_tracks', 'rebuild_constraints', 'TrackDrive', 'MIN_ANGLE',
           'BELT_INERTIA', 'LATERAL_FRICTION']

#: Below this angle [rad] between the contact normal and the axis the drive fades out.
MIN_ANGLE = math.radians(30.0)
#: Friction across a track over friction along it, by default.
LATERAL_FRICTION = 0.25
#: The belt's inertia [kg, as kg m^2 of a hinge whose 1 rad is 1 m] when the link has no mass.
BELT_INERTIA = 1.0
#: Mass [kg] and inertia [kg m^2] of the belt's own body (its inertia is its armature).
_BELT_MASS = 1e-6
_BELT_INERTIA = 1e-9


def has_tracks(model: Model) -> bool:
    """Whether the model has a joint of type TRACK."""
    return any(j.type == JointType.TRACK for j in model.joints)


def add_belt(body: mujoco.MjsBody, joint, mass: float | None) -> None:
    """Add the belt of a TRACK joint under its link's body.

    Args:
        body: the track link's body (rigid on its parent).
        joint: the model's TRACK joint; the hinge gets its name.
        mass: the track link's mass [kg] (the belt's inertia), None for none.
    """
    belt = body.add_body()
    belt.name = joint.name + BELT_SUFFIX
    belt.info = joint.source or ''
    belt.explicitinertial = True
    belt.mass = _BELT_MASS
    belt.inertia = [_BELT_INERTIA] * 3
    hinge = belt.add_joint()
    hinge.name = joint.name
    hinge.info = joint.source or ''
    hinge.type = mujoco.mjtJoint.mjJNT_HINGE
    hinge.axis = [float(a) for a in joint.axis]
    hinge.limited = mujoco.mjtLimited.mjLIMITED_FALSE
    hinge.armature = float(mass) if mass and mass > 0 else BELT_INERTIA


def rebuild_constraints(mj: mujoco.MjModel, data: mujoco.MjData) -> None:
    """Build the constraint rows again from ``data.contact`` after ``mj_step1``.

    What ``mj_fwdPosition`` and ``mj_fwdVelocity`` do after the collision, in their order:
    the rows, the islands (MuJoCo 3.2 and later; their arrays follow the rows in the arena),
    the rows' inverse inertia, and the reference accelerations.
    """
    mujoco.mj_makeConstraint(mj, data)
    if _ISLANDS is not None:
        _ISLANDS(mj, data)
    mujoco.mj_projectConstraint(mj, data)
    mujoco.mj_referenceConstraint(mj, data)


_ISLANDS = getattr(mujoco, 'mj_island', None)


class TrackDrive:
    """Moves the surfaces of one model's tracks at their belts' speeds (a world contact hook).

    Between ``mj_step1`` and ``mj_step2`` of every physics step, call :meth:`align` (and
    :func:`rebuild_constraints` if it changed a contact), then the drive itself.

    Args:
        mj: the world's compiled model.
        model: the model with the tracks.
        prefix: the prefix of the model's names in the world.
        lateral: friction across a track over friction along it, in (0, 1].
    """

    def __init__(self, mj: mujoco.MjModel, model: Model, prefix: str,
                 lateral: float = LATERAL_FRICTION):
        if not 0.0 < lateral <= 1.0:
            raise ValueError(f'track_lateral_friction must be in (0, 1], not {lateral}')
        self.lateral = float(lateral)
        tracks = [j for j in model.joints if j.type == JointType.TRACK]
        self.names = [j.name for j in tracks]
        self._body = np.array([mj.body(prefix + j.child).id for j in tracks], dtype=int)
        self._axis = np.array([j.axis for j in tracks], dtype=float).reshape(-1, 3)
        self._dof = np.array([mj.joint(prefix + j.name).dofadr[0] for j in tracks], dtype=int)
        #: For every geom of the world: the index of the track it belongs to, or -1.
        self.geom_track = np.full(mj.ngeom, -1, dtype=int)
        for k, body in enumerate(self._body):
            geoms = np.flatnonzero((mj.geom_bodyid == body) &
                                   ((mj.geom_contype | mj.geom_conaffinity) > 0))
            self.geom_track[geoms] = k
        self._pyramidal = mj.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL
        self._floor = math.sin(MIN_ANGLE)
        self._found = None

    def __bool__(self) -> bool:
        return bool(self.names)

    def align(self, mj: mujoco.MjModel, data: mujoco.MjData) -> bool:
        """Turn each track contact's frame so that its first tangent runs along the surface's
        motion (``axis x n``), make friction across it ``lateral`` times friction along it,
        and note what :meth:`__call__` needs; whether any contact changed (the constraint rows
        must then be built again: :func:`rebuild_constraints`).

        Contacts whose normal is within :data:`MIN_ANGLE` of the axis keep isotropic friction
        (the drive fades out there); those along the axis are left as they are. A few numpy
        operations on small arrays for all contacts at once (each costs about 1 us whatever
        its size).
        """
        self._found = None
        n = data.ncon
        if n == 0:
            return False
        con = data.contact
        track = self.geom_track[np.concatenate((con.geom1, con.geom2))]
        hits = np.flatnonzero(track >= 0)
        if not len(hits):
            return False
        rows, track = hits % n, track[hits]
        # +1 where the track is geom1 (the normal points away from it), -1 where geom2.
        sign = np.where(hits < n, 1.0, -1.0)
        frame = con.frame[rows]  # (k, 9): normal, tangent 1, tangent 2
        normal = frame[:, 0:3] * sign[:, None]  # from the track to the other body
        axis = (data.xmat[self._body].reshape(-1, 3, 3) @ self._axis[:, :, None])[track, :, 0]
        along = _cross(axis, normal)
        size = np.sqrt((along * along).sum(axis=1))
        moving = (size > 1e-9) & (con.efc_address[rows] >= 0) & (con.dim[rows] >= 3)
        if not moving.all():
            rows, track, sign, frame = rows[moving], track[moving], sign[moving], frame[moving]
            along, size = along[moving], size[moving]
            if not len(rows):
                return False
        first = along / size[:, None]
        frame[:, 3:6] = first
        frame[:, 6:9] = _cross(frame[:, 0:3], first)
        con.frame[rows] = frame
        if self.lateral != 1.0:
            friction = con.friction[rows]
            grip = size >= self._floor
            friction[grip, 1] = friction[grip, 0] * self.lateral
            con.friction[rows] = friction
        # The surface speed along the first tangent per unit belt speed, signed for the side.
        self._found = rows, self._dof[track], sign * size / np.maximum(size, self._floor)
        return True

    def __call__(self, mj: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Shift the reference accelerations of the contacts :meth:`align` found this step."""
        if self._found is None:
            return
        rows, dofs, factor = self._found
        con = data.contact
        adr = con.efc_address[rows]
        tangential = data.qvel[dofs] * factor
        gain, aref = data.efc_KBIP[:, 1], data.efc_aref
        if self._pyramidal:
            # Pyramid edges: rows n + mu_1 t_1 and n - mu_1 t_1 first.
            shift = con.friction[rows, 0] * tangential
            aref[adr] += gain[adr] * shift
            aref[adr + 1] -= gain[adr + 1] * shift
        else:
            aref[adr + 1] += gain[adr + 1] * tangential


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross product of two (k, 3) arrays (faster than np.cross on small ones)."""
    return a[:, _YZX] * b[:, _ZXY] - a[:, _ZXY] * b[:, _YZX]


#: Index orders for a cross product of (k, 3) arrays.
_YZX, _ZXY = np.array([1, 2, 0]), np.array([2, 0, 1])
