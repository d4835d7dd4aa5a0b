"""The OpenRAVE model builder's own rules (body_bridge.formats.openrave.builder): start values
from ``<jointvalues>`` and mimic formulas, manipulators whose parts are missing or misplaced,
adjacency, sensors on missing links: one clear warning or one clear error line, never a raw
exception or a silently wrong value."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formats.openrave.builder import is_openrave, load_xml
from body_bridge.model import JointType

BOX = '<Geom type="box"><extents>0.05 0.05 0.05</extents></Geom>'
MASS = '<Mass type="box"><extents>0.05 0.05 0.05</extents><total>0.5</total></Mass>'


def _body(name, static=False, at='0 0 0'):
    kind = ' type="static"' if static else ''
    return f'<Body name="{name}"{kind}><Translation>{at}</Translation>{BOX}{MASS}</Body>'


def _hinge(name, parent, child, extra='', attrs=''):
    return (f'<Joint name="{name}" type="hinge"{attrs}><Body>{parent}</Body><Body>{child}</Body>'
            f'<axis>0 0 1</axis>{extra}</Joint>')


def write(tmp_path, text, name='r.robot.xml'):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).strip() + '\n')
    return path


ARM = """<Robot name="arm"><KinBody>
  {base}
  {l1}{l2}{l3}{finger}
  {j1}{j2}{j3}
  <Joint name="u" type="universal"><Body>l3</Body><Body>finger</Body><anchor>0 0 0.4</anchor>
    <axis1>1 0 0</axis1><axis2>0 1 0</axis2></Joint>
  {extra}
</KinBody>
{after}
</Robot>"""


def arm(tmp_path, extra='', after='', j3=None):
    text = ARM.format(base=_body('base', static=True), l1=_body('l1', at='0 0 0.1'),
                      l2=_body('l2', at='0 0 0.2'), l3=_body('l3', at='0 0 0.3'),
                      finger=_body('finger', at='0 0 0.4'),
                      j1=_hinge('j1', 'base', 'l1', '<limits>-2 2</limits>'),
                      j2=_hinge('j2', 'l1', 'l2', attrs=' enable="false"'),
                      j3=j3 if j3 is not None else _hinge('j3', 'l2', 'l3'),
                      extra=extra, after=after)
    return load_model(write(tmp_path, text))


def test_jointvalues_give_every_active_degree_of_freedom_its_start(tmp_path):
    # active: j1, j3, u (two axes); j2 is passive (enable="false") and takes no value
    model = arm(tmp_path, after='<jointvalues>0.5 -0.25 0.1 0.2</jointvalues>')
    initial = {j.name: j.initial for j in model.joints}
    assert initial['j1'] == 0.5 and initial['j3'] == -0.25
    assert initial['u_axis1'] == 0.1 and initial['u_axis2'] == 0.2
    assert initial['j2'] == 0.0
    assert not [w for w in model.warnings if '<jointvalues>' in w]


@pytest.mark.parametrize('values', ['0.5 -0.25 0.1', '0.5 -0.25 0.1 0.2 0.3'])
def test_jointvalues_of_the_wrong_count_are_ignored_with_a_warning(tmp_path, values):
    model = arm(tmp_path, after=f'<jointvalues>{values}</jointvalues>')
    assert all(j.initial == 0.0 for j in model.joints)
    n = len(values.split())
    assert any(f'r.robot.xml:9: <jointvalues> has {n} values for 4 degrees of freedom; '
               'ignored' in w for w in model.warnings), model.warnings


def test_a_mimic_joint_starts_where_its_formula_puts_it(tmp_path):
    # m2 follows m1 which follows j1: written before them, it settles in a second pass
    extra = (_body('m1l', at='0.2 0 0') + _body('m2l', at='0.3 0 0') +
             _hinge('m2', 'base', 'm2l', attrs=' enable="false" mimic_pos="m1 + 0.1"') +
             _hinge('m1', 'base', 'm1l', '<limits>-1 1</limits>',
                    attrs=' enable="false" mimic_pos="j1*2"'))
    model = arm(tmp_path, extra=extra, after='<jointvalues>0.3 0 0 0</jointvalues>')
    assert model.joint('m1').initial == pytest.approx(0.6)
    assert model.joint('m2').initial == pytest.approx(0.7)


def test_a_mimic_formula_undefined_at_the_start_values_is_one_error_line(tmp_path):
    extra = _body('m1l', at='0.2 0 0') + _hinge(
        'm1', 'base', 'm1l', attrs=' enable="false" mimic_pos="sqrt(j1 - 1)"')
    with pytest.raises(ModelError) as err:
        arm(tmp_path, extra=extra)
    message = str(err.value)
    assert '\n' not in message and message.startswith(str(tmp_path / 'r.robot.xml'))
    assert "joint 'm1'" in message and 'undefined' in message


MANIP = """<Manipulator name="hand"><base>{base}</base><effector>{effector}</effector>
  <joints>{joints}</joints><closingdirection>{closing}</closingdirection>
  <direction>0 0 1</direction></Manipulator>"""


def test_a_manipulator_has_its_arm_joints_from_base_to_effector(tmp_path):
    model = arm(tmp_path, after=MANIP.format(base='l1', effector='finger', joints='j3',
                                            closing='1'))
    (manip,) = model.manipulators
    # j2 is passive (a fixed joint in the model): not an arm joint
    assert manip.arm_joints == ('j3', 'u_axis1', 'u_axis2')
    assert (manip.base, manip.effector) == ('l1', 'finger')
    assert not [w for w in model.warnings if "manipulator 'hand'" in w]


def test_a_manipulator_naming_missing_gripper_joints_keeps_the_others(tmp_path):
    model = arm(tmp_path, after=MANIP.format(base='base', effector='l3', joints='j3 nope gone',
                                            closing='1 -1 1'))
    (manip,) = model.manipulators
    assert manip.gripper_joints == ('j3',)
    assert manip.arm_joints == ('j1', 'j3')
    assert manip.closing_direction == (1, -1, 1) and manip.tool_frame == 'hand'
    np.testing.assert_allclose(manip.direction, (0, 0, 1))
    assert any("r.robot.xml:9: manipulator 'hand': joints nope, gone do not exist; dropped"
               in w for w in model.warnings), model.warnings
    assert [f.name for f in model.frames] == ['hand']


def test_an_effector_not_below_its_base_has_no_arm_joints_and_a_warning(tmp_path):
    model = arm(tmp_path, after=MANIP.format(base='l3', effector='l1', joints='', closing=''))
    (manip,) = model.manipulators
    assert manip.arm_joints == ()
    assert any("manipulator 'hand': base 'l3' is not above effector 'l1'" in w
               for w in model.warnings), model.warnings


def test_adjacent_links_and_links_joined_in_loops(tmp_path):
    loop = _hinge('close', 'l3', 'base')
    model = arm(tmp_path, extra=loop + '<adjacent>l1 l3</adjacent><adjacent>l1 nope</adjacent>'
                '<adjacent>gone l2</adjacent>')
    assert ('l1', 'l3') in model.adjacent
    assert not [p for p in model.adjacent if 'gone' in p or 'nope' in p]
    assert any("<adjacent> names a link that does not exist: 'gone' or 'l2'; ignored" in w
               for w in model.warnings)
    assert model.closures                    # the loop: its joined links never collide
    for closure in model.closures:
        assert (closure.link1, closure.link2) in model.adjacent
    assert any("<adjacent> names a link that does not exist: 'l1' or 'nope'; ignored" in w
               for w in model.warnings)
    assert len(model.adjacent) == len(set(model.adjacent))


def test_sensors_on_missing_links_are_ignored_with_a_warning(tmp_path):
    after = ('<AttachedSensor name="imu"><link>nope</link><sensor type="BaseIMU"/>'
             '</AttachedSensor>')
    model = arm(tmp_path, after=after)
    assert not model.devices
    assert any("sensor 'imu': link 'nope' does not exist; the sensor was ignored" in w
               for w in model.warnings), model.warnings


def test_a_robot_is_fixed_and_named_a_free_kinbody_floats(tmp_path):
    model = arm(tmp_path)
    assert (model.name, model.root, model.root_joint) == ('arm', 'base', JointType.FIXED)
    body = load_model(write(tmp_path, f'<KinBody name="crate">{_body("box")}</KinBody>',
                            'crate.kinbody.xml'))
    assert (body.name, body.root_joint) == ('crate', JointType.FREE)


def test_an_environment_prefixes_each_body_and_gives_each_its_jointvalues(tmp_path):
    write(tmp_path, f"""<Robot name="two"><KinBody>{_body('a', static=True)}
        {_body('b', at='0 0 0.1')}{_hinge('j', 'a', 'b')}</KinBody></Robot>""", 'two.robot.xml')
    env = load_model(write(tmp_path, """<Environment>
        <Robot file="two.robot.xml" name="left"><jointvalues>0.25</jointvalues></Robot>
        <Robot file="two.robot.xml" name="right"><jointvalues>-0.5</jointvalues></Robot>
        </Environment>""", 'scene.env.xml'))
    assert env.name == 'scene' and env.root == 'world'
    assert env.joint('left/j').initial == 0.25 and env.joint('right/j').initial == -0.5
    assert env.joint('left/world_joint').type == JointType.FIXED


def test_plain_xml_files_are_openrave_only_with_an_openrave_root(tmp_path):
    robot = write(tmp_path, f'<Robot name="r"><KinBody>{_body("a")}</KinBody></Robot>', 'r.xml')
    other = write(tmp_path, '<launch>\n<node/></launch>', 'o.xml')
    broken = write(tmp_path, '<Robot', 'b.xml')
    assert is_openrave(robot) and not is_openrave(other) and not is_openrave(broken)
    assert load_xml(robot).name == 'r'
    with pytest.raises(ModelError) as err:
        load_xml(other)
    assert str(err.value) == (f'{other}:1: not an OpenRAVE file: the root element is <launch>, '
                              'not <Environment>, <Robot> or <KinBody>')


def test_a_sensor_without_a_link_or_a_name_is_on_the_first_link(tmp_path):
    after = ('<AttachedSensor><translation>0 0 0.5</translation>'
             '<sensor type="BaseForce6D"/></AttachedSensor>')
    model = arm(tmp_path, after=after)
    (device,) = model.devices
    assert (device.name, device.link) == ('sensor', 'base')
    np.testing.assert_allclose(device.pose.pos, (0, 0, 0.5))


def test_links_joined_in_a_loop_stay_adjacent_unless_the_file_says_otherwise(tmp_path):
    loop = _hinge('close', 'l3', 'base')
    model = arm(tmp_path, extra=loop)
    assert model.closures and all((c.link1, c.link2) in model.adjacent for c in model.closures)
    text = ARM.replace('<KinBody>', '<KinBody makejoinedlinksadjacent="false">', 1)
    path = write(tmp_path, text.format(
        base=_body('base', static=True), l1=_body('l1', at='0 0 0.1'),
        l2=_body('l2', at='0 0 0.2'), l3=_body('l3', at='0 0 0.3'),
        finger=_body('finger', at='0 0 0.4'), j1=_hinge('j1', 'base', 'l1'),
        j2=_hinge('j2', 'l1', 'l2'), j3=_hinge('j3', 'l2', 'l3'), extra=loop, after=''))
    apart = load_model(path)
    assert apart.closures and not apart.adjacent
    assert any('makejoinedlinksadjacent="false": links joined in the tree still never collide'
               in w for w in apart.warnings), apart.warnings


def test_a_kinbody_whose_first_link_is_static_is_fixed(tmp_path):
    body = load_model(write(tmp_path, f'<KinBody name="table">{_body("top", static=True)}'
                                      f'{_body("leg")}<Joint name="f" type="hinge" '
                                      'enable="false"><Body>top</Body><Body>leg</Body></Joint>'
                                      '</KinBody>', 'table.kinbody.xml'))
    assert (body.name, body.root, body.root_joint) == ('table', 'top', JointType.FIXED)


def _arm_with(tmp_path, kind: str, values: str):
    """The arm with its universal joint made ``kind``, started at ``<jointvalues>``."""
    return load_model(write(tmp_path, ARM.format(
        base=_body('base', static=True), l1=_body('l1', at='0 0 0.1'),
        l2=_body('l2', at='0 0 0.2'), l3=_body('l3', at='0 0 0.3'),
        finger=_body('finger', at='0 0 0.4'), j1=_hinge('j1', 'base', 'l1'),
        j2=_hinge('j2', 'l1', 'l2', attrs=' enable="false"'), j3=_hinge('j3', 'l2', 'l3'),
        extra='', after=f'<jointvalues>{values}</jointvalues>'
    ).replace('type="universal"', f'type="{kind}"')))


def test_a_hinge2_joint_takes_two_jointvalues_as_a_universal_one_does(tmp_path):
    # OpenRAVE: hinge2 has two degrees of freedom, each its own value in <jointvalues>
    model = _arm_with(tmp_path, 'hinge2', '0.5 -0.25 0.1 0.2')
    initial = {j.name: j.initial for j in model.joints}
    assert (initial['u_axis1'], initial['u_axis2']) == (0.1, 0.2)
    assert not [w for w in model.warnings if '<jointvalues>' in w]


def test_a_spherical_joint_takes_three_jointvalues(tmp_path):
    # OpenRAVE: a spherical joint has three degrees of freedom, three values in <jointvalues>
    model = _arm_with(tmp_path, 'spherical', '0.5 -0.25 0 0 0')
    initial = {j.name: j.initial for j in model.joints}
    assert (initial['j1'], initial['j3']) == (0.5, -0.25)
    assert not [w for w in model.warnings if '<jointvalues>' in w]


def test_two_joints_of_one_name_are_refused_at_the_second(tmp_path):
    path = write(tmp_path, f"""
        <KinBody name="k">
          {_body('a', static=True)}
          {_body('b')}
          {_body('c')}
          {_hinge('j', 'a', 'b')}
          {_hinge('j', 'b', 'c')}
        </KinBody>""", 'k.kinbody.xml')
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert str(err.value) == f"{path}:6: duplicate joint name 'j'"


def test_a_sensor_on_a_link_away_from_the_origin_keeps_its_place_on_it(tmp_path):
    # l3 is 0.3 m up: the sensor 5 cm above l3's origin is 5 cm above it in l3's frame
    after = ('<AttachedSensor name="f"><link>l3</link><translation>0 0 0.05</translation>'
             '<sensor type="BaseForce6D"/></AttachedSensor>')
    (device,) = arm(tmp_path, after=after).devices
    assert device.link == 'l3'
    np.testing.assert_allclose(device.pose.pos, (0, 0, 0.05), atol=1e-12)


def test_jointvalues_start_the_active_joints_only_and_a_free_wheel_is_passive(tmp_path):
    # <jointvalues> holds one value per active joint: 'drive' only; the passive circular
    # hinge 'drive_idle1' (a wheel nothing drives) starts at 0 and turns freely
    path = write(tmp_path, f"""
        <Robot name="cart"><KinBody>
          {_body('base', static=True)}{_body('hub', at='0 0 0.1')}{_body('idler', at='0 0 0.2')}
          {_hinge('drive', 'base', 'hub')}
          {_hinge('drive_idle1', 'hub', 'idler', attrs=' enable="false" circular="true"')}
        </KinBody><jointvalues>0.5</jointvalues></Robot>""")
    model = load_model(path)
    starts = {j.name: j.initial for j in model.joints}
    assert starts == {'drive': 0.5, 'drive_idle1': 0.0}
    assert model.passive_joints == ('drive_idle1',)
    assert model.joint('drive_idle1').type == JointType.CONTINUOUS
