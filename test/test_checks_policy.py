"""The numbers check (``formats/checks.py``), case by case of its policy table: each element's
numbers rejected with its ``path:line`` and a message naming it, the bounds exactly where the
policy puts them, and every repair with its warning."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.checks import check_model
from body_bridge.model import (Actuation, BodyVelocity, Box, Bushing, Capsule, Cone,
                               ContactMaterial, Cylinder, Device, DeviceKind, Frame, Function,
                               FunctionKind, Inertial, Joint, JointType, Limits, Link, Load,
                               LoadKind, LoopClosure, Material, Mesh, Mimic, Model, Motor,
                               MotorKind, Pose, Repeat, Shape, ShapeContact, Sphere, Spring,
                               SpringKind)

SRC = 'robot.body:12'
# The policy's numbers as the README states them (not read from the module: a changed bound
# must fail here).
MAX_MAGNITUDE = 1e12  # [SI units]
INERTIA_TOL = 1e-9    # of the largest principal moment
MIN_SIZE = 1e-6       # [m]
MIN_AREA = 1e-12      # [m^2]
FLAT = 1e-6           # of a collision mesh's size
NAN, INF = math.nan, math.inf


def model(link=None, joint=None, **extra) -> Model:
    """base -(j)- arm, with the given fields of the arm link, of joint j and of the model."""
    arm = Link('arm', source=SRC, **(link or {}))
    fields = dict(name='j', type=JointType.REVOLUTE, parent='base', child='arm', source=SRC)
    fields.update(joint or {})
    return Model('m', (Link('base', source=SRC), arm), (Joint(**fields),), 'base',
                 source='robot.body', **extra)


def rejects(m: Model, message: str) -> None:
    with pytest.raises(ModelError) as info:
        check_model(m)
    assert str(info.value) == f'{SRC}: {message}'


def _pose(pos=(0, 0, 0), rot=None) -> Pose:
    return Pose(pos) if rot is None else Pose(pos, rot)


def _words_in(element, field: str):
    """The element with words where its numbers go (past its constructor's conversion)."""
    object.__setattr__(element, field, ['a', 'b'])
    return element


BAD_ROT = [[1, 0, 0], [0, 1, 0], [0, 0, -1]]  # a mirror
FN = Function(FunctionKind.CONSTANT, params=(1.0,))


@pytest.mark.parametrize('fields, message', [
    (dict(link=dict(pose=_pose((NAN, 0, 0)))),
     "link 'arm' pose position is not finite (nan, 0, 0)"),
    (dict(link=dict(pose=_pose(rot=BAD_ROT))),
     "link 'arm' pose rotation is not a rotation matrix"),
    (dict(link=dict(inertial=Inertial(INF))), "link 'arm' mass is not finite (inf)"),
    (dict(link=dict(inertial=Inertial(1.0, (0, NAN, 0)))),
     "link 'arm' centre of mass is not finite (0, nan, 0)"),
    (dict(link=dict(inertial=Inertial(1.0, inertia=np.full((3, 3), NAN)))),
     "link 'arm' inertia is not finite (nan, nan, nan, nan, nan, nan, nan, nan, nan)"),
    (dict(link=dict(inertial=Inertial(-1e-3))), "link 'arm': mass -0.001 kg is negative"),
    (dict(springs=(_words_in(Spring('s', SpringKind.TRANSLATIONAL, 'base', 'arm',
                                    source=SRC), 'spring_curve'),)),
     "spring 's' spring_curve: not numbers"),
    (dict(link=dict(visuals=(Shape(Sphere(0.1), _pose((0, 0, INF))),))),
     "link 'arm' visual sphere position is not finite (0, 0, inf)"),
    (dict(link=dict(collisions=(Shape(Sphere(0.1), _pose(rot=BAD_ROT)),))),
     "link 'arm' collision sphere rotation is not a rotation matrix"),
    (dict(link=dict(visuals=(Shape(Sphere(0.1), material=Material((1, NAN, 0, 1))),))),
     "link 'arm' visual sphere colour is not finite (1, nan, 0, 1)"),
    (dict(link=dict(visuals=(Shape(Cylinder(NAN, 1.0)),))),
     "link 'arm' visual cylinder radius is not finite (nan)"),
    (dict(link=dict(collisions=(Shape(Cone(0.1, -0.5)),))),
     "link 'arm' collision cone: length -0.5 is negative"),
    (dict(link=dict(visuals=(Shape(Mesh([[0, 0, NAN]] * 3, [[0, 1, 2]])),))),
     "link 'arm' visual mesh vertices is not finite (0, 0, nan, 0, 0, nan, 0, 0, nan)"),
    (dict(link=dict(visuals=(Shape(Mesh([[0, 0, 0]] * 3, [[0, 1, -1]])),))),
     "link 'arm' visual mesh: a face index is out of range"),
    (dict(link=dict(visuals=(Shape(Mesh([[0, 0, 0]] * 3, [[0, 1, 3]])),))),
     "link 'arm' visual mesh: a face index is out of range"),
    (dict(joint=dict(limits=Limits(lower=NAN))), "joint 'j' lower limit is not finite (nan)"),
    (dict(joint=dict(limits=Limits(upper=-INF))), "joint 'j' upper limit is not finite (-inf)"),
    (dict(joint=dict(limits=Limits(effort=-2.0))), "joint 'j': the effort limit -2 is negative"),
    (dict(joint=dict(initial=NAN)), "joint 'j' initial position is not finite (nan)"),
    (dict(joint=dict(friction=-0.1)), "joint 'j': friction -0.1 is negative"),
    (dict(joint=dict(armature=-1.0)), "joint 'j': armature -1 is negative"),
    (dict(joint=dict(mimic=Mimic('k', multiplier=NAN))),
     "joint 'j' mimic factors is not finite (nan, 0)"),
    (dict(joint=dict(mimic=Mimic('k', offset=INF))),
     "joint 'j' mimic factors is not finite (1, inf)"),
])
def test_each_number_is_rejected_with_its_element(fields, message):
    rejects(model(**fields), message)


@pytest.mark.parametrize('extra, message', [
    (dict(devices=(Device('d', DeviceKind.IMU, 'arm', _pose((INF, 0, 0)), source=SRC),)),
     "device 'd' position is not finite (inf, 0, 0)"),
    (dict(devices=(Device('d', DeviceKind.CAMERA, 'arm', params={'width': NAN}, source=SRC),)),
     "device 'd' width is not finite (nan)"),
    (dict(frames=(Frame('f', 'arm', _pose(rot=BAD_ROT), source=SRC),)),
     "frame 'f' rotation is not a rotation matrix"),
    (dict(closures=(LoopClosure('c', 'ball', 'base', 'arm', _pose((NAN, 0, 0)), source=SRC),)),
     "loop closure 'c' position is not finite (nan, 0, 0)"),
    (dict(closures=(LoopClosure('c', 'ball', 'base', 'arm', pose2=_pose(rot=BAD_ROT),
                                source=SRC),)),
     "loop closure 'c' rotation is not a rotation matrix"),
    (dict(closures=(LoopClosure('c', 'hinge', 'base', 'arm', axis=(0, 0, 0), source=SRC),)),
     "loop closure 'c': the axis has zero length"),
    (dict(closures=(LoopClosure('c', 'hinge', 'base', 'arm', length=NAN, source=SRC),)),
     "loop closure 'c' length is not finite (nan)"),
    (dict(springs=(Spring('s', SpringKind.TRANSLATIONAL, 'base', 'arm', stiffness=INF,
                          source=SRC),)), "spring 's' stiffness is not finite (inf)"),
    (dict(springs=(Spring('s', SpringKind.TRANSLATIONAL, 'base', 'arm',
                          pose2=_pose((0, NAN, 0)), source=SRC),)),
     "spring 's' position is not finite (0, nan, 0)"),
    (dict(springs=(Spring('s', SpringKind.TRANSLATIONAL, 'base', 'arm', stops=(0.0, NAN),
                          source=SRC),)), "spring 's' stops is not finite (0, nan)"),
    (dict(bushings=(Bushing('b', 'base', 'arm', stiffness=(1, 1, 1, 1, 1, NAN), source=SRC),)),
     "bushing 'b' stiffness is not finite (1, 1, 1, 1, 1, nan)"),
    (dict(bushings=(Bushing('b', 'base', 'arm', damping=(INF,) * 6, source=SRC),)),
     "bushing 'b' damping is not finite (inf, inf, inf, inf, inf, inf)"),
    (dict(bushings=(Bushing('b', 'base', 'arm', pose1=_pose((INF, 0, 0)), source=SRC),)),
     "bushing 'b' position is not finite (inf, 0, 0)"),
    (dict(bushings=(Bushing('b', 'base', 'arm', pose2=_pose((0, NAN, 0)), source=SRC),)),
     "bushing 'b' position is not finite (0, nan, 0)"),
    (dict(motors=(Motor('m', MotorKind.ROTATION, Actuation.SPEED,
                        Function(FunctionKind.RAMP, params=(0, NAN)), 'j', source=SRC),)),
     "motor 'm' function is not finite (0, nan)"),
    (dict(motors=(Motor('m', MotorKind.ROTATION, Actuation.SPEED,
                        Function(FunctionKind.DATA, points=[(0, 0), (1, INF)]), 'j',
                        source=SRC),)),
     "motor 'm' function points is not finite (0, 0, 1, inf)"),
    (dict(motors=(Motor('m', MotorKind.ROTATION, Actuation.SPEED,
                        dataclasses.replace(FN, repeat=Repeat(0.0, NAN, 0.0)), 'j',
                        source=SRC),)),
     "motor 'm' function repeat is not finite (0, nan, 0)"),
    (dict(loads=(Load('l', LoadKind.FORCE, 'arm', vector=(0, 0, NAN), source=SRC),)),
     "load 'l' vector is not finite (0, 0, nan)"),
    (dict(loads=(Load('l', LoadKind.FORCE, 'arm', point=(INF, 0, 0), source=SRC),)),
     "load 'l' point is not finite (inf, 0, 0)"),
    (dict(loads=(Load('l', LoadKind.FORCE, 'arm', function=Function(
        FunctionKind.CONSTANT, params=(NAN,)), source=SRC),)),
     "load 'l' function is not finite (nan)"),
    (dict(initial_velocities=(BodyVelocity('arm', linear=(NAN, 0, 0), source=SRC),)),
     "initial velocity of 'arm' is not finite (nan, 0, 0)"),
    (dict(initial_velocities=(BodyVelocity('arm', angular=(0, 0, INF), source=SRC),)),
     "initial velocity of 'arm' is not finite (0, 0, inf)"),
    (dict(springs=(Spring('s', SpringKind.JOINT, joint='j', source=SRC),) * 2),
     "spring 's' is defined twice"),
    (dict(bushings=(Bushing('b', 'base', 'arm', source=SRC),) * 2),
     "bushing 'b' is defined twice"),
    (dict(motors=(Motor('m', MotorKind.ROTATION, Actuation.SPEED, FN, 'j', source=SRC),) * 2),
     "motor 'm' is defined twice"),
    (dict(loads=(Load('l', LoadKind.TORQUE, 'arm', source=SRC),) * 2),
     "load 'l' is defined twice"),
])
def test_each_extra_is_rejected_with_its_element(extra, message):
    rejects(model(**extra), message)


def test_the_model_wide_numbers():
    for timestep, ok in ((0.0, False), (-1e-3, False), (1e-6, True), (1.0, True),
                         (math.nextafter(1.0, 2.0), False)):
        m = model(timestep=timestep)
        if ok:
            assert check_model(m) is m
        else:
            with pytest.raises(ModelError) as info:
                check_model(m)
            assert str(info.value) == f'robot.body: time step {timestep:g} s is not in (0, 1] s'
    with pytest.raises(ModelError, match=r'^robot.body: time step is not finite \(nan\)$'):
        check_model(model(timestep=NAN))
    with pytest.raises(ModelError, match=r'^robot.body: gravity is not finite \(0, 0, -inf\)$'):
        check_model(model(gravity=np.array([0, 0, -INF])))


def test_contacts():
    contact = ShapeContact('arm', 0, ContactMaterial('c', friction=-0.1))

    def with_shape(**extra):
        return model(link=dict(collisions=(Shape(Sphere(0.1)),)), **extra)
    good = ShapeContact('arm', 0, ContactMaterial('c', friction=0.0, restitution=0.0))
    assert check_model(m := with_shape(contacts=(good,))) is m
    with pytest.raises(ModelError) as info:
        check_model(with_shape(contacts=(contact,)))
    assert str(info.value) == ("robot.body: contact material of 'arm': friction, restitution "
                               "and radius must not be negative")
    for bad in (dict(restitution=-1e-9), dict(friction=NAN)):
        with pytest.raises(ModelError):
            material = ContactMaterial('c', **bad)
            check_model(with_shape(contacts=(ShapeContact('arm', 0, material),)))
    with pytest.raises(ModelError):
        check_model(with_shape(contacts=(ShapeContact('arm', 0, ContactMaterial('c'), -0.5),)))


def test_magnitudes_up_to_the_limit_pass_and_no_further():
    big = math.nextafter(MAX_MAGNITUDE, INF)
    assert check_model(m := model(link=dict(pose=_pose((MAX_MAGNITUDE, 0, -MAX_MAGNITUDE))))) is m
    rejects(model(link=dict(pose=_pose((0, -big, 0)))),
            "link 'arm' pose position is too large (0, -1e+12, 0; the limit is 1e+12 in SI units)")
    # arrays longer than a few numbers take the other path: the same bounds
    ok = Mesh([[MAX_MAGNITUDE, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]] * 5, [[0, 1, 2]])
    assert check_model(m := model(link=dict(visuals=(Shape(ok),)))) is m
    far = Mesh([[big, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]] * 5, [[0, 1, 2]])
    with pytest.raises(ModelError, match=r'vertices is too large \(1e\+12, 0, 0, 0, 1, 0, 0, 0, '
                                         r'1, \.\.\.; the limit'):
        check_model(model(link=dict(visuals=(Shape(far),))))
    nan_far = Mesh([[0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, NAN]] * 5, [[0, 1, 2]])
    with pytest.raises(ModelError, match='vertices is not finite'):
        check_model(model(link=dict(visuals=(Shape(nan_far),))))
    # limits, device parameters: any finite size (unbounded limits are written as 1e9 or more)
    assert check_model(m := model(joint=dict(limits=Limits(-1e30, 1e30, 1e30, 1e30)))) is m
    device = Device('d', DeviceKind.RANGE, 'arm', params={'max_distance': 1e20, 'on': True})
    assert check_model(m := model(devices=(device,))) is m


def _with_axis(axis) -> Model:
    """A model whose joint axis was changed after the model checked it (as a loader's bug
    would): the numbers check is the net under it."""
    m = model()
    object.__setattr__(m.joints[0], 'axis', np.asarray(axis, float))
    return m


def test_rotations_are_orthonormal_to_one_millionth():
    for stretch, ok in ((0.4e-6, True), (0.7e-6, False)):  # a column's square: 1 + 2 stretch
        rot = np.diag([1.0 + stretch, 1.0, 1.0])
        m = model(link=dict(pose=_pose(rot=rot)))
        if ok:
            assert check_model(m) is m
        else:
            rejects(m, "link 'arm' pose rotation is not a rotation matrix")


def test_joint_axes_and_limits_at_their_bounds():
    rejects(_with_axis((0, NAN, 1)), "joint 'j' axis is not finite (0, nan, 1)")
    rejects(_with_axis((0, 0, 0)), "joint 'j': the axis has zero length")
    rejects(_with_axis((0, 0, 0.9e-9)), "joint 'j': the axis has zero length")
    assert check_model(m := _with_axis((0, 0, 1e-9))) is m
    for length, ok in ((1e-9, True), (0.9e-9, False)):  # a loop closure's axis: the same
        closure = LoopClosure('c', 'hinge', 'base', 'arm', axis=(0, length, 0), source=SRC)
        m = model(closures=(closure,))
        if ok:
            assert check_model(m) is m
        else:
            rejects(m, "loop closure 'c': the axis has zero length")
    rejects(model(joint=dict(limits=Limits(0.5, math.nextafter(0.5, 0)))),
            "joint 'j': the lower limit 0.5 is above the upper limit 0.5")
    for ok in (Limits(0.5, 0.5, 0.0, 0.0), Limits(None, -3.0), Limits(3.0, None)):
        assert check_model(m := model(joint=dict(limits=ok))) is m
    assert check_model(m := model(joint=dict(type=JointType.FIXED, axis=(0, 0, 1)))) is m
    rejects(model(joint=dict(limits=Limits(velocity=-1e-300))),
            "joint 'j': the velocity limit -1e-300 is negative")


def test_inertia_repairs_and_their_bounds():
    scale = 2.0
    exact = np.diag([1.0, 1.5, scale])
    assert check_model(m := model(link=dict(inertial=Inertial(1.0, inertia=exact)))) is m
    # asymmetry up to 1e-9 of the largest entry is rounding: kept as it is
    near = exact.copy()
    near[0, 1] = 0.9e-9 * scale
    assert check_model(m := model(link=dict(inertial=Inertial(1.0, inertia=near)))) is m
    skew = exact.copy()
    skew[0, 1] = 1.1e-9 * scale
    fixed = check_model(model(link=dict(inertial=Inertial(1.0, inertia=skew))))
    assert np.array_equal(fixed.link('arm').inertial.inertia, 0.5 * (skew + skew.T))
    assert fixed.warnings == (f"{SRC}: link 'arm': the inertia matrix is not symmetric; its "
                              "symmetric part is used",)
    # a small tensor: asymmetry above 1e-9 (absolute) is repaired
    tiny = np.diag([0.01, 0.01, 0.01])
    tiny[2, 1] = 1.5e-9
    fixed = check_model(model(link=dict(inertial=Inertial(1.0, inertia=tiny))))
    assert fixed.link('arm').inertial.inertia[1, 2] == 0.75e-9 and len(fixed.warnings) == 1
    tiny[2, 1] = 0.9e-9
    assert check_model(m := model(link=dict(inertial=Inertial(1.0, inertia=tiny)))) is m
    # only the upper and lower triangles' mean counts: here the lower alone is indefinite
    lower = np.array([[1.0, 0.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    fixed = check_model(model(link=dict(inertial=Inertial(1.0, inertia=lower))))
    assert np.array_equal(fixed.link('arm').inertial.inertia, 0.5 * (lower + lower.T))
    # a negative principal moment within INERTIA_TOL of the largest: clamped to 0 (in the
    # tensor's own principal axes)
    c, s = math.cos(0.4), math.sin(0.4)
    turn = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    small = turn @ np.diag([-0.9 * INERTIA_TOL * scale, 1.0, scale]) @ turn.T
    fixed = check_model(model(link=dict(inertial=Inertial(3.0, (0.1, 0, 0), small))))
    inertial = fixed.link('arm').inertial
    assert np.allclose(inertial.inertia, turn @ np.diag([0.0, 1.0, scale]) @ turn.T,
                       rtol=0, atol=1e-15)
    assert np.linalg.eigvalsh(inertial.inertia)[0] >= 0.0
    assert (inertial.mass, tuple(inertial.com)) == (3.0, (0.1, 0.0, 0.0))
    assert fixed.warnings == (f"{SRC}: link 'arm': a principal moment of inertia is negative by "
                              "rounding; set to 0 (the integrator bounds it)",)
    rejects(model(link=dict(inertial=Inertial(1.0, inertia=np.diag([-1.1 * INERTIA_TOL * scale,
                                                                     1.0, scale])))),
            "link 'arm': the inertia is not positive semi-definite (principal moments -2.2e-09, "
            "1, 2 kg m^2); no rigid body has a negative moment")
    zero = Inertial(0.0)
    assert check_model(m := model(link=dict(inertial=zero))) is m
    assert check_model(m := model(link=dict(inertial=Inertial(0.0, inertia=np.diag(
        [-0.0, 0.0, 0.0]))))) is m
    # INERTIA_TOL is a fraction of the largest moment at every scale, the smallest numbers
    # too: a negative moment half or all of the largest is no rounding
    for moments in ([-5e-310, 1e-309, 1e-309], [-1.5e-309, 1.5e-309, 1.5e-309]):
        with pytest.raises(ModelError, match='not positive semi-definite'):
            check_model(model(link=dict(inertial=Inertial(1.0, inertia=np.diag(moments)))))


def test_zero_sizes_become_one_micrometre_except_a_capsules_length():
    shapes = (Shape(Box((0.0, 1.0, 0.0))), Shape(Sphere(0.0)), Shape(Cylinder(0.1, 0.0)),
              Shape(Capsule(0.1, 0.0)), Shape(Capsule(0.0, 0.2)), Shape(Cone(0.0, 0.3)))
    fixed = check_model(model(link=dict(visuals=shapes, collisions=shapes[:2])))
    got = [s.geometry for s in fixed.link('arm').visuals]
    assert got == [Box((MIN_SIZE, 1.0, MIN_SIZE)), Sphere(MIN_SIZE), Cylinder(0.1, MIN_SIZE),
                   Capsule(0.1, 0.0), Capsule(MIN_SIZE, 0.2), Cone(MIN_SIZE, 0.3)]
    assert fixed.link('arm').collisions[0] is fixed.link('arm').visuals[0]
    assert fixed.link('arm').visuals[3] is shapes[3]
    assert [w.split(': ', 2)[2] for w in fixed.warnings] == [
        f'size 0, 1, 0 has a zero; made {MIN_SIZE:g} m', 'radius 0 has a zero; made 1e-06 m',
        'length 0 has a zero; made 1e-06 m', 'radius 0 has a zero; made 1e-06 m',
        'radius 0 has a zero; made 1e-06 m']
    assert fixed.warnings[0].startswith(f"{SRC}: link 'arm' visual box: ")
    rejects(model(link=dict(visuals=(Shape(Sphere(-1e-9)),))),
            "link 'arm' visual sphere: radius -1e-09 is negative")


def _mesh(vertices, faces, name='m'):
    return Mesh(np.asarray(vertices, float), np.asarray(faces), name)


TETRA = ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
         [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def test_meshes_without_area_or_volume():
    solid = Shape(_mesh(*TETRA, 'solid'))
    assert check_model(m := model(link=dict(visuals=(solid,), collisions=(solid,)))) is m
    # visual: area below MIN_AREA is dropped; at it, kept
    side = math.sqrt(2 * MIN_AREA) * 1.001
    at = Shape(_mesh([[0, 0, 0], [side, 0, 0], [0, side, 0]], [[0, 1, 2]], 'at'))
    below = Shape(_mesh([[0, 0, 0], [0.99 * side, 0, 0], [0, side, 0]], [[0, 1, 2]], 'below'))
    empty = Shape(_mesh(np.zeros((0, 3)), np.zeros((0, 3), int), 'empty'))
    fixed = check_model(model(link=dict(visuals=(at, below, empty))))
    assert [s.geometry.name for s in fixed.link('arm').visuals] == ['at']
    assert [w.split(': ', 1)[1] for w in fixed.warnings] == [
        "link 'arm' visual mesh 'below': its triangles cover no area; not shown",
        "link 'arm' visual mesh 'empty': its triangles cover no area; not shown"]
    # exactly MIN_AREA (a right triangle of legs 1 and 2 MIN_AREA, computed without rounding)
    # is area: "without area" is below it. A visual is shown; a collision mesh whose other
    # triangles (degenerate, along y and z) make it span a volume stays a mesh
    exact = [[0, 0, 0], [1, 0, 0], [0, 2 * MIN_AREA, 0]]
    at_bound = Shape(_mesh(exact, [[0, 1, 2]], 'exact'))
    fixed = check_model(model(link=dict(visuals=(at_bound,))))
    assert fixed.link('arm').visuals == (at_bound,) and fixed.warnings == ()
    spanning = Shape(_mesh(exact + [[0, 0, 1], [0, 0, 0.5], [0, 1, 0], [0, 0.5, 0]],
                           [[0, 1, 2], [0, 3, 4], [0, 5, 6]], 'exact_solid'))
    assert check_model(m := model(link=dict(collisions=(spanning,)))) is m
    # collision: a flat mesh (unused far vertices aside) becomes the thinnest box around it
    flat = Shape(_mesh([[0, 0, 0], [2, 0, 0], [0, 1, 0], [9, 9, 9]], [[0, 1, 2]], 'flat'),
                 _pose((1, 2, 3)))
    box = check_model(model(link=dict(collisions=(flat,)))).link('arm').collisions[0]
    assert isinstance(box.geometry, Box)
    assert sorted(box.geometry.size) == pytest.approx(sorted((MIN_SIZE,
                                                              *_flat_extent(flat))), rel=1e-9)
    corners = box.pose.inverse().apply(np.array([[1, 2, 3], [3, 2, 3], [1, 3, 3.0]]))
    assert np.all(np.abs(corners) <= 0.5 * np.array(box.geometry.size) + 1e-9)
    # thin but not flat (thickness above FLAT of its size): kept as a mesh
    thick = 2 * FLAT
    slab = Shape(_mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.2, 0.2, thick]],
                       TETRA[1], 'slab'))
    assert check_model(m := model(link=dict(collisions=(slab,)))) is m
    thin = Shape(_mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0.2, 0.2, FLAT / 2]],
                       TETRA[1], 'thin'))
    assert isinstance(check_model(model(link=dict(collisions=(thin,)))).link(
        'arm').collisions[0].geometry, Box)
    point = Shape(_mesh(np.zeros((0, 3)), np.zeros((0, 3), int), 'point'))
    got = check_model(model(link=dict(collisions=(point,)))).link('arm').collisions[0]
    assert got.geometry == Box((MIN_SIZE,) * 3)


def _flat_extent(shape) -> tuple[float, float]:
    """The in-plane sides of the smallest box around the right triangle (2, 1)."""
    from body_bridge.geometry import principal_box
    _, extent = principal_box(np.array([[0, 0, 0], [2, 0, 0], [0, 1, 0.0]]))
    return tuple(sorted(extent)[1:])


def test_warnings_say_where():
    shape = Shape(Sphere(0.0))
    placed = check_model(model(link=dict(visuals=(shape,))))
    assert placed.warnings[0].startswith(f"{SRC}: ")
    file_only = dataclasses.replace(shape, source='other.body')
    assert check_model(model(link=dict(visuals=(file_only,)))).warnings[0].startswith(
        "other.body: link 'arm'")
    bare = Model('m', (Link('a', visuals=(shape,)),), (), 'a')
    assert check_model(bare).warnings[0].startswith("<model>: link 'a' visual sphere")
    sourced = Model('m', (Link('a', visuals=(shape,)),), (), 'a', source='x.body',
                    warnings=('x.body:1: earlier',))
    assert check_model(sourced).warnings == (
        'x.body:1: earlier', "x.body: link 'a' visual sphere: radius 0 has a zero; made 1e-06 m")
    with pytest.raises(ModelError) as info:
        check_model(Model('m', (Link('a', Pose((NAN, 0, 0))),), (), 'a', source='x.body'))
    assert (info.value.path, info.value.line) == ('x.body', None)
    with pytest.raises(ModelError) as info:
        check_model(Model('m', (Link('a', Pose((NAN, 0, 0)), source='y.body:7'),), (), 'a'))
    assert (info.value.path, info.value.line) == ('y.body', 7)


def test_a_mimic_cycle_is_refused_with_the_models_file():
    with pytest.raises(ModelError) as info:
        check_model(model(joint=dict(mimic=Mimic('j'))))
    assert str(info.value) == 'robot.body: mimic formulas form a cycle: j -> j'
