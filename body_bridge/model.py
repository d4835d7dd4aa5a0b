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
    aligned), ``slider`` (a prismatic constraint along the axis), ``weld``.
    ``pose1``/``pose2`` locate the constraint frame in each link; ``axis`` is in pose1's frame.
    """

    name: str
    type: str
    link1: str
    link2: str
    pose1: Pose = field(default_factory=Pose)
    pose2: Pose = field(default_factory=Pose)
    axis: np.ndarray = field(default_factory=lambda: _vec((0, 0, 1)))
    source: str | None = None


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
