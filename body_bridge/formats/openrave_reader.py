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

from ..errors import UnsupportedError, where
from ..fileaccess import file_problem
from .openrave_geom import MassSpec, link_inertial, read_geom, read_mass
from .openrave_raw import (RawBody, RawJoint, RawLink, RawManipulator, RawSensor,
                           RawWorld, TransformTags, inverse, scaled)
from .openrave_xml import Element, parse_file

__all__ = ['read_world', 'Reader', 'Context', 'COLLADA']

COLLADA = ('.zae', '.dae')
_MAX_DEPTH = 32
_JOINT_TYPES = ('hinge', 'slider', 'universal', 'hinge2', 'spherical')
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


def _ancestors(folder: str) -> list[str]:
    out = []
    folder = os.path.abspath(folder)
    while True:
        out.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return out
        folder = parent


def _candidate(path: str) -> bool:
    """Whether a file search stops at ``path``: it exists and is not a folder."""
    return os.path.exists(path) and not os.path.isdir(path)


class Context:
    """Per-load state: warnings, the include chain (cycles), where files are looked for."""

    def __init__(self, path: str):
        self.path = path
        self.warnings: list[str] = []
        self.chain: list[str] = []
        roots = [d for d in os.environ.get('OPENRAVE_DATA', '').split(os.pathsep) if d]
        # An OpenRAVE data tree keeps robots/, data/ and models/ side by side: the folders
        # above the file stand in for the data directory OpenRAVE is installed with.
        self.data_dirs = roots + _ancestors(os.path.dirname(os.path.abspath(path)))

    def warn(self, element: Element | None, message: str) -> None:
        loc = where(self.path) if element is None else element.where()
        self.warnings.append(f'{loc}: {message}')

    def find(self, name: str, folder: str) -> str | None:
        """OpenRAVE's file search: ``folder``, then each data directory.

        Folders are passed over; a device, FIFO or socket of that name is returned (the caller
        reports it with ``file_problem`` instead of reading it).
        """
        name = os.path.expanduser(name.strip())
        if not name or '\0' in name:
            return None
        if os.path.isabs(name):
            return name if _candidate(name) else None
        for base in (folder, *self.data_dirs, *_ancestors(folder)):
            candidate = os.path.normpath(os.path.join(base, name))
            if _candidate(candidate):
                return candidate
        return None

    def include(self, element: Element, name: str, expected: tuple[str, ...]) -> Element:
        """Parse a ``file=`` include; its root element must be one of ``expected``.

        Raises:
            UnsupportedError: a COLLADA file.
            ModelError: a missing file, an include cycle, an unexpected root element.
        """
        if name.strip().lower().endswith(COLLADA):
            raise UnsupportedError(element.path, element.line,
                                   f'<{element.tag} file="{name.strip()}">: COLLADA robot and '
                                   'body files (.zae, .dae) are not supported')
        path = self.find(name, os.path.dirname(element.path))
        if path is None:
            raise element.error(f'file {name.strip()!r} not found (looked beside the file, '
                                'in $OPENRAVE_DATA and in the folders above)')
        problem = file_problem(path)
        if problem is not None:
            raise element.error(f'file {name.strip()!r} ({path}) {problem}')
        real = os.path.realpath(path)
        if real in self.chain:
            raise element.error(f'file {name.strip()!r} includes itself (through '
                                f'{" -> ".join(os.path.basename(p) for p in self.chain)})')
        if len(self.chain) > _MAX_DEPTH:
            raise element.error(f'files are included deeper than {_MAX_DEPTH} levels')
        root = parse_file(path)
        if root.tag not in expected:
            raise root.error(f'expected <{"> or <".join(expected)}> as the root element of an '
                             f'included file, found <{root.tag}>')
        return root


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
                world.sensors.append(self._sensor(child, RawSensor(name, child)))
            elif tag == 'environment':
                self._environment(child, world)
            elif tag in _ENV_IGNORED:
                self.ctx.warn(child, f'<{tag}> is {_ENV_IGNORED[tag]} and was ignored')
            else:
                self.ctx.warn(child, f'<{tag}> is not an environment element and was ignored')

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
        start_links = len(body.links)
        name = attrs.pop('file', None)
        element.used.add('@file')
        if name:
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
                body.manipulators.append(self._manipulator(child))
            elif tag == 'attachedsensor':
                sensor = RawSensor(child.attr('name') or '', child)
                body.sensors.append(self._attached_sensor(child, sensor))
            elif tag == 'jointvalues':
                body.jointvalues = (child.numbers(), child)
            else:
                self.ctx.warn(child, f'<{tag}> in a Robot is not supported and was ignored')
        self._finish(element, body, attrs, start_links, links0, joints0, tags.matrix())
        prefix = attrs.get('prefix')
        if prefix:
            for manip in body.manipulators[manips0:]:
                manip.name = prefix + manip.name
                manip.base = None if manip.base is None else prefix + manip.base
                manip.effector = None if manip.effector is None else prefix + manip.effector
                manip.gripper_joints = [prefix + j for j in manip.gripper_joints]
            for sensor in body.sensors[sensors0:]:
                sensor.name = prefix + sensor.name
                sensor.link = None if sensor.link is None else prefix + sensor.link

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
        start_links = len(body.links)
        name = attrs.pop('file', None)
        if name:
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
                joint = self._joint(child, body, scope)
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
        element.attr('enable')
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
        transform = tags.matrix()
        if offsetfrom is not None:
            transform = scope.offset_of(offsetfrom) @ transform
        link.transform = transform
        scope.orig[link] = transform.copy()

    # --- joint ------------------------------------------------------------------------

    def _joint(self, element: Element, body: RawBody, scope: _Scope) -> RawJoint | None:
        kind = (element.attr('type') or 'hinge').strip().lower()
        if kind not in _JOINT_TYPES:
            raise element.error(f'joint type {kind!r} is not one of {", ".join(_JOINT_TYPES)}')
        name = element.attr('name') or ''
        active = element.flag('enable', True)
        circular = element.flag('circular', False)
        mimic = self._mimic_attrs(element)
        dof = {'universal': 2, 'hinge2': 2, 'spherical': 3}.get(kind, 1)
        angular = kind != 'slider'
        deg = np.pi / 180.0 if angular else 1.0
        default = np.pi if kind in ('hinge', 'universal', 'hinge2') else \
            (10.0 if kind == 'slider' else 100.0)
        joint_data: dict = {'lower': [-default] * dof, 'upper': [default] * dof,
                            'given': False, 'meta': {}, 'initial': []}
        bodies: list[RawLink] = []
        anchor = np.zeros(3)
        axes = [None] * dof
        if kind == 'spherical':
            axes = [np.array(a, float) for a in np.eye(3)]
        offsetfrom = None
        for child in element.children:
            tag = child.tag
            element.used.add(tag)
            if tag == 'body':
                link = self._find_link(body, child.word())
                if link is None:
                    raise child.error(f'joint {name!r}: link {child.word()!r} is not defined')
                bodies.append(link)
            elif tag == 'offsetfrom':
                offsetfrom = body.link(child.word())
                if offsetfrom is None:
                    raise child.error(f'offsetfrom link {child.word()!r} is not defined')
            elif tag in ('limits', 'limitsrad', 'limitsdeg'):
                values = child.numbers(2 * dof)
                if np.any(values[0::2] > values[1::2]):
                    self.ctx.warn(child, f'<{tag}> gives an upper limit before its lower limit; '
                                         'read as OpenRAVE reads it, the smaller value first')
                scale = deg if tag == 'limitsdeg' else 1.0
                joint_data['lower'] = [scale * min(values[2 * i], values[2 * i + 1])
                                       for i in range(dof)]
                joint_data['upper'] = [scale * max(values[2 * i], values[2 * i + 1])
                                       for i in range(dof)]
                joint_data['given'] = True
            elif tag in ('maxvel', 'maxveldeg', 'maxaccel', 'maxacceldeg', 'maxtorque',
                         'maxforce', 'hardmaxvel'):
                values = child.numbers(at_least=1)[:dof]
                if tag.endswith('deg'):
                    values = values * np.pi / 180.0
                key = {'maxveldeg': 'maxvel', 'maxacceldeg': 'maxaccel',
                       'maxforce': 'maxtorque'}.get(tag, tag)
                joint_data[key] = [float(v) for v in values]
            elif tag in ('weight', 'rotorinertia', 'mode'):
                joint_data['meta'][tag] = tuple(float(v) for v in child.numbers())
            elif tag == 'resolution':
                joint_data['meta'][tag] = float(child.numbers(at_least=1)[0]) * deg
            elif tag == 'initial':
                joint_data['initial'] = [float(v) for v in child.numbers()]
            elif tag == 'anchor' and kind != 'slider':
                anchor = child.numbers(3)
            elif tag == 'axis' and kind in ('hinge', 'slider'):
                axes[0] = self._unit(child)
            elif tag in ('axis1', 'axis2') and kind in ('universal', 'hinge2'):
                axes[int(tag[-1]) - 1] = self._unit(child)
            elif tag in ('lostop', 'histop'):
                raise UnsupportedError(child.path, child.line, f'<{tag}> is deprecated in '
                                       'OpenRAVE and not supported; use <limitsdeg>')
            else:
                element.used.discard(tag)
                self.ctx.warn(child, f'<{tag}> is not used by a {kind} joint and was ignored')
        if len(bodies) != 2:
            raise element.error(f'joint {name!r} must name two bodies, found {len(bodies)}')
        locked = active and not mimic and dof == 1 and not circular and \
            joint_data['lower'][0] == joint_data['upper'][0]
        if (active or mimic) and not locked and any(a is None for a in axes):
            index = [i + 1 for i, a in enumerate(axes) if a is None][0]
            raise element.error(f'joint {name!r} has no axis' + (str(index) if dof > 1 else ''))
        toffset = np.eye(4) if offsetfrom is None else scope.offset_of(offsetfrom)
        toffset = inverse(bodies[0].transform) @ toffset
        axes = [None if a is None else toffset[:3, :3] @ a for a in axes]
        joint = RawJoint(name, kind, element, bodies[0], bodies[1],
                         toffset[:3, :3] @ anchor + toffset[:3, 3], axes,
                         inverse(bodies[0].transform) @ bodies[1].transform, active, circular,
                         joint_data['lower'], joint_data['upper'], joint_data['given'],
                         joint_data['initial'], joint_data.get('maxvel'),
                         joint_data.get('maxaccel'), joint_data.get('maxtorque'), mimic,
                         joint_data['meta'])
        if 'hardmaxvel' in joint_data:
            joint.meta['hardmaxvel'] = tuple(joint_data['hardmaxvel'])
        return joint

    @staticmethod
    def _unit(element: Element) -> np.ndarray:
        v = scaled(element.numbers(3))
        if v is None:
            raise element.error(f'<{element.tag}> is the zero vector')
        return v / np.linalg.norm(v)

    @staticmethod
    def _find_link(body: RawBody, name: str) -> RawLink | None:
        link = body.link(name)
        if link is None:
            for candidate in body.links:
                if candidate.name.lower() == name.lower():
                    return candidate
        return link

    @staticmethod
    def _mimic_attrs(element: Element) -> dict:
        """``mimic_pos``/``mimic_vel``/``mimic_accel`` (+ DOF index), and old ``mimic``."""
        out: dict[int, dict[str, tuple[str, Element]]] = {}
        for key, value in element.attrs.items():
            for kind in ('pos', 'vel', 'accel'):
                prefix = f'mimic_{kind}'
                if key.startswith(prefix):
                    suffix = key[len(prefix):]
                    index = int(suffix) if suffix.isdigit() else 0
                    out.setdefault(index, {})[kind] = (value, element)
                    element.used.add('@' + key)
        old = element.attr('mimic')
        if old is not None and 0 not in out:
            words = old.split()
            try:
                a = float(words[1]) if len(words) > 1 else 1.0
                b = float(words[2]) if len(words) > 2 else 0.0
            except ValueError:
                raise element.error(f'mimic={old!r} must be "joint [multiplier [offset]]"') \
                    from None
            if not words:
                raise element.error('mimic="" names no joint')
            out[0] = {'pos': (f'"{words[0]}"*{a!r}+{b!r}', element)}
        return out

    # --- manipulators and sensors -----------------------------------------------------

    def _manipulator(self, element: Element) -> RawManipulator:
        manip = RawManipulator(element.attr('name') or 'manipulator', element)
        tags = TransformTags()
        for child in element.children:
            tag = child.tag
            if tags.read(child):
                continue
            if tag == 'effector':
                manip.effector = child.word()
            elif tag == 'base':
                manip.base = child.word()
            elif tag in ('joints', 'gripperjoints'):
                manip.gripper_joints = child.words()
            elif tag in ('closingdirection', 'closingdir'):
                manip.closing_direction = [float(np.sign(v)) for v in child.numbers()]
            elif tag in ('direction', 'palmdirection'):
                v = scaled(child.numbers(3))
                manip.direction = v / np.linalg.norm(v) if v is not None else \
                    np.array([0.0, 0.0, 1.0])
            elif tag == 'iksolver':
                manip.ik_solver = child.text.strip()
            else:
                self.ctx.warn(child, f'<{tag}> in a Manipulator is not supported and was '
                                     'ignored')
        manip.tool = tags.matrix()
        return manip

    def _attached_sensor(self, element: Element, sensor: RawSensor) -> RawSensor:
        tags = TransformTags()
        for child in element.children:
            tag = child.tag
            if tags.read(child):
                continue
            if tag == 'link':
                sensor.link = child.word()
            elif tag == 'sensor':
                self._sensor_body(child, sensor)
            else:
                self.ctx.warn(child, f'<{tag}> in an AttachedSensor is not supported and was '
                                     'ignored')
        sensor.transform = tags.matrix()
        return sensor

    def _sensor(self, element: Element, sensor: RawSensor) -> RawSensor:
        """An environment ``<sensor>``: its own transform, parameters and type."""
        tags = TransformTags()
        params = [c for c in element.children if not tags.read(c)]
        sensor.transform = tags.matrix()
        clone = Element(element.tag, dict(element.attrs), element.path, element.line, params)
        self._sensor_body(clone, sensor)
        return sensor

    def _sensor_body(self, element: Element, sensor: RawSensor) -> None:
        attrs = dict(element.attrs)
        children = list(element.children)
        name = attrs.pop('file', None)
        if name:
            root = self.ctx.include(element, name, ('sensor',))
            attrs = {**root.attrs, **attrs}
            children = root.children + children
        sensor.type = attrs.get('type')
        sensor.params = children
        sensor.sensor_element = element
        if attrs.get('args'):
            self.ctx.warn(element, 'sensor args are deprecated in OpenRAVE and were ignored')


def read_world(path: str) -> tuple[RawWorld, list[str]]:
    """Read an OpenRAVE file into its raw shape; also return the warnings so far."""
    reader = Reader(path)
    world = reader.read()
    return world, reader.ctx.warnings

