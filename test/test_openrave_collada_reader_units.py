"""The COLLADA reader's own decisions (body_bridge.formats.openrave.collada): a kinematics model
without links, joints instantiated from a library, a zero axis, given limits, old writers'
radians, the physics model's parent frame, OpenRAVE's default link mass, what makes a body a
robot, the up axis, includes and their start values; each number known from the small robot
of ``test_openrave_collada`` or OpenRAVE's ``colladareader.cpp``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_openrave_collada import DAE, dae_variant

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.model import JointType


def variant(tmp_path, *replacements, name='variant.dae'):
    """The small robot with each ``(old, new)`` replaced once; its path."""
    return dae_variant(tmp_path, *replacements, name=name)


def joint(model, name):
    return {j.name: j for j in model.joints}[name]


def test_a_kinematics_model_without_links_is_one_line(tmp_path):
    start = DAE.index('   <link sid="link0" name="base">')
    end = DAE.index('   <formula sid="f">')
    path = tmp_path / 'nolinks.dae'
    path.write_text(DAE[:start] + DAE[end:])
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == f'{path}:27: the kinematics model has no <link>'


def test_a_joint_instantiated_from_the_joint_library(tmp_path):
    # j1 written once in <library_joints> and instantiated by the kinematics model under the
    # scoped id the attachment, the axis information and the formula use
    j1 = ('<joint name="j1" sid="joint0"><revolute sid="axis0"><axis>1 0 0</axis>\n'
          '    <limits><min>-10</min><max>10</max></limits></revolute></joint>')
    assert j1 in DAE
    model = load_model(variant(
        tmp_path, (j1, '<instance_joint url="#J1" sid="joint0"/>'),
        (' <library_kinematics_models>',
         ' <library_joints><joint id="J1" name="j1"><revolute sid="axis0"><axis>1 0 0</axis>'
         '<limits><min>-10</min><max>10</max></limits></revolute></joint></library_joints>\n'
         ' <library_kinematics_models>')))
    links = {link.name: link for link in model.links}
    j1 = joint(model, 'j1')
    assert j1.type == JointType.REVOLUTE and j1.parent == 'base' and j1.child == 'link1'
    np.testing.assert_allclose(links['link1'].pose.rot @ j1.axis, (0, 1, 0), atol=1e-12)
    assert (j1.limits.lower, j1.limits.upper) == pytest.approx((-math.pi / 4, math.pi / 2))
    assert j1.initial == pytest.approx(math.radians(30))
    assert joint(model, 'j2').mimic.joint == 'j1'


def test_a_zero_axis_is_the_attachments_z(tmp_path):
    # colladareader.cpp: an axis of length 0 is (0, 0, 1), then turned by the attachment
    model = load_model(variant(tmp_path, ('<axis>1 0 0</axis>', '<axis>0 0 0</axis>'),
                               ('<rotate>0 0 1 90</rotate>\n     <link sid="link1"',
                                '<rotate>1 0 0 90</rotate>\n     <link sid="link1"')))
    link1 = {link.name: link for link in model.links}['link1']
    # the attachment turned 90 deg about x: its z is the world's -y
    np.testing.assert_allclose(link1.pose.rot @ joint(model, 'j1').axis, (0, -1, 0),
                               atol=1e-12)


PASSIVE = ('<newparam sid="hi"><float>90</float></newparam>',
           '<newparam sid="hi"><float>90</float></newparam><active><bool>false</bool></active>')
SYSTEM_LIMITS = '<limits><min><param>lo</param></min><max><param>hi</param></max></limits>'
OWN_LIMITS = '<limits><min>-10</min><max>10</max></limits>'


@pytest.mark.parametrize('replacements, warned', [
    ((), True),                                                 # -45..90 deg
    ((('<float>-45</float>', '<float>0</float>'), ('<float>90</float></newparam>',
                                                   '<float>0</float></newparam>')), False),
    (((SYSTEM_LIMITS, ''), (OWN_LIMITS, '<limits><min>0</min><max>0</max></limits>')), False),
    (((SYSTEM_LIMITS, ''),), True),                             # its own -10..10 deg
    (((OWN_LIMITS, ''), ('<float>-45</float>', '<float>0</float>'),
      ('<float>90</float></newparam>', '<float>0</float></newparam>')), False),
])
def test_a_passive_joint_with_limits_given_as_zero_is_held_silently(tmp_path, replacements,
                                                                     warned):
    # OpenRAVE keeps a passive joint at 0; a file that says so with 0..0 limits (the system's
    # or the axis' own) is not warned about
    model = load_model(variant(tmp_path, PASSIVE, *replacements))
    assert joint(model, 'j1').type == JointType.FIXED
    assert any("passive joint 'j1' has no formula" in w for w in model.warnings) == warned


def test_old_openrave_writers_give_values_and_speeds_in_radians(tmp_path):
    model = load_model(variant(
        tmp_path, ('OpenRAVE Collada Writer v0.3.5', 'OpenRAVE Collada Writer'),
        ('<newparam sid="s_j1_value"><float>30</float>',
         '<newparam sid="s_j1_value"><float>0.5</float>')))
    j1 = joint(model, 'j1')
    assert j1.initial == pytest.approx(0.5)
    assert j1.limits.velocity == pytest.approx(30.0)
    assert j1.meta['maxaccel'] == pytest.approx((90.0,))
    assert joint(model, 'j2').initial == pytest.approx(2 * 0.5 + 0.1)
    # limits stay degrees
    assert j1.limits.upper == pytest.approx(math.pi / 2)


def com_world(model, name):
    link = {link.name: link for link in model.links}[name]
    return link.pose.apply(link.inertial.com), link


def test_the_mass_frame_is_in_the_physics_models_parent_node(tmp_path):
    # parent n1: at (0, 0, 0.5) turned 90 deg about z; the mass frame (0, 0.1, 0.5) turned
    # 90 deg more: the centre at (-0.1, 0, 1.0), the frame turned 180 deg about z
    model = load_model(variant(tmp_path, ('parent="#n0"', 'parent="#n1"')))
    com, link2 = com_world(model, 'link2')
    np.testing.assert_allclose(com, (-0.1, 0, 1.0), atol=1e-12)
    moments = link2.pose.rot @ link2.inertial.inertia @ link2.pose.rot.T
    np.testing.assert_allclose(moments, np.diag((0.01, 0.02, 0.03)), atol=1e-12)


def test_without_a_parent_the_mass_frame_is_in_the_first_links(tmp_path):
    # the body's first link raised 1 m by the outer visual node: the mass frame goes with it
    model = load_model(variant(tmp_path, ('parent="#n0"', ''),
                               ('<node id="visual1" sid="visual1">',
                                '<node id="visual1" sid="visual1"><translate>0 0 1</translate>')))
    links = {link.name: link for link in model.links}
    np.testing.assert_allclose(links['link1'].pose.pos - links['base'].pose.pos, (0, 0, 0.5),
                               atol=1e-12)
    com, _ = com_world(model, 'link2')
    np.testing.assert_allclose(com - links['base'].pose.pos, (0, 0.1, 0.5), atol=1e-12)


def test_a_link_without_a_rigid_body_has_openraves_small_mass(tmp_path):
    # colladareader.cpp: mass 1e-10 kg, principal moments 1e-7 kg m^2
    model = load_model(variant(tmp_path))
    base = {link.name: link for link in model.links}['base']
    assert base.inertial.mass == 1e-10
    np.testing.assert_allclose(base.inertial.inertia, np.eye(3) * 1e-7, rtol=1e-12, atol=0)
    np.testing.assert_allclose(base.inertial.com, (0, 0, 0), atol=0)


INTERFACE = ('<extra type="interface_type"><technique profile="OpenRAVE">\n'
             '   <interface type="robot">GenericRobot</interface></technique></extra>')
HAND_START = '<extra name="hand" type="manipulator">'
HAND_END = '</technique></extra>\n  </articulated_system>'


def without_hand(text):
    start, end = text.index(HAND_START), text.index(HAND_END)
    return text[:start] + text[end + len('</technique></extra>'):]


@pytest.mark.parametrize('interface, hand, robot', [
    (True, True, True), (True, False, True), (False, True, True), (False, False, False)])
def test_a_robot_interface_or_a_manipulator_makes_a_robot(tmp_path, interface, hand, robot):
    # a robot is fixed to the world, a body of parts free (OpenRAVE's environment rule)
    assert INTERFACE in DAE
    text = DAE if interface else DAE.replace(INTERFACE, '', 1)
    text = text if hand else without_hand(text)
    path = tmp_path / 'kind.dae'
    path.write_text(text)
    model = load_model(path)
    assert model.root_joint == (JointType.FIXED if robot else JointType.FREE)
    assert len(model.manipulators) == (1 if hand else 0)


@pytest.mark.parametrize('up, said', [('<up_axis>Y_UP</up_axis>', 'Y_UP'), ('', 'Y_UP'),
                                      ('<up_axis>x_up</up_axis>', 'X_UP'),
                                      ('<up_axis>Z_UP</up_axis>', None)])
def test_an_up_axis_other_than_z_is_warned_about(tmp_path, up, said):
    path = variant(tmp_path, ('<up_axis>Z_UP</up_axis>', up))
    model = load_model(path)
    ups = [w for w in model.warnings if '<up_axis>' in w]
    assert ups == ([] if said is None else [
        f'{path}:2: <up_axis> is {said}; the coordinates are kept as written (OpenRAVE reads '
        'them so)'])


TWO = ('  </instance_articulated_system>\n </kinematics_scene>',
       '  </instance_articulated_system>\n  <instance_articulated_system url="#motion" '
       'sid="sys2" name="other"/>\n </kinematics_scene>')


@pytest.mark.parametrize('bodies', [1, 2])
def test_an_include_reads_the_first_body_and_says_so_when_there_are_more(tmp_path, bodies):
    variant(tmp_path, *([TWO] if bodies == 2 else []), name='arm.dae')
    (tmp_path / 'r.robot.xml').write_text('<Robot name="r"><Robot file="arm.dae"/></Robot>')
    model = load_model(tmp_path / 'r.robot.xml')
    assert sorted(link.name for link in model.links) == ['base', 'link1', 'link2']
    firsts = [w for w in model.warnings if 'only the first is included' in w]
    assert firsts == ([] if bodies == 1 else [
        f'{tmp_path / "arm.dae"}:2: the file holds 2 bodies; only the first is included'])


@pytest.mark.parametrize('order', ['before', 'after'])
def test_an_includes_own_joint_values_win_over_the_scenes(tmp_path, order):
    # OpenRAVE applies a Robot's <jointvalues> once the Robot is read, over what the
    # COLLADA scene set (30 deg for j1)
    variant(tmp_path, name='arm.dae')
    values, include = '<jointvalues>0.2</jointvalues>', '<Robot file="arm.dae"/>'
    inner = values + include if order == 'before' else include + values
    (tmp_path / 'r.robot.xml').write_text(f'<Robot name="r">{inner}</Robot>')
    model = load_model(tmp_path / 'r.robot.xml')
    assert joint(model, 'j1').initial == pytest.approx(0.2)
    assert joint(model, 'j2').initial == pytest.approx(2 * 0.2 + 0.1)
    (tmp_path / 's.robot.xml').write_text(f'<Robot name="s">{include}</Robot>')
    assert joint(load_model(tmp_path / 's.robot.xml'), 'j1').initial == \
        pytest.approx(math.radians(30))


def test_a_revolute_axis_without_limits_is_circular_unless_the_file_says_not(tmp_path):
    # without any limits OpenRAVE makes a revolute axis circular (-pi..pi); axis_info's
    # circular parameter false keeps it a hinge turning -pi..pi
    unlimited = ((SYSTEM_LIMITS, ''), (OWN_LIMITS, ''))
    j1 = joint(load_model(variant(tmp_path, *unlimited)), 'j1')
    assert j1.type == JointType.CONTINUOUS
    j1 = joint(load_model(variant(tmp_path, *unlimited, (
        '<newparam sid="hi"><float>90</float></newparam>',
        '<newparam sid="circular"><bool>false</bool></newparam>'))), 'j1')
    assert j1.type == JointType.REVOLUTE
    assert (j1.limits.lower, j1.limits.upper) == pytest.approx((-math.pi, math.pi))


STATIC_BASE = ('<rigid_body sid="rb2">',
               '<rigid_body sid="rb0"><technique_common><dynamic>false</dynamic><mass>3</mass>'
               '</technique_common></rigid_body><rigid_body sid="rb2">')


def test_a_rigid_body_that_is_not_dynamic_makes_its_link_static(tmp_path):
    # a body of parts whose first link is static is fixed to the world
    text = without_hand(DAE.replace(INTERFACE, '', 1))
    for old, new in (STATIC_BASE, ('<instance_rigid_body body="rb2" target="#n2"/>',
                                   '<instance_rigid_body body="rb2" target="#n2"/>'
                                   '<instance_rigid_body body="rb0" target="#n0"/>')):
        text = text.replace(old, new, 1)
    path = tmp_path / 'static.dae'
    path.write_text(text)
    model = load_model(path)
    assert model.root_joint == JointType.FIXED
    assert {link.name: link for link in model.links}['base'].inertial.mass == 3.0
    # a static link of a robot whose first link moves is said to move with it
    model = load_model(variant(tmp_path, ('<dynamic>true</dynamic>', '<dynamic>false</dynamic>')))
    assert any("link 'link2' is static but its body moves" in w for w in model.warnings)


def test_an_interface_of_another_type_makes_no_robot(tmp_path):
    text = without_hand(DAE.replace('<interface type="robot">', '<interface type="kinbody">', 1))
    path = tmp_path / 'kinbody.dae'
    path.write_text(text)
    assert load_model(path).root_joint == JointType.FREE


def test_a_document_without_articulated_systems_is_one_line(tmp_path):
    start = DAE.index(' <library_articulated_systems>')
    end = DAE.index(' <library_physics_models>')
    path = tmp_path / 'empty.dae'
    path.write_text(DAE[:start] + DAE[end:])
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == (f'{path}: the COLLADA file holds no articulated system (no robot '
                               'or body)')


def test_an_include_leaves_the_other_bodies_unread(tmp_path):
    # the second body instantiates no kinematics model: read, it would be refused
    variant(tmp_path, (TWO[0], TWO[1].replace('url="#motion"', 'url="#bare"')),
            (' </library_articulated_systems>',
             '  <articulated_system id="bare"><kinematics/></articulated_system>\n'
             ' </library_articulated_systems>'), name='arm.dae')
    (tmp_path / 'r.robot.xml').write_text('<Robot name="r"><Robot file="arm.dae"/></Robot>')
    model = load_model(tmp_path / 'r.robot.xml')
    assert sorted(link.name for link in model.links) == ['base', 'link1', 'link2']
    assert any('the file holds 2 bodies; only the first is included' in w
               for w in model.warnings)


def test_the_visual_scene_above_the_bound_node_places_the_body(tmp_path):
    # the outer node raises everything 1 m: the base there, its shape at its own origin, the
    # mass frame (in n0's frame) 0.1 m along link2's x
    model = load_model(variant(tmp_path, ('<node id="visual1" sid="visual1">',
                                          '<node id="visual1" sid="visual1"><translate>0 0 1'
                                          '</translate>')))
    links = {link.name: link for link in model.links}
    [visual] = links['base'].visuals
    np.testing.assert_allclose(visual.pose.pos, (0, 0, 0), atol=1e-12)
    np.testing.assert_allclose(links['link1'].pose.pos - links['base'].pose.pos, (0, 0, 0.5),
                               atol=1e-12)
    com, link2 = com_world(model, 'link2')
    np.testing.assert_allclose(link2.pose.rot.T @ (com - link2.pose.pos), (0.1, 0, 0),
                               atol=1e-12)


def test_joints_read_before_an_include_start_at_zero(tmp_path):
    # the scene's values cover the COLLADA body's joints; a joint the Robot had before (the
    # first of the active joints) starts at 0
    variant(tmp_path, name='arm.dae')
    (tmp_path / 'r.robot.xml').write_text('''<Robot name="r">
  <KinBody><Body name="a"/><Body name="b"/>
    <Joint name="hinge" type="hinge"><body>a</body><body>b</body><limitsdeg>-90 90</limitsdeg>
    </Joint></KinBody>
  <Robot file="arm.dae"/>
  <KinBody><Joint name="weld" type="hinge" enable="false"><body>b</body><body>base</body>
    <limitsdeg>0 0</limitsdeg></Joint></KinBody></Robot>''')
    model = load_model(tmp_path / 'r.robot.xml')
    assert [(j.name, j.parent) for j in model.joints] == [
        ('hinge', 'a'), ('weld', 'b'), ('j1', 'base'), ('j2', 'link1')]
    assert joint(model, 'hinge').initial == 0.0
    assert joint(model, 'j1').initial == pytest.approx(math.radians(30))


def test_a_prismatic_axis_without_limits_moves_a_thousand_kilometres(tmp_path):
    # colladareader.cpp: -1e6..1e6 m for a prismatic axis without limits
    model = load_model(variant(tmp_path, ('<revolute sid="axis0"><axis>0 0 1</axis></revolute>',
                                          '<prismatic sid="axis0"><axis>0 0 1</axis></prismatic>'),
                               ('<rotate sid="j2_axis">0 0 1 0</rotate>',
                                '<translate sid="j2_axis">0 0 0</translate>'),
                               ('<active><param>act</param></active>', '')))
    j2 = joint(model, 'j2')
    assert j2.type == JointType.PRISMATIC
    assert (j2.limits.lower, j2.limits.upper) == (-1e6, 1e6)


def test_an_include_at_the_zero_position_leaves_the_robots_joint_values_alone(tmp_path):
    # no scene value: the COLLADA body sets no <jointvalues>, so the Robot's joint read after
    # it is not short of a value
    variant(tmp_path, ('<value><param>s_j1_value</param></value>', ''), name='arm.dae')
    (tmp_path / 'r.robot.xml').write_text('''<Robot name="r"><Robot file="arm.dae"/>
  <KinBody><Body name="tool"/><Joint name="wrist" type="hinge"><body>link2</body>
    <body>tool</body><limitsdeg>-90 90</limitsdeg></Joint></KinBody></Robot>''')
    model = load_model(tmp_path / 'r.robot.xml')
    assert (joint(model, 'j1').initial, joint(model, 'wrist').initial) == (0.0, 0.0)
    assert not any('jointvalues' in w for w in model.warnings)
