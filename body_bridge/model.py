"""The neutral model: what every loader produces and every writer reads.

Units are SI (m, kg, s), angles are radians, quaternions are (w, x, y, z).

Conventions every loader must meet (the writers rely on them):

* ``Link.pose`` is the link frame in the model frame at the reference configuration
  (all joints at zero). The root link's pose is where the model is placed in the world.
* A joint's child link frame is the joint frame: its axis is expressed in the child link
  frame and passes through the child link's origin (the URDF convention). The joint origin
  is therefore derived, ``parent.pose.inverse() @ child.pose``, never stored twice.
* Cylinders, capsules and cones are built along their local +z axis, centred at the
  origin; a cone's apex points to +z. Box sizes are full edge lengths.
* Inertia is about the centre of mass, in the link frame.
* Device frames, by kind: cameras and range sensors look along +x with +z up (the ROS body
  convention; the optical frame is derived from it); IMU, accelerometer, gyro and force
  sensors report in their own frame.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from .errors import ModelError

__all__ = [
    'Pose', 'Box', 'Sphere', 'Cylinder', 'Capsule', 'Cone', 'Mesh', 'Geometry',
    'Material', 'Shape', 'Inertial', 'Link', 'JointType', 'Limits', 'Mimic', 'Joint',
    'DeviceKind', 'Device', 'Frame', 'LoopClosure', 'Manipulator', 'Model', 'freeze',
    'is_rotation',
    'Repeat', 'FunctionKind', 'Function', 'SpringKind', 'Spring', 'Bushing', 'MotorKind',
    'Actuation', 'Motor', 'LoadKind', 'Load', 'BodyVelocity', 'ContactMaterial', 'ShapeContact',
]

_EMPTY: Mapping = MappingProxyType({})


def freeze(mapping: Mapping | None) -> Mapping:
    """Return a read-only view of a mapping (for parameters kept in the model)."""
    return _EMPTY if not mapping else MappingProxyType(dict(mapping))


def _vec(value, n: int = 3) -> np.ndarray:
    arr = np.array(value, dtype=float).reshape(n)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, slots=True, eq=False)
class Pose:
    """A rigid transform: ``p_parent = rot @ p_child + pos``.

    Attributes:
        pos: translation [m], shape (3,).
        rot: rotation matrix, shape (3, 3).
    """

    pos: np.ndarray = field(default_factory=lambda: _vec((0, 0, 0)))
    rot: np.ndarray = field(default_factory=lambda: _frozen(np.eye(3)))

    def __post_init__(self):
        object.__setattr__(self, 'pos', _vec(self.pos))
        object.__setattr__(self, 'rot', _frozen(np.array(self.rot, dtype=float).reshape(3, 3)))

    @staticmethod
    def identity() -> Pose:
        return Pose()

    @staticmethod
    def from_matrix(matrix) -> Pose:
        m = np.asarray(matrix, dtype=float)
        return Pose(m[:3, 3], m[:3, :3])

    @staticmethod
    def from_axis_angle(axis, angle: float, pos=(0, 0, 0)) -> Pose:
        """Rotation by ``angle`` [rad] about ``axis`` (normalised here)."""
        return Pose(pos, axis_angle_matrix(axis, angle))

    @staticmethod
    def from_quat(quat, pos=(0, 0, 0)) -> Pose:
        """From a quaternion (w, x, y, z), normalised here."""
        return Pose(pos, quat_matrix(quat))

    @staticmethod
    def from_rpy(rpy, pos=(0, 0, 0)) -> Pose:
        """From fixed-axis roll, pitch, yaw [rad] (URDF convention: R = Rz(y) Ry(p) Rx(r))."""
        r, p, y = rpy
        rz = axis_angle_matrix((0, 0, 1), y)
        ry = axis_angle_matrix((0, 1, 0), p)
        rx = axis_angle_matrix((1, 0, 0), r)
        return Pose(pos, rz @ ry @ rx)

    def matrix(self) -> np.ndarray:
        m = np.eye(4)
        m[:3, :3] = self.rot
        m[:3, 3] = self.pos
        return m

    def __matmul__(self, other: Pose) -> Pose:
        return Pose(self.rot @ other.pos + self.pos, self.rot @ other.rot)

    def inverse(self) -> Pose:
        rt = self.rot.T
        return Pose(-rt @ self.pos, rt)

    def apply(self, points) -> np.ndarray:
        """Transform points (shape (3,) or (N, 3)) from the child to the parent frame."""
        return np.asarray(points, dtype=float) @ self.rot.T + self.pos

    def quat(self) -> np.ndarray:
        """The rotation as a unit quaternion (w, x, y, z) with w >= 0."""
        return matrix_quat(self.rot)

    def rpy(self) -> np.ndarray:
        """The rotation as URDF roll, pitch, yaw [rad]."""
        return matrix_rpy(self.rot)

    def is_identity(self, tol: float = 1e-12) -> bool:
        return bool(np.allclose(self.pos, 0, atol=tol) and np.allclose(self.rot, np.eye(3), atol=tol))

    def __repr__(self) -> str:
        return f'Pose(pos={self.pos.tolist()}, quat={self.quat().round(6).tolist()})'


def is_rotation(rot, tol: float = 1e-9) -> bool:
    """Whether the 3x3 ``rot`` is orthonormal within ``tol`` and right-handed (no mirror).

    Plain floats rather than numpy: loaders call this for every pose, and on 3x3 matrices
    numpy's cost per call is most of the work. NaN and infinity are not rotations.
    """
    (a, b, c), (d, e, f), (g, h, i) = np.asarray(rot, dtype=float).tolist()
    columns = ((a, d, g), (b, e, h), (c, f, i))
    for j in range(3):
        u = columns[j]
        for k in range(j, 3):
            v = columns[k]
            dot = u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
            if not abs(dot - (1.0 if j == k else 0.0)) <= tol:
                return False
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g) > 0


def _frozen(arr: np.ndarray) -> np.ndarray:
    arr = np.array(arr, dtype=float)
    arr.setflags(write=False)
    return arr


def axis_angle_matrix(axis, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` [rad] about ``axis`` (Rodrigues)."""
    a = np.asarray(axis, dtype=float).reshape(3)
    norm = float(np.linalg.norm(a))
    if norm == 0.0 or not math.isfinite(norm):
        raise ValueError('rotation axis has zero length')
    x, y, z = a / norm
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return np.array([
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
    ])


def quat_matrix(quat) -> np.ndarray:
    """Rotation matrix of a quaternion (w, x, y, z); normalised first."""
    q = np.asarray(quat, dtype=float).reshape(4)
    norm = float(np.linalg.norm(q))
    if norm == 0.0 or not math.isfinite(norm):
        raise ValueError('quaternion has zero length')
    w, x, y, z = q / norm
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def matrix_quat(rot) -> np.ndarray:
    """Unit quaternion (w, x, y, z), w >= 0, of a rotation matrix."""
    m = np.asarray(rot, dtype=float)
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = [(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s]
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s]
    q = np.array(q)
    q /= np.linalg.norm(q)
    return -q if q[0] < 0 else q


def matrix_rpy(rot) -> np.ndarray:
    """URDF roll, pitch, yaw [rad] of a rotation matrix (R = Rz(y) Ry(p) Rx(r))."""
    m = np.asarray(rot, dtype=float)
    sp = -m[2, 0]
    if abs(sp) >= 1.0 - 1e-12:
        # Gimbal lock: roll and yaw share one axis; put it all in yaw.
        p = math.copysign(math.pi / 2, sp)
        return np.array([0.0, p, math.atan2(-m[0, 1], m[1, 1])])
    return np.array([math.atan2(m[2, 1], m[2, 2]), math.asin(sp), math.atan2(m[1, 0], m[0, 0])])


# --- geometry ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Box:
    """A box centred at the origin; ``size`` holds the full edge lengths [m]."""

    size: tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Sphere:
    radius: float


@dataclass(frozen=True, slots=True)
class Cylinder:
    """A cylinder along +z, centred at the origin."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Capsule:
    """A capsule along +z: a cylinder of ``length`` with a hemisphere at each end."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True)
class Cone:
    """A cone along +z, centred at half height, base at -length/2, apex at +length/2."""

    radius: float
    length: float


@dataclass(frozen=True, slots=True, eq=False)
class Mesh:
    """A triangle mesh.

    Attributes:
        vertices: (N, 3) float [m], already scaled.
        faces: (M, 3) int, counter-clockwise seen from outside.
        name: a stable name (used for the files written beside a URDF).
        source: the file the mesh came from, if any (kept for reference and textures).
    """

    vertices: np.ndarray
    faces: np.ndarray
    name: str = 'mesh'
    source: str | None = None

    def __post_init__(self):
        v = np.array(self.vertices, dtype=float).reshape(-1, 3)
        f = np.array(self.faces, dtype=np.int64).reshape(-1, 3)
        v.setflags(write=False)
        f.setflags(write=False)
        object.__setattr__(self, 'vertices', v)
        object.__setattr__(self, 'faces', f)


Geometry = Box | Sphere | Cylinder | Capsule | Cone | Mesh


@dataclass(frozen=True, slots=True)
class Material:
    """Surface appearance: RGBA in 0..1 and an optional texture file path."""

    rgba: tuple[float, float, float, float] = (0.7, 0.7, 0.7, 1.0)
    name: str | None = None
    texture: str | None = None


@dataclass(frozen=True, slots=True)
class Shape:
    """A geometry placed in a link frame."""

    geometry: Geometry
    pose: Pose = field(default_factory=Pose)
    material: Material | None = None
    source: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Inertial:
    """Mass [kg], centre of mass [m] and inertia [kg m^2] about it, in the link frame."""

    mass: float
    com: np.ndarray = field(default_factory=lambda: _vec((0, 0, 0)))
    inertia: np.ndarray = field(default_factory=lambda: _frozen(np.zeros((3, 3))))

    def __post_init__(self):
        object.__setattr__(self, 'mass', float(self.mass))
        object.__setattr__(self, 'com', _vec(self.com))
        object.__setattr__(self, 'inertia', _frozen(np.array(self.inertia, float).reshape(3, 3)))


@dataclass(frozen=True, slots=True)
class Link:
    name: str
    pose: Pose = field(default_factory=Pose)
    inertial: Inertial | None = None
    visuals: tuple[Shape, ...] = ()
    collisions: tuple[Shape, ...] = ()
    source: str | None = None


class JointType(str, enum.Enum):
    FIXED = 'fixed'
    REVOLUTE = 'revolute'
    CONTINUOUS = 'continuous'
    PRISMATIC = 'prismatic'
    BALL = 'ball'
    FREE = 'free'

    @property
    def dof(self) -> int:
        return {'fixed': 0, 'ball': 3, 'free': 6}.get(self.value, 1)


@dataclass(frozen=True, slots=True)
class Limits:
    """Joint limits; None means unbounded. Position [rad or m], velocity [/s], effort [N m or N]."""

    lower: float | None = None
    upper: float | None = None
    velocity: float | None = None
    effort: float | None = None


@dataclass(frozen=True, slots=True)
class Mimic:
    """This joint follows ``joint``: q = multiplier * q_joint + offset.

    ``expression`` is set (and multiplier/offset are meaningless) when the relation is
    not linear: a formula over joint names in :mod:`body_bridge.formula` syntax, written by
    the loader in that syntax (whatever the file's), with ``joint`` its first variable.
    """

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0
    expression: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Joint:
    """A joint from ``parent`` to ``child``; its frame is the child link frame."""

    name: str
    type: JointType
    parent: str
    child: str
    axis: np.ndarray = field(default_factory=lambda: _vec((0, 0, 1)))
    limits: Limits = field(default_factory=Limits)
    initial: float = 0.0
    damping: float = 0.0
    friction: float = 0.0
    armature: float = 0.0
    mimic: Mimic | None = None
    source: str | None = None
    meta: Mapping = field(default_factory=lambda: _EMPTY)

    def __post_init__(self):
        object.__setattr__(self, 'axis', _vec(self.axis))
        object.__setattr__(self, 'type', JointType(self.type))


class DeviceKind(str, enum.Enum):
    ACCELEROMETER = 'accelerometer'
    GYRO = 'gyro'
    IMU = 'imu'
    FORCE = 'force'
    CAMERA = 'camera'
    RANGE = 'range'
    LIGHT = 'light'
    OTHER = 'other'


@dataclass(frozen=True, slots=True)
class Device:
    """A sensor or other device on a link.

    Attributes:
        name: unique within the model.
        kind: what it measures.
        link: the link it is fixed to.
        pose: its frame in the link frame (conventions in the module docstring).
        params: the kind's parameters in SI units and radians (see the loaders). Keys
            shared by loaders: cameras ``width``, ``height`` [px], ``field_of_view`` [rad]
            (across the shorter image side), ``frame_rate`` [Hz], and when the file gives
            intrinsics ``fx``, ``fy``, ``cx``, ``cy`` [px]; scanning range sensors
            ``min_angle``, ``max_angle``, ``resolution`` [rad] (scan about the device z axis,
            angle 0 on its x axis), ``min_distance``, ``max_distance`` [m], ``scan_rate``
            [Hz].
        type_name: the format's own type name (for example ``RateGyroSensor``).
    """

    name: str
    kind: DeviceKind
    link: str
    pose: Pose = field(default_factory=Pose)
    params: Mapping = field(default_factory=lambda: _EMPTY)
    type_name: str = ''
    source: str | None = None


@dataclass(frozen=True, slots=True)
class Frame:
    """A named frame fixed to a link (a manipulator's tool frame, for example).

    It appears in the URDF as a fixed child link and in TF.
    """

    name: str
    link: str
    pose: Pose = field(default_factory=Pose)
    source: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Manipulator:
    """A manipulator: an arm chain and a hand, with a tool frame (OpenRAVE ``<Manipulator>``).

    Attributes:
        name: unique within the model.
        base: the link the arm chain starts from.
        effector: the link the hand is mounted on.
        tool_frame: the name of the tool frame in ``Model.frames`` (fixed to ``effector``).
        arm_joints: the movable joints from ``base`` to ``effector``, in chain order.
        gripper_joints: the hand's joints.
        closing_direction: per gripper joint, +1 or -1 (the sign that closes), or 0.
        direction: the approach direction in the tool frame (unit vector).
        ik_solver: the format's name of an IK solver, if it names one.
    """

    name: str
    base: str
    effector: str
    tool_frame: str
    arm_joints: tuple[str, ...] = ()
    gripper_joints: tuple[str, ...] = ()
    closing_direction: tuple[float, ...] = ()
    direction: np.ndarray = field(default_factory=lambda: _vec((0, 0, 1)))
    ik_solver: str | None = None
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'direction', _vec(self.direction))


@dataclass(frozen=True, slots=True, eq=False)
class LoopClosure:
    """A constraint between two links that the tree does not contain.

    ``type`` is one of ``ball`` (the two points coincide), ``hinge`` (also the axes stay
    aligned), ``slider`` (a prismatic constraint along the axis), ``weld``, and the other
    types listed in ``body_bridge/sim/closures.py``.
    ``pose1``/``pose2`` locate the constraint frame in each link; ``axis`` is in pose1's frame.
    ``length`` [m] is the distance the ``distance``, ``revolute_spherical`` and
    ``revolute_translational`` types keep between pose1 (along its x axis) and pose2.
    """

    name: str
    type: str
    link1: str
    link2: str
    pose1: Pose = field(default_factory=Pose)
    pose2: Pose = field(default_factory=Pose)
    axis: np.ndarray = field(default_factory=lambda: _vec((0, 0, 1)))
    source: str | None = None
    length: float = 0.0


# --- dynamics: time functions, springs, motors, loads, contact ---------------------------
#
# Written by the Project Chrono loader; applied by ``body_bridge/sim/forces.py``.


@dataclass(frozen=True, slots=True)
class Repeat:
    """Periodic replication of a function: ``f(x) = base(start + fmod(x + shift, width))``."""

    start: float
    width: float
    shift: float


class FunctionKind(str, enum.Enum):
    """What ``Function.params`` hold, by kind."""

    CONSTANT = 'constant'      #: (value,)
    POLYNOMIAL = 'polynomial'  #: (a0, a1, a2, ...): a0 + a1 x + a2 x^2 + ...
    SINE = 'sine'              #: (amplitude, frequency [Hz], phase [rad], offset)
    RAMP = 'ramp'              #: (intercept, slope)
    DATA = 'data'              #: (); ``points`` interpolated linearly, constant beyond them
    CONTROLLER = 'controller'  #: (); the value is set from outside (a ROS topic)


@dataclass(frozen=True, slots=True, eq=False)
class Function:
    """A function of one variable (time [s] for motors and loads); see ``body_bridge.functions``.

    Attributes:
        kind: the formula.
        params: its parameters (meaning by kind: see ``FunctionKind``).
        points: for DATA, (N, 2) points (x, f(x)) with increasing x.
        repeat: periodic replication, or None.
    """

    kind: FunctionKind
    params: tuple[float, ...] = ()
    points: np.ndarray | None = None
    repeat: Repeat | None = None

    def __post_init__(self):
        object.__setattr__(self, 'kind', FunctionKind(self.kind))
        object.__setattr__(self, 'params', tuple(float(p) for p in self.params))
        if self.points is not None:
            object.__setattr__(self, 'points', _frozen(np.array(self.points, float).reshape(-1, 2)))


class SpringKind(str, enum.Enum):
    TRANSLATIONAL = 'translational'  #: along the line between two points (Chrono TSDA)
    ROTATIONAL = 'rotational'        #: about an axis (Chrono RSDA)
    JOINT = 'joint'                  #: on the coordinate of one joint of the tree


def _opt_array(value, shape) -> np.ndarray | None:
    return None if value is None else _frozen(np.array(value, float).reshape(shape))


@dataclass(frozen=True, slots=True, eq=False)
class Spring:
    """A spring-damper. Its force (torque) along the element, positive when it pushes ``x`` up::

        F = preload - stiffness (x - rest) - damping v - spring_curve(x - rest)
            - damping_curve(v) - map(x - rest, v) - degressive(v) + stops(x)

    ``x`` is, by kind: the distance between the two points [m] (positive F pushes link1's
    point away from link2's); the angle of link2's frame about the z axis of link1's frame
    [rad] (positive torque turns link2 about +z, link1 the other way); the joint position.
    Curves are (N, 2) tables interpolated linearly (constant beyond their ends);
    ``map_data`` rows are (velocity, force at each of ``map_deformations``), interpolated
    bilinearly. ``degressivity`` is (compression, expansion): the damping force is
    ``damping v / (1 + d v)``. ``stops`` (min, max length) add Chrono's bump-stop forces.

    Attributes:
        pose1, pose2: translational: the points (``pos``) in link1 and link2; rotational:
            frames whose z is the axis, in link1 and link2 (they coincide at the reference
            configuration).
        joint: the joint of a JOINT spring.
    """

    name: str
    kind: SpringKind
    link1: str = ''
    link2: str = ''
    pose1: Pose = field(default_factory=Pose)
    pose2: Pose = field(default_factory=Pose)
    joint: str | None = None
    rest: float = 0.0
    stiffness: float = 0.0
    damping: float = 0.0
    preload: float = 0.0
    spring_curve: np.ndarray | None = None
    damping_curve: np.ndarray | None = None
    map_deformations: np.ndarray | None = None
    map_data: np.ndarray | None = None
    degressivity: tuple[float, float] | None = None
    stops: tuple[float, float] | None = None
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'kind', SpringKind(self.kind))
        object.__setattr__(self, 'spring_curve', _opt_array(self.spring_curve, (-1, 2)))
        object.__setattr__(self, 'damping_curve', _opt_array(self.damping_curve, (-1, 2)))
        object.__setattr__(self, 'map_deformations', _opt_array(self.map_deformations, (-1,)))
        if self.map_data is not None:
            object.__setattr__(self, 'map_data', _frozen(np.array(self.map_data, float)))

    @property
    def is_linear(self) -> bool:
        """Only stiffness, damping and preload: MuJoCo's own springs can carry it exactly."""
        return (self.spring_curve is None and self.damping_curve is None
                and self.map_data is None and self.degressivity is None and self.stops is None)


@dataclass(frozen=True, slots=True, eq=False)
class Bushing:
    """Six-axis spring-damper between a frame on link1 and one on link2 (coinciding at the
    reference configuration): a compliant joint that closes a loop of the tree.

    With ``d`` the displacement of pose2 relative to pose1 (translation [m], then small
    rotations [rad] about pose1's axes) and ``v`` its rate, link2 receives ``-K d - D v``
    (force, then torque, in pose1's axes) and link1 the opposite.

    Attributes:
        stiffness: K, 6 values [N/m, N/m, N/m, N m/rad, N m/rad, N m/rad].
        damping: D, 6 values [N s/m, ..., N m s/rad].
    """

    name: str
    link1: str
    link2: str
    pose1: Pose = field(default_factory=Pose)
    pose2: Pose = field(default_factory=Pose)
    stiffness: np.ndarray = field(default_factory=lambda: _vec((0,) * 6, 6))
    damping: np.ndarray = field(default_factory=lambda: _vec((0,) * 6, 6))
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'stiffness', _vec(self.stiffness, 6))
        object.__setattr__(self, 'damping', _vec(self.damping, 6))


class MotorKind(str, enum.Enum):
    ROTATION = 'rotation'
    LINEAR = 'linear'


class Actuation(str, enum.Enum):
    POSITION = 'position'  #: the joint position follows the function [rad or m]
    SPEED = 'speed'        #: the joint velocity follows it [rad/s or m/s]
    FORCE = 'force'        #: the function is the joint effort [N m or N]


@dataclass(frozen=True, slots=True)
class Motor:
    """A motor driving one joint coordinate with a function of time.

    ``joint`` names a 1-DOF joint of the tree; when the motor's joint closes a loop instead,
    ``closure`` names that LoopClosure and its chain's own degree of freedom is driven.
    The joint's coordinate is the motor's (the loader orients the axis so).
    """

    name: str
    kind: MotorKind
    actuation: Actuation
    function: Function
    joint: str | None = None
    closure: str | None = None
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'kind', MotorKind(self.kind))
        object.__setattr__(self, 'actuation', Actuation(self.actuation))


class LoadKind(str, enum.Enum):
    FORCE = 'force'
    TORQUE = 'torque'


@dataclass(frozen=True, slots=True, eq=False)
class Load:
    """An external force [N] or torque [N m] on a link: ``vector`` times ``function(t)``.

    Attributes:
        local_vector: the vector turns with the link (in the link frame) or is fixed in the
            world frame.
        point: where a force acts: in the link frame (``local_point``) or a point fixed in
            the world frame.
        function: modulation of the vector (None: constant).
        controller: the vector comes from outside (a ROS topic) instead; ``vector`` is zero.
    """

    name: str
    kind: LoadKind
    link: str
    vector: np.ndarray = field(default_factory=lambda: _vec((0, 0, 0)))
    local_vector: bool = True
    point: np.ndarray = field(default_factory=lambda: _vec((0, 0, 0)))
    local_point: bool = True
    function: Function | None = None
    controller: bool = False
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'kind', LoadKind(self.kind))
        object.__setattr__(self, 'vector', _vec(self.vector))
        object.__setattr__(self, 'point', _vec(self.point))


@dataclass(frozen=True, slots=True, eq=False)
class BodyVelocity:
    """Initial velocity of a link: of its centre of mass [m/s] and angular [rad/s], world frame.

    The integrator starts from the joint velocities closest to it (mass-weighted).
    """

    link: str
    linear: np.ndarray = field(default_factory=lambda: _vec((0, 0, 0)))
    angular: np.ndarray = field(default_factory=lambda: _vec((0, 0, 0)))
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'linear', _vec(self.linear))
        object.__setattr__(self, 'angular', _vec(self.angular))


@dataclass(frozen=True, slots=True)
class ContactMaterial:
    """Contact properties of a surface. The ``smc`` values are kept as given (Chrono's
    penalty model): Young's modulus [Pa], Poisson ratio, normal and tangential stiffness
    [N/m] and damping [N s/m], by name."""

    name: str
    friction: float = 0.8
    restitution: float = 0.01
    smc: Mapping = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class ShapeContact:
    """The contact material of ``Link.collisions[index]`` of ``link``, and the radius [m] of
    a sphere swept over its surface (contacts keep the surfaces that far apart)."""

    link: str
    index: int
    material: ContactMaterial
    radius: float = 0.0


@dataclass(frozen=True, slots=True, eq=False)
class Model:
    """A robot or environment: a tree of links and joints, devices and closures.

    ``root_joint`` is how the root link is attached to the world: FIXED or FREE.
    ``warnings`` holds one ``path:line: message`` line for everything the loader ignored.
    ``manipulators`` describe arm/hand chains (their tool frames are in ``frames``);
    ``adjacent`` lists link pairs that never collide with each other.
    """

    name: str
    links: tuple[Link, ...]
    joints: tuple[Joint, ...]
    root: str
    root_joint: JointType = JointType.FIXED
    devices: tuple[Device, ...] = ()
    closures: tuple[LoopClosure, ...] = ()
    frames: tuple[Frame, ...] = ()
    source: str | None = None
    timestep: float | None = None
    warnings: tuple[str, ...] = ()
    #: Spring-dampers, compliant loop closures, motors, external loads (Project Chrono).
    springs: tuple[Spring, ...] = ()
    bushings: tuple[Bushing, ...] = ()
    motors: tuple[Motor, ...] = ()
    loads: tuple[Load, ...] = ()
    #: Initial link velocities (the joints start from rest otherwise).
    initial_velocities: tuple[BodyVelocity, ...] = ()
    #: Contact materials of collision shapes (the integrator's defaults otherwise).
    contacts: tuple[ShapeContact, ...] = ()
    #: 1-DOF joints that start without a servo holding them (free, or driven by a Motor)
    #: until a command names them.
    passive_joints: tuple[str, ...] = ()
    #: Gravity [m/s^2] in the model frame (None: the integrator's default, 9.81 down z).
    gravity: np.ndarray | None = None
    #: False: the model brings its own ground, the integrator adds no ground plane.
    ground_plane: bool | None = None
    #: True: the model's links collide with each other whatever the integrator's option.
    self_collision: bool | None = None
    manipulators: tuple[Manipulator, ...] = ()
    adjacent: tuple[tuple[str, str], ...] = ()
    _links: Mapping = field(default_factory=lambda: _EMPTY, init=False, repr=False)
    _joints: Mapping = field(default_factory=lambda: _EMPTY, init=False, repr=False)
    _parent_joint: Mapping = field(default_factory=lambda: _EMPTY, init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, 'root_joint', JointType(self.root_joint))
        links = {}
        for link in self.links:
            if link.name in links:
                raise ModelError(link.source or self.source, None, f'duplicate link name {link.name!r}')
            links[link.name] = link
        joints = {}
        parent_joint = {}
        for joint in self.joints:
            src = joint.source or self.source
            if joint.name in joints:
                raise ModelError(src, None, f'duplicate joint name {joint.name!r}')
            for end in (joint.parent, joint.child):
                if end not in links:
                    raise ModelError(src, None, f'joint {joint.name!r} refers to unknown link {end!r}')
            if joint.child in parent_joint:
                raise ModelError(src, None, f'link {joint.child!r} has two parent joints')
            if joint.child == self.root:
                raise ModelError(src, None, f'joint {joint.name!r} makes the root link a child')
            if joint.type.dof == 1:
                norm = float(np.linalg.norm(joint.axis))
                if not math.isfinite(norm) or abs(norm - 1.0) > 1e-6:
                    raise ModelError(src, None, f'joint {joint.name!r}: axis is not a unit vector')
            joints[joint.name] = joint
            parent_joint[joint.child] = joint
        if self.root not in links:
            raise ModelError(self.source, None, f'root link {self.root!r} does not exist')
        if self.root_joint not in (JointType.FIXED, JointType.FREE):
            raise ModelError(self.source, None, 'the root link is attached to the world by '
                             f'{self.root_joint.value}; only fixed or free is possible')
        for name in links:
            if name != self.root and name not in parent_joint:
                raise ModelError(links[name].source or self.source, None,
                                 f'link {name!r} is not connected to the root link {self.root!r}')
        # Every link reaches the root without a cycle.
        for name in links:
            seen = set()
            while name != self.root:
                if name in seen:
                    raise ModelError(self.source, None, f'the joints form a cycle through {name!r}')
                seen.add(name)
                name = parent_joint[name].parent
        for device in self.devices:
            if device.link not in links:
                raise ModelError(device.source or self.source, None,
                                 f'device {device.name!r} is on unknown link {device.link!r}')
        for frame in self.frames:
            if frame.link not in links:
                raise ModelError(frame.source or self.source, None,
                                 f'frame {frame.name!r} is on unknown link {frame.link!r}')
            if frame.name in links:
                raise ModelError(frame.source or self.source, None,
                                 f'frame {frame.name!r} has the name of a link')
        self._check_manipulators(links, joints)
        for pair in self.adjacent:
            for end in pair:
                if end not in links:
                    raise ModelError(self.source, None, f'adjacent pair {pair!r} names unknown '
                                     f'link {end!r}')
        object.__setattr__(self, '_links', MappingProxyType(links))
        object.__setattr__(self, '_joints', MappingProxyType(joints))
        object.__setattr__(self, '_parent_joint', MappingProxyType(parent_joint))
        if self.gravity is not None:
            object.__setattr__(self, 'gravity', _vec(self.gravity))
        _check_dynamics(self, links, joints)

    def _check_manipulators(self, links, joints) -> None:
        frames = {f.name for f in self.frames}
        for manip in self.manipulators:
            src = manip.source or self.source
            for end in (manip.base, manip.effector):
                if end not in links:
                    raise ModelError(src, None,
                                     f'manipulator {manip.name!r}: unknown link {end!r}')
            if manip.tool_frame not in frames:
                raise ModelError(src, None, f'manipulator {manip.name!r}: tool frame '
                                 f'{manip.tool_frame!r} is not in the model\'s frames')
            for name in (*manip.arm_joints, *manip.gripper_joints):
                if name not in joints:
                    raise ModelError(src, None, f'manipulator {manip.name!r}: unknown joint '
                                     f'{name!r}')

    def link(self, name: str) -> Link:
        return self._links[name]

    def joint(self, name: str) -> Joint:
        return self._joints[name]

    def parent_joint(self, link: str) -> Joint | None:
        """The joint whose child is ``link`` (None for the root)."""
        return self._parent_joint.get(link)

    def joint_origin(self, joint: Joint) -> Pose:
        """The child link frame in the parent link frame at the reference configuration."""
        return self._links[joint.parent].pose.inverse() @ self._links[joint.child].pose

    def ordered_joints(self) -> list[Joint]:
        """Joints ordered so that every parent link comes before its children."""
        children: dict[str, list[Joint]] = {}
        for joint in self.joints:
            children.setdefault(joint.parent, []).append(joint)
        out, stack = [], [self.root]
        while stack:
            for joint in reversed(children.get(stack.pop(), [])):
                out.append(joint)
                stack.append(joint.child)
        return out

    @property
    def movable_joints(self) -> list[Joint]:
        """One-degree-of-freedom joints (the ones in joint_states), in model order."""
        return [j for j in self.joints if j.type.dof == 1]

    @property
    def total_mass(self) -> float:
        return sum(link.inertial.mass for link in self.links if link.inertial is not None)

    def device_frames(self) -> dict[str, str]:
        """The TF frame name of each device: its name, or ``<link>_<name>`` if that is taken."""
        taken = set(self._links) | {f.name for f in self.frames}
        frames = {}
        for device in self.devices:
            frame = device.name if device.name not in taken else f'{device.link}_{device.name}'
            while frame in taken:
                frame += '_frame'
            taken.add(frame)
            frames[device.name] = frame
        return frames


def _check_dynamics(model: Model, links: Mapping, joints: Mapping) -> None:
    """Springs, motors, loads and the rest name links and joints that exist."""
    def check(item, kind: str, link_names=(), joint_names=()) -> None:
        src = getattr(item, 'source', None) or model.source
        for name in link_names:
            if name not in links:
                raise ModelError(src, None, f'{kind} {getattr(item, "name", "")!r} refers to '
                                 f'unknown link {name!r}')
        for name in joint_names:
            if name not in joints:
                raise ModelError(src, None, f'{kind} {getattr(item, "name", "")!r} refers to '
                                 f'unknown joint {name!r}')
    closures = {c.name for c in model.closures}
    for spring in model.springs:
        if spring.kind == SpringKind.JOINT:
            check(spring, 'spring', joint_names=(spring.joint,))
        else:
            check(spring, 'spring', (spring.link1, spring.link2))
    for bushing in model.bushings:
        check(bushing, 'bushing', (bushing.link1, bushing.link2))
    for motor in model.motors:
        if (motor.joint is None) == (motor.closure is None):
            raise ModelError(motor.source or model.source, None,
                             f'motor {motor.name!r} must drive exactly one joint or closure')
        if motor.joint is not None:
            check(motor, 'motor', joint_names=(motor.joint,))
        elif motor.closure not in closures:
            raise ModelError(motor.source or model.source, None,
                             f'motor {motor.name!r} refers to unknown closure {motor.closure!r}')
    for load in model.loads:
        check(load, 'load', (load.link,))
    for velocity in model.initial_velocities:
        check(velocity, 'initial velocity of', (velocity.link,))
    for contact in model.contacts:
        check(contact, 'contact material of', (contact.link,))
        if not 0 <= contact.index < len(links[contact.link].collisions):
            raise ModelError(model.source, None, f'contact material of {contact.link!r}: '
                             f'no collision shape {contact.index}')
    check(None, 'passive joint list', joint_names=model.passive_joints)
