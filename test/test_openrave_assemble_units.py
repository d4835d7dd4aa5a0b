"""Each OpenRAVE body's tree (body_bridge.formats.openrave.assemble) on small files written
here: free wheels and circular joints, passive mimic joints, a static link that moves, link
frames moved onto their joint's axis with the mass where it was, inertias that are not
physical, a loop closed by a spherical joint, bad mimic derivative formulas."""

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
