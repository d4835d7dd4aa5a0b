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

from ...model import JointType, Model
from ..names import BELT_SUFFIX

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
        # A contact's geoms -> a code: k where geom1 belongs to track k (the contact's normal
        # points away from the track), K + k where geom2 does (the normal points at it), -1
        # for other geoms; per code its track's belt and the sign of the normal.
        k = len(tracks)
        self._code = (self.geom_track, np.where(self.geom_track >= 0, self.geom_track + k, -1))
        self._code_dof = np.concatenate((self._dof, self._dof))
        self._code_sign = np.concatenate((np.ones(k), -np.ones(k)))
        self._found = None
        self._xmat_of = self._xmat_view = None

    def __bool__(self) -> bool:
        return bool(self.names)

    def align(self, mj: mujoco.MjModel, data: mujoco.MjData) -> bool:
        """Turn each track contact's frame so that its first tangent runs along the surface's
        motion (``axis x n``), make friction across it ``lateral`` times friction along it,
        and note what :meth:`__call__` needs; whether any contact changed (the constraint rows
        must then be built again: :func:`rebuild_constraints`).

        Contacts whose normal is within :data:`MIN_ANGLE` of the axis keep isotropic friction
        (the drive fades out there); those along the axis are left as they are. It runs at
        every physics step, so it is a few numpy operations on small arrays for all contacts
        at once (each costs 1 to 5 us whatever its size): every field of ``data.contact`` is
        read once (each read makes a new array) and written in place, and the cross products
        are products with skew-symmetric matrices.
        """
        self._found = None
        n = data.ncon
        if n == 0:
            return False
        con = data.contact
        code = np.concatenate((self._code[0][con.geom1], self._code[1][con.geom2]))
        hits = np.flatnonzero(code >= 0)
        if not len(hits):
            return False
        rows, code = hits % n, code[hits]
        frames = con.frame  # (n, 9): normal, tangent 1, tangent 2; a view of data.contact
        normal = frames[rows, 0:3]
        # (axis x n) with n from the track to the other body: the contact's normal where the
        # track is geom1, its opposite where geom2; so the axis, or its opposite, x normal.
        world = (self._xmat(data) @ self._axis[:, :, None])[:, :, 0]
        turn = (np.concatenate((world, -world)) @ _SKEW).reshape(-1, 3, 3)
        along = (turn[code] @ normal[:, :, None])[:, :, 0]
        size = np.sqrt((along * along).sum(axis=1))
        moving = (size > 1e-9) & (con.efc_address[rows] >= 0) & (con.dim[rows] >= 3)
        if not moving.all():
            rows, code, normal = rows[moving], code[moving], normal[moving]
            along, size = along[moving], size[moving]
            if not len(rows):
                return False
        first = along / size[:, None]
        frames[rows, 3:6] = first
        frames[rows, 6:9] = ((normal @ _SKEW).reshape(-1, 3, 3) @ first[:, :, None])[:, :, 0]
        friction = con.friction  # a view of data.contact, as frames
        if self.lateral != 1.0:
            grip = rows[size >= self._floor]
            friction[grip, 1] = friction[grip, 0] * self.lateral
        # The surface speed along the first tangent per unit belt speed, signed for the side;
        # and the friction along it (for the pyramid's edges).
        factor = self._code_sign[code] * size / np.maximum(size, self._floor)
        self._found = con, rows, self._code_dof[code], factor, friction[rows, 0]
        return True

    def _xmat(self, data: mujoco.MjData) -> np.ndarray:
        """The orientations of the tracks' links, (k, 3, 3) (the view of ``data.xmat`` is
        kept: its memory is that of ``data`` as long as ``data`` lives)."""
        if self._xmat_of is not data:
            self._xmat_of, self._xmat_view = data, data.xmat
        return self._xmat_view[self._body].reshape(-1, 3, 3)

    def __call__(self, mj: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Shift the reference accelerations of the contacts :meth:`align` found this step."""
        if self._found is None:
            return
        con, rows, dofs, factor, mu = self._found
        adr = con.efc_address[rows]  # the rows as built again after align
        tangential = data.qvel[dofs] * factor
        gain, aref = data.efc_KBIP, data.efc_aref
        if self._pyramidal:
            # Pyramid edges: rows n + mu_1 t_1 and n - mu_1 t_1 first.
            shift = mu * tangential
            aref[adr] += gain[adr, 1] * shift
            aref[adr + 1] -= gain[adr + 1, 1] * shift
        else:
            adr = adr + 1
            aref[adr] += gain[adr, 1] * tangential


#: skew(v) = (v @ _SKEW).reshape(3, 3) for a vector v, so that skew(v) @ w = v x w.
_SKEW = np.zeros((3, 9))
for _row, _col, _k, _sign in ((0, 1, 2, -1), (0, 2, 1, 1), (1, 0, 2, 1), (1, 2, 0, -1),
                              (2, 0, 1, -1), (2, 1, 0, 1)):
    _SKEW[_k, 3 * _row + _col] = _sign
