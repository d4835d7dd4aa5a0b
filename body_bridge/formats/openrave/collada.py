"""COLLADA 1.5 robots and bodies as OpenRAVE writes and reads them (``.dae``, ``.zae``), into
the same raw bodies the XML reader makes (:mod:`.raw`), so everything after reading is shared.

Facts followed (OpenRAVE ``colladareader.cpp``, COLLADA 1.5 kinematics):

* The scene's ``instance_kinematics_scene`` instantiates articulated systems (one body each);
  a motion system wraps a kinematics system, which instantiates a kinematics model. A body is a
  robot when its system says ``<interface type="robot">`` or has manipulators or sensors.
* A ``<link>``'s frame is its parent's frame times the ``attachment_full``'s transform times
  the link's own transforms; the joint sits at the attachment frame: its anchor is the
  attachment's translation in the parent link's frame and each axis (``<revolute>``,
  ``<prismatic>``, in the attachment frame) is turned by the attachment's rotation. The links
  are written at the joints' zero.
* Limits: the articulated system's ``axis_info`` limits when given, else the axis' own; degrees
  for revolute axes. A locked axis is held at 0; a revolute axis without limits is circular
  (-pi..pi). Speeds and accelerations are degrees per second (per second squared).
* An inactive axis makes a passive joint; a ``<formula>`` makes its target a mimic joint.
* The scene's joint values are where the body starts.
"""

from __future__ import annotations

import math
import os

import numpy as np

from ...errors import ModelError
from ...model import Inertial
from .collada_bind import AxisData, Bindings, articulated_chain, read_bindings
from .collada_doc import Document, read_document
from .collada_extra import (formula_target, mathml_text, openrave_extras, read_attached_sensor,
                            read_collision, read_manipulator)
from .collada_physics import MAX_TRIANGLES, VisualScene, link_inertial, read_meshes, \
    rigid_bodies
from .raw import RawBody, RawJoint, RawLink, inverse
from .xmlfile import Element

__all__ = ['read_collada', 'collada_systems']

_TYPES = {('revolute',): 'hinge', ('prismatic',): 'slider',
          ('revolute', 'revolute'): 'universal'}


def collada_systems(doc: Document) -> list[tuple]:
    """(articulated system, kinematics scene, instance_kinematics_scene, the name the scene
    gives it) of each body the document's scene instantiates; the library's systems when there
    is no scene."""
    out = []
    scene = doc.child(doc.root, 'scene')
    for instance in doc.children(scene, 'instance_kinematics_scene'):
        kscene = doc.url(instance)
        for element in doc.children(kscene, 'instance_articulated_system'):
            system = doc.url(element)
            if system is not None:
                out.append((system, kscene, instance, element.attrs.get('name')))
    if not out:
        library = doc.child(doc.root, 'library_articulated_systems')
        inner = set()
        for system in doc.children(library, 'articulated_system'):
            motion = doc.child(system, 'motion')
            nested = doc.child(motion, 'instance_articulated_system')
            if nested is not None and doc.url(nested) is not None:
                inner.add(id(doc.url(nested)))
        out = [(s, None, None, None) for s in doc.children(library, 'articulated_system')
               if id(s) not in inner]
    return out


class _Reader:
    """One articulated system into a raw body."""

    def __init__(self, doc: Document, body: RawBody, warn, bindings: Bindings,
                 kmodel: Element):
        self.doc = doc
        self.body = body
        self.warn = warn
        self.bind = bindings
        self.kmodel = kmodel
        self.links: dict[str, str] = {}      # SID reference -> raw link name
        self.joints: dict[str, str] = {}     # SID reference -> raw joint name
        self.raw_joints: dict[str, RawJoint] = {}
        self.node_of: dict[int, Element] = {}  # id(raw link) -> visual node
        self.link_world: dict[int, np.ndarray] = {}
        self.made: list[RawLink] = []

    # --- names --------------------------------------------------------------------------

    def _refs(self, element: Element, table: dict, name: str) -> None:
        sid = element.attrs.get('sid')
        if sid:
            table[sid] = name
            table[f'{self.kmodel.attrs.get("id", "")}/{sid}'] = name
        table[name] = name

    # --- kinematics ---------------------------------------------------------------------

    def read_links(self, start: np.ndarray) -> None:
        common = self.doc.child(self.kmodel, 'technique_common')
        roots = self.doc.children(common, 'link')
        if not roots:
            raise self.kmodel.error('the kinematics model has no <link>')
        for index, link in enumerate(roots):
            self._link(link, start, self.bind.root_node if index == 0 else None)

    def _link(self, element: Element, parent: np.ndarray, node: Element | None) -> RawLink:
        """A link and, through its ``attachment_full`` children, the links below it (at most
        50 levels: each is two elements deeper, and the XML parser refuses documents nested
        deeper than ``xmlfile.MAX_DEPTH``, 100)."""
        name = element.attrs.get('name') or element.attrs.get('sid') or \
            f'link{len(self.body.links)}'
        world = parent @ self.doc.transform(element)
        raw = self.body.link(name)
        if raw is None:
            raw = RawLink(name, element, world.copy())
            self.body.links.append(raw)
        self.made.append(raw)
        self.link_world[id(raw)] = world
        self._refs(element, self.links, name)
        if node is not None:
            self.node_of[id(raw)] = node
        for attachment in self.doc.children(element, 'attachment_full'):
            self._attachment(attachment, raw, world)
        return raw

    def _attachment(self, attachment: Element, parent: RawLink, world: np.ndarray) -> None:
        joint = self.doc.sidref(attachment.attrs.get('joint', ''), attachment)
        instance = None   # an <instance_joint>: its scoped id names the library's joint
        if joint is not None and joint.tag == 'instance_joint':
            instance, joint = joint, self.doc.url(joint)
        child = self.doc.child(attachment, 'link')
        if joint is None or joint.tag != 'joint' or child is None:
            raise attachment.error(f'attachment_full joint={attachment.attrs.get("joint")!r} '
                                   'names no <joint>, or has no <link>')
        axes = [a for a in joint.children if a.tag in ('revolute', 'prismatic')]
        kind = _TYPES.get(tuple(a.tag for a in axes))
        if kind is None:
            raise joint.error(f'joint {joint.attrs.get("name")!r}: axes '
                              f'{[a.tag for a in axes]} are not supported (one revolute, '
                              'one prismatic, or two revolute)')
        tatt = self.doc.transform(attachment)
        data = [self.bind.axes.get(id(a), AxisData()) for a in axes]
        node = next((self.doc.up(d.visual) for d in data if d.visual is not None), None)
        child_link = self._link(child, world @ tatt, node)
        name = joint.attrs.get('name') or f'dummy{len(self.body.joints)}'
        directions = []
        for axis in axes:
            v = self.doc.child(axis, 'axis')
            u = v.numbers(3) if v is not None else np.zeros(3)
            norm = float(np.linalg.norm(u))
            directions.append(tatt[:3, :3] @ (u / norm if norm > 0 else np.array([0., 0, 1])))
        relative = inverse(world) @ self.link_world[id(child_link)]
        raw = RawJoint(name, kind, joint, parent, child_link, tatt[:3, 3].copy(), directions,
                       relative, active=all(d.active for d in data))
        self._limits(raw, axes, data)
        self.body.joints.append(raw)
        self._refs(joint, self.joints, name)
        if instance is not None:
            self._refs(instance, self.joints, name)
        self.raw_joints[name] = raw

    def _limits(self, raw: RawJoint, axes: list[Element], data: list[AxisData]) -> None:
        lower, upper, speed, accel = [], [], [], []
        circular = False
        for axis, d in zip(axes, data):
            angular = axis.tag == 'revolute'
            unit = math.pi / 180.0 if angular else self.doc.meter
            own = self.doc.child(axis, 'limits')
            if d.locked:
                low, high = 0.0, 0.0
            elif d.limits is not None:
                low, high = d.limits[0] * unit, d.limits[1] * unit
            elif own is not None:
                low = (self.doc.number(self.doc.child(own, 'min')) or 0.0) * unit
                high = (self.doc.number(self.doc.child(own, 'max')) or 0.0) * unit
            elif angular:
                low, high, circular = -math.pi, math.pi, d.circular is not False
            else:
                low, high = -1e6, 1e6
            if d.circular:
                circular = angular
            lower.append(min(low, high))
            upper.append(max(low, high))
            raw.limits_given = raw.limits_given or own is not None or d.limits is not None
            rate = unit if not (angular and self.doc.radians) else 1.0
            speed.append(d.speed * rate if d.speed is not None else None)
            accel.append(d.acceleration * rate if d.acceleration is not None else None)
            for key, value in (('weight', d.weight), ('resolution', d.resolution)):
                if value is not None:
                    raw.meta[key] = raw.meta.get(key, ()) + (float(value),)
        raw.lower, raw.upper, raw.circular = lower, upper, circular
        # OpenRAVE's COLLADA reader: 0.5 rad/s or 0.01 m/s for an axis without a motion speed
        speed = [v if v is not None else (0.5 if a.tag == 'revolute' else 0.01)
                 for v, a in zip(speed, axes)]
        raw.maxvel = speed
        if all(a is not None for a in accel):
            raw.maxaccel = accel
        degree = 1.0 if self.doc.radians else math.pi / 180.0
        raw.meta['start'] = [d.value * (degree if a.tag == 'revolute' else self.doc.meter)
                             for a, d in zip(axes, data)]

    # --- formulas -----------------------------------------------------------------------

    def read_formulas(self) -> None:
        common = self.doc.child(self.kmodel, 'technique_common')
        for formula in self.doc.children(common, 'formula'):
            name, math_element = formula_target(self.doc, formula, self.joints)
            if name is None or math_element is None:
                self.warn(formula, 'a <formula> without a target joint or an expression; '
                                   'ignored')
                continue
            text = mathml_text(math_element, self.joints)
            self.raw_joints[name].mimic = {0: {'pos': (text, formula)}}

    # --- geometry and mass --------------------------------------------------------------

    def read_geometry(self, scene: VisualScene, budget: list[int]) -> None:
        link_nodes = {id(n) for n in self.node_of.values()}
        for raw in self.made:
            node = self.node_of.get(id(raw))
            if node is None or scene.frame(node) is None:
                continue
            inv = inverse(self.link_world[id(raw)])
            for part in scene.geometry_nodes(node, link_nodes):
                pose = inv @ scene.frame(part)
                raw.geoms.extend(read_meshes(self.doc, part, pose, budget, self.warn))

    def read_masses(self, scene: VisualScene, pscene: Element | None) -> None:
        by_node = {id(node): raw for raw in self.made
                   for node in [self.node_of.get(id(raw))] if node is not None}
        first = self.made[0]
        for body, target, parent in rigid_bodies(self.doc, pscene):
            raw = by_node.get(id(target))
            if raw is None:
                continue
            offset = scene.frame(parent) if parent is not None else None
            if offset is None:
                offset = self.link_world[id(first)]
            inertial, dynamic = link_inertial(self.doc, body, offset,
                                              self.link_world[id(raw)])
            if inertial is not None:
                raw.inertial = inertial
            if dynamic is not None:
                raw.static = not dynamic
        for raw in self.made:
            if raw.inertial is None:   # OpenRAVE's default for a link without a rigid body
                raw.inertial = Inertial(1e-10, np.zeros(3), np.eye(3) * 1e-7)

    # --- OpenRAVE extras ----------------------------------------------------------------

    def read_extras(self) -> bool:
        """Manipulators, sensors, collision data; whether the body is a robot."""
        robot = False
        for system in self.bind.systems:
            for _, technique in openrave_extras(self.doc, system, 'interface_type'):
                interface = self.doc.child(technique, 'interface')
                if interface is not None and interface.attrs.get('type') == 'robot':
                    robot = True
            for extra, technique in openrave_extras(self.doc, system, 'manipulator'):
                self.body.manipulators.append(read_manipulator(
                    self.doc, extra, technique, self.links, self.joints, self.warn))
            for extra, technique in openrave_extras(self.doc, system, 'attach_sensor'):
                self.body.sensors.append(read_attached_sensor(self.doc, extra, technique,
                                                              self.links))
        pairs, off, hidden = read_collision(self.doc, self.kmodel, self.links, self.warn)
        self.body.adjacent.extend(pairs)
        for name in off:
            self.body.link(name).enabled = False
        for name in hidden:
            for geom in self.body.link(name).geoms:
                geom.visible = False
        return robot or bool(self.body.manipulators or self.body.sensors)


def read_collada(path: str, body: RawBody | None, warn,
                 first_only: bool = False) -> list[RawBody]:
    """Read a COLLADA file's bodies; the first goes into ``body`` (which may already have
    links: a link of the same name is the same link, as in OpenRAVE), the others are new.

    Args:
        warn: ``(element, message)`` for what was ignored.
        first_only: read one body (an include); a warning names the ones left out.
    """
    doc = read_document(path)
    if body is None:
        body = RawBody('', 'kinbody', doc.root)
    up = doc.up_axis()
    if up != 'Z_UP':
        warn(doc.root, f'<up_axis> is {up}; the coordinates are kept as written (OpenRAVE '
                       'reads them so)')
    systems = collada_systems(doc)
    if not systems:
        raise ModelError(path, None, 'the COLLADA file holds no articulated system (no robot '
                                     'or body)')
    if first_only and len(systems) > 1:
        warn(doc.root, f'the file holds {len(systems)} bodies; only the first is included')
        systems = systems[:1]
    scene_el = doc.child(doc.root, 'scene')
    vscene = doc.url(doc.child(scene_el, 'instance_visual_scene')) \
        if doc.child(scene_el, 'instance_visual_scene') is not None else None
    pscene = doc.url(doc.child(scene_el, 'instance_physics_scene')) \
        if doc.child(scene_el, 'instance_physics_scene') is not None else None
    out, budget = [], [MAX_TRIANGLES]
    for index, (system, kscene, instance, given) in enumerate(systems):
        chain, kmodel = articulated_chain(doc, system)
        if kmodel is None:
            raise system.error('the articulated system instantiates no kinematics model')
        bindings = read_bindings(doc, chain, kscene, instance, kmodel)
        target = body if index == 0 else RawBody('', 'kinbody', system)
        reader = _Reader(doc, target, warn, bindings, kmodel)
        skip = {id(d.visual) for d in bindings.axes.values() if d.visual is not None}
        scene = VisualScene(doc, vscene, skip)
        root_node = bindings.root_node
        start = np.eye(4)
        if root_node is not None and scene.frame(root_node) is not None:
            start = scene.frame(root_node) @ inverse(doc.transform(root_node, skip))
        reader.read_links(start)
        reader.read_formulas()
        reader.read_geometry(scene, budget)
        reader.read_masses(scene, pscene)
        if reader.read_extras():
            target.kind = 'robot'
        _start_values(target, reader.made, system)
        if not target.name:
            name = given or system.attrs.get('name') or kmodel.attrs.get('name')
            target.name = name or os.path.basename(path).split('.')[0]
        if any(b.name == target.name for b in out):   # bodies of one scene: unique names
            target.name = f'{target.name}{index}'
        out.append(target)
    return out


def _start_values(body: RawBody, made: list[RawLink], element: Element) -> None:
    """The scene's joint values as the body's ``<jointvalues>`` (active joints, in order)."""
    values, moved = [], False
    for joint in body.joints:
        start = joint.meta.pop('start', None)
        if not joint.active:
            continue
        start = start if start is not None else [0.0] * joint.dof
        values.extend(start)
        moved = moved or any(v != 0.0 for v in start)
    if moved and body.jointvalues is None:
        body.jointvalues = (np.array(values), element)
