"""OpenRAVE ``<Joint>`` reading (body_bridge.formats.openrave.joints) on small files written
here: default limits, limits given upside down, axes given in the KinBody's frame, link names
matched as OpenRAVE does, the old ``mimic`` attribute, and one line for each bad joint."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.kinematics import forward_kinematics
from body_bridge.model import JointType

SPHERE = '<Geom type="sphere"><radius>0.1</radius></Geom>'


def write(folder, text: str, name: str = 'j.kinbody.xml'):
    path = folder / name
    path.write_text(textwrap.dedent(text).strip() + '\n')
    return path


def two_links(folder, joint: str, attrs: str = '', second: str = 'b'):
    return write(folder, f"""
        <KinBody name="k">
          <Body name="a" type="static">{SPHERE}</Body>
          <Body name="{second}"><translation>0 0 1</translation>{SPHERE}</Body>
          <Joint name="j" {attrs}><body>a</body><body>b</body>
            {joint}
          </Joint>
        </KinBody>""")


def refused(path, message: str):
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == f'{path}:{message}'


def test_default_limits_a_slider_10_m_a_hinge_half_a_turn(tmp_path):
    slider = load_model(two_links(tmp_path, '<axis>0 0 1</axis>', 'type="slider"')).joints[0]
    assert slider.type == JointType.PRISMATIC
    assert (slider.limits.lower, slider.limits.upper) == (-10.0, 10.0)
    hinge = load_model(two_links(tmp_path, '', 'type="hinge"')).joints[0]
    assert (hinge.limits.lower, hinge.limits.upper) == (-math.pi, math.pi)


def test_limits_upside_down_are_swapped_with_a_warning(tmp_path):
    path = two_links(tmp_path, '<limitsdeg>30 -20</limitsdeg>')
    model = load_model(path)
    limits = model.joints[0].limits
    assert limits.lower == pytest.approx(math.radians(-20))
    assert limits.upper == pytest.approx(math.radians(30))
    assert model.warnings == (f'{path}:5: <limitsdeg> gives an upper limit before its lower '
                              'limit; read as OpenRAVE reads it, the smaller value first',)
    assert load_model(two_links(tmp_path, '<limits>-1 2</limits>')).warnings == ()


def test_resolution_and_hardmaxvel_are_kept(tmp_path):
    joint = load_model(two_links(tmp_path, '<resolution>2 9</resolution>'
                                           '<hardmaxvel>3 4</hardmaxvel>')).joints[0]
    assert joint.meta['resolution'] == pytest.approx(math.radians(2))
    assert joint.meta['hardmaxvel'] == (3.0,)
    refused(two_links(tmp_path, '<resolution> </resolution>'),
            '5: <resolution> must hold at least 1 numbers, found 0')


def test_a_non_unit_axis_moves_a_slider_by_its_direction_only(tmp_path):
    # b is read at (0, 0, 1) with the slider at 0.5 along (1 1 0)/sqrt(2): at 0, 0.5 m back
    path = two_links(tmp_path, '<axis>1 1 0</axis><initial>0.5</initial>', 'type="slider"')
    model = load_model(path)
    h = math.sqrt(0.5)
    np.testing.assert_allclose(model.joints[0].axis, [h, h, 0], atol=1e-12)
    np.testing.assert_allclose(model.link('b').pose.pos, [-0.5 * h, -0.5 * h, 1], atol=1e-12)


def test_an_axis_is_in_the_kinbody_frame_not_the_turned_first_link(tmp_path):
    # a is turned 90 deg about z; the joint's axis (1 0 0) is the KinBody's x, not a's
    path = write(tmp_path, f"""
        <KinBody name="k">
          <Body name="a" type="static"><rotationaxis>0 0 1 90</rotationaxis>{SPHERE}</Body>
          <Body name="b"><translation>0 1 0</translation>{SPHERE}</Body>
          <Joint name="j" type="hinge"><body>a</body><body>b</body><axis>1 0 0</axis></Joint>
        </KinBody>""")
    model = load_model(path)
    [shape] = model.link('b').collisions
    world = forward_kinematics(model, {'j': math.pi / 2})['b'] @ shape.pose
    np.testing.assert_allclose(world.pos, [0, 0, 1], atol=1e-12)


def test_link_names_match_without_case_when_no_link_has_the_exact_name(tmp_path):
    model = load_model(two_links(tmp_path, '', second='B'))
    assert (model.joints[0].parent, model.joints[0].child) == ('a', 'B')
    path = write(tmp_path, f"""
        <KinBody name="k">
          <Body name="a" type="static">{SPHERE}</Body>
          <Body name="B"><translation>0 0 1</translation>{SPHERE}</Body>
          <Body name="b"><translation>0 0 2</translation>{SPHERE}</Body>
          <Joint name="j" type="hinge"><body>a</body><body>b</body></Joint>
          <Joint name="J" type="hinge"><body>a</body><body>B</body></Joint>
        </KinBody>""")
    joints = {j.name: j.child for j in load_model(path).joints}
    assert joints == {'j': 'b', 'J': 'B'}


def test_missing_links_and_offsetfrom_are_one_line(tmp_path):
    refused(two_links(tmp_path, '<body>c</body>'), "5: joint 'j': link 'c' is not defined")
    refused(two_links(tmp_path, '<offsetfrom>c</offsetfrom>'),
            "5: offsetfrom link 'c' is not defined")


@pytest.mark.parametrize('mimic, multiplier, offset', [
    ('m', 1.0, 0.0), ('m 2', 2.0, 0.0), ('m 2 0.5', 2.0, 0.5),
])
def test_the_old_mimic_attribute(tmp_path, mimic, multiplier, offset):
    path = write(tmp_path, f"""
        <KinBody name="k">
          <Body name="a" type="static">{SPHERE}</Body>
          <Body name="b">{SPHERE}</Body>
          <Body name="c">{SPHERE}</Body>
          <Joint name="m" type="hinge"><body>a</body><body>b</body></Joint>
          <Joint name="j" type="hinge" mimic="{mimic}"><body>b</body><body>c</body>
            <limitsdeg>-360 360</limitsdeg></Joint>
        </KinBody>""")
    found = {j.name: j for j in load_model(path).joints}['j'].mimic
    assert (found.joint, found.multiplier, found.offset) == ('m', multiplier, offset)


@pytest.mark.parametrize('mimic, message', [
    ('', 'mimic="" names no joint'), ('  ', 'mimic="" names no joint'),
    ('m two', 'mimic=\'m two\' must be "joint [multiplier [offset]]"'),
])
def test_a_bad_old_mimic_attribute_is_one_line(tmp_path, mimic, message):
    refused(two_links(tmp_path, '', f'type="hinge" mimic="{mimic}"'), f'4: {message}')


def test_a_spherical_joint_takes_three_limit_pairs_and_no_axis(tmp_path):
    # the format: a spherical joint has 3 degrees of freedom (limits: 3 pairs); its axes
    # are x, y, z, so <axis> and <axisN> are not its elements
    path = two_links(tmp_path, '<limitsdeg>-10 10 -20 20 -30 30</limitsdeg>'
                     '<axis>1 0 0</axis><axis1>1 0 0</axis1>', 'type="spherical"')
    model = load_model(path)
    assert model.joints[0].type == JointType.BALL
    assert model.warnings == (
        f'{path}:5: <axis> is not used by a spherical joint and was ignored',
        f'{path}:5: <axis1> is not used by a spherical joint and was ignored',
        f"{path}:4: limits of spherical joint 'j' are not enforced")


def test_axis_elements_belong_to_their_joint_types(tmp_path):
    # a hinge's axis is <axis>: an <axis1> is not read, and the axis stays OpenRAVE's (0 0 1)
    path = two_links(tmp_path, '<axis1>1 0 0</axis1>', 'type="hinge"')
    model = load_model(path)
    np.testing.assert_array_equal(model.joints[0].axis, [0, 0, 1])
    assert model.warnings == (f'{path}:5: <axis1> is not used by a hinge joint and was '
                              'ignored',)
    # a universal joint's other elements are not axes either
    path = two_links(tmp_path, '<axis1>1 0 0</axis1><axis2>0 1 0</axis2><foo>1</foo>',
                     'type="universal"')
    warnings = load_model(path).warnings
    assert f'{path}:5: <foo> is not used by a universal joint and was ignored' in warnings


def test_a_zero_axis_is_one_line(tmp_path):
    refused(two_links(tmp_path, '<axis>0 0 0</axis>', 'type="slider"'),
            '5: <axis> is the zero vector')
