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
``mj_step1`` and ``mj_step2`` the reference accelerations of the contact's friction rows are
shifted by ``B * (c . v_surface)`` (``B`` the row's damping coefficient, ``c`` the row's
direction in the contact frame), so that friction drives the relative tangential velocity
towards the surface's, within the friction cone (no slip while friction allows, slip beyond),
with pyramidal and elliptic cones alike. This uses only ``mjData`` fields MuJoCo 3.x and 4.x
both have (``contact``, ``efc_aref``, ``efc_KBIP``).

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

__all__ = ['add_belt', 'has_tracks', 'TrackDrive', 'MIN_ANGLE', 'BELT_INERTIA']

#: Below this angle [rad] between the contact normal and the axis the drive fades out.
MIN_ANGLE = math.radians(30.0)
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


class TrackDrive:
    """Moves the surfaces of one model's tracks at their belts' speeds (a world contact hook).

    Call it between ``mj_step1`` and ``mj_step2`` of every physics step.
    """

    def __init__(self, mj: mujoco.MjModel, model: Model, prefix: str):
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

    def __bool__(self) -> bool:
        return bool(self.names)

    def __call__(self, mj: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Shift the friction rows' reference accelerations of the tracks' contacts.

        One pass over every contact a track takes part in, in a few numpy operations on
        small arrays (each costs about 1 us whatever its size; np.cross and einsum more).
        """
        n = data.ncon
        if n == 0:
            return
        con = data.contact
        track = self.geom_track[np.concatenate((con.geom1, con.geom2))]
        usable = (con.efc_address >= 0) & (con.dim >= 3)
        rows = np.flatnonzero((track >= 0) & np.concatenate((usable, usable)))
        if len(rows):
            # +1 where the track is geom1 (the normal points away from it), -1 where geom2.
            self._drive(data, con, rows % n, track[rows], np.where(rows < n, 1.0, -1.0))

    def _drive(self, data, con, rows: np.ndarray, track: np.ndarray, sign: np.ndarray) -> None:
        frame = con.frame[rows]  # (k, 9): normal, tangent 1, tangent 2
        normal = frame[:, 0:3] * sign[:, None]  # from the track to the other body
        axes = (data.xmat[self._body].reshape(-1, 3, 3) @ self._axis[:, :, None])[:, :, 0]
        axis = axes[track]
        along = axis[:, _YZX] * normal[:, _ZXY] - axis[:, _ZXY] * normal[:, _YZX]  # a x n
        size = np.sqrt((along * along).sum(axis=1))
        speed = data.qvel[self._dof][track] / np.maximum(size, self._floor) * sign
        # The surface velocity along the contact's two tangents, signed for the track's side.
        tangential = (frame[:, 3:9].reshape(-1, 2, 3) @ along[:, :, None])[:, :, 0] * \
            speed[:, None]
        adr = con.efc_address[rows][:, None]
        gain, aref = data.efc_KBIP[:, 1], data.efc_aref
        if self._pyramidal:
            # Pyramid edges: rows n + mu_i t_i and n - mu_i t_i for each tangent i.
            shift = con.friction[rows][:, :2] * tangential
            plus, minus = adr + _PLUS, adr + _PLUS + 1
            aref[plus] += gain[plus] * shift
            aref[minus] -= gain[minus] * shift
        else:
            row = adr + _TANGENTS
            aref[row] += gain[row] * tangential


#: Index orders for a cross product of (k, 3) arrays, and the friction rows of a contact.
_YZX, _ZXY = np.array([1, 2, 0]), np.array([2, 0, 1])
_PLUS, _TANGENTS = np.array([0, 2]), np.array([1, 2])
