"""Hostile numbers in each format: rejected with ``path:line``, or repaired with a warning.

One table per case and format (the README's "Bad input" table states the same); every model
that loads is then built, compiled and stepped, so nothing the policy lets through reaches
MuJoCo in a form it refuses or silently changes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formats.checks import check_model
from body_bridge.model import Box, Inertial, Joint, JointType, Limits, Link, Mesh, Model, Shape
from body_bridge.sim.simulation import Simulation

# --- three small models, one per format, with a slot for the hostile part -----------------

BODY = '''format: ChoreonoidBody
format_version: 2.0
angle_unit: degree
links:
  - name: base
    joint_type: fixed
  - name: arm
    parent: base
    joint_type: revolute
    joint_axis: {axis}
    mass: {mass}
    inertia: {inertia}
    translation: {translation}{extra}
    elements:
      - {{ type: Shape, geometry: {geometry} }}
'''
BODY_DEFAULTS = dict(axis='[0, 0, 1]', mass='1.0', inertia='[0.1, 0, 0, 0.1, 0, 0.1]',
                     translation='[0, 0, 0.5]', extra='',
                     geometry='{ type: Box, size: [0.1, 0.1, 0.1] }')

KINBODY = '''<KinBody name="k">
  <Body name="base" type="static">
    <Geom type="box"><Extents>0.1 0.1 0.1</Extents></Geom>
  </Body>
  <Body name="arm" type="dynamic">
    <Translation>{translation}</Translation>
    {geom}
    {mass}
  </Body>
  <Joint name="j" type="hinge">
    <Body>base</Body><Body>arm</Body><axis>{axis}</axis>{limits}
  </Joint>
</KinBody>
'''
KINBODY_DEFAULTS = dict(
    translation='0 0 0.5', axis='0 0 1', limits='',
    geom='<Geom type="box"><Extents>0.1 0.1 0.1</Extents></Geom>',
    mass='<Mass type="box"><total>1</total><extents>0.1 0.1 0.1</extents></Mass>')

CHRONO = '''chrono-version: 10.0
model:
  bodies:
    - name: ground
      fixed: true
      location: [0, 0, 0]
    - name: arm
      location: {location}
      mass: {mass}
      inertia: {{ moments: {moments} }}
      visualization:
        shapes:
          - {shape}
  joints:
    - name: j
      type: REVOLUTE
      body1: ground
      body2: arm
      location: [0, 0, 0]
      axis: {axis}
'''
CHRONO_DEFAULTS = dict(location='[0, 0, 0.5]', mass='1.0', moments='[0.1, 0.1, 0.1]',
                       axis='[0, 0, 1]',
                       shape='{ type: BOX, dimensions: [0.1, 0.1, 0.1], location: [0, 0, 0], '
                             'orientation: [0, 0, 0] }')

FORMATS = {'choreonoid': (BODY, BODY_DEFAULTS, 'm.body'),
           'openrave': (KINBODY, KINBODY_DEFAULTS, 'm.kinbody.xml'),
           'chrono': (CHRONO, CHRONO_DEFAULTS, 'm.yaml')}

# (case, format, changes to the template, outcome, text the error or a warning holds, line)
REJECTED, REPAIRED = 'rejected', 'repaired'
CASES = [
    ('NaN', 'choreonoid', dict(translation='[.nan, 0, 0]'), REJECTED, 'must be finite', 13),
    ('NaN', 'openrave', dict(translation='nan 0 0'), REJECTED, 'not finite', 6),
    ('NaN', 'chrono', dict(location='[.nan, 0, 0]'), REJECTED, 'must be finite', 8),
    ('infinity', 'choreonoid', dict(mass='.inf'), REJECTED, 'mass must be finite', 11),
    ('infinity', 'openrave', dict(axis='inf 0 1'), REJECTED, 'not finite', 11),
    ('infinity', 'chrono', dict(mass='-.inf'), REJECTED, '"mass" must be finite', 9),
    ('too large', 'choreonoid', dict(translation='[1.0e+300, 0, 0]'), REJECTED,
     "link 'arm' pose position is too large", 7),
    ('too large', 'openrave', dict(translation='1e300 0 0'), REJECTED, 'is too large', 5),
    ('too large', 'chrono', dict(location='[1.0e+300, 0, 0]'), REJECTED, 'is too large', 7),
    ('overflow', 'choreonoid', dict(mass='1.0e+300',
                                    extra='\n    center_of_mass: [1.0e+300, 0, 0]'),
     REJECTED, 'mass properties overflow', 7),
    ('overflow', 'openrave', dict(geom='<Geom type="box"><Extents>1e308 1 1</Extents></Geom>'),
     REJECTED, "box size is not finite", 7),
    ('negative mass', 'choreonoid', dict(mass='-1.0'), REJECTED, 'mass must not be negative', 11),
    ('negative mass', 'openrave', dict(mass='<Mass type="box"><total>-1</total>'
                                            '<extents>0.1 0.1 0.1</extents></Mass>'),
     REJECTED, '<total> must not be negative', 8),
    ('negative mass', 'chrono', dict(mass='-1.0'), REJECTED, '"mass" must be at least 0', 9),
    ('negative principal moment', 'choreonoid', dict(inertia='[0.1, 0, 0, 0.1, 0, -0.1]'),
     REJECTED, 'the inertia is not positive semi-definite', 7),
    ('negative principal moment', 'openrave', dict(
        mass='<Mass type="custom"><total>1</total><inertia>0.1 0 0 0 0.1 0 0 0 -0.1</inertia>'
             '</Mass>'), REPAIRED, 'are not physical (a negative moment); each set to their '
                                   'mean, 0.1', 5),
    ('negative principal moment', 'chrono', dict(moments='[0.1, 0.1, -0.1]'), REJECTED,
     'principal moments must be p', 10),
    ('moment negative by rounding', 'choreonoid', dict(inertia='[0.1, 0, 0, 0.1, 0, -1.0e-12]'),
     REPAIRED, 'negative by rounding; set to 0', 7),
    ('moment negative by rounding', 'chrono', dict(moments='[0.1, 0.1, -1.0e-12]'), REJECTED,
     'principal moments must be p', 10),
    ('A + B < C', 'choreonoid', dict(inertia='[0.1, 0, 0, 0.1, 0, 0.5]'), REPAIRED,
     'A + B >= C fails', 7),
    ('A + B < C', 'openrave', dict(
        mass='<Mass type="custom"><total>1</total><inertia>0.1 0 0 0 0.1 0 0 0 0.5</inertia>'
             '</Mass>'), REPAIRED, '(A + B < C); each set to their mean', 5),
    ('A + B < C', 'chrono', dict(moments='[0.1, 0.1, 0.5]'), REPAIRED, 'violate A + B >= C',
     10),
    ('zero axis', 'choreonoid', dict(axis='[0, 0, 0]'), REJECTED, 'joint_axis is the zero vector',
     10),
    ('zero axis', 'openrave', dict(axis='0 0 0'), REJECTED, '<axis> is the zero vector', 11),
    ('zero axis', 'chrono', dict(axis='[0, 0, 0]'), REJECTED, '"axis" is the zero vector', 20),
    ('reversed limits', 'choreonoid', dict(extra='\n    joint_range: [90, -90]'), REJECTED,
     "joint 'arm': the lower limit 1.5708 is above the upper limit -1.5708", 7),
    ('reversed limits', 'openrave', dict(limits='<limitsdeg>90 -90</limitsdeg>'), REPAIRED,
     'gives an upper limit before its lower limit; read as OpenRAVE reads it', 11),
    ('zero box edge', 'choreonoid', dict(geometry='{ type: Box, size: [0, 0.1, 0.1] }'),
     REPAIRED, 'it was made 1e-06 m thick', 15),
    ('zero box edge', 'openrave',
     dict(geom='<Geom type="box"><Extents>0 0.1 0.1</Extents></Geom>'),
     REPAIRED, 'that side is made 0.1 mm thick', 7),
    ('zero box edge', 'chrono', dict(shape='{ type: BOX, dimensions: [0, 0.1, 0.1], '
                                           'location: [0, 0, 0], orientation: [0, 0, 0] }'),
     REJECTED, '"dimensions" must be positive', 13),
    ('negative size', 'choreonoid', dict(geometry='{ type: Sphere, radius: -1 }'), REJECTED,
     'Sphere radius must be a positive number', 15),
    ('negative size', 'openrave', dict(geom='<Geom type="sphere"><Radius>-1</Radius></Geom>'),
     REJECTED, 'a sphere geometry needs a positive <radius>', 7),
    ('negative size', 'chrono', dict(shape='{ type: SPHERE, radius: -1, location: [0, 0, 0] }'),
     REJECTED, '"radius" must be positive', 13),
    ('flat collision mesh', 'choreonoid', dict(
        geometry='{ type: IndexedFaceSet, coordinate: [0, 0, 0, 1, 0, 0, 0, 1, 0], '
                 'coord_index: [0, 1, 2, -1] }'),
     REPAIRED, 'is flat, straight or a point', 15),
    ('flat collision mesh', 'openrave', dict(
        geom='<Geom type="trimesh"><vertices>0 0 0 1 0 0 0 1 0</vertices></Geom>'),
     REPAIRED, 'is flat; it collides as a 1.41 x 0.707 x 0.0001 m box', 7),
    ('negative velocity limit', 'openrave', dict(limits='<maxvel>-1</maxvel>'), REJECTED,
     "joint 'j': the velocity limit -1 is negative", 10),
    ('negative velocity limit', 'choreonoid', dict(extra='\n    max_joint_velocity: -30'),
     REPAIRED, 'max_joint_velocity -30 is negative; 30 is used', 14),
    ('inertia not symmetric', 'choreonoid', dict(inertia='[0.1, 0.05, 0, 0, 0.1, 0, 0, 0, 0.1]'),
     REPAIRED, 'inertia is not symmetric; its symmetric part is used', 7),
    ('inertia not symmetric', 'openrave', dict(
        mass='<Mass type="custom"><total>1</total><inertia>0.1 0.05 0 0 0.1 0 0 0 0.1</inertia>'
             '</Mass>'), REPAIRED, '<inertia> is not symmetric; its symmetric part is used', 8),
]


def _load(tmp_path, fmt: str, changes: dict):
    template, defaults, name = FORMATS[fmt]
    path = tmp_path / name
    path.write_text(template.format(**{**defaults, **changes}))
    return path, path


@pytest.mark.parametrize('case, fmt, changes, outcome, text, line', CASES,
                         ids=[f'{c[0]}-{c[1]}' for c in CASES])
def test_hostile_numbers(tmp_path, case, fmt, changes, outcome, text, line):
    path, _ = _load(tmp_path, fmt, changes)
    if outcome == REJECTED:
        with pytest.raises(ModelError) as err:
            load_model(path)
        message = str(err.value)
        assert '\n' not in message and text in message, message
        assert message.startswith(f'{path}:{line}: '), message
        return
    model = load_model(path)
    assert any(text in w and w.startswith(f'{path}:{line}: ') for w in model.warnings), \
        model.warnings
    _simulates(model)


def _simulates(model: Model) -> None:
    """What the policy lets through compiles and steps in MuJoCo without NaN."""
    sim = Simulation(model)
    for _ in range(10):
        sim.step_period()
    assert np.all(np.isfinite(sim.data.qpos)), sim.data.qpos


def test_the_template_models_load_and_simulate(tmp_path):
    for fmt in FORMATS:
        path, _ = _load(tmp_path, fmt, {})
        model = load_model(path)
        assert not [w for w in model.warnings if 'arm' in w], model.warnings
        _simulates(model)


# --- the check under every loader, on models built in code ------------------------------------


def _model(link_kwargs=None, joint_kwargs=None) -> Model:
    arm = Link('arm', source='robot.body:12', **(link_kwargs or {}))
    joint = dict(name='j', type=JointType.REVOLUTE, parent='base', child='arm',
                 source='robot.body:12')
    joint.update(joint_kwargs or {})
    return Model('m', (Link('base'), arm), (Joint(**joint),), 'base', source='robot.body')


@pytest.mark.parametrize('kwargs, message', [
    (dict(link_kwargs=dict(inertial=Inertial(math.nan))), "link 'arm' mass is not finite"),
    (dict(link_kwargs=dict(inertial=Inertial(-2.0))), "link 'arm': mass -2 kg is negative"),
    (dict(link_kwargs=dict(inertial=Inertial(1.0, inertia=np.diag([1, 1, -1])))),
     'not positive semi-definite'),
    (dict(link_kwargs=dict(visuals=(Shape(Box((1, -1, 1))),))), 'size 1, -1, 1 is negative'),
    (dict(link_kwargs=dict(collisions=(Shape(Mesh([[0, 0, 0]], [[0, 0, 1]])),))),
     'a face index is out of range'),
    (dict(joint_kwargs=dict(limits=Limits(1.0, -1.0))),
     "joint 'j': the lower limit 1 is above the upper limit -1"),
    (dict(joint_kwargs=dict(limits=Limits(velocity=-1.0))), 'the velocity limit -1 is negative'),
    (dict(joint_kwargs=dict(limits=Limits(effort=math.inf))), 'effort limit is not finite'),
    (dict(joint_kwargs=dict(damping=-0.5)), "joint 'j': damping -0.5 is negative"),
    (dict(joint_kwargs=dict(armature=math.nan)), "joint 'j' armature is not finite"),
    (dict(joint_kwargs=dict(initial=1e30)), "joint 'j' initial position is too large"),
])
def test_the_numbers_check_rejects_with_the_element_line(kwargs, message):
    with pytest.raises(ModelError) as err:
        check_model(_model(**kwargs))
    assert str(err.value).startswith('robot.body:12: ') and message in str(err.value), \
        str(err.value)


def test_the_numbers_check_repairs_with_a_warning():
    tensor = np.array([[1.0, 0.2, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    flat = Shape(Mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], 'tri'))
    blank = Shape(Mesh([[0, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 1, 2]], 'blank'))
    zero = Shape(Box((0.0, 1.0, 1.0)))
    model = check_model(_model(link_kwargs=dict(
        inertial=Inertial(1.0, inertia=tensor), visuals=(zero, blank, flat),
        collisions=(zero, flat))))
    arm = model.link('arm')
    assert np.allclose(arm.inertial.inertia, 0.5 * (tensor + tensor.T))
    assert arm.visuals[0] is arm.collisions[0]  # one shape, both roles: one repaired shape
    assert arm.visuals[0].geometry.size == (1e-6, 1.0, 1.0)
    assert [s.geometry.name for s in arm.visuals[1:]] == ['tri']  # 'blank' is not shown
    box = arm.collisions[1]
    assert isinstance(box.geometry, Box)
    assert box.geometry.size == pytest.approx((math.sqrt(2), math.sqrt(0.5), 1e-6))
    inside = box.pose.inverse().apply(flat.geometry.vertices)  # the triangle in the box frame
    assert np.all(np.abs(inside) <= 0.5 * np.array(box.geometry.size) + 1e-9)
    assert all(w.startswith('robot.body:12: ') for w in model.warnings)
    assert [w.split(': ', 1)[1].split(' ')[2] for w in model.warnings] == [
        'the', 'visual', 'visual', 'collision']
    _simulates(model)


def test_a_collision_mesh_whose_vertices_span_a_volume_is_not_called_flat():
    """Vertices spanning 1.9 x 0.94 x 0.74 m (the corners of a box) with no triangles, or with
    triangles that cover no area: the box around the vertices, said as it is."""
    corners = np.array([[x, y, z] for x in (0.0, 1.9) for y in (0.0, 0.94)
                        for z in (0.0, 0.74)])
    # and a slab 10 km long, 1 m wide, 5 mm thick: thinner than a millionth of its length,
    # flat for a convex hull whatever its triangles
    slab = Shape(Mesh([[x, y, z] for x in (0.0, 1e4) for y in (0.0, 1.0) for z in (0.0, 0.005)],
                      [[0, 1, 3], [0, 3, 2], [4, 5, 7], [4, 7, 6], [0, 4, 5], [0, 5, 1]],
                      'slab'))
    bare = Shape(Mesh(corners, np.zeros((0, 3), dtype=int), 'bare'))
    lines = Shape(Mesh(corners, [[0, 1, 1], [2, 3, 3], [4, 5, 5], [6, 7, 7]], 'lines'))
    model = check_model(_model(link_kwargs=dict(collisions=(bare, lines, slab))))
    assert model.warnings[2] == (
        "robot.body:12: link 'arm' collision mesh 'slab' is flat, straight or a point (its "
        'extents are 1e+04, 1, 0.005 m): a convex hull needs volume, so the thinnest box around '
        'it (at least 1 um thick) is its collision shape')
    assert list(model.warnings[:2]) == [
        f"robot.body:12: link 'arm' collision mesh '{name}': its {count} triangles cover no "
        'area, though its vertices span 1.9, 0.94, 0.74 m: the box around its vertices is its '
        'collision shape' for name, count in (('bare', 0), ('lines', 4))]
    for box in model.link('arm').collisions[:2]:
        assert sorted(box.geometry.size) == pytest.approx([0.74, 0.94, 1.9])
        assert box.pose.apply(np.zeros(3)) == pytest.approx([0.95, 0.47, 0.37])
    _simulates(model)


def test_two_loop_closures_of_one_name_are_refused():
    # (found by bench/fuzz.py: a robot including one kinbody file three times made MuJoCo
    # refuse the repeated name of a closure's virtual body, outside any one-line error)
    from dataclasses import replace

    from body_bridge.model import LoopClosure
    closure = LoopClosure('S1', 'ball', 'base', 'arm', source='robot.kinbody.xml:25')
    with pytest.raises(ModelError, match=r"^robot.kinbody.xml:25: loop closure 'S1' is "
                                         r"defined twice$"):
        check_model(replace(_model(), closures=(closure, closure)))
