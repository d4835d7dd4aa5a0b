"""Links, joints and devices: the tree of a model and what is mounted on it.

Masses [kg], lengths [m], inertia [kg m^2] about the centre of mass in the link frame,
angles [rad], joint limits in the joint's unit (rad or m; velocity per s; effort N m or N).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ._values import EMPTY, frozen_array, vector
from .shapes import Shape
from .transforms import Pose

__all__ = [
    'Inertial', 'Link', 'JointType', 'Limits', 'Mimic', 'Joint', 'DeviceKind', 'Device',
    'Frame', 'Manipulator'
]


@dataclass(frozen=True, slots=True, eq=False)
class Inertial:
    """Mass [kg], centre of mass [m] and inertia [kg m^2] about it, in the link frame."""

    mass: float
    com: np.ndarray = field(default_factory=lambda: vector((0, 0, 0)))
    inertia: np.ndarray = field(default_factory=lambda: frozen_array(np.zeros((3, 3))))

    def __post_init__(self):
        object.__setattr__(self, 'mass', float(self.mass))
        object.__setattr__(self, 'com', vector(self.com))
        inertia = np.array(self.inertia, float).reshape(3, 3)
        object.__setattr__(self, 'inertia', frozen_array(inertia))


@dataclass(frozen=True, slots=True)
class Link:
    name: str
    pose: Pose = field(default_factory=Pose)
    inertial: Inertial | None = None
    visuals: tuple[Shape, ...] = ()
    collisions: tuple[Shape, ...] = ()
    source: str | None = None


class JointType(str, enum.Enum):
    """How a joint moves its child link. TRACK: the child link is fixed to its parent, and
    its surface moves like a continuous track's (or a conveyor belt's): the joint's position
    is the distance the surface has travelled [m], its velocity the surface speed [m/s]; at a
    contact whose normal n points from the link to the other body, the surface moves along
    ``axis x n`` (the axis in the link frame)."""

    FIXED = 'fixed'
    REVOLUTE = 'revolute'
    CONTINUOUS = 'continuous'
    PRISMATIC = 'prismatic'
    BALL = 'ball'
    FREE = 'free'
    TRACK = 'track'

    @property
    def dof(self) -> int:
        return {'fixed': 0, 'ball': 3, 'free': 6}.get(self.value, 1)

    @property
    def rigid(self) -> bool:
        """Whether the child link cannot move relative to its parent (fixed and track)."""
        return self in (JointType.FIXED, JointType.TRACK)


@dataclass(frozen=True, slots=True)
class Limits:
    """Joint limits; None means unbounded.

    Position [rad or m], velocity [/s], effort [N m or N].
    """

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
    axis: np.ndarray = field(default_factory=lambda: vector((0, 0, 1)))
    limits: Limits = field(default_factory=Limits)
    initial: float = 0.0
    damping: float = 0.0
    friction: float = 0.0
    armature: float = 0.0
    mimic: Mimic | None = None
    source: str | None = None
    meta: Mapping = field(default_factory=lambda: EMPTY)

    def __post_init__(self):
        object.__setattr__(self, 'axis', vector(self.axis))
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
    params: Mapping = field(default_factory=lambda: EMPTY)
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
    direction: np.ndarray = field(default_factory=lambda: vector((0, 0, 1)))
    ik_solver: str | None = None
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'direction', vector(self.direction))
