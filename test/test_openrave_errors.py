"""Bad OpenRAVE input: one ``path:line: message`` line, never a traceback; warnings else."""

from __future__ import annotations

import textwrap

import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model

BODY = '<Body name="a" type="static"><Geom type="sphere"><radius>0.1</radius></Geom></Body>'


def write(folder, name: str, text: str):
    path = folder / name
    path.write_text(textwrap.dedent(text).strip() + '\n')
    return path


def fails(folder, text: str, match: str, name='bad.kinbody.xml', kind=ModelError) -> str:
    path = write(folder, name, text)
    with pytest.raises(kind) as info:
        load_model(path)
    message = str(info.value)
    assert '\n' not in message and match in message, message
    return message


def test_not_well_formed(tmp_path):
    message = fails(tmp_path, '<KinBody>\n  <Body name="a">\n</KinBody>', 'not well-formed XML')
    assert message.startswith(f'{tmp_path / "bad.kinbody.xml"}:3:')


def test_entity_expansion_is_refused(tmp_path):
    bomb = """<?xml version="1.0"?>
        <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>
        <KinBody name="&lol2;"/>"""
    fails(tmp_path, bomb, 'entities and external references are not allowed')


def test_external_entity_is_refused(tmp_path):
    write(tmp_path, 'secret.txt', 'secret')
    text = f"""<?xml version="1.0"?>
        <!DOCTYPE k [<!ENTITY x SYSTEM "file://{tmp_path}/secret.txt">]>
        <KinBody name="&x;"/>"""
    message = fails(tmp_path, text, 'not allowed')
    assert 'secret' not in message.split(':', 2)[-1].replace('secret.txt', '')


def test_root_element(tmp_path):
    fails(tmp_path, '<Sensor/>', 'bad.kinbody.xml:1: not an OpenRAVE file: the root element '
                                 'is <sensor>')


@pytest.mark.parametrize('joint, match', [
    ('<Joint name="j" type="screw"><Body>a</Body><Body>b</Body></Joint>',
     ":4: joint type 'screw' is not one of"),
    ('<Joint name="j"><Body>a</Body><Body>nope</Body></Joint>',
     ":4: joint 'j': link 'nope' is not defined"),
    ('<Joint name="j"><Body>a</Body></Joint>', ":4: joint 'j' must name two bodies, found 1"),
    ('<Joint name="j"><Body>a</Body><Body>b</Body><limits>0 1 2</limits></Joint>',
     ':4: <limits> must hold 2 numbers, found 3'),
    ('<Joint name="j"><Body>a</Body><Body>b</Body><axis>0 0 x</axis></Joint>',
     ":4: <axis> must hold numbers, found '0 0 x'"),
    ('<Joint name="j"><Body>a</Body><Body>b</Body><axis>0 0 0</axis></Joint>',
     ':4: <axis> is the zero vector'),
    ('<Joint name="j"><Body>a</Body><Body>b</Body><axis>0 0 1</axis><lostop>0</lostop></Joint>',
     ':4: <lostop> is deprecated'),
    ('<Joint name="j" enable="false" mimic_pos="k*2"><Body>a</Body><Body>b</Body>'
     '<axis>0 0 1</axis></Joint>', "mimic formula 'k*2' names unknown joint 'k'"),
    ('<Joint name="j" enable="false" mimic_pos="2*(j"><Body>a</Body><Body>b</Body>'
     '<axis>0 0 1</axis></Joint>', "joint 'j': mimic formula: '2*(j' ends too early"),
    ('<Joint name="j" enable="false" mimic_pos="0" mimic_vel="j 1"><Body>a</Body>'
     '<Body>b</Body><axis>0 0 1</axis></Joint>', 'needs "|joint expression" terms'),
])
def test_joint_errors(tmp_path, joint, match):
    text = '\n'.join(['<KinBody name="k">', BODY,
                      '<Body name="b"><Geom type="sphere"><radius>0.1</radius></Geom></Body>',
                      joint, '</KinBody>'])
    message = fails(tmp_path, text, match)
    assert 'bad.kinbody.xml:4:' in message


@pytest.mark.parametrize('body, match', [
    ('<Body name="b"><offsetfrom>zz</offsetfrom></Body>', "offsetfrom link 'zz' is not defined"),
    ('<Body name="b" type="floating"/>', "body type 'floating' is not static or dynamic"),
    ('<Body name="b"><Geom type="box"><extents>1 1</extents></Geom></Body>',
     '<extents> must hold 3 numbers'),
    ('<Body name="b"><Geom type="cylinder"><radius>1</radius></Geom></Body>',
     'a cylinder geometry needs a positive <radius> and <height>'),
    ('<Body name="b"><Mass type="heavy"/></Body>', "mass type 'heavy' is not one of"),
    ('<Body name="b"><Mass type="mimicgeom"><total>1</total></Mass></Body>',
     'a mimicgeom <total> mass needs box, sphere or cylinder geometries'),
    ('<Body name="b"><rotationaxis>0 0 0 90</rotationaxis></Body>', 'zero axis'),
    ('<Body name="b"><rotationmat>1 0 0 0 1 0 0 0 2</rotationmat></Body>',
     'not a rotation matrix'),
    ('<Body name="b"><Translation>0 0 inf</Translation></Body>', 'not finite'),
])
def test_body_errors(tmp_path, body, match):
    message = fails(tmp_path, f'<KinBody name="k">\n{BODY}\n{body}\n</KinBody>', match)
    assert 'bad.kinbody.xml:3:' in message


def test_missing_include(tmp_path):
    fails(tmp_path, '<Robot>\n<KinBody file="nothere.kinbody.xml"/>\n</Robot>',
          "bad.robot.xml:2: file 'nothere.kinbody.xml' not found", 'bad.robot.xml')


def test_include_of_the_wrong_kind(tmp_path):
    write(tmp_path, 'env.env.xml', '<Environment/>')
    fails(tmp_path, '<Robot><KinBody file="env.env.xml"/></Robot>',
          'env.env.xml:1: expected <kinbody> as the root element of an included file',
          'bad.robot.xml')


def test_a_broken_collada_include_fails_with_one_line(tmp_path):
    (tmp_path / 'arm.zae').write_bytes(b'PK\x03\x04')
    fails(tmp_path, '<Robot>\n<Robot file="arm.zae"/>\n</Robot>',
          'arm.zae: not a zip archive (.zae)', 'bad.robot.xml')
    with pytest.raises(ModelError, match=r'arm\.zae: not a zip archive'):
        load_model(tmp_path / 'arm.zae')


def test_duplicate_body_names_in_an_environment(tmp_path):
    fails(tmp_path, f"""<Environment>
        <KinBody name="x">{BODY}</KinBody>
        <KinBody name="x">{BODY}</KinBody>
        </Environment>""", "bad.env.xml:3: the environment already has a body named 'x'",
          'bad.env.xml')


def test_empty_body(tmp_path):
    fails(tmp_path, '<KinBody name="k"/>', "bad.kinbody.xml:1: kinbody 'k' has no links")


def test_ignored_things_are_warnings(tmp_path):
    path = write(tmp_path, 'w.robot.xml', f"""<Robot name="r">
        <KinBody>{BODY}
          <Body name="b"><Geom type="box"><extents>0.1 0.1 0.1</extents><foo>1</foo></Geom>
            <Geom type="cone"/><wobble/></Body>
          <Joint name="j" enable="false"><Body>a</Body><Body>b</Body></Joint><Body name="c"/>
          <Joint name="k" type="hinge"><Body>a</Body><Body>c</Body>
            <limits>0.2 0.2</limits></Joint>
        </KinBody>
        <controller type="IdealController"/>
        <Manipulator name="m"><base>a</base><effector>zz</effector></Manipulator>
        </Robot>""")
    model = load_model(path)
    text = '\n'.join(model.warnings)
    for expected in ('w.robot.xml:3: <foo> is not used by a box geometry and was ignored',
                     "w.robot.xml:4: geometry type 'cone' is not one of",
                     'w.robot.xml:4: <wobble> in a Body is not supported',
                     "w.robot.xml:5: passive joint 'j' has no formula; it is held at 0",
                     "w.robot.xml:6: joint 'k' has equal lower and upper limits",
                     'w.robot.xml:9: <controller> in a Robot is not supported',
                     "w.robot.xml:10: manipulator 'm': effector link 'zz' does not exist"):
        assert expected in text, (expected, text)
    assert model.joint('k').type.value == 'fixed' and model.joint('j').type.value == 'fixed'


def test_bad_jointvalues_count_is_a_warning(tmp_path):
    path = write(tmp_path, 'v.robot.xml', f"""<Robot name="r"><KinBody>{BODY}
        <Body name="b"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
        <Joint name="j"><Body>a</Body><Body>b</Body><axis>0 0 1</axis></Joint></KinBody>
        <jointvalues>1 2</jointvalues></Robot>""")
    model = load_model(path)
    assert model.joint('j').initial == 0.0
    assert any('<jointvalues> has 2 values for 1 degrees of freedom' in w
               for w in model.warnings)
