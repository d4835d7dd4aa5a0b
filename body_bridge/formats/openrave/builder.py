"""OpenRAVE XML (``.robot.xml``, ``.kinbody.xml``, ``.env.xml``, OpenRAVE ``.xml``) loader.

The reference is OpenRAVE's XML format page (``../shared/specs/openrave-xml-format.txt``) and,
where it is silent, OpenRAVE's own reader (``xmlreaders.cpp``). The work is split:

* :mod:`.xmlfile` parses safely (defusedxml) with line numbers;
* :mod:`.reader` applies OpenRAVE's reading semantics (includes, prefixes,
  transforms, offsetfrom, appended bodies) into raw bodies;
* :mod:`.geom` turns geometries and masses into shapes and inertia;
* :mod:`.assemble` builds each body's tree, closures and mimic couplings;
* :mod:`.devices` makes sensors into devices and manipulators into tool frames.

A single Robot or KinBody is the model; a Robot's root link is fixed to the world (the node's
``root`` parameter may free it: :mod:`body_bridge.sim.building.rootchoice`), a KinBody's
root is fixed when its first link is ``static`` and free otherwise. An Environment is one model
rooted at a fixed ``world`` link, each body attached by a fixed (static) or free (dynamic) joint,
with every name prefixed ``<body>/``; ``Joint.meta['body']`` tells which body a joint (and its
child link) belongs to.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from ...errors import ModelError
from ...fparser import mimic_formula, mimic_order
from ...formula import FormulaError
from ...model import Device, Frame, Joint, JointType, Link, Manipulator, Model, freeze
from .assemble import BodyParts, assemble_body
from .devices import manipulator_parts, sensor_device
from .geom import MeshCache
from .raw import RawBody, RawWorld
from .context import Context
from .reader import read_world
from .xmlfile import parse_file

__all__ = ['load', 'load_xml', 'load_collada', 'EXTENSIONS', 'XML_EXTENSION', 'is_openrave']

EXTENSIONS = ('.robot.xml', '.kinbody.xml', '.env.xml')
#: Plain ``.xml`` files are OpenRAVE documents when their root element is one of these.
XML_EXTENSION = '.xml'
ROOT_TAGS = ('environment', 'robot', 'kinbody')
WORLD = 'world'


def is_openrave(path: str | os.PathLike) -> bool:
    """Whether an XML file's root element is ``<Environment>``, ``<Robot>`` or ``<KinBody>``."""
    try:
        return parse_file(path).tag in ROOT_TAGS
    except ModelError:
        return False


def load_xml(path: str | os.PathLike) -> Model:
    """A plain ``.xml`` file: loaded when it is an OpenRAVE document, refused otherwise.

    Raises:
        ModelError: the file is not OpenRAVE XML (the reader names its root element).
    """
    return load(path)


def load_collada(path: str | os.PathLike) -> Model:
    """A COLLADA robot or body (``.dae``, ``.zae``) as OpenRAVE writes them.

    Raises:
        ModelError: ``path:line: message`` for anything the file gets wrong.
    """
    return load(path)


def load(path: str | os.PathLike) -> Model:
    """Load an OpenRAVE XML file into the neutral model.

    Raises:
        ModelError: ``path:line: message`` for anything the file gets wrong.
    """
    path = os.fspath(path)
    world, warnings = read_world(path)
    ctx = Context(path)
    ctx.warnings = warnings
    return _Builder(world, ctx).model()


class _Builder:
    def __init__(self, world: RawWorld, ctx: Context):
        self.world = world
        self.ctx = ctx
        self.cache = MeshCache(ctx.warnings.append)
        self.links: list[Link] = []
        self.joints: list[Joint] = []
        self.closures = []
        self.passive: list[str] = []  # joints that move freely (no servo holds them)
        self.welded_balls: list[str] = []  # disabled spherical joints (held fixed)
        self.devices: list[Device] = []
        self.frames: list[Frame] = []
        self.manipulators: list[Manipulator] = []
        self.adjacent: list[tuple[str, str]] = []

    def warn(self, element, message: str) -> None:
        self.ctx.warn(element, message)

    def model(self) -> Model:
        env = self.world.environment
        root_joint = JointType.FIXED
        if env:
            self.links.append(Link(WORLD, source=self.world.path))
        for body in self.world.bodies:
            prefix = f'{body.name}/' if env else ''
            parts = assemble_body(body, lambda n, p=prefix: p + n, self.warn, self.cache)
            fixed = body.kind == 'robot' or parts.root_static
            self.links.extend(parts.links)
            if env:
                self.joints.append(Joint(
                    f'{body.name}/world_joint', JointType.FIXED if fixed else JointType.FREE,
                    WORLD, parts.root, source=body.element.where(),
                    meta=freeze({'body': body.name, 'body_kind': body.kind})))
            else:
                root_joint = JointType.FIXED if fixed else JointType.FREE
            self.joints.extend(parts.joints)
            self.closures.extend(parts.closures)
            self.passive.extend(parts.passive)
            self.welded_balls.extend(parts.welded_balls)
            self._initial_values(body, parts)
            self._extras(body, parts, prefix)
        self._mimic_initial_values()
        for sensor in self.world.sensors:
            device = sensor_device(sensor, sensor.name, WORLD, np.eye(4), self.warn)
            if device is not None:
                self.devices.append(device)
        name = self.world.bodies[0].name if not env and self.world.bodies else \
            os.path.basename(self.world.path).split('.')[0]
        root = WORLD if env else self.links[0].name
        try:
            return Model(name, tuple(self.links), tuple(self.joints), root, root_joint,
                         tuple(self.devices), tuple(self.closures), tuple(self.frames),
                         self.world.path, warnings=tuple(dict.fromkeys(self.ctx.warnings)),
                         manipulators=tuple(self.manipulators), adjacent=tuple(self.adjacent),
                         passive_joints=tuple(self.passive),
                         welded_balls=tuple(self.welded_balls))
        except ModelError as err:
            raise ModelError(err.path or self.world.path, err.line, err.message) from None

    # --- initial positions --------------------------------------------------------------

    def _initial_values(self, body: RawBody, parts: BodyParts) -> None:
        """``<jointvalues>``: one value per degree of freedom of the active joints, in order."""
        if body.jointvalues is None:
            return
        values, element = body.jointvalues
        active = [j for j in body.joints if j.active]
        dofs = sum(j.dof for j in active)
        if len(values) != dofs:
            self.warn(element, f'<jointvalues> has {len(values)} values for {dofs} degrees of '
                               'freedom; ignored (as OpenRAVE does)')
            return
        by_raw_name: dict[str, list[int]] = {}
        index = 0
        for joint in active:
            by_raw_name[joint.name] = list(range(index, index + joint.dof))
            index += joint.dof
        prefix = f'{body.name}/' if self.world.environment else ''
        for i, joint in enumerate(self.joints):
            raw = joint.name[len(prefix):] if joint.name.startswith(prefix) else joint.name
            slot = None
            if raw in by_raw_name and joint.type.dof == 1:
                slot = by_raw_name[raw][0]
            elif raw.endswith(('_axis1', '_axis2')) and raw[:-6] in by_raw_name:
                slot = by_raw_name[raw[:-6]][int(raw[-1]) - 1]
            if slot is not None and joint.meta.get('body') == body.name and joint.mimic is None:
                self.joints[i] = _with_initial(joint, float(values[slot]))

    def _mimic_initial_values(self) -> None:
        """A mimic joint starts where its formula puts it (OpenRAVE computes it the same way),
        the formulas evaluated in dependency order whatever the file's order.

        A formula that names a joint closing a loop (not a joint of the tree) cannot be
        followed: the loop moves that joint instead, freely (a passive joint), with a warning.

        Raises:
            ModelError: the formulas form a cycle (its joints named).
        """
        index = {j.name: i for i, j in enumerate(self.joints)}
        movable = {j.name for j in self.joints if j.type.dof == 1}
        for i, joint in enumerate(self.joints):
            if joint.mimic is None:
                continue
            loose = [v for v in mimic_formula(joint.mimic).variables if v not in movable]
            if loose:
                closing = {c.name for c in self.closures}
                why = 'closes a loop' if loose[0] in closing else 'is not a movable joint'
                self.ctx.warnings.append(
                    f'{joint.source}: joint {joint.name!r}: its mimic formula names '
                    f'{loose[0]!r}, which {why}: the formula is not followed, the joint '
                    'moves freely with its loop')
                self.joints[i] = _with_initial(joint, joint.initial, mimic=None)
                self.passive.append(joint.name)
        try:
            order = mimic_order(self.joints)
        except FormulaError as err:
            raise ModelError(self.world.path, None, str(err)) from None
        for joint in order:
            formula = mimic_formula(joint.mimic).with_limits(joint.limits.lower,
                                                             joint.limits.upper)
            try:
                value = formula.evaluate({v: self.joints[index[v]].initial
                                          for v in formula.variables})
            except FormulaError as err:
                raise ModelError(self.world.path, None, f'joint {joint.name!r}: {err}') \
                    from None
            self.joints[index[joint.name]] = _with_initial(joint, value)

    # --- devices, tool frames, adjacency ------------------------------------------------

    def _extras(self, body: RawBody, parts: BodyParts, prefix: str) -> None:
        links_by_name = {raw.name: raw for raw in body.links}
        for sensor in body.sensors:
            raw_link = links_by_name.get(sensor.link) if sensor.link else body.links[0]
            if raw_link is None:
                self.warn(sensor.element, f'sensor {sensor.name!r}: link {sensor.link!r} does '
                                          'not exist; the sensor was ignored')
                continue
            model_name, frame_f, frame_t = parts.frames[raw_link]
            local = np.linalg.inv(frame_f) @ frame_t
            device = sensor_device(sensor, prefix + (sensor.name or 'sensor'), model_name,
                                   local, self.warn)
            if device is not None:
                self.devices.append(device)
        taken = {link.name for link in self.links} | {f.name for f in self.frames}
        for manip in body.manipulators:
            made = manipulator_parts(manip, lambda n: prefix + n, parts.frames, links_by_name,
                                     taken, self._chain, self.warn)
            if made is not None:
                frame, record = made
                known = {j.name for j in self.joints}
                missing = [j for j in record.gripper_joints if j not in known]
                if missing:
                    self.warn(manip.element, f'manipulator {manip.name!r}: joints '
                                             f'{", ".join(missing)} do not exist; dropped')
                    record = Manipulator(record.name, record.base, record.effector,
                                         record.tool_frame, record.arm_joints,
                                         tuple(j for j in record.gripper_joints if j in known),
                                         record.closing_direction, record.direction,
                                         record.ik_solver, record.source)
                self.frames.append(frame)
                self.manipulators.append(record)
        names = {link.name for link in parts.links}
        for first, second, element in body.adjacent:
            pair = (prefix + first, prefix + second)
            if pair[0] in names and pair[1] in names:
                self.adjacent.append(pair)
            else:
                self.warn(element, f'<adjacent> names a link that does not exist: {first!r} '
                                   f'or {second!r}; ignored')
        if body.joined_adjacent:   # OpenRAVE: links a joint joins never collide (loops too)
            for closure in parts.closures:
                if (closure.link1, closure.link2) not in self.adjacent:
                    self.adjacent.append((closure.link1, closure.link2))
        else:
            self.warn(body.element, 'makejoinedlinksadjacent="false": links joined in the '
                                    'tree still never collide (MuJoCo filters parent and '
                                    'child)')

    def _chain(self, base: str, effector: str) -> list[str] | None:
        """Movable joints from ``base`` down to ``effector``, or None if not a descendant."""
        parent_of = {j.child: j for j in self.joints}
        path = []
        link = effector
        while link != base:
            joint = parent_of.get(link)
            if joint is None:
                return None
            if joint.type.dof == 1:
                path.append(joint.name)
            link = joint.parent
        return list(reversed(path))


def _with_initial(joint: Joint, value: float, **changes) -> Joint:
    return dataclasses.replace(joint, initial=value, **changes)

