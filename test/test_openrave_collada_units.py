"""OpenRAVE's COLLADA robots, the parts the hand-written robot of ``test_openrave_collada`` leaves
out: attached sensors, manipulators, MathML formulas, axis information and the scene's binds
(body_bridge.formats.openrave.collada_extra, collada_bind, raw), each number known."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_openrave_collada import DAE, dae_variant

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formats.openrave.collada_extra import mathml_text
from body_bridge.formats.openrave.xmlfile import parse_bytes
from body_bridge.model import DeviceKind, JointType

#: A camera with no ``frame_origin`` (on the first link, at its frame) and one on link2, 0.1 m
#: along its z; the document's sensor library describes both as OpenRAVE writes it.
SENSORS = '''
  <extra name="cam" type="attach_sensor"><technique profile="OpenRAVE">
   <instance_sensor url="#cam1"/></technique></extra>
  <extra name="wrist" type="attach_sensor"><technique profile="OpenRAVE">
   <frame_origin link="kmodel1/link2"><translate>0 0 0.1</translate></frame_origin>
   <instance_sensor url="#cam1"/></technique></extra>
  </articulated_system>
 </library_articulated_systems>
 <extra type="library_sensors"><technique profile="OpenRAVE">
  <sensor type="base_pinhole_camera" id="cam1"><image_dimensions>64 48 3</image_dimensions>
   <intrinsic>50 0 32 0 40 24</intrinsic><measurement_time>0.1</measurement_time></sensor>
 </technique></extra>'''


def write(tmp_path, text: str, name: str = 'sensors.dae'):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture
def with_sensors(tmp_path):
    end = '  </articulated_system>\n </library_articulated_systems>'
    assert DAE.count(end) == 1
    return write(tmp_path, DAE.replace(end, SENSORS.strip('\n'), 1))


def test_attached_cameras_with_and_without_a_frame_origin(with_sensors):
    model = load_model(with_sensors)
    devices = {d.name: d for d in model.devices}
    assert set(devices) == {'cam', 'wrist'}
    cam, wrist = devices['cam'], devices['wrist']
    assert cam.kind == DeviceKind.CAMERA and cam.type_name == 'BaseCamera'
    assert (cam.link, wrist.link) == ('base', 'link2')
    # the optical frame: z along the view (OpenRAVE's camera z), x to the right
    np.testing.assert_allclose(cam.pose.pos, [0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(cam.pose.quat(), [0.5, 0.5, -0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(wrist.pose.pos, [0, 0, 0.1], atol=1e-12)
    params = dict(cam.params)
    assert (params['width'], params['height']) == (64, 48)
    assert (params['fx'], params['fy'], params['cx'], params['cy']) == (50, 40, 32, 24)
    assert params['frame_rate'] == pytest.approx(10.0)
    assert dict(wrist.params) == params


def test_sensor_parameters_that_are_not_read_are_named(tmp_path):
    text = SENSORS.replace('<measurement_time>0.1</measurement_time>',
                           '<measurement_time>0.1</measurement_time><distortion_model/>'
                           '<gain>2</gain>')
    end = '  </articulated_system>\n </library_articulated_systems>'
    path = write(tmp_path, DAE.replace(end, text.strip('\n'), 1))
    model = load_model(path)
    # both cameras use the one sensor: one warning, at its line
    gains = [w for w in model.warnings if 'gain' in w]
    assert gains == [f'{path}:95: sensor parameter <gain> is not supported and was ignored']
    assert not any('distortion' in w for w in model.warnings)


# --- manipulators -----------------------------------------------------------------------------

HAND = '''<extra name="hand" type="manipulator"><technique profile="OpenRAVE">
   <frame_origin link="kmodel1/link0"/>
   <frame_tip link="kmodel1/link2"><translate>0 0 0.2</translate>
    <direction>0 0 1</direction></frame_tip>
  </technique></extra>'''


def hand(tmp_path, technique: str):
    assert HAND in DAE
    return load_model(write(tmp_path, DAE.replace(HAND, '<extra name="hand" type="manipulator">'
                                                  '<technique profile="OpenRAVE">' + technique +
                                                  '</technique></extra>', 1), 'hand.dae'))


def test_manipulator_direction_gripper_joints_and_solver(tmp_path):
    model = hand(tmp_path, '''<frame_origin link="kmodel1/link0"/>
        <frame_tip link="kmodel1/link2"><direction>0 2 0</direction></frame_tip>
        <gripper_joint joint="kmodel1/joint1"><closing_direction><float>-0.5</float>
          </closing_direction></gripper_joint>
        <gripper_joint joint="kmodel1/joint0"><chucking_direction><float>2</float>
          </chucking_direction></gripper_joint>
        <gripper_joint joint="kmodel1/joint9"/>
        <iksolver type="ikfast"/><grasp/>''')
    [manip] = model.manipulators
    np.testing.assert_allclose(manip.direction, [0, 1, 0])
    assert manip.gripper_joints == ('j2', 'j1') and manip.closing_direction == (-1.0, 1.0)
    assert manip.ik_solver == 'ikfast'
    assert sum("gripper joint 'kmodel1/joint9' does not exist; ignored" in w
               for w in model.warnings) == 1
    assert sum('<grasp> in a manipulator is not supported and was ignored' in w
               for w in model.warnings) == 1
    assert len(model.warnings) == 3      # and the robot without masses


def test_manipulator_without_a_direction_looks_along_z(tmp_path):
    for tip in ('<frame_tip link="kmodel1/link2"/>',
                '<frame_tip link="kmodel1/link2"><direction>0 0 0</direction></frame_tip>'):
        model = hand(tmp_path, '<frame_origin link="kmodel1/link0"/>' + tip)
        [manip] = model.manipulators
        np.testing.assert_array_equal(manip.direction, [0, 0, 1])
        assert manip.gripper_joints == () and manip.ik_solver is None
        assert len(model.warnings) == 1


# --- MathML formulas --------------------------------------------------------------------------

JOINTS = {'k/j0': 'a', 'k/j1': 'b'}


def mathml(xml: str) -> str:
    return mathml_text(parse_bytes(xml.encode(), 'f.dae'), JOINTS)


@pytest.mark.parametrize('xml, text', [
    ('<math><apply><minus/><ci>k/j0</ci></apply></math>', '(-"a")'),
    ('<apply><minus/><ci>k/j0</ci><cn>2</cn></apply>', '("a" - 2.0)'),
    ('<apply><plus/><csymbol>k/j0</csymbol><pi/></apply>', '("a" + pi)'),
    ('<apply><sec/><ci>k/j1</ci></apply>', '(1 / cos("b"))'),
    ('<apply><cot/><ci>k/j1</ci></apply>', '(1 / tan("b"))'),
    ('<apply><root/><ci>k/j1</ci></apply>', 'sqrt("b")'),
    ('<apply><root/><cn>3</cn><ci>k/j1</ci></apply>', '("b")^(1/3.0)'),
    ('<apply><arctan2/><ci>k/j1</ci><cn>1</cn></apply>', 'atan2("b", 1.0)'),
    ('<apply><log/><ci>k/j1</ci></apply>', 'log10("b")'),
])
def test_mathml_as_formula_text(xml, text):
    assert mathml(xml) == text


@pytest.mark.parametrize('xml, message', [
    ('<apply><plus/></apply>', '<plus/> needs arguments'),
    ('<apply/>', '<apply> is not supported in a joint formula'),
    ('<set/>', '<set> is not supported in a joint formula'),
    ('<apply><factorial/><cn>3</cn></apply>', 'MathML operator <factorial/> is not supported'),
    ('<math><cn>1</cn><cn>2</cn></math>', '<math> must hold one expression'),
    ('<ci>k/j7</ci>', "the formula names 'k/j7', which is not a joint"),
])
def test_mathml_that_is_no_formula_is_one_line(xml, message):
    with pytest.raises(ModelError) as info:
        mathml(xml)
    assert str(info.value).startswith('f.dae:1: ') and message in str(info.value)


def test_mathml_nested_100_deep_is_read():
    assert mathml('<apply><minus/>' * 50 + '<cn>1</cn>' + '</apply>' * 50) == \
        '(-' * 50 + '1.0' + ')' * 50


def test_openraves_position_equation_comes_before_the_common_technique(tmp_path):
    common = '''<technique_common><math xmlns="http://www.w3.org/1998/Math/MathML">
     <apply><plus/><apply><times/><cn>2</cn><csymbol>kmodel1/joint0</csymbol></apply>
     <cn>0.1</cn></apply></math></technique_common>'''
    assert common in DAE
    equations = (common + '<technique profile="Other"><equation type="position"><math>'
                 '<cn>5</cn></math></equation></technique><technique profile="OpenRAVE">'
                 '<equation type="velocity"><math><cn>7</cn></math></equation>'
                 '<equation type="position"><math><apply><times/><cn>3</cn>'
                 '<csymbol>kmodel1/joint0</csymbol></apply></math></equation></technique>')
    model = load_model(write(tmp_path, DAE.replace(common, equations, 1), 'eq.dae'))
    mimic = {j.name: j for j in model.joints}['j2'].mimic
    assert (mimic.joint, mimic.multiplier, mimic.offset) == ('j1', 3.0, 0.0)


# --- bindings: articulated systems, axis information, the scene's binds -----------------------

def variant(tmp_path, *replacements, name='variant.dae'):
    return load_model(dae_variant(tmp_path, *replacements, name=name))


def test_a_scene_may_instantiate_the_kinematics_system_itself(tmp_path):
    # no motion system: its speeds are not there, OpenRAVE's 0.5 rad/s stands in
    model = variant(tmp_path, ('url="#motion" sid="sys"', 'url="#kin" sid="sys"'),
                    ('motion/m_inst', 'kin/kin_inst'), ('motion/m_j1', 'kin/kin_j1'),
                    ('motion/m_j2', 'kin/kin_j2'))
    j1 = {j.name: j for j in model.joints}['j1']
    assert (j1.limits.lower, j1.limits.upper) == pytest.approx((-math.pi / 4, math.pi / 2))
    assert j1.limits.velocity == 0.5


def test_axis_information_circular_weight_resolution_active_locked(tmp_path):
    hi = '<newparam sid="hi"><float>90</float></newparam>'
    model = variant(tmp_path, (hi, hi + '<newparam sid="circular"><bool>true</bool></newparam>'
                               '<newparam sid="planning_weight"><float>2.5</float></newparam>'
                               '<newparam sid="discretization_resolution"><float>0.5</float>'
                               '</newparam>'))
    j1 = {j.name: j for j in model.joints}['j1']
    assert j1.type == JointType.CONTINUOUS and j1.meta['circular'] is True
    assert (j1.meta['weight'], j1.meta['resolution']) == ((2.5,), (0.5,))
    model = variant(tmp_path, (hi, hi + '<active><bool>false</bool></active>'))
    assert {j.name: j for j in model.joints}['j1'].type == JointType.FIXED
    assert any("passive joint 'j1' has no formula" in w for w in model.warnings)
    model = variant(tmp_path, ('<newparam sid="act"><bool>false</bool></newparam>',
                               '<newparam sid="act"><bool>true</bool></newparam>'),
                    ('<active><param>act</param></active>',
                     '<active><param>act</param></active><locked><bool>true</bool></locked>'))
    j2 = {j.name: j for j in model.joints}['j2']
    assert (j2.limits.lower, j2.limits.upper) == (0.0, 0.0) and 'passive' not in j2.meta


BIND = '<bind_kinematics_model node="visual1/node0"><param>s_inst</param></bind_kinematics_model>'


@pytest.mark.parametrize('binds, drawn', [
    (BIND, True),
    ('<bind_kinematics_model node="visual1/node1"><param>s_j1</param></bind_kinematics_model>'
     + BIND, True),                                    # the bind naming the model counts
    (BIND.replace('s_inst', 's_nothing'), True),       # the only bind counts
    ('', False),
])
def test_the_bound_visual_node_gives_the_first_link_its_shapes(tmp_path, binds, drawn):
    model = variant(tmp_path, (BIND, binds))
    assert len(model.link('base').visuals) == (1 if drawn else 0)
    assert len(model.link('link1').visuals) == 1


def test_the_kinematics_models_own_limits_and_a_sliders_default_speed(tmp_path):
    # without the articulated system's limits, the joint's own (in degrees) hold
    limits = '<limits><min><param>lo</param></min><max><param>hi</param></max></limits>'
    model = variant(tmp_path, (limits, ''))
    j1 = {j.name: j for j in model.joints}['j1']
    assert (j1.limits.lower, j1.limits.upper) == pytest.approx((-math.pi / 18, math.pi / 18))
    model = variant(tmp_path, (limits, ''), ('<limits><min>-10</min><max>10</max></limits>',
                                             '<limits><max>10</max></limits>'))
    j1 = {j.name: j for j in model.joints}['j1']
    assert (j1.limits.lower, j1.limits.upper) == pytest.approx((0.0, math.pi / 18))
    # a prismatic axis without a motion speed: OpenRAVE's 0.01 m/s
    model = variant(tmp_path, ('<revolute sid="axis0"><axis>0 0 1</axis></revolute>',
                               '<prismatic sid="axis0"><axis>0 0 1</axis></prismatic>'),
                    ('<rotate sid="j2_axis">0 0 1 0</rotate>',
                     '<translate sid="j2_axis">0 0 0</translate>'))
    j2 = {j.name: j for j in model.joints}['j2']
    assert j2.type == JointType.PRISMATIC and j2.limits.velocity == 0.01


def test_a_system_without_a_kinematics_model_is_one_line(tmp_path):
    with pytest.raises(ModelError) as info:
        variant(tmp_path, ('<instance_kinematics_model url="#kmodel1" sid="inst">',
                           '<instance_kinematics_model url="#none" sid="inst">'))
    assert str(info.value) == (f'{tmp_path / "variant.dae"}:70: the articulated system '
                               'instantiates no kinematics model')


def test_without_a_kinematics_scene_the_outermost_systems_are_the_bodies(tmp_path):
    start = DAE.index('  <instance_kinematics_scene url="#kscene">')
    end = DAE.index('</instance_kinematics_scene>') + len('</instance_kinematics_scene>')
    path = write(tmp_path, DAE[:start] + DAE[end:], 'unbound.dae')
    model = load_model(path)
    assert model.root == 'base'                   # one body: the motion system, not also kin
    assert {j.name for j in model.joints} == {'j1', 'j2'}


def test_axis_information_with_one_bound_leaves_the_axis_own_limits(tmp_path):
    model = variant(tmp_path, ('<max><param>hi</param></max>', ''))
    j1 = {j.name: j for j in model.joints}['j1']
    assert (j1.limits.lower, j1.limits.upper) == pytest.approx((-math.pi / 18, math.pi / 18))


S_J1 = '<newparam sid="s_j1"><SIDREF>motion/m_j1</SIDREF></newparam>'


def hops(count: int, last: str = 'motion/m_j1') -> str:
    """s_j1 naming h1, h1 naming h2, ..., h<count> naming ``last``."""
    chain = [f'<newparam sid="h{i}"><SIDREF>kscene/sys/h{i + 1}</SIDREF></newparam>'
             for i in range(1, count)]
    chain.append(f'<newparam sid="h{count}"><SIDREF>{last}</SIDREF></newparam>')
    return '<newparam sid="s_j1"><SIDREF>kscene/sys/h1</SIDREF></newparam>' + ''.join(chain)


@pytest.mark.parametrize('count, bound', [(1, True), (29, True), (30, False)])
def test_a_parameter_chain_is_followed_32_references(tmp_path, count, bound):
    # s_j1 -> h1 ... h<count> -> motion/m_j1 -> kin/kin_j1 -> the axis: count + 3 references;
    # an axis the scene does not reach gets no value (starts at 0)
    model = variant(tmp_path, (S_J1, hops(count)))
    j1 = {j.name: j for j in model.joints}['j1']
    assert j1.initial == pytest.approx(math.radians(30) if bound else 0.0)


def test_a_cycle_of_parameters_binds_nothing(tmp_path):
    model = variant(tmp_path, (S_J1, hops(2, 'kscene/sys/h1')))
    j1 = {j.name: j for j in model.joints}['j1']
    assert j1.initial == 0.0 and j1.limits.upper == pytest.approx(math.pi / 2)
