"""OpenRAVE's COLLADA robots (``.dae``, ``.zae``): a small hand-written robot whose every number
is known, the zip archive's limits, includes from XML with a prefix and appended elements, and
facts of the real files (PUMA, PR2) checked against what the files say."""

from __future__ import annotations

import math
import zipfile

import numpy as np
import pytest

from conftest import CORPUS

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formats.openrave import collada_doc

ROBOTS = CORPUS / 'openrave' / 'src' / 'robots'

#: A two-link arm: joint j1 at (0, 0, 0.5) turning about the attachment's x (the attachment
#: is turned 90 deg about z, so the world's y); limits -45..90 deg; 30 deg/s; a 2 kg link2 with
#: its centre 0.1 m along its link's x (the physics model's parent node is at the origin);
#: a formula makes j2 follow 2 * j1 + 0.1 rad; a manipulator with a tool 0.2 m along z.
DAE = '''<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2008/03/COLLADASchema" version="1.5.0">
 <asset><contributor><authoring_tool>OpenRAVE Collada Writer v0.3.5</authoring_tool>
 </contributor><unit meter="1"/><up_axis>Z_UP</up_axis></asset>
 <library_visual_scenes><visual_scene id="vscene">
  <node id="visual1" sid="visual1">
   <node id="n0" sid="node0">
    <instance_geometry url="#box"/>
    <node id="n1" sid="node1">
     <translate>0 0 0.5</translate><rotate>0 0 1 90</rotate>
     <rotate sid="j1_axis">1 0 0 0</rotate>
     <instance_geometry url="#box"/>
     <node id="n2" sid="node2">
      <rotate sid="j2_axis">0 0 1 0</rotate>
     </node>
    </node>
   </node>
  </node>
 </visual_scene></library_visual_scenes>
 <library_geometries><geometry id="box"><mesh>
  <source id="pos"><float_array id="pa" count="12">0 0 0 0.1 0 0 0 0.1 0 0 0 0.1</float_array>
   <technique_common><accessor source="#pa" count="4" stride="3"/></technique_common></source>
  <vertices id="verts"><input semantic="POSITION" source="#pos"/></vertices>
  <triangles count="4" material="m"><input semantic="VERTEX" source="#verts" offset="0"/>
   <p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles>
 </mesh></geometry></library_geometries>
 <library_kinematics_models><kinematics_model id="kmodel1" name="arm">
  <technique_common>
   <joint name="j1" sid="joint0"><revolute sid="axis0"><axis>1 0 0</axis>
    <limits><min>-10</min><max>10</max></limits></revolute></joint>
   <joint name="j2" sid="joint1"><revolute sid="axis0"><axis>0 0 1</axis></revolute></joint>
   <link sid="link0" name="base">
    <attachment_full joint="kmodel1/joint0">
     <translate>0 0 0.5</translate><rotate>0 0 1 90</rotate>
     <link sid="link1" name="link1">
      <attachment_full joint="kmodel1/joint1">
       <link sid="link2" name="link2"/>
      </attachment_full>
     </link>
    </attachment_full>
   </link>
   <formula sid="f"><target><param>kmodel1/joint1</param></target>
    <technique_common><math xmlns="http://www.w3.org/1998/Math/MathML">
     <apply><plus/><apply><times/><cn>2</cn><csymbol>kmodel1/joint0</csymbol></apply>
     <cn>0.1</cn></apply></math></technique_common></formula>
  </technique_common>
  <extra type="collision"><technique profile="OpenRAVE">
   <ignore_link_pair link0="kmodel1/link0" link1="kmodel1/link2"/>
  </technique></extra>
 </kinematics_model></library_kinematics_models>
 <library_articulated_systems>
  <articulated_system id="kin"><kinematics>
   <instance_kinematics_model url="#kmodel1" sid="inst">
    <newparam sid="kin_inst"><SIDREF>kin/inst</SIDREF></newparam>
    <newparam sid="kin_j1"><SIDREF>kin/inst/joint0/axis0</SIDREF></newparam>
    <newparam sid="kin_j2"><SIDREF>kin/inst/joint1/axis0</SIDREF></newparam>
   </instance_kinematics_model>
   <technique_common>
    <axis_info sid="ai0" axis="kmodel1/joint0/axis0">
     <newparam sid="lo"><float>-45</float></newparam>
     <newparam sid="hi"><float>90</float></newparam>
     <limits><min><param>lo</param></min><max><param>hi</param></max></limits>
    </axis_info>
    <axis_info sid="ai1" axis="kmodel1/joint1/axis0">
     <newparam sid="act"><bool>false</bool></newparam>
     <active><param>act</param></active>
    </axis_info>
   </technique_common>
  </kinematics></articulated_system>
  <articulated_system id="motion"><motion>
   <instance_articulated_system url="#kin">
    <newparam sid="m_inst"><SIDREF>kin/kin_inst</SIDREF></newparam>
    <newparam sid="m_j1"><SIDREF>kin/kin_j1</SIDREF></newparam>
    <newparam sid="m_j2"><SIDREF>kin/kin_j2</SIDREF></newparam>
   </instance_articulated_system>
   <technique_common><axis_info axis="kin/ai0"><speed><float>30</float></speed>
    <acceleration><float>90</float></acceleration></axis_info></technique_common>
  </motion>
  <extra type="interface_type"><technique profile="OpenRAVE">
   <interface type="robot">GenericRobot</interface></technique></extra>
  <extra name="hand" type="manipulator"><technique profile="OpenRAVE">
   <frame_origin link="kmodel1/link0"/>
   <frame_tip link="kmodel1/link2"><translate>0 0 0.2</translate>
    <direction>0 0 1</direction></frame_tip>
  </technique></extra>
  </articulated_system>
 </library_articulated_systems>
 <library_kinematics_scenes><kinematics_scene id="kscene">
  <instance_articulated_system url="#motion" sid="sys" name="tiny">
   <newparam sid="s_inst"><SIDREF>motion/m_inst</SIDREF></newparam>
   <newparam sid="s_j1"><SIDREF>motion/m_j1</SIDREF></newparam>
   <newparam sid="s_j1_value"><float>30</float></newparam>
   <newparam sid="s_j2"><SIDREF>motion/m_j2</SIDREF></newparam>
  </instance_articulated_system>
 </kinematics_scene></library_kinematics_scenes>
 <library_physics_models><physics_model id="pm">
  <rigid_body sid="rb2"><technique_common><dynamic>true</dynamic><mass>2</mass>
   <mass_frame><translate>0 0.1 0.5</translate><rotate>0 0 1 90</rotate></mass_frame>
   <inertia>0.01 0.02 0.03</inertia></technique_common></rigid_body>
 </physics_model></library_physics_models>
 <library_physics_scenes><physics_scene id="pscene">
  <instance_physics_model url="#pm" parent="#n0">
   <instance_rigid_body body="rb2" target="#n2"/>
  </instance_physics_model>
 </physics_scene></library_physics_scenes>
 <scene>
  <instance_physics_scene url="#pscene"/>
  <instance_visual_scene url="#vscene"/>
  <instance_kinematics_scene url="#kscene">
   <bind_kinematics_model node="visual1/node0"><param>s_inst</param></bind_kinematics_model>
   <bind_joint_axis target="visual1/j1_axis">
    <axis><param>s_j1</param></axis><value><param>s_j1_value</param></value>
   </bind_joint_axis>
   <bind_joint_axis target="visual1/j2_axis"><axis><param>s_j2</param></axis></bind_joint_axis>
  </instance_kinematics_scene>
 </scene>
</COLLADA>
'''


def dae_variant(tmp_path, *replacements, name: str = 'variant.dae'):
    """The small robot :data:`DAE` with each ``(old, new)`` replaced once, written to
    ``tmp_path / name``; its path."""
    text = DAE
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / 'tiny.dae'
    path.write_text(DAE)
    return path


def _zae(path, members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, 'w', compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_kinematics_limits_speeds_and_the_start_value(tiny):
    model = load_model(tiny)
    assert model.name == 'tiny'
    joints = {j.name: j for j in model.joints}
    j1 = joints['j1']
    assert j1.type.value == 'revolute'
    links = {link.name: link for link in model.links}
    # the axis: x of the attachment turned 90 deg about z = world y, through (0, 0, 0.5)
    axis_world = links['link1'].pose.rot @ j1.axis
    np.testing.assert_allclose(axis_world, (0, 1, 0), atol=1e-12)
    np.testing.assert_allclose(links['link1'].pose.pos, (0, 0, 0.5), atol=1e-12)
    # axis_info's limits win over the axis' own; degrees; motion speed deg/s -> rad/s
    assert j1.limits.lower == pytest.approx(math.radians(-45))
    assert j1.limits.upper == pytest.approx(math.radians(90))
    assert j1.limits.velocity == pytest.approx(math.radians(30))
    assert j1.meta['maxaccel'] == pytest.approx((math.radians(90),))
    # the scene's value (30 deg) is where j1 starts; j2 follows its formula
    assert j1.initial == pytest.approx(math.radians(30))
    j2 = joints['j2']
    assert j2.mimic is not None and j2.mimic.joint == 'j1'
    assert (j2.mimic.multiplier, j2.mimic.offset) == pytest.approx((2.0, 0.1))
    assert j2.initial == pytest.approx(2 * math.radians(30) + 0.1)


def test_mass_frame_geometry_collision_and_manipulator(tiny):
    model = load_model(tiny)
    links = {link.name: link for link in model.links}
    inertial = links['link2'].inertial
    assert inertial.mass == 2.0
    # mass frame (0, 0.1, 0.5) turned 90 deg about z, in the world; link2 sits at (0, 0, 0.5)
    # turned the same way: the centre is 0.1 m along the link's x, the moments unturned
    com_world = links['link2'].pose.apply(inertial.com)
    np.testing.assert_allclose(com_world, (0, 0.1, 0.5), atol=1e-12)
    moments = links['link2'].pose.rot @ inertial.inertia @ links['link2'].pose.rot.T
    np.testing.assert_allclose(np.diag(moments), (0.02, 0.01, 0.03), atol=1e-12)
    assert links['base'].inertial.mass == pytest.approx(1e-10)   # no rigid body: OpenRAVE's
    # one tetrahedron drawn and colliding on base and on link1, placed by the node
    assert len(links['base'].visuals) == 1 and len(links['link1'].collisions) == 1
    assert ('base', 'link2') in model.adjacent
    (manip,) = model.manipulators
    assert (manip.base, manip.effector, manip.arm_joints) == ('base', 'link2', ('j1', 'j2'))
    frame = {f.name: f for f in model.frames}[manip.tool_frame]
    np.testing.assert_allclose(frame.pose.pos, (0, 0, 0.2), atol=1e-12)


def test_a_zae_archive_reads_its_manifest(tiny, tmp_path):
    zae = _zae(tmp_path / 'tiny.zae', {'manifest.xml': b'<dae_root>./inner/tiny.dae</dae_root>',
                                       'inner/tiny.dae': DAE.encode(),
                                       'other.dae': b'not this one'})
    model = load_model(zae)
    assert {j.name for j in model.joints} >= {'j1', 'j2'}


@pytest.mark.parametrize('members, message', [
    ({}, 'no manifest.xml naming the document'),
    ({'a.dae': b'<x/>', 'b.dae': b'<x/>'}, 'not exactly one .dae'),
    ({'a.dae': b'<robot/>'}, 'not a COLLADA document'),
    ({'a.dae': b'<COLLADA><broken'}, 'not well-formed XML'),
])
def test_broken_archives_fail_with_one_line(tmp_path, members, message):
    zae = _zae(tmp_path / 'bad.zae', members)
    with pytest.raises(ModelError, match=message) as info:
        load_model(zae)
    assert '\n' not in str(info.value)


def test_a_zip_bomb_is_refused(tmp_path):
    bomb = b'<COLLADA>' + b' ' * (collada_doc.MAX_RATIO * 20_000) + b'</COLLADA>'
    zae = _zae(tmp_path / 'bomb.zae', {'bomb.dae': bomb})
    with pytest.raises(ModelError, match='refused: bomb.dae would expand') as info:
        load_model(zae)
    assert '\n' not in str(info.value)


def test_not_a_zip(tmp_path):
    path = tmp_path / 'x.zae'
    path.write_bytes(b'PK but not really')
    with pytest.raises(ModelError, match='not a zip archive'):
        load_model(path)


def test_xml_include_with_prefix_and_appended_elements(tiny, tmp_path):
    (tmp_path / 'arm.robot.xml').write_text('''
<Robot name="wrapped">
  <Robot file="tiny.dae" prefix="r_">
    <translation>1 0 0</translation>
  </Robot>
  <KinBody>
    <Body name="tool"><Geom type="sphere"><radius>0.05</radius></Geom>
      <offsetfrom>r_link2</offsetfrom><translation>0 0 0.3</translation></Body>
    <Joint name="tool_joint" type="hinge" enable="false"><body>r_link2</body><body>tool</body>
      <limitsdeg>0 0</limitsdeg></Joint>
  </KinBody>
  <Manipulator name="gripper"><base>r_base</base><effector>tool</effector></Manipulator>
  <AttachedSensor name="cam"><link>r_link1</link>
    <sensor type="BaseCamera"><KK>100 100 32 24</KK><width>64</width><height>48</height>
    </sensor></AttachedSensor>
</Robot>''')
    model = load_model(tmp_path / 'arm.robot.xml')
    names = {link.name for link in model.links}
    assert {'r_base', 'r_link1', 'r_link2', 'tool'} <= names
    joints = {j.name: j for j in model.joints}
    assert joints['r_j2'].mimic.joint == 'r_j1'           # the formula follows the prefix
    assert {m.name for m in model.manipulators} == {'r_hand', 'gripper'}
    links = {link.name: link for link in model.links}
    np.testing.assert_allclose(links['r_link1'].pose.pos, (1, 0, 0.5), atol=1e-12)
    assert [d.name for d in model.devices] == ['cam'] and model.devices[0].link == 'r_link1'


def test_a_missing_collada_include_names_the_file(tmp_path):
    (tmp_path / 'a.robot.xml').write_text('<Robot file="nowhere.zae"/>')
    with pytest.raises(ModelError, match="'nowhere.zae' not found"):
        load_model(tmp_path / 'a.robot.xml')


@pytest.mark.corpus
def test_puma_numbers_are_the_files():
    model = load_model(ROBOTS / 'pumaarm.zae')
    links = {link.name: link for link in model.links}
    joints = {j.name: j for j in model.joints}
    assert links['Base'].inertial.mass == 100.0           # rigid0: <mass>100</mass>
    np.testing.assert_allclose(links['Base'].inertial.com, (0, 0, 0.8))
    np.testing.assert_allclose(links['Puma1'].pose.pos, (0, 0, 1.371))
    assert joints['J1'].limits.lower == pytest.approx(math.radians(-223))
    assert joints['J1'].limits.upper == pytest.approx(math.radians(43))
    assert joints['J0'].limits.velocity == pytest.approx(math.radians(85.94366926962348))


@pytest.mark.corpus
def test_puma_robot_xml_joins_arm_and_gripper_at_one_link():
    model = load_model(ROBOTS / 'puma.robot.xml')
    names = [link.name for link in model.links]
    assert names.count('Puma6') == 1 and {'RClaw', 'LClaw'} <= set(names)
    joints = {j.name: j for j in model.joints}
    assert joints['m1'].parent == 'Puma6' and joints['m2'].mimic.joint == 'm1'
    assert {m.name for m in model.manipulators} >= {'arm', 'arm_nogripper'}


@pytest.mark.corpus
def test_pr2_sensors_manipulators_and_mimic_joints():
    model = load_model(ROBOTS / 'pr2-beta-static.zae')
    kinds = {d.name: d.kind.value for d in model.devices}
    assert kinds == {'r_forearm_cam_optical_sensor': 'camera',
                     'l_forearm_cam_optical_sensor': 'camera', 'tilt_laser': 'range',
                     'base_laser': 'range'}
    camera = {d.name: d for d in model.devices}['l_forearm_cam_optical_sensor']
    assert (camera.params['width'], camera.params['height']) == (640, 480)
    assert camera.params['fx'] == pytest.approx(426.35142)
    assert camera.params['frame_rate'] == pytest.approx(25.0, rel=1e-6)
    assert len(model.manipulators) == 8
    mimics = [j for j in model.joints if j.mimic is not None]
    assert len(mimics) == 6
    assert all(not w.endswith('has no <sensor type=...>; it was ignored') or 'stereo' in w
               for w in model.warnings)


@pytest.mark.parametrize('old, new, message', [
    ('attachment_full joint="kmodel1/joint0"', 'attachment_full joint="kmodel1/nothing"',
     "attachment_full joint='kmodel1/nothing' names no <joint>"),
    ('<p>0 2 1 0 1 3 0 3 2 1 2 3</p>', '<p>0 2 1 0 1 3 0 3 2 1 2 9</p>',
     '<triangles> indexes a position that does not exist'),
    ('0 0 0 0.1 0 0 0 0.1 0', '0 0 0 0.1 0 x 0 0.1 0', '<float_array> holds something that is'),
    ('<rotate>0 0 1 90</rotate>\n     <link sid="link1"',
     '<rotate>0 0 0 90</rotate>\n     <link sid="link1"', '<rotate> has a zero axis'),
    ('<revolute sid="axis0"><axis>1 0 0</axis>', '<spherical sid="axis0"><axis>1 0 0</axis>',
     None),
])
def test_broken_documents_fail_with_one_line(tmp_path, old, new, message):
    assert old in DAE
    text = DAE.replace(old, new, 1)
    if message is None:     # an axis kind COLLADA has and OpenRAVE does not read
        text = text.replace('</revolute></joint>\n   <joint name="j2"',
                            '</spherical></joint>\n   <joint name="j2"', 1)
        message = "joint 'j1': axes [] are not supported"
    path = tmp_path / 'broken.dae'
    path.write_text(text)
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert message in str(info.value) and '\n' not in str(info.value)
    assert str(info.value).startswith(f'{path}:')


def test_link_collision_and_visible_states(tmp_path):
    text = DAE.replace('<ignore_link_pair link0="kmodel1/link0" link1="kmodel1/link2"/>',
                       '<link_collision_state link="kmodel1/link1"><bool>false</bool>'
                       '</link_collision_state><link_visible_state link="kmodel1/link0">'
                       '<bool>false</bool></link_visible_state>')
    path = tmp_path / 'states.dae'
    path.write_text(text)
    links = {link.name: link for link in load_model(path).links}
    assert len(links['link1'].visuals) == 1 and links['link1'].collisions == ()
    assert links['base'].visuals == () and len(links['base'].collisions) == 1


def test_collision_data_naming_nothing_or_unknown_is_warned_about(tmp_path):
    text = DAE.replace('<ignore_link_pair link0="kmodel1/link0" link1="kmodel1/link2"/>',
                       '<ignore_link_pair link0="kmodel1/link0" link1="kmodel1/link9"/>'
                       '<bind_instance_geometry type="box" link="kmodel1/link1"/>')
    path = tmp_path / 'collision.dae'
    path.write_text(text)
    model = load_model(path)
    assert ('base', 'link2') not in model.adjacent
    assert sum('ignore_link_pair names a link that does not exist; ignored' in w
               for w in model.warnings) == 1
    assert sum('<bind_instance_geometry> in a collision extra is not supported and was ignored'
               in w for w in model.warnings) == 1


def test_an_instance_node_cycle_does_not_hang(tmp_path):
    text = DAE.replace('<rotate sid="j2_axis">0 0 1 0</rotate>',
                       '<rotate sid="j2_axis">0 0 1 0</rotate><instance_node url="#n0"/>')
    path = tmp_path / 'cycle.dae'
    path.write_text(text)
    model = load_model(path)
    assert {link.name for link in model.links} == {'base', 'link1', 'link2'}


def test_a_scene_of_two_bodies_is_an_environment(tmp_path):
    text = DAE.replace('  </instance_articulated_system>\n </kinematics_scene>',
                       '  </instance_articulated_system>\n  <instance_articulated_system '
                       'url="#motion" sid="sys2" name="tiny"/>\n </kinematics_scene>')
    path = tmp_path / 'two.dae'
    path.write_text(text)
    model = load_model(path)
    assert model.root == 'world'
    names = {link.name for link in model.links}
    assert {'tiny/base', 'tiny1/base', 'tiny/link2', 'tiny1/link2'} <= names


def test_an_environment_includes_a_collada_body_as_a_kinbody(tiny, tmp_path):
    (tmp_path / 'scene.env.xml').write_text('''
<Environment>
  <KinBody file="tiny.dae" name="thing"><translation>0 2 0</translation></KinBody>
</Environment>''')
    model = load_model(tmp_path / 'scene.env.xml')
    world_joint = {j.name: j for j in model.joints}['thing/world_joint']
    assert world_joint.meta['body_kind'] == 'kinbody'
    links = {link.name: link for link in model.links}
    np.testing.assert_allclose(links['thing/link1'].pose.pos, (0, 2, 0.5), atol=1e-12)
