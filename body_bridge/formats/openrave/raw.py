"""What the OpenRAVE reader collects before the neutral model is built: the file's raw shape.

Transforms are 4x4 numpy matrices in metres. Like OpenRAVE's own reader, link transforms are
mutable while reading (a body's ``<translation>`` moves its links when the body ends), and each
joint records the relative transform of its two links *when the joint is read*; the final link
poses come from the root link through the joints (see ``assemble``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...model import Inertial, axis_angle_matrix, quat_matrix
from .xmlfile import Element

__all__ = ['RawGeom', 'RawLink', 'RawJoint', 'RawManipulator', 'RawSensor', 'RawBody',
           'RawWorld', 'TransformTags', 'translation_matrix', 'rotation_matrix', 'inverse']

TRANSFORM_TAGS = frozenset({'translation', 'rotationaxis', 'rotationmat', 'quat'})


def translation_matrix(v) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = v
    return m


def rotation_matrix(rot) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = rot
    return m


def inverse(m: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = m[:3, :3].T
    out[:3, 3] = -m[:3, :3].T @ m[:3, 3]
    return out


class TransformTags:
    """OpenRAVE's transform tags, compounded the way its reader does.

    Translations add up; every rotation (``rotationaxis`` [deg], ``rotationmat`` row-major,
    ``quat`` w x y z) multiplies the rotation so far from the left. The two never mix: a
    rotation does not turn a translation given before it.
    """

    def __init__(self, start: np.ndarray | None = None):
        start = np.eye(4) if start is None else start
        self.rot = start[:3, :3].copy()
        self.pos = start[:3, 3].copy()

    def read(self, element: Element, scale: np.ndarray | None = None) -> bool:
        """Apply one element if it is a transform tag; return whether it was one."""
        tag = element.tag
        if tag == 'translation':
            v = element.numbers(3)
            self.pos = self.pos + (v if scale is None else v * scale)
        elif tag == 'rotationaxis':
            x, y, z, deg = element.numbers(4)
            axis = scaled((x, y, z))
            if axis is None:
                raise element.error('<rotationaxis> has a zero axis')
            self.rot = axis_angle_matrix(axis, math.radians(deg)) @ self.rot
        elif tag == 'rotationmat':
            m = element.numbers(9).reshape(3, 3)
            if not np.allclose(m @ m.T, np.eye(3), atol=1e-3) or np.linalg.det(m) <= 0:
                raise element.error('<rotationmat> is not a rotation matrix')
            u, _, vt = np.linalg.svd(m)  # the nearest rotation: files round to a few digits
            self.rot = (u @ vt) @ self.rot
        elif tag == 'quat':
            q = scaled(element.numbers(4))
            if q is None:
                raise element.error('<quat> is the zero quaternion')
            self.rot = quat_matrix(q) @ self.rot
        else:
            return False
        element.used.add(tag)
        return True

    def matrix(self) -> np.ndarray:
        m = np.eye(4)
        m[:3, :3] = self.rot
        m[:3, 3] = self.pos
        return m


def scaled(values, zero: float = 1e-12) -> np.ndarray | None:
    """``values`` divided by their largest magnitude (so that a norm cannot overflow or
    underflow), or None when that magnitude is below ``zero`` (a zero vector)."""
    v = np.asarray(values, dtype=float)
    top = float(np.max(np.abs(v))) if v.size else 0.0
    if not top >= zero:
        return None
    return v / top


@dataclass(eq=False)
class RawGeom:
    """One ``<geom>``: its kind, its frame in the link frame and what it is made of.

    ``pose`` already contains OpenRAVE's quarter turn of cylinders (built along y in the
    file, along z in the model). Sizes are SI: ``extents`` are OpenRAVE's half sizes.
    """

    kind: str
    pose: np.ndarray
    element: Element
    extents: np.ndarray | None = None
    radius: float | None = None
    height: float | None = None
    render: tuple[str, np.ndarray] | None = None      # (resolved path, scale xyz)
    collision: tuple[str, np.ndarray] | None = None
    vertices: np.ndarray | None = None                 # inline triangle soup, (3N, 3)
    faces: np.ndarray | None = None                    # (M, 3) indices into vertices, if any
    visible: bool = True
    diffuse: tuple[float, float, float] | None = None
    ambient: tuple[float, float, float] | None = None
    transparency: float | None = None


@dataclass(eq=False)
class RawLink:
    name: str
    element: Element
    transform: np.ndarray = field(default_factory=lambda: np.eye(4))
    geoms: list[RawGeom] = field(default_factory=list)
    inertial: Inertial | None = None
    mass_given: bool = False           # a <mass> (its own or its KinBody's) gave the inertial
    static: bool = False
    enabled: bool = True               # False: drawn and weighed, never collides


@dataclass(eq=False)
class RawJoint:
    """A joint as OpenRAVE reads it: anchor and axes in body0's frame at read time."""

    name: str
    type: str
    element: Element
    body0: RawLink
    body1: RawLink
    anchor: np.ndarray
    axes: list[np.ndarray]
    relative: np.ndarray                # body1 in body0 when the joint was read
    active: bool = True
    circular: bool = False
    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    limits_given: bool = False
    initial: list[float] = field(default_factory=list)
    maxvel: list[float] | None = None
    maxaccel: list[float] | None = None
    maxtorque: list[float] | None = None
    mimic: dict[int, dict[str, tuple[str, Element]]] = field(default_factory=dict)
    meta: dict = field(default_factory=dict)

    @property
    def dof(self) -> int:
        return {'universal': 2, 'hinge2': 2, 'spherical': 3}.get(self.type, 1)


@dataclass(eq=False)
class RawManipulator:
    name: str
    element: Element
    base: str | None = None
    effector: str | None = None
    tool: np.ndarray = field(default_factory=lambda: np.eye(4))
    gripper_joints: list[str] = field(default_factory=list)
    closing_direction: list[float] = field(default_factory=list)
    direction: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    ik_solver: str | None = None


@dataclass(eq=False)
class RawSensor:
    """An ``<AttachedSensor>`` (or an environment ``<sensor>``, whose link is None)."""

    name: str
    element: Element
    link: str | None = None
    transform: np.ndarray = field(default_factory=lambda: np.eye(4))
    type: str | None = None
    params: list[Element] = field(default_factory=list)
    sensor_element: Element | None = None


@dataclass(eq=False)
class RawBody:
    """One OpenRAVE body (a KinBody or a Robot) with everything its files added to it."""

    name: str
    kind: str                          # 'robot' or 'kinbody'
    element: Element
    links: list[RawLink] = field(default_factory=list)
    joints: list[RawJoint] = field(default_factory=list)
    adjacent: list[tuple[str, str, Element]] = field(default_factory=list)
    manipulators: list[RawManipulator] = field(default_factory=list)
    sensors: list[RawSensor] = field(default_factory=list)
    jointvalues: tuple[np.ndarray, Element] | None = None
    joined_adjacent: bool = True       # makejoinedlinksadjacent: joined links never collide

    def link(self, name: str) -> RawLink | None:
        for link in self.links:
            if link.name == name:
                return link
        return None


@dataclass(eq=False)
class RawWorld:
    """What a file declares: bodies, environment sensors, and whether it is an environment."""

    path: str
    environment: bool
    bodies: list[RawBody] = field(default_factory=list)
    sensors: list[RawSensor] = field(default_factory=list)
