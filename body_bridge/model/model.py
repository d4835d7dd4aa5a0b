"""The :class:`Model`: a robot or environment as one record, and its validation.

Constructing a Model checks that names are unique and that every joint, closure, spring,
motor, load and contact names links and joints that exist (:class:`ModelError` otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ..errors import ModelError
from ._values import EMPTY, vector
from .dynamics import BodyVelocity, Bushing, Load, LoopClosure, Motor, Spring, SpringKind
from .parts import Device, Frame, Joint, JointType, Link, Manipulator
from .shapes import ContactPair, ShapeContact
from .transforms import Pose

__all__ = [
    'Model'
]


@dataclass(frozen=True, slots=True, eq=False)
class Model:
    """A robot or environment: a tree of links and joints, devices and closures.

    ``root_joint`` is how the root link is attached to the world: FIXED or FREE.
    ``warnings`` holds one ``path:line: message`` line for everything the loader ignored;
    ``dropped`` repeats those about parts of the file the model lacks (elements the loader
    could not read but could go on without: ``check`` reports them as errors).
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
    dropped: tuple[str, ...] = ()
    #: Spring-dampers, compliant loop closures, motors, external loads (Project Chrono).
    springs: tuple[Spring, ...] = ()
    bushings: tuple[Bushing, ...] = ()
    motors: tuple[Motor, ...] = ()
    loads: tuple[Load, ...] = ()
    #: Initial link velocities (the joints start from rest otherwise).
    initial_velocities: tuple[BodyVelocity, ...] = ()
    #: Contact materials of collision shapes (the integrator's defaults otherwise).
    contacts: tuple[ShapeContact, ...] = ()
    #: Contact values of pairs of contact materials (by ``ContactMaterial.name``) from a
    #: material table; ``contact_ground`` names the ground plane's material in that table.
    contact_pairs: tuple[ContactPair, ...] = ()
    contact_ground: str | None = None
    #: 1-DOF joints that start without a servo holding them (free, or driven by a Motor)
    #: until a command names them.
    passive_joints: tuple[str, ...] = ()
    #: Fixed joints the file declares as ball joints but holds still (OpenRAVE: a spherical
    #: joint with ``enable="false"``): a sphere on one that touches the ground is a ball
    #: caster that drags (``sim/building/casters.py``).
    welded_balls: tuple[str, ...] = ()
    #: Gravity [m/s^2] in the model frame (None: the integrator's default, 9.81 down z).
    gravity: np.ndarray | None = None
    #: False: the model brings its own ground, the integrator adds no ground plane.
    ground_plane: bool | None = None
    #: True: the model's links collide with each other whatever the integrator's option.
    self_collision: bool | None = None
    manipulators: tuple[Manipulator, ...] = ()
    adjacent: tuple[tuple[str, str], ...] = ()
    _links: Mapping = field(default_factory=lambda: EMPTY, init=False, repr=False)
    _joints: Mapping = field(default_factory=lambda: EMPTY, init=False, repr=False)
    _parent_joint: Mapping = field(default_factory=lambda: EMPTY, init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, 'root_joint', JointType(self.root_joint))
        links = {}
        for link in self.links:
            if link.name in links:
                raise ModelError(link.source or self.source, None,
                                 f'duplicate link name {link.name!r}')
            links[link.name] = link
        joints = {}
        parent_joint = {}
        for joint in self.joints:
            src = joint.source or self.source
            if joint.name in joints:
                raise ModelError(src, None, f'duplicate joint name {joint.name!r}')
            for end in (joint.parent, joint.child):
                if end not in links:
                    raise ModelError(src, None,
                                     f'joint {joint.name!r} refers to unknown link {end!r}')
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
                    raise ModelError(self.source, None,
                                     f'the joints form a cycle through {name!r}')
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
            object.__setattr__(self, 'gravity', vector(self.gravity))
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
        """The TF frame name of each device: its name, or ``<link>_<name>`` if that is taken
        (by a link, a frame, or a joint named as the frame's fixed joint ``<frame>_joint``)."""
        taken = set(self._links) | {f.name for f in self.frames}
        joints = {j.name for j in self.joints}

        def used(frame: str) -> bool:
            return frame in taken or f'{frame}_joint' in joints
        frames = {}
        for device in self.devices:
            frame = device.name if not used(device.name) else f'{device.link}_{device.name}'
            while used(frame):
                frame += '_frame'
            taken.add(frame)
            frames[device.name] = frame
        return frames


def _check_dynamics(model: Model, links: Mapping, joints: Mapping) -> None:
    """Loop closures, springs, motors, loads and the rest name links and joints that exist;
    a loop closure joins two different links."""
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
    for closure in model.closures:
        check(closure, 'loop closure', (closure.link1, closure.link2))
        if closure.link1 == closure.link2:
            raise ModelError(closure.source or model.source, None,
                             f'loop closure {closure.name!r} joins link {closure.link1!r} to '
                             'itself')
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
    check(None, 'welded ball joint list', joint_names=model.welded_balls)
    for name in model.welded_balls:
        if joints[name].type != JointType.FIXED:
            raise ModelError(model.source, None, f'welded ball joint {name!r} is not fixed')
