"""Closures, springs, motors and loads: what acts besides the tree (mostly Project Chrono).

Stiffness [N/m or N m/rad], damping [N s/m or N m s/rad], forces [N], torques [N m], time
functions of seconds; positions [m] and rotations in the links' frames.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import numpy as np

from ._values import frozen_array, optional_array, vector
from .transforms import Pose

__all__ = [
    'LoopClosure', 'Repeat', 'FunctionKind', 'Function', 'SpringKind', 'Spring', 'Bushing',
    'MotorKind', 'Actuation', 'Motor', 'LoadKind', 'Load', 'BodyVelocity'
]


@dataclass(frozen=True, slots=True, eq=False)
class LoopClosure:
    """A constraint between two links that the tree does not contain.

    ``type`` is one of ``ball`` (the two points coincide), ``hinge`` (also the axes stay
    aligned), ``slider`` (a prismatic constraint along the axis), ``weld``, and the other
    types listed in ``body_bridge/sim/mechanics/closures.py``.
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
    axis: np.ndarray = field(default_factory=lambda: vector((0, 0, 1)))
    source: str | None = None
    length: float = 0.0


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
            points = np.array(self.points, float).reshape(-1, 2)
            object.__setattr__(self, 'points', frozen_array(points))


class SpringKind(str, enum.Enum):
    TRANSLATIONAL = 'translational'  #: along the line between two points (Chrono TSDA)
    ROTATIONAL = 'rotational'        #: about an axis (Chrono RSDA)
    JOINT = 'joint'                  #: on the coordinate of one joint of the tree


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
        object.__setattr__(self, 'spring_curve', optional_array(self.spring_curve, (-1, 2)))
        object.__setattr__(self, 'damping_curve', optional_array(self.damping_curve, (-1, 2)))
        object.__setattr__(self, 'map_deformations', optional_array(self.map_deformations, (-1,)))
        if self.map_data is not None:
            object.__setattr__(self, 'map_data', frozen_array(np.array(self.map_data, float)))

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
    stiffness: np.ndarray = field(default_factory=lambda: vector((0,) * 6, 6))
    damping: np.ndarray = field(default_factory=lambda: vector((0,) * 6, 6))
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'stiffness', vector(self.stiffness, 6))
        object.__setattr__(self, 'damping', vector(self.damping, 6))


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
    vector: np.ndarray = field(default_factory=lambda: vector((0, 0, 0)))
    local_vector: bool = True
    point: np.ndarray = field(default_factory=lambda: vector((0, 0, 0)))
    local_point: bool = True
    function: Function | None = None
    controller: bool = False
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'kind', LoadKind(self.kind))
        object.__setattr__(self, 'vector', vector(self.vector))
        object.__setattr__(self, 'point', vector(self.point))


@dataclass(frozen=True, slots=True, eq=False)
class BodyVelocity:
    """Initial velocity of a link: of its centre of mass [m/s] and angular [rad/s], world frame.

    The integrator starts from the joint velocities closest to it (mass-weighted).
    """

    link: str
    linear: np.ndarray = field(default_factory=lambda: vector((0, 0, 0)))
    angular: np.ndarray = field(default_factory=lambda: vector((0, 0, 0)))
    source: str | None = None

    def __post_init__(self):
        object.__setattr__(self, 'linear', vector(self.linear))
        object.__setattr__(self, 'angular', vector(self.angular))
