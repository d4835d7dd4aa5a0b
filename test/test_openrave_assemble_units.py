"""Each OpenRAVE body's tree (body_bridge.formats.openrave.assemble) on small files written
here: free wheels and circular joints, passive mimic joints, a static link that moves, link
frames moved onto their joint's axis with the mass where it was, inertias that are not
physical, a loop closed by a spherical or a universal joint, bad mimic derivative formulas,
mass properties that overflow, a link no joint reaches, a universal joint's two axes."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.kinematics import forward_kinematics
from body_bridge.model import JointType

SPHERE = '<Geom type="sphere"><radius>0.1</radius></Geom>'


def write(folder, name: str, text: str):
    path = folder / name
    path.write_text(textwrap.dedent(text).strip() + '\n')
    return path


ROBOT = f"""
    <Robot name="r">
    <KinBody>
      <Body name="base">{SPHERE}</Body>
      <Body name="wheel"><translation>0 0 1</translation>{SPHERE}
        <mass type="custom"><total>2</total><inertia>1 0 0 0 2 0 0 0 3</inertia></mass></Body>
      <Body name="spin">{SPHERE}</Body>
      <Body name="arm" type="static"><translation>0 2 0</translation>{SPHERE}
        <mass type="custom"><total>1</total><inertia>1 0 0 0 0 0 0 0 2</inertia></mass></Body>
      <Body name="follower">{SPHERE}
        <mass type="custom"><total>1</total><inertia>-1 0 0 0 1 0 0 0 1</inertia></mass></Body>
      <Body name="ball">{SPHERE}</Body>
      <Joint name="roll" type="hinge" enable="false" circular="true"><body>base</body>
        <body>wheel</body><anchor>1 0 0</anchor></Joint>
      <Joint name="turn" type="hinge" circular="true"><body>base</body><body>spin</body></Joint>
      <Joint name="lift" type="slider"><body>base</body><body>arm</body><axis>0 0 1</axis></Joint>
      <Joint name="f" type="hinge" enable="false" mimic_pos="2*lift" mimic_vel="|lift 2">
        <body>arm</body><body>follower</body></Joint>
      <Joint name="s" type="spherical"><body>base</body><body>ball</body>
        <limitsdeg>-10 10 -10 10 -10 10</limitsdeg></Joint>
    </KinBody>
    </Robot>"""


@pytest.fixture(scope='module')
def robot(tmp_path_factory):
    path = write(tmp_path_factory.mktemp('assemble'), 'r.robot.xml', ROBOT)
    return path, load_model(path)


def test_free_wheels_circular_and_passive_joints(robot):
    _, model = robot
    joints = {j.name: j for j in model.joints}
    assert model.passive_joints == ('roll',)      # a passive circular hinge rolls freely
    assert joints['roll'].type == joints['turn'].type == JointType.CONTINUOUS
    assert joints['roll'].meta['passive'] is True and joints['roll'].meta['circular'] is True
    assert 'passive' not in joints['turn'].meta and joints['turn'].meta['circular'] is True
    assert joints['f'].meta['passive'] is True and joints['f'].meta['mimic_vel'] == '|lift 2'
    assert 'mimic_accel' not in joints['f'].meta and 'circular' not in joints['f'].meta
    assert joints['f'].mimic.joint == 'lift' and joints['f'].mimic.multiplier == 2.0
    assert joints['s'].type == JointType.BALL


def test_a_frame_moved_onto_its_axis_keeps_the_mass_where_it_was(robot):
    _, model = robot
    wheel = model.link('wheel')
    # OpenRAVE's frame is at (0 0 1); the model's is on the axis z through (1 0 0)
    np.testing.assert_allclose(wheel.pose.pos, [1, 0, 1])
    np.testing.assert_allclose(wheel.inertial.com, [-1, 0, 0], atol=1e-12)
    world = forward_kinematics(model, {'roll': 0.0})['wheel']
    np.testing.assert_allclose(world.apply(wheel.inertial.com), [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(wheel.inertial.inertia, np.diag([1, 2, 3]), atol=1e-12)


def test_inertias_that_are_not_physical_are_made_so_with_a_warning(robot):
    path, model = robot
    np.testing.assert_allclose(model.link('arm').inertial.inertia, np.eye(3))
    np.testing.assert_allclose(model.link('follower').inertial.inertia, np.eye(3))
    assert f"{path}:7: link 'arm': principal inertia moments 0, 1, 2 kg m^2 are not physical " \
        '(A + B < C); each set to their mean, 1' in model.warnings
    assert f"{path}:9: link 'follower': principal inertia moments -1, 1, 1 kg m^2 are not " \
        'physical (a negative moment); each set to their mean, 1' in model.warnings


def test_warnings_of_a_static_link_that_moves_and_spherical_limits(robot):
    path, model = robot
    assert f"{path}:7: link 'arm' is static but its body moves; it moves with its body" \
        in model.warnings
    assert f"{path}:18: limits of spherical joint 's' are not enforced" in model.warnings
    assert len(model.warnings) == 4


def test_a_loop_closed_by_a_spherical_joint_is_a_ball_at_its_anchor(tmp_path):
    path = write(tmp_path, 'loop.kinbody.xml', f"""
        <KinBody name="loop">
          <Body name="a" type="static">{SPHERE}</Body>
          <Body name="b"><translation>0 0 1</translation>{SPHERE}</Body>
          <Body name="c"><translation>1 0 1</translation>{SPHERE}</Body>
          <Joint name="j1" type="hinge"><body>a</body><body>b</body><axis>0 1 0</axis></Joint>
          <Joint name="j2" type="hinge"><body>a</body><body>c</body><axis>0 1 0</axis>
            <anchor>1 0 0</anchor></Joint>
          <Joint name="close" type="spherical"><body>b</body><body>c</body>
            <anchor>0.5 0 1</anchor></Joint>
        </KinBody>""")
    [closure] = load_model(path).closures
    assert (closure.name, closure.type, closure.link1, closure.link2) == ('close', 'ball', 'b',
                                                                         'c')
    np.testing.assert_allclose(closure.pose1.pos, [0.5, 0, 1], atol=1e-12)
    np.testing.assert_allclose(closure.pose1.rot, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(closure.pose2.pos, [-0.5, 0, 1], atol=1e-12)
    np.testing.assert_array_equal(closure.axis, [0, 0, 1])     # a ball has no axis: unit z


@pytest.mark.parametrize('vel, message', [
    ('|lift', '"|lift" needs a joint and an expression'),
    ('|lift 2 |lift (', None),
    ('lift 2', 'needs "|joint expression" terms'),
])
def test_a_bad_mimic_derivative_is_one_line(tmp_path, vel, message):
    text = ROBOT.replace('mimic_vel="|lift 2"', f'mimic_vel="{vel}"')
    path = write(tmp_path, 'bad.robot.xml', text)
    with pytest.raises(ModelError) as info:
        load_model(path)
    found = str(info.value)
    assert found.startswith(f"{path}:16: joint 'f': mimic formula: ") and '\n' not in found
    if message:
        assert message in found


# closures.py turns a universal closure about x, then y, of the frame whose z is the closure
# axis; for the axis +z that frame's x is (0 -1 0) (x = X cross z) and its y is (1 0 0)
FRAME_OF_Z = np.column_stack([(0, -1, 0), (1, 0, 0), (0, 0, 1)])


@pytest.mark.parametrize('axis2, warned', [('0 0 1', False), ('1 0 1', True),
                                            ('1.5e-6 0 1', True)])   # beyond 1e-6
def test_a_loop_closed_by_a_universal_joint_turns_about_its_two_axes(tmp_path, axis2, warned):
    path = write(tmp_path, 'loop.kinbody.xml', f"""
        <KinBody name="loop">
          <Body name="base" type="static">{SPHERE}</Body>
          <Body name="a"><translation>0 0 1</translation>{SPHERE}</Body>
          <Body name="b"><translation>1 0 1</translation>{SPHERE}</Body>
          <Joint name="ja" type="hinge"><body>base</body><body>a</body><axis>0 1 0</axis>
            <anchor>0 0 1</anchor></Joint>
          <Joint name="jb" type="hinge"><body>base</body><body>b</body><axis>0 1 0</axis>
            <anchor>1 0 1</anchor></Joint>
          <Joint name="close" type="universal"><body>b</body><body>a</body>
            <anchor>0.5 0 1</anchor><axis1>1 0 0</axis1><axis2>{axis2}</axis2></Joint>
        </KinBody>""")
    model = load_model(path)
    [closure] = model.closures
    assert (closure.type, closure.link1, closure.link2) == ('universal', 'b', 'a')
    # the anchor halfway between b (1 0 1) and a (0 0 1)
    np.testing.assert_allclose(closure.pose1.pos, [-0.5, 0, 0], atol=1e-12)
    np.testing.assert_allclose(closure.pose2.pos, [0.5, 0, 0], atol=1e-12)
    assert np.linalg.norm(closure.axis) == 1.0
    frame = closure.pose1.rot @ FRAME_OF_Z
    np.testing.assert_allclose(frame[:, 0], [1, 0, 0], atol=1e-12)   # first about axis1
    # then about axis2; (1 0 1) is made perpendicular to axis1: (0 0 1)
    np.testing.assert_allclose(frame[:, 1], [0, 0, 1], atol=1e-12)
    warning = f"{path}:9: joint 'close' closes a loop with axes that are not perpendicular; " \
        'they are made perpendicular'
    assert (warning in model.warnings) == warned


def test_mass_properties_that_overflow_are_one_line(tmp_path):
    # a box 2e103 m a side at density 1: 8e309 kg, beyond the largest float
    path = write(tmp_path, 'huge.kinbody.xml', f"""
        <KinBody name="huge">
          <Body name="a">{SPHERE}
            <mass type="box"><extents>1e103 1e103 1e103</extents><density>1</density></mass>
          </Body>
        </KinBody>""")
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == f"{path}:2: link 'a': its mass properties overflow (numbers " \
        'too large)'


def test_a_link_no_joint_reaches_is_fixed_to_the_root_and_universal_axes_keep_order(tmp_path):
    path = write(tmp_path, 'k.kinbody.xml', f"""
        <KinBody name="k">
          <Body name="base" type="static">{SPHERE}</Body>
          <Body name="arm"><translation>0 0 1</translation>{SPHERE}</Body>
          <Body name="lamp"><translation>0 2 0</translation>{SPHERE}</Body>
          <Body name="hand"><translation>0 0 2</translation>{SPHERE}</Body>
          <Joint name="u" type="universal"><body>base</body><body>arm</body>
            <anchor>0 0 1</anchor><axis1>1 0 0</axis1><axis2>0 1 0</axis2></Joint>
          <Joint name="v" type="universal"><body>hand</body><body>arm</body>
            <anchor>0 0 2</anchor><axis1>1 0 0</axis1><axis2>0 1 0</axis2></Joint>
        </KinBody>""")
    model = load_model(path)
    lamp = model.joint('lamp_attached')       # not in the file: meta says so
    assert (lamp.type, lamp.parent, lamp.child) == (JointType.FIXED, 'base', 'lamp')
    assert lamp.meta['implicit'] is True and lamp.meta['body'] == 'k'
    np.testing.assert_allclose(model.link('lamp').pose.pos, [0, 2, 0])
    # the universal joint: axis1 next to its first body (base), axis2 next to the second
    first, second = model.joint('u_axis1'), model.joint('u_axis2')
    assert (first.parent, first.child, second.parent, second.child) == ('base', 'u_link',
                                                                        'u_link', 'arm')
    np.testing.assert_allclose(first.axis, [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(second.axis, [0, 1, 0], atol=1e-12)
    # v's first body is the child: axis1 stays next to it, both axes turn the other way
    first, second = model.joint('v_axis1'), model.joint('v_axis2')
    assert (second.parent, second.child, first.parent, first.child) == ('arm', 'v_link',
                                                                        'v_link', 'hand')
    np.testing.assert_allclose(first.axis, [-1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(second.axis, [0, -1, 0], atol=1e-12)


def test_a_rod_and_rounding_are_physical_and_a_speed_formula_needs_a_position_one(tmp_path):
    # a thin rod's zero moment (0 + 1 = 1) is physical: kept as it is
    text = ROBOT.replace('<inertia>1 0 0 0 0 0 0 0 2</inertia>', '<inertia>0 0 0 0 1 0 0 0 1'
                         '</inertia>')
    model = load_model(write(tmp_path, 'rod.robot.xml', text))
    np.testing.assert_array_equal(model.link('arm').inertial.inertia, np.diag([0, 1, 1]))
    assert not any("link 'arm'" in w and 'not physical' in w for w in model.warnings)
    # mimic_vel without mimic_pos: no position to follow
    path = write(tmp_path, 'vel.robot.xml', ROBOT.replace('mimic_pos="2*lift" ', ''))
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == f"{path}:16: joint 'f': a mimic joint needs mimic_pos"
