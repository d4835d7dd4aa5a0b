"""Hypothesis strategies for valid-looking model documents of each format.

Each strategy draws a document that looks like a model of its format (the keys, elements and
names the loaders read, names that refer to each other), with values that are mostly sensible
and sometimes hostile: NaN, infinities, huge and negative numbers, wrong types, wrong lengths,
zero vectors, reversed ranges, paths into device files, YAML aliases shared many times. The
result is the file's text; ``test/fuzz_oracle.py`` judges what a loader makes of it.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

import yaml
from hypothesis import strategies as st

# --- values -------------------------------------------------------------------------------

HOSTILE_FLOATS = st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e308, 0.0, -0.0,
                                  -1.0, 1e-320, 1e30, -1e30, 5e-324])
JUNK = st.one_of(st.sampled_from(['', 'abc', 'nan', '.nan', 'inf', '1e999', 'on', '~', 'X']),
                 st.booleans(), st.none(), st.integers(-2**70, 2**70))


def rarely(common, rare, odds: int = 12):
    """``common``, and one time in about ``odds`` ``rare`` (hostile values stay the exception,
    so that most documents get past their first number)."""
    return st.sampled_from([False] * (odds - 1) + [True]).flatmap(
        lambda hostile: rare if hostile else common)


def number(lo: float = -10.0, hi: float = 10.0):
    """Mostly a float in [lo, hi], sometimes a hostile float or a value of the wrong type."""
    plain = st.one_of(st.floats(lo, hi, allow_nan=False, allow_infinity=False),
                      st.integers(math.ceil(lo), math.floor(hi)))
    return rarely(plain, st.one_of(HOSTILE_FLOATS, HOSTILE_FLOATS, JUNK), 25)


def positive(hi: float = 2.0):
    return number(1e-3, hi)


def vector(size: int = 3, lo: float = -2.0, hi: float = 2.0):
    """Mostly ``size`` numbers; sometimes another length, zeros or a scalar."""
    exact = st.lists(number(lo, hi), min_size=size, max_size=size)
    return rarely(exact, st.one_of(st.just([0.0] * size),
                                   st.lists(number(lo, hi), max_size=size + 2), number(lo, hi)))


def axis3():
    unit = st.sampled_from([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, -1], [1, 1, 0]])
    return rarely(st.one_of(unit, vector(3), st.sampled_from(['X', 'Y', 'Z', '-Z'])),
                  st.one_of(st.just([0, 0, 0]), st.sampled_from(['W', ''])), 8)


def optional(mapping: dict, required: dict | None = None):
    """A mapping with the required keys and any subset of the optional ones."""
    return st.fixed_dictionaries(required or {}, optional=mapping)


def to_yaml(data) -> str:
    """YAML text; Python objects used twice become anchors and aliases."""
    return yaml.safe_dump(data, default_flow_style=None, sort_keys=False, allow_unicode=True,
                          width=4096)


@st.composite
def alias_bomb(draw, leaf):
    """A value whose YAML text is small but which repeats ``leaf`` width**depth times."""
    depth = draw(st.integers(2, 9))
    width = draw(st.integers(2, 12))
    value = draw(leaf)
    for _ in range(depth):
        value = {'type': 'Group', 'elements': [value] * width}
    return value


# --- paths a model may name ---------------------------------------------------------------

HOSTILE_PATHS = ['tri.stl', 'tri.obj', '/dev/zero', '/dev/null', '/dev/urandom', '/dev/stdin',
                 '/proc/self/mem',
                 '/proc/self/fd/0', '/tmp', '.', '..', '../../../../../../etc/passwd',
                 'file:///dev/zero', 'package://nope/x.stl', 'missing.stl', 'missing.wrl',
                 'missing.body', 'missing.yaml', 'http://example.com/x.stl', '${SHARE}/x.stl',
                 '', '\x00', 'a' * 300 + '.stl', '~/nothing.obj', 'fifo.stl', 'fifo.body',
                 'socket.stl', 'self.body', 'self.kinbody.xml', 'fifo.kinbody.xml']


#: Mesh files the fuzz folder holds (``fuzz_oracle.hostile_folder``): small and valid.
MESH_FILES = ['tri.stl', 'tri.obj', 'tri.wrl']


def path_value():
    return st.sampled_from(HOSTILE_PATHS)


def sometimes(odds: int = 8):
    """True about one time in ``odds``."""
    return st.sampled_from([False] * (odds - 1) + [True])


# --- Choreonoid Body --------------------------------------------------------------------------

LINK_NAMES = st.sampled_from(['root', 'a', 'b', 'c', 'WAIST', 'x y', 'a'])
DEVICE_TYPES = ['ForceSensor', 'AccelerationSensor', 'RateGyroSensor', 'Imu', 'Camera',
                'RangeSensor', 'SpotLight', 'PointLight', 'Holder', 'Nonsense']


def _geometry():
    return st.one_of(
        optional({'size': vector(3, 0, 2)}, {'type': st.just('Box')}),
        optional({'radius': number(0, 1)}, {'type': st.just('Sphere')}),
        optional({'radius': number(0, 1), 'height': number(0, 2), 'top': st.booleans(),
                  'bottom': st.booleans()},
                 {'type': st.sampled_from(['Cylinder', 'Capsule', 'Cone'])}),
        optional({'vertices': st.lists(number(-1, 1), max_size=30),
                  'faces': st.lists(st.integers(-2, 12), max_size=30),
                  'coordinate': st.lists(number(-1, 1), max_size=30),
                  'coordIndex': st.lists(st.integers(-2, 12), max_size=30),
                  'creaseAngle': number(0, 3)},
                 {'type': st.sampled_from(['IndexedFaceSet', 'TriangleMesh'])}),
        optional({'xDimension': st.one_of(st.integers(-1, 6), st.just(10**9), JUNK),
                  'zDimension': st.one_of(st.integers(-1, 6), st.just(10**9), JUNK),
                  'xSpacing': number(0, 1), 'zSpacing': number(0, 1),
                  'height': st.lists(number(-1, 1), max_size=40)},
                 {'type': st.just('ElevationGrid')}),
        optional({'crossSection': st.lists(number(-1, 1), max_size=12),
                  'spine': st.lists(number(-1, 1), max_size=12),
                  'scale': st.lists(number(0, 2), max_size=6),
                  'orientation': st.lists(number(-1, 1), max_size=8)},
                 {'type': st.just('Extrusion')}),
        optional({'uri': path_value(), 'node': st.sampled_from(['a', 'ROOT', ''])},
                 {'type': st.just('Resource')}),
        st.fixed_dictionaries({'type': st.sampled_from(['Plane', 'Torus', 'Nothing', ''])}),
    )


def _appearance():
    return optional({'material': optional({'diffuse': vector(3, 0, 1),
                                           'diffuseColor': vector(3, 0, 1),
                                           'transparency': number(0, 1)}),
                     'texture': optional({'url': path_value()})})


def _place():
    return {'translation': vector(3), 'rotation': st.one_of(vector(4, -1, 90),
                                                            st.lists(vector(4), max_size=3))}


def _device():
    params = {'name': st.sampled_from(['s', 'cam', 'lrf', 's']), 'id': st.integers(-1, 3),
              'width': st.one_of(st.integers(-1, 64), JUNK),
              'height': st.one_of(st.integers(-1, 64), JUNK),
              'fieldOfView': number(-10, 400), 'frameRate': number(-1, 100),
              'scanAngle': number(-10, 400), 'scanStep': number(-1, 10),
              'maxDistance': number(-1, 100), 'minDistance': number(-1, 10),
              'format': st.sampled_from(['COLOR', 'DEPTH', 'POINT_CLOUD', 'BOGUS']),
              'lensType': st.sampled_from(['NORMAL', 'FISHEYE', 'DUAL_FISHEYE', 'X']),
              'on': st.booleans(), **_place()}
    return optional(params, {'type': st.sampled_from(DEVICE_TYPES)})


def _leaf_element():
    shape = optional({'geometry': _geometry(), 'appearance': _appearance(), **_place()},
                     {'type': st.just('Shape')})
    rigid = optional({'mass': number(-1, 10), 'centerOfMass': vector(3),
                      'inertia': st.one_of(vector(9, -1, 1), vector(6, -1, 1)), **_place()},
                     {'type': st.just('RigidBody')})
    resource = optional({'uri': path_value(), 'node': st.sampled_from(['a', 'NONE'])},
                        {'type': st.just('Resource')})
    return st.one_of(shape, shape, rigid, _device(), resource)


def _elements():
    return st.recursive(
        _leaf_element(),
        lambda inner: optional(
            {'elements': st.lists(inner, max_size=3), 'scale': vector(3, 0, 2), **_place()},
            {'type': st.sampled_from(['Transform', 'Group', 'Visual', 'Collision',
                                      'RigidBody', 'Skip'])}),
        max_leaves=6)


def _link():
    keys = {
        'parent': LINK_NAMES, 'jointType': rarely(st.sampled_from(
            ['fixed', 'free', 'revolute', 'prismatic', 'slide', 'pseudo_continuous_track']),
            st.sampled_from(['screw', ''])),
        'jointAxis': axis3(), 'jointId': rarely(st.integers(0, 30), st.one_of(st.just(-2), JUNK)),
        'jointRange': st.one_of(vector(2, -200, 200), st.just([90, -90]), number(),
                                st.just('unlimited'), st.just(['unlimited', 5])),
        'maxJointVelocity': number(-5, 5), 'jointVelocityRange': vector(2, -5, 5),
        'jointAngle': number(-200, 200), 'jointDisplacement': number(-3, 3),
        'jointEffortRange': vector(2, -50, 50), 'rotorInertia': number(-1, 1),
        'gearRatio': number(-100, 100), 'mass': number(-1, 20), 'centerOfMass': vector(3),
        'inertia': st.one_of(vector(9, -1, 1), vector(6, -1, 1)),
        'elements': st.one_of(st.lists(_elements(), max_size=3), _elements()),
        'actuationMode': st.sampled_from(['jointEffort', 'jointVelocity', 'nonsense']),
        'import': st.just({'mass': 1.0}),
        **_place(),
    }
    return optional(keys, {'name': LINK_NAMES})


@st.composite
def choreonoid_documents(draw) -> str:
    """The text of a Choreonoid Body file."""
    links = draw(st.lists(_link(), min_size=1, max_size=5))
    if draw(sometimes(10)):  # an alias bomb in some link's elements
        leaf = _leaf_element()
        links[0]['elements'] = [draw(alias_bomb(leaf))]
    header = draw(optional({
        'formatVersion': rarely(st.sampled_from([1.0, 2.0]),
                                st.sampled_from([1.5, 3.0, '1.0', 'x'])),
        'angleUnit': rarely(st.sampled_from(['degree', 'radian']), st.just('grad')),
        'name': st.sampled_from(['robot', '', 'x/y']),
        'rootLink': LINK_NAMES,
    }, {'format': rarely(st.just('ChoreonoidBody'), st.just('OtherBody'), 20)}))
    header['links'] = links
    if draw(st.booleans()):
        header['extraJoints'] = draw(st.lists(optional({
            'link1Name': LINK_NAMES, 'link2Name': LINK_NAMES,
            'jointType': st.sampled_from(['ball', 'hinge', 'piston', 'weld']),
            'axis': axis3(), 'link1LocalPos': vector(3), 'link2LocalPos': vector(3)}),
            max_size=2))
    return to_yaml(header)


# --- OpenRAVE XML ------------------------------------------------------------------------------


def _text(value) -> str:
    if isinstance(value, list):
        return ' '.join(_text(v) for v in value)
    if isinstance(value, float):
        return repr(value)  # nan, inf, -inf as Python writes them
    return str(value)


def _el(tag: str, children=(), attrs: dict | None = None, text=None) -> str:
    attr = ''.join(f' {k}={quoteattr(_text(v))}' for k, v in (attrs or {}).items())
    inner = escape(_text(text)) if text is not None else ''
    return f'<{tag}{attr}>{inner}{"".join(children)}</{tag}>'


BODY_NAMES = st.sampled_from(['base', 'l1', 'l2', 'l3', 'base', 'missing'])


@st.composite
def _transform(draw) -> list[str]:
    out = []
    for tag, value in draw(st.lists(st.sampled_from([
            ('Translation', vector(3)), ('RotationAxis', vector(4, -1, 90)),
            ('quat', vector(4, -1, 1)),
            ('rotationmat', rarely(st.sampled_from([[1, 0, 0, 0, 1, 0, 0, 0, 1],
                                                    [0, -1, 0, 1, 0, 0, 0, 0, 1]]),
                                   vector(9, -1, 1), 4))]), max_size=2)):
        out.append(_el(tag, text=draw(value)))
    return out


@st.composite
def _geom(draw) -> str:
    kind = draw(st.sampled_from(['box', 'sphere', 'cylinder', 'trimesh', 'cone', '']))
    children = draw(_transform())
    needed = {'box': [('Extents', vector(3, 0.01, 1))], 'sphere': [('Radius', positive(1))],
              'cylinder': [('Radius', positive(1)), ('Height', positive(1))],
              'trimesh': [('Data', rarely(st.sampled_from(MESH_FILES), path_value(), 3))]}
    for tag, value in needed.get(kind, []):
        if not draw(sometimes(12)):
            children.append(_el(tag, text=draw(value)))
    for tag, value in draw(st.lists(st.sampled_from([
            ('Extents', vector(3, 0, 1)), ('Radius', number(0, 1)), ('Height', number(0, 1)),
            ('diffuseColor', vector(3, 0, 1)), ('transparency', number(0, 1)),
            ('Data', path_value()), ('Render', path_value()), ('collision', path_value()),
            ('vertices', vector(9, -1, 1))]), max_size=4)):
        children.append(_el(tag, text=draw(value)))
    attrs = draw(optional({'render': st.sampled_from(['true', 'false', 'x'])}))
    return _el('Geom', children, {'type': kind, **attrs})


@st.composite
def _mass(draw) -> str:
    kind = draw(st.sampled_from(['custom', 'box', 'sphere', 'mimicgeom', 'x']))
    children = []
    for tag, value in draw(st.lists(st.sampled_from([
            ('total', number(-1, 10)), ('density', number(-1, 1000)), ('com', vector(3)),
            ('inertia', vector(9, -1, 1)), ('extents', vector(3, 0, 1)),
            ('radius', number(0, 1))]), max_size=4)):
        children.append(_el(tag, text=draw(value)))
    return _el('Mass', children, {'type': kind})


@st.composite
def _body(draw) -> str:
    children = draw(_transform())
    children += draw(st.lists(_geom(), max_size=2))
    if draw(st.booleans()):
        children.append(draw(_mass()))
    if draw(st.booleans()):
        children.append(_el('offsetfrom', text=draw(BODY_NAMES)))
    attrs = {'name': draw(BODY_NAMES),
             'type': draw(rarely(st.sampled_from(['static', 'dynamic']), st.just('x')))}
    return _el('Body', children, attrs)


@st.composite
def _joint(draw) -> str:
    kind = draw(st.sampled_from(['hinge', 'slider', 'universal', 'hinge2', 'spherical',
                                 'prismatic', 'revolute', 'screw']))
    children = [_el('Body', text=draw(BODY_NAMES)) for _ in range(draw(st.integers(0, 3)))]
    for tag, value in draw(st.lists(st.sampled_from([
            ('offsetfrom', BODY_NAMES), ('axis', vector(3)), ('axis1', vector(3)),
            ('axis2', vector(3)), ('anchor', vector(3)), ('limits', vector(2, -3, 3)),
            ('limitsdeg', st.one_of(vector(2, -180, 180), st.just([90, -90]))),
            ('limitsrad', vector(2, -3, 3)), ('maxvel', number(-1, 10)),
            ('maxveldeg', number(-1, 100)), ('maxtorque', number(-1, 100)),
            ('maxaccel', number(-1, 100)), ('initial', number(-3, 3)),
            ('weight', number(-1, 2)), ('resolution', number(-1, 2)),
            ('mimic_pos', st.sampled_from(['l1 * 2', 'j0', 'j0*', '1/0', 'sin(j0)', 'j0^99',
                                           'j1 + j0', '(((((((((j0)))))))))', 'nope'])),
            ('mimic_vel', st.sampled_from(['|j0 1', 'x'])),
    ]), max_size=5)):
        children.append(_el(tag, text=draw(value)))
    attrs = {'name': draw(st.sampled_from(['j0', 'j1', 'j2', 'j0'])), 'type': kind}
    attrs.update(draw(optional({'enable': st.sampled_from(['true', 'false']),
                                'circular': st.sampled_from(['true', 'false', '1'])})))
    return _el('Joint', children, attrs)


@st.composite
def _kinbody(draw, tag='KinBody', depth=0) -> str:
    children = draw(st.lists(_body(), min_size=1, max_size=4))
    children += draw(st.lists(_joint(), max_size=4))
    if draw(sometimes(5)):
        children.append(_el('adjacent', text=f'{draw(BODY_NAMES)} {draw(BODY_NAMES)}'))
    if draw(sometimes(5)):
        children.append(_el('jointvalues', text=draw(vector(2))))
    if depth < 2 and draw(sometimes(6)):
        children.append(draw(_kinbody('KinBody', depth + 1)))
    attrs = {'name': draw(st.sampled_from(['k', 'robot', 'k']))}
    if draw(sometimes(7)):
        attrs['file'] = draw(path_value())
    if draw(sometimes(7)):
        attrs['prefix'] = 'p_'
    return _el(tag, children, attrs)


@st.composite
def _robot(draw) -> str:
    children = [draw(_kinbody())]
    if draw(st.booleans()):
        manip = [_el(tag, text=draw(value)) for tag, value in draw(st.lists(st.sampled_from([
            ('base', BODY_NAMES), ('effector', BODY_NAMES), ('joints', st.just('j0 j1')),
            ('closingdirection', vector(2)), ('direction', vector(3)),
            ('Translation', vector(3))]), max_size=5))]
        children.append(_el('Manipulator', manip, {'name': 'arm'}))
    if draw(st.booleans()):
        sensor = [_el(tag, text=draw(value)) for tag, value in draw(st.lists(st.sampled_from([
            ('minangle', number(-400, 400)), ('maxangle', number(-400, 400)),
            ('resolution', number(-1, 10)), ('maxrange', number(-1, 100)),
            ('scantime', number(-1, 1)), ('KK', vector(4, -100, 640)),
            ('width', st.integers(-1, 64)), ('height', st.integers(-1, 64)),
            ('framerate', number(-1, 60))]), max_size=5))]
        kind = draw(st.sampled_from(['BaseLaser2D', 'BaseFlashLidar3D', 'BaseCamera', 'X']))
        children.append(_el('AttachedSensor', [
            _el('link', text=draw(BODY_NAMES)), *draw(_transform()),
            _el('sensor', sensor, {'type': kind})], {'name': 'sensor'}))
    return _el('Robot', children, {'name': 'robot'})


@st.composite
def openrave_documents(draw) -> str:
    """The text of an OpenRAVE XML file (Environment, Robot or KinBody)."""
    kind = draw(st.sampled_from(['kinbody', 'robot', 'env']))
    if kind == 'kinbody':
        text = draw(_kinbody())
    elif kind == 'robot':
        text = draw(_robot())
    else:
        inner = draw(st.lists(st.one_of(_kinbody(), _robot()), min_size=1, max_size=3))
        text = _el('Environment', inner)
    if draw(sometimes(16)):  # an entity bomb (refused by the hardened parser)
        text = ('<!DOCTYPE k [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>\n'
                + text.replace('name="k"', 'name="&b;"', 1))
    return '<?xml version="1.0"?>\n' + text


# --- Project Chrono YAML ----------------------------------------------------------------------

BODY_REFS = st.sampled_from(['ground', 'b1', 'b2', 'b3', 'missing'])


def _function():
    return optional({
        'value': number(), 'coefficients': st.lists(number(), max_size=4),
        'amplitude': number(), 'frequency': number(-1, 10), 'phase': number(),
        'shift': number(), 'slope': number(), 'intercept': number(),
        'data': st.one_of(st.lists(vector(2), max_size=4), vector(2)),
        'repeat': optional({'start': number(), 'width': number(-1, 2), 'shift': number()}),
    }, {'type': st.sampled_from(['CONSTANT', 'POLYNOMIAL', 'SINE', 'RAMP', 'DATA',
                                 'CONTROLLER', 'sine', 'BOGUS'])})


def _chrono_shape(collision: bool):
    keys = {'location': vector(3), 'orientation': st.one_of(vector(3, -90, 90), vector(4)),
            'radius': number(0, 1), 'dimensions': vector(3, 0, 2), 'axis': vector(3),
            'length': number(0, 2), 'filename': path_value(), 'scale': number(0, 2),
            'color': vector(3, 0, 1), 'contact_radius': number(0, 0.1)}
    if collision:
        keys['material'] = st.one_of(st.integers(-1, 2), st.sampled_from(['m0', 'nope']))
    return optional(keys, {'type': st.sampled_from(['SPHERE', 'BOX', 'CYLINDER', 'MESH',
                                                    'HULL', 'cone'])})


@st.composite
def _chrono_body(draw):
    body = draw(_chrono_body_keys())
    if not draw(sometimes(12)):  # a moving body needs them
        body.setdefault('mass', draw(rarely(positive(10), number(-1, 10))))
        body.setdefault('inertia', {'moments': draw(vector(3, 0.01, 2))})
    return body


def _chrono_body_keys():
    return optional({
        'fixed': st.booleans(), 'orientation': st.one_of(vector(3, -180, 180), vector(4)),
        'mass': number(-1, 10),
        'com': optional({'location': vector(3), 'orientation': vector(3)}),
        'inertia': optional({'moments': vector(3, -1, 2), 'products': vector(3, -1, 1)}),
        'initial_linear_velocity': vector(3), 'initial_angular_velocity': vector(3),
        'contact': optional({
            'materials': st.lists(optional({'coefficient_of_friction': number(-1, 2),
                                            'coefficient_of_restitution': number(-1, 2)},
                                           {'name': st.sampled_from(['m0', 'm1'])}),
                                  max_size=2),
            'shapes': st.lists(_chrono_shape(True), max_size=2)}),
        'visualization': optional({'shapes': st.lists(_chrono_shape(False), max_size=2)}),
    }, {'name': BODY_REFS, 'location': vector(3)})


def _chrono_joint():
    return optional({
        'name': st.sampled_from(['j0', 'j1', 'j0']), 'location': vector(3), 'axis': vector(3),
        'axis1': vector(3), 'axis2': vector(3),
        'bushing_data': optional({'stiffness_linear': number(-1, 1e5),
                                  'damping_linear': number(-1, 1e3),
                                  'stiffness_rotational': number(-1, 1e5),
                                  'damping_rotational': number(-1, 1e3)}),
    }, {'type': st.sampled_from(['LOCK', 'REVOLUTE', 'SPHERICAL', 'PRISMATIC', 'UNIVERSAL',
                                 'POINT_LINE', 'POINT_PLANE', 'HINGE']),
        'body1': BODY_REFS, 'body2': BODY_REFS})


def _chrono_motor():
    return optional({
        'location': vector(3), 'axis': vector(3),
        'spindle': st.sampled_from(['FREE', 'REVOLUTE', 'CYLINDRICAL', 'X']),
        'guide': st.sampled_from(['FREE', 'PRISMATIC', 'SPHERICAL', 'X']),
        'actuation_function': _function(),
    }, {'name': st.sampled_from(['m0', 'm1']), 'type': st.sampled_from(['ROTATION', 'LINEAR',
                                                                         'X']),
        'body1': BODY_REFS, 'body2': BODY_REFS,
        'actuation_type': st.sampled_from(['POSITION', 'SPEED', 'FORCE', 'X'])})


def _chrono_spring(rotational: bool):
    keys = {'spring_coefficient': number(-10, 1e4), 'damping_coefficient': number(-10, 1e3),
            'preload': number(), 'spring_curve_data': st.lists(vector(2), max_size=4),
            'damping_curve_data': st.lists(vector(2), max_size=4),
            'minimum_length': number(-1, 2), 'maximum_length': number(-1, 2),
            'degressivity_compression': number(-1, 2), 'degressivity_expansion': number(-1, 2)}
    if rotational:
        keys.update(location=vector(3), axis=vector(3), free_angle=number(-90, 90))
    else:
        keys.update(point1=vector(3), point2=vector(3), free_length=number(-1, 2))
    return optional(keys, {'name': st.sampled_from(['s0', 's1']), 'body1': BODY_REFS,
                           'body2': BODY_REFS})


def _chrono_load():
    return optional({'load': vector(3, -100, 100), 'local_load': st.booleans(),
                     'point': vector(3), 'local_point': st.booleans(),
                     'modulation_function': _function()},
                    {'name': st.sampled_from(['f0', 'f1']), 'body': BODY_REFS,
                     'type': st.sampled_from(['FORCE', 'TORQUE', 'X'])})


def _chrono_constraint():
    return optional({'point1': vector(3), 'point2': vector(3), 'axis': vector(3),
                     'distance': number(-1, 2)},
                    {'name': st.sampled_from(['c0', 'c1']), 'body1': BODY_REFS,
                     'body2': BODY_REFS,
                     'type': st.sampled_from(['DISTANCE', 'REVOLUTE-SPHERICAL',
                                              'REVOLUTE-TRANSLATIONAL', 'X'])})


@st.composite
def chrono_documents(draw) -> str:
    """The text of a Project Chrono YAML MBS model."""
    model = draw(optional({
        'name': st.sampled_from(['m', '']), 'angle_degrees': st.booleans(),
        'joints': st.lists(_chrono_joint(), max_size=3),
        'motors': st.lists(_chrono_motor(), max_size=2),
        'constraints': st.lists(_chrono_constraint(), max_size=2),
        'tsdas': st.lists(_chrono_spring(False), max_size=2),
        'rsdas': st.lists(_chrono_spring(True), max_size=2),
        'body_loads': st.lists(_chrono_load(), max_size=2),
        'load_controllers': st.lists(_chrono_load(), max_size=1),
        'data_path': optional({'type': st.sampled_from(['RELATIVE', 'ABSOLUTE', 'X']),
                               'root': st.sampled_from(['.', '..', '/dev'])}),
    }, {'bodies': st.lists(_chrono_body(), min_size=1, max_size=4)}))
    version = draw(rarely(st.sampled_from(['10.0', '9.0', 10.0, '10.1']),
                          st.sampled_from(['8.0', 'x', '10'])))
    return to_yaml({'chrono-version': version, 'model': model})


DOCUMENTS = {'choreonoid': (choreonoid_documents, 'fuzz.body'),
             'openrave': (openrave_documents, 'fuzz.kinbody.xml'),
             'chrono': (chrono_documents, 'fuzz.yaml')}
