"""OpenRAVE's XML semantics: environments, robots, kinbodies, bodies, joints, in file order.

The reader walks the elements in document order, as OpenRAVE's SAX readers do, because the
order matters: a ``<Body>`` with ``<offsetfrom>`` is placed relative to where the other link is
*at that moment*, a ``<Joint>`` records its two links' relative transform when it ends, and a
KinBody's own ``<translation>`` moves the links made inside it when it ends. Facts followed
(OpenRAVE ``xmlreaders.cpp``):

* ``file=`` includes are read first, with the including element's other attributes
  (``name``, ``prefix``); the element's children then extend that body.
* ``prefix`` renames the links and joints made inside the element when it ends (and, for
  Robots, its manipulators, sensors and the joint names in mimic formulas).
* A ``<Body>`` whose name exists appends its geometries to that link.
* A joint's ``anchor``/``axis`` are in its ``offsetfrom`` link's frame (the KinBody's frame by
  default); ``limitsdeg`` is degrees for hinges, metres for sliders.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ...fileaccess import file_problem
from .collada import read_collada
from .context import COLLADA, Context
from .geom import read_geom
from .joints import check_attributes, read_joint
from .mass import MassSpec, link_inertial, read_mass
from .raw import RawBody, RawLink, RawSensor, RawWorld, TransformTags
from .sensors import read_attached_sensor, read_manipulator, read_sensor
from .xmlfile import Element, parse_file

__all__ = ['read_world', 'Reader', 'Context', 'COLLADA']

_ENV_IGNORED = {
    'bkgndcolor': 'a viewer setting', 'camtrans': 'a viewer setting',
    'camrotaxis': 'a viewer setting', 'camrotationaxis': 'a viewer setting',
    'camrotmat': 'a viewer setting', 'camfocal': 'a viewer setting',
    'plugin': 'an OpenRAVE plugin', 'physicsengine': 'an OpenRAVE interface',
    'collisionchecker': 'an OpenRAVE interface', 'module': 'an OpenRAVE interface',
    'problem': 'an OpenRAVE interface', 'planner': 'an OpenRAVE interface',
    'controller': 'an OpenRAVE interface', 'viewer': 'an OpenRAVE interface',
    'sensorsystem': 'an OpenRAVE interface', 'inversekinematicssolver': 'an OpenRAVE interface',
    'iksolver': 'an OpenRAVE interface', 'trajectory': 'an OpenRAVE interface',
    'server': 'an OpenRAVE interface', 'spacesampler': 'an OpenRAVE interface',
}


#: Attributes of ``<Robot>``/``<KinBody>`` and of ``<Body>`` that OpenRAVE's reader knows.
_BODY_ATTRIBUTES = frozenset({'name', 'file', 'prefix', 'type', 'makejoinedlinksadjacent',
                              'skipgeometry', 'scalegeometry'})
_LINK_ATTRIBUTES = frozenset({'name', 'type', 'enable', 'file', 'skipgeometry',
                              'scalegeometry'})


@dataclass
class _Scope:
    """One KinBody element being read (OpenRAVE's KinBodyXMLReader)."""

    body: RawBody
    element: Element
    modelsdir: str | None = None
    mass: MassSpec | None = None
    orig: dict = field(default_factory=dict)

    def offset_of(self, link: RawLink) -> np.ndarray:
        return self.orig.get(link, link.transform)


class Reader:
    """Reads one model file (and what it includes) into a :class:`RawWorld`."""

    def __init__(self, path: str):
        self.ctx = Context(path)

    # --- entry ------------------------------------------------------------------------

    def read(self) -> RawWorld:
        path = self.ctx.path
        self.ctx.chain.append(os.path.realpath(path))
        if path.lower().endswith(COLLADA):
            bodies = read_collada(path, None, self.ctx.warn)
            world = RawWorld(path, len(bodies) > 1)
            world.bodies.extend(bodies)
            return world
        root = parse_file(path)
        if root.tag == 'environment':
            world = RawWorld(path, True)
            self._environment(root, world)
        elif root.tag in ('robot', 'kinbody'):
            world = RawWorld(path, False)
            world.bodies.append(self._top_body(root, {}))
        else:
            raise root.error(f'not an OpenRAVE file: the root element is <{root.tag}>, not '
                             '<Environment>, <Robot> or <KinBody>')
        return world

    def _top_body(self, element: Element, extra: dict, default: str | None = None) -> RawBody:
        body = RawBody('', element.tag, element)
        if element.tag == 'robot':
            self._robot(element, body, extra)
        else:
            self._kinbody(element, body, extra, _Scope(body, element))
        if not body.name:
            body.name = default or os.path.basename(element.path).split('.')[0]
        if not body.links:
            raise element.error(f'{element.tag} {body.name!r} has no links')
        return body

    # --- environment ------------------------------------------------------------------

    def _environment(self, element: Element, world: RawWorld) -> None:
        name = element.attr('file')
        if name:
            self._nested(element, name, ('environment',),
                         lambda root: self._environment(root, world))
        for child in element.children:
            tag = child.tag
            if tag in ('kinbody', 'robot'):
                body = self._top_body(child, {}, f'body{len(world.bodies)}')
                if any(b.name == body.name for b in world.bodies):
                    raise child.error(f'the environment already has a body named {body.name!r}')
                world.bodies.append(body)
            elif tag == 'sensor':
                name = child.attr('name') or f'sensor{len(world.sensors)}'
                world.sensors.append(read_sensor(self.ctx, child, RawSensor(name, child)))
            elif tag == 'environment':
                self._environment(child, world)
            elif tag in _ENV_IGNORED:
                self.ctx.warn(child, f'<{tag}> is {_ENV_IGNORED[tag]} and was ignored')
            else:
                self.ctx.warn(child, f'<{tag}> is not an environment element and was ignored')

    def _collada(self, element: Element, name: str, body: RawBody, attrs: dict) -> None:
        """A COLLADA ``file=`` include: its first body joins ``body``, under ``prefix``."""
        path = self.ctx.locate(element, name)
        counts = (len(body.links), len(body.joints), len(body.manipulators), len(body.sensors))
        kind = body.kind
        self.ctx.chain.append(os.path.realpath(path))
        try:
            read_collada(path, body, self.ctx.warn, first_only=True)
        finally:
            self.ctx.chain.pop()
        body.kind = kind
        prefix = attrs.get('prefix')
        if not prefix:
            return
        renamed = {j.name: prefix + j.name for j in body.joints[counts[1]:]}
        for link in body.links[counts[0]:]:
            link.name = prefix + link.name
        for joint in body.joints[counts[1]:]:
            joint.name = prefix + joint.name
            joint.meta.setdefault('renames', []).append(renamed)
        _prefix_extras(body, counts[2], counts[3], prefix)

    def _nested(self, element: Element, name: str, expected, read) -> None:
        root = self.ctx.include(element, name, expected)
        self.ctx.chain.append(os.path.realpath(root.path))
        try:
            read(root)
        finally:
            self.ctx.chain.pop()

    # --- robot ------------------------------------------------------------------------

    def _robot(self, element: Element, body: RawBody, extra: dict) -> None:
        attrs = {**element.attrs, **extra}
        check_attributes(self.ctx, element, _BODY_ATTRIBUTES)
        start_links = len(body.links)
        name = attrs.pop('file', None)
        element.used.add('@file')
        if name and name.strip().lower().endswith(COLLADA):
            self._collada(element, name, body, attrs)
        elif name:
            self._nested(element, name, ('robot', 'kinbody'), lambda root: (
                self._robot(root, body, attrs) if root.tag == 'robot'
                else self._kinbody(root, body, attrs, _Scope(body, root))))
        links0, joints0 = len(body.links), len(body.joints)
        manips0, sensors0 = len(body.manipulators), len(body.sensors)
        kind = attrs.get('type')
        if kind and kind.lower() not in ('genericrobot', ''):
            self.ctx.warn(element, f'robot type {kind!r} is an OpenRAVE plugin; read as a '
                                   'generic robot (its own elements are ignored)')
        tags = TransformTags()
        for child in element.children:
            tag = child.tag
            if tags.read(child):
                continue
            if tag == 'robot':
                self._robot(child, body, {})
            elif tag == 'kinbody':
                self._kinbody(child, body, {}, _Scope(body, child))
            elif tag == 'manipulator':
                body.manipulators.append(read_manipulator(self.ctx, child))
            elif tag == 'attachedsensor':
                sensor = RawSensor(child.attr('name') or '', child)
                body.sensors.append(read_attached_sensor(self.ctx, child, sensor))
            elif tag == 'jointvalues':
                body.jointvalues = (child.numbers(), child)
            else:
                self.ctx.warn(child, f'<{tag}> in a Robot is not supported and was ignored')
        self._finish(element, body, attrs, start_links, links0, joints0, tags.matrix())
        prefix = attrs.get('prefix')
        if prefix:
            _prefix_extras(body, manips0, sensors0, prefix)

    def _finish(self, element, body, attrs, start_links, links0, joints0, transform) -> None:
        """End of a Robot or KinBody element: name, prefix, then its transform."""
        if attrs.get('name'):
            body.name = attrs['name']
        prefix = attrs.get('prefix')
        if prefix:
            renamed = {}
            for link in body.links[links0:]:
                link.name = prefix + link.name
            for joint in body.joints[joints0:]:
                renamed[joint.name] = prefix + joint.name
                joint.name = prefix + joint.name
            for joint in body.joints[joints0:]:
                joint.meta.setdefault('renames', []).append(renamed)
        for link in body.links[start_links:]:
            link.transform = transform @ link.transform

    # --- kinbody ----------------------------------------------------------------------

    def _kinbody(self, element: Element, body: RawBody, extra: dict, scope: _Scope) -> None:
        attrs = {**element.attrs, **extra}
        for key in ('skipgeometry', 'scalegeometry'):
            if key in attrs:
                self.ctx.warn(element, f'attribute {key!r} is not supported and was ignored')
        check_attributes(self.ctx, element, _BODY_ATTRIBUTES)
        if 'makejoinedlinksadjacent' in attrs:
            value = attrs['makejoinedlinksadjacent'].strip().lower()
            body.joined_adjacent = not (value == 'false' or value == '0')
        start_links = len(body.links)
        name = attrs.pop('file', None)
        if name and name.strip().lower().endswith(COLLADA):
            self._collada(element, name, body, attrs)
        elif name:
            self._nested(element, name, ('kinbody',), lambda root: self._kinbody(
                root, body, attrs, _Scope(body, root)))
        links0, joints0 = len(body.links), len(body.joints)
        scope.orig = {link: link.transform.copy() for link in body.links}
        tags = TransformTags()
        overrides: dict[str, tuple] = {}
        for child in element.children:
            tag = child.tag
            if tags.read(child):
                continue
            if tag == 'kinbody':
                self._kinbody(child, body, {}, _Scope(body, child, scope.modelsdir, scope.mass))
                scope.orig = {link: link.transform.copy() for link in body.links}
            elif tag == 'body':
                self._body(child, body, scope)
            elif tag == 'joint':
                joint = read_joint(self.ctx, child, body, scope.offset_of)
                if joint is not None:
                    body.joints.append(joint)
            elif tag == 'mass':
                scope.mass = read_mass(child, self.ctx.warn, allow_custom=False)
            elif tag == 'modelsdir':
                scope.modelsdir = child.text.strip()
            elif tag == 'adjacent':
                words = child.words()
                if len(words) != 2:
                    raise child.error('<adjacent> must name two links')
                body.adjacent.append((words[0], words[1], child))
            elif tag == 'jointvalues':
                body.jointvalues = (child.numbers(), child)
            elif tag in ('diffusecolor', 'transparency'):
                overrides[tag] = (child.numbers(at_least=1), child)
            elif tag == 'ambientcolor':
                self.ctx.warn(child, '<ambientcolor> is not kept (the model has no ambient '
                                     'colour)')
            else:
                self.ctx.warn(child, f'<{tag}> in a KinBody is not supported and was ignored')
        self._finish(element, body, attrs, start_links, links0, joints0, tags.matrix())
        for tag, (values, child) in overrides.items():
            for link in body.links:
                for geom in link.geoms:
                    if tag == 'transparency':
                        geom.transparency = float(np.clip(values[0], 0, 1))
                    elif len(values) < 3:
                        raise child.error(f'<{tag}> must hold three numbers')
                    else:
                        geom.diffuse = tuple(float(c) for c in np.clip(values[:3], 0, 1))

    def _resolver(self, scope: _Scope):
        def resolve(element: Element, name: str) -> str | None:
            folder = os.path.dirname(element.path)
            found = None
            if scope.modelsdir:
                found = self.ctx.find(name, os.path.join(folder, scope.modelsdir))
            found = found or self.ctx.find(name, folder)
            if found is None:
                self.ctx.warn(element, f'mesh file {name!r} not found; the geometry has no '
                                       'shape from it')
                return None
            problem = file_problem(found)
            if problem is not None:
                self.ctx.warn(element, f'mesh file {name!r} ({found}) {problem}; the geometry '
                                       'has no shape from it')
                return None
            return found
        return resolve

    # --- body (link) ----------------------------------------------------------------------

    def _body(self, element: Element, body: RawBody, scope: _Scope) -> None:
        name = element.attr('name')
        link = body.link(name) if name else None
        if link is None:
            link = RawLink(name or f'link{len(body.links)}', element)
            body.links.append(link)
            new = True
        else:
            new = False
        kind = element.attr('type')
        if kind is not None:
            if kind.strip().lower() not in ('static', 'dynamic'):
                raise element.error(f'body type {kind!r} is not static or dynamic')
            link.static = kind.strip().lower() == 'static'
        for key in ('file', 'skipgeometry', 'scalegeometry'):
            if element.attr(key) is not None:
                self.ctx.warn(element, f'body attribute {key!r} is not supported and was ignored')
        link.enabled = element.flag('enable', link.enabled)
        check_attributes(self.ctx, element, _LINK_ATTRIBUTES)
        tags = TransformTags(link.transform)
        mass: MassSpec | None = None
        offsetfrom = None
        resolve = self._resolver(scope)
        for child in element.children:
            tag = child.tag
            if tags.read(child):
                continue
            if tag == 'geom':
                geom = read_geom(child, resolve, self.ctx.warn)
                if geom is not None:
                    link.geoms.append(geom)
            elif tag == 'mass':
                mass = read_mass(child, self.ctx.warn)
            elif tag == 'offsetfrom':
                other = body.link(child.word())
                if other is None:
                    raise child.error(f'offsetfrom link {child.word()!r} is not defined (yet)')
                offsetfrom = other
            else:
                self.ctx.warn(child, f'<{tag}> in a Body is not supported and was ignored')
        if new or mass is not None:
            with np.errstate(over='ignore', invalid='ignore'):  # overflow: refused later
                link.inertial = link_inertial(mass or scope.mass, link.geoms)
                link.mass_given = (mass or scope.mass) is not None
        transform = tags.matrix()
        if offsetfrom is not None:
            transform = scope.offset_of(offsetfrom) @ transform
        link.transform = transform
        scope.orig[link] = transform.copy()


def _prefix_extras(body: RawBody, manips0: int, sensors0: int, prefix: str) -> None:
    """``prefix`` on the manipulators and sensors made since the given counts."""
    for manip in body.manipulators[manips0:]:
        manip.name = prefix + manip.name
        manip.base = None if manip.base is None else prefix + manip.base
        manip.effector = None if manip.effector is None else prefix + manip.effector
        manip.gripper_joints = [prefix + j for j in manip.gripper_joints]
    for sensor in body.sensors[sensors0:]:
        sensor.name = prefix + sensor.name
        sensor.link = None if sensor.link is None else prefix + sensor.link


def read_world(path: str) -> tuple[RawWorld, list[str]]:
    """Read an OpenRAVE file into its raw shape; also return the warnings so far."""
    reader = Reader(path)
    world = reader.read()
    return world, reader.ctx.warnings

