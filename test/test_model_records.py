"""The model's records of links, joints, devices and frames (model/parts.py), of geometry and
appearance (model/shapes.py) and of what acts besides the tree (model/dynamics.py): every field a loader sets is kept, defaults are the documented
ones, values are normalised (kinds from their file names, arrays read-only and shaped), the
records cannot change after loading and carry no per-instance dictionary (a large model holds
thousands), and a record with arrays compares and hashes by identity (comparing arrays
element-wise would be ambiguous)."""

import dataclasses

import numpy as np
import pytest

from body_bridge.model import (Actuation, BodyVelocity, Box, Bushing, Capsule, Cone,
                               ContactMaterial, ContactPair, Cylinder, Device, DeviceKind, Frame,
                               Function, FunctionKind, Inertial, Joint, JointType, Limits, Link,
                               Load, LoadKind, LoopClosure, Manipulator, Material, Mesh, Mimic,
                               Motor, MotorKind, Pose, Repeat, Shape, ShapeContact, Sphere,
                               Spring, SpringKind)

POSE_A = Pose((1, 2, 3))
POSE_B = Pose((0, 0, 1))


def test_the_kinds_are_the_names_the_files_use():
    assert [k.value for k in FunctionKind] == ['constant', 'polynomial', 'sine', 'ramp', 'data',
                                               'controller']
    assert [k.value for k in SpringKind] == ['translational', 'rotational', 'joint']
    assert [k.value for k in MotorKind] == ['rotation', 'linear']
    assert [k.value for k in Actuation] == ['position', 'speed', 'force']
    assert [k.value for k in LoadKind] == ['force', 'torque']


def test_a_loop_closure_keeps_every_field_and_defaults_to_a_z_axis():
    c = LoopClosure(name='c', type='hinge', link1='a', link2='b', pose1=POSE_A, pose2=POSE_B,
                    axis=np.array([1.0, 0, 0]), source='f.yaml:3', length=0.5)
    assert (c.name, c.type, c.link1, c.link2, c.source, c.length) == \
        ('c', 'hinge', 'a', 'b', 'f.yaml:3', 0.5)
    assert c.pose1 is POSE_A and c.pose2 is POSE_B and c.axis.tolist() == [1, 0, 0]
    d = LoopClosure('d', 'ball', 'a', 'b')
    assert d.pose1.is_identity() and d.pose2.is_identity()
    assert d.axis.tolist() == [0.0, 0.0, 1.0] and d.length == 0.0 and d.source is None


def test_a_function_normalises_its_kind_parameters_and_points():
    f = Function('data', params=(1, 2), points=[0, 0, 1, 2, 3, 4],
                 repeat=Repeat(start=0.5, width=2.0, shift=0.25))
    assert f.kind is FunctionKind.DATA and f.params == (1.0, 2.0)
    assert all(type(p) is float for p in f.params)
    assert f.points.shape == (3, 2) and f.points[2].tolist() == [3.0, 4.0]
    assert not f.points.flags.writeable
    assert (f.repeat.start, f.repeat.width, f.repeat.shift) == (0.5, 2.0, 0.25)
    g = Function(FunctionKind.CONSTANT, (2,))
    assert g.points is None and g.repeat is None
    with pytest.raises(ValueError):
        Function('cubic')


def test_a_spring_keeps_every_field_and_shapes_its_tables():
    s = Spring(name='s', kind='translational', link1='a', link2='b', pose1=POSE_A,
               pose2=POSE_B, joint=None, rest=0.3, stiffness=100.0, damping=2.0, preload=5.0,
               spring_curve=[0, 0, 1, 10], damping_curve=[[0, 0], [1, 1], [2, 4]],
               map_deformations=[[0.0], [0.1]], map_data=[[0, 1, 2], [1, 3, 4]],
               degressivity=(0.5, 0.25), stops=(0.1, 0.5), source='s.yaml:1')
    assert s.kind is SpringKind.TRANSLATIONAL
    assert (s.name, s.link1, s.link2, s.rest, s.stiffness, s.damping, s.preload, s.source) == \
        ('s', 'a', 'b', 0.3, 100.0, 2.0, 5.0, 's.yaml:1')
    assert s.pose1 is POSE_A and s.pose2 is POSE_B
    assert s.spring_curve.shape == (2, 2) and s.damping_curve.shape == (3, 2)
    assert s.map_deformations.shape == (2,) and s.map_data.shape == (2, 3)
    for table in (s.spring_curve, s.damping_curve, s.map_deformations, s.map_data):
        assert table.dtype == float and not table.flags.writeable
    assert s.degressivity == (0.5, 0.25) and s.stops == (0.1, 0.5)
    j = Spring('j', SpringKind.JOINT, joint='knee', stiffness=3.0)
    assert j.joint == 'knee' and (j.link1, j.link2, j.rest, j.damping, j.preload) == \
        ('', '', 0.0, 0.0, 0.0)
    assert j.pose1.is_identity() and j.pose2.is_identity()
    assert j.spring_curve is j.damping_curve is j.map_deformations is j.map_data is None


@pytest.mark.parametrize('extra, linear', [
    ({}, True), ({'spring_curve': [[0, 0], [1, 1]]}, False),
    ({'damping_curve': [[0, 0], [1, 1]]}, False),
    ({'map_deformations': [0, 1], 'map_data': [[0, 1, 2]]}, False),
    ({'degressivity': (1.0, 1.0)}, False), ({'stops': (0.0, 1.0)}, False)])
def test_only_stiffness_damping_and_preload_make_a_linear_spring(extra, linear):
    assert Spring('s', 'rotational', stiffness=1.0, damping=1.0, preload=1.0,
                  **extra).is_linear is linear


def test_a_bushing_has_six_stiffnesses_and_dampings_zero_by_default():
    b = Bushing('b', 'a', 'c', pose1=POSE_A, pose2=POSE_B, stiffness=range(6),
                damping=[1] * 6, source='b.yaml:2')
    assert b.stiffness.tolist() == [0, 1, 2, 3, 4, 5] and b.damping.tolist() == [1.0] * 6
    assert not b.stiffness.flags.writeable and not b.damping.flags.writeable
    assert (b.link1, b.link2, b.source) == ('a', 'c', 'b.yaml:2') and b.pose1 is POSE_A
    zero = Bushing('z', 'a', 'c')
    assert zero.stiffness.tolist() == [0.0] * 6 and zero.damping.tolist() == [0.0] * 6
    with pytest.raises(ValueError):
        Bushing('b', 'a', 'c', stiffness=[1, 2, 3])


def test_a_motor_keeps_its_joint_or_closure_and_parses_its_kinds():
    f = Function('sine', (1, 0.5, 0, 0))
    m = Motor('m', 'rotation', 'speed', f, joint='hip', source='m.yaml:9')
    assert (m.kind, m.actuation, m.function, m.joint, m.closure, m.source) == \
        (MotorKind.ROTATION, Actuation.SPEED, f, 'hip', None, 'm.yaml:9')
    n = Motor(name='n', kind='linear', actuation='force', function=f, closure='loop')
    assert (n.name, n.kind, n.actuation, n.joint, n.closure) == \
        ('n', MotorKind.LINEAR, Actuation.FORCE, None, 'loop')
    assert n.kind is MotorKind.LINEAR and n.actuation is Actuation.FORCE  # not plain strings
    for kind, actuation in (('spin', 'speed'), ('rotation', 'torque')):
        with pytest.raises(ValueError):
            Motor('bad', kind, actuation, f, joint='hip')
    with pytest.raises(dataclasses.FrozenInstanceError):
        n.joint = 'x'


def test_a_load_keeps_its_frames_and_defaults_to_nothing():
    f = Function('ramp', (0, 1))
    load = Load('l', 'torque', 'arm', vector=(0, 0, 2), local_vector=False, point=(1, 0, 0),
                local_point=False, function=f, controller=True, source='l.yaml:4')
    assert load.kind is LoadKind.TORQUE and load.link == 'arm'
    assert load.vector.tolist() == [0, 0, 2] and load.point.tolist() == [1, 0, 0]
    assert (load.local_vector, load.local_point, load.function, load.controller,
            load.source) == (False, False, f, True, 'l.yaml:4')
    plain = Load('p', 'force', 'arm')
    assert plain.vector.tolist() == [0.0] * 3 and plain.point.tolist() == [0.0] * 3
    assert (plain.local_vector, plain.local_point, plain.function, plain.controller) == \
        (True, True, None, False)
    assert not plain.vector.flags.writeable and not plain.point.flags.writeable


def test_a_body_velocity_defaults_to_rest():
    v = BodyVelocity('base', linear=(1, 0, 0), angular=(0, 0, 2), source='v.yaml:1')
    assert v.linear.tolist() == [1, 0, 0] and v.angular.tolist() == [0, 0, 2]
    assert v.source == 'v.yaml:1' and not v.linear.flags.writeable
    rest = BodyVelocity('base')
    assert rest.linear.tolist() == [0.0] * 3 and rest.angular.tolist() == [0.0] * 3
    assert rest.source is None


@pytest.mark.parametrize('make', [
    lambda: LoopClosure('c', 'ball', 'a', 'b'), lambda: Function('constant', (1,)),
    lambda: Spring('s', 'joint'), lambda: Bushing('b', 'a', 'c'), lambda: Load('l', 'force', 'a'),
    lambda: BodyVelocity('a'), lambda: Inertial(1.0), lambda: Joint('j', 'fixed', 'a', 'b'),
    lambda: Mesh(np.zeros((3, 3)), [0, 1, 2])])
def test_records_with_arrays_are_frozen_and_compare_by_identity(make):
    a, b = make(), make()
    assert a == a and a != b and len({a, b}) == 2
    assert not hasattr(a, '__dict__')  # slotted, as the value records
    field = dataclasses.fields(a)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(a, field, getattr(b, field))


def test_a_repeat_and_a_motor_are_values():
    assert Repeat(0.0, 1.0, 0.5) == Repeat(0.0, 1.0, 0.5)
    assert len({Repeat(0.0, 1.0, 0.5), Repeat(0.0, 1.0, 0.5)}) == 1
    assert not hasattr(Repeat(0.0, 1.0, 0.5), '__dict__')
    with pytest.raises(dataclasses.FrozenInstanceError):
        Repeat(0.0, 1.0, 0.5).width = 2.0


VALUES = [lambda: Box((1.0, 2.0, 3.0)), lambda: Sphere(0.5), lambda: Cylinder(0.1, 0.2),
          lambda: Capsule(0.1, 0.2), lambda: Cone(0.1, 0.2), lambda: Material(),
          lambda: Shape(Sphere(1.0), POSE_A), lambda: ContactMaterial('steel'),
          lambda: ContactPair('a', 'b', 0.5), lambda: ShapeContact('l', 0, ContactMaterial('m')),
          lambda: Link('l', POSE_A), lambda: Limits(-1.0, 1.0), lambda: Mimic('j', 2.0),
          lambda: Device('d', 'imu', 'l', POSE_A), lambda: Frame('f', 'l', POSE_A)]


@pytest.mark.parametrize('make', VALUES)
def test_geometry_and_contact_records_are_frozen_slotted_values(make):
    a, b = make(), make()
    assert a == b and a is not b
    assert not hasattr(a, '__dict__')
    field = dataclasses.fields(a)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(a, field, getattr(b, field))


def test_a_mesh_shapes_and_freezes_its_arrays():
    mesh = Mesh([0, 0, 0, 1, 0, 0, 0, 1, 0], [[0, 1, 2]], name='tri', source='t.stl',
                texcoords=[0, 0, 1, 0, 0, 1])
    assert mesh.vertices.shape == (3, 3) and mesh.vertices.dtype == float
    assert mesh.faces.shape == (1, 3) and mesh.faces.dtype == np.int64
    assert mesh.texcoords.shape == (3, 2) and (mesh.name, mesh.source) == ('tri', 't.stl')
    for array in (mesh.vertices, mesh.faces, mesh.texcoords):
        assert not array.flags.writeable
    plain = Mesh(np.zeros((3, 3)), [0, 1, 2])
    assert (plain.name, plain.source, plain.texcoords) == ('mesh', None, None)
    assert plain != Mesh(np.zeros((3, 3)), [0, 1, 2]) and len({plain, mesh}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        plain.name = 'other'
    with pytest.raises(ValueError, match=r"mesh 'tri': 2 texture coordinates for 3 vertices"):
        Mesh(np.zeros((3, 3)), [0, 1, 2], name='tri', texcoords=[0, 0, 1, 1])


def test_appearance_and_contact_defaults_are_the_documented_ones():
    m = Material()
    assert m.rgba == (0.7, 0.7, 0.7, 1.0)
    assert (m.name, m.texture, m.emission, m.specular, m.shininess, m.ambient) == (None,) * 6
    full = Material(rgba=(1, 0, 0, 0.5), name='red', texture='r.png', emission=(0.1, 0, 0),
                    specular=(1, 1, 1), shininess=0.3, ambient=0.2)
    assert (full.name, full.texture, full.emission, full.specular, full.shininess,
            full.ambient) == ('red', 'r.png', (0.1, 0, 0), (1, 1, 1), 0.3, 0.2)
    shape = Shape(Box((1, 1, 1)))
    assert shape.pose.is_identity() and shape.material is None and shape.source is None
    steel = ContactMaterial('steel')
    assert (steel.friction, steel.restitution, dict(steel.smc), steel.rule) == \
        (0.8, 0.01, {}, 'max')
    rubber = ContactMaterial('rubber', 1.2, 0.5, smc={'young_modulus': 1e7}, rule='min')
    assert dict(rubber.smc) == {'young_modulus': 1e7} and rubber.rule == 'min'
    assert ContactPair('a', 'b', 0.4).restitution == 0.0
    touch = ShapeContact('arm', 2, steel)
    assert (touch.link, touch.index, touch.material, touch.radius) == ('arm', 2, steel, 0.0)


def test_joint_types_by_name_degrees_of_freedom_and_rigidity():
    assert {t.value: (t.dof, t.rigid) for t in JointType} == {
        'fixed': (0, True), 'revolute': (1, False), 'continuous': (1, False),
        'prismatic': (1, False), 'ball': (3, False), 'free': (6, False), 'track': (1, True)}
    assert [k.value for k in DeviceKind] == ['accelerometer', 'gyro', 'imu', 'force', 'camera',
                                             'range', 'light', 'other']


def test_a_joint_keeps_every_field_and_defaults_to_a_free_z_axis():
    mimic = Mimic('shoulder', multiplier=-2.0, offset=0.1, expression=None)
    j = Joint(name='elbow', type='revolute', parent='upper', child='lower', axis=(0, 1, 0),
              limits=Limits(lower=-1.0, upper=2.0, velocity=3.0, effort=4.0), initial=0.5,
              damping=0.1, friction=0.2, armature=0.3, mimic=mimic, source='a.body:7',
              meta={'k': 1})
    assert j.type is JointType.REVOLUTE and j.axis.tolist() == [0, 1, 0]
    assert not j.axis.flags.writeable
    assert (j.limits.lower, j.limits.upper, j.limits.velocity, j.limits.effort) == \
        (-1.0, 2.0, 3.0, 4.0)
    assert (j.initial, j.damping, j.friction, j.armature, j.mimic, j.source, dict(j.meta)) == \
        (0.5, 0.1, 0.2, 0.3, mimic, 'a.body:7', {'k': 1})
    plain = Joint('j', 'prismatic', 'a', 'b')
    assert plain.axis.tolist() == [0.0, 0.0, 1.0] and plain.limits == Limits()
    assert (plain.initial, plain.damping, plain.friction, plain.armature, plain.mimic) == \
        (0.0, 0.0, 0.0, 0.0, None)
    assert Limits() == Limits(None, None, None, None)
    follow = Mimic('a')
    assert (follow.multiplier, follow.offset, follow.expression) == (1.0, 0.0, None)
    with pytest.raises(ValueError):
        Joint('j', 'hinge', 'a', 'b')


def test_links_inertials_devices_frames_and_manipulators_keep_their_fields():
    shape = Shape(Sphere(0.1))
    inertial = Inertial(2, com=(0, 0, 0.1), inertia=[1, 0, 0, 0, 2, 0, 0, 0, 3])
    assert inertial.mass == 2.0 and type(inertial.mass) is float
    assert inertial.inertia.shape == (3, 3) and not inertial.inertia.flags.writeable
    assert inertial.com.tolist() == [0.0, 0.0, 0.1] and inertial.com.dtype == float
    assert not inertial.com.flags.writeable  # given as a tuple, kept as a read-only array
    assert Inertial(1.0).com.tolist() == [0.0] * 3 and not Inertial(1.0).inertia.any()
    link = Link('arm', POSE_A, inertial, visuals=(shape,), collisions=(shape, shape),
                source='a.body:1')
    assert (link.inertial, link.visuals, link.collisions, link.source) == \
        (inertial, (shape,), (shape, shape), 'a.body:1')
    bare = Link('base')
    assert bare.pose.is_identity() and (bare.inertial, bare.visuals, bare.collisions) == \
        (None, (), ())
    device = Device('cam', 'camera', 'arm', POSE_A, {'width': 640}, type_name='Camera',
                    source='a.body:9')
    assert (device.kind, device.type_name, dict(device.params)) == \
        (DeviceKind.CAMERA, 'Camera', {'width': 640})
    assert Device('g', DeviceKind.GYRO, 'arm').type_name == ''
    frame = Frame(name='tool', link='hand', pose=POSE_B, source='r.xml:3')
    assert (frame.name, frame.link, frame.pose, frame.source) == ('tool', 'hand', POSE_B,
                                                                   'r.xml:3')
    assert Frame('f', 'l').pose.is_identity() and Frame('f', 'l').source is None
    arm = Manipulator('arm', 'base', 'hand', 'tool', ('j1', 'j2'), ('g1',), (1.0,),
                      direction=(1, 0, 0), ik_solver='ikfast', source='r.xml:5')
    assert (arm.arm_joints, arm.gripper_joints, arm.closing_direction, arm.ik_solver) == \
        (('j1', 'j2'), ('g1',), (1.0,), 'ikfast')
    assert arm.direction.tolist() == [1, 0, 0] and not arm.direction.flags.writeable
    default = Manipulator('m', 'base', 'hand', 'tool')
    assert default.direction.tolist() == [0.0, 0.0, 1.0] and default.ik_solver is None
    assert default != Manipulator('m', 'base', 'hand', 'tool')
    with pytest.raises(dataclasses.FrozenInstanceError):
        default.base = 'other'
    with pytest.raises(dataclasses.FrozenInstanceError):
        Joint('j', 'fixed', 'a', 'b').parent = 'c'


def test_records_keep_read_only_copies_of_what_a_loader_passes():
    from body_bridge.model import freeze
    from body_bridge.model._values import EMPTY, frozen_array
    assert freeze(None) is EMPTY and freeze({}) is EMPTY
    given = {'width': 640}
    kept = freeze(given)
    given['width'] = 1
    assert dict(kept) == {'width': 640}
    with pytest.raises(TypeError):
        kept['width'] = 2
    source = np.arange(3)
    copy = frozen_array(source)
    assert source.flags.writeable and copy.dtype == float and not copy.flags.writeable
    source[0] = 7
    assert copy.tolist() == [0.0, 1.0, 2.0]
    assert frozen_array([[1, 2]]).shape == (1, 2)
