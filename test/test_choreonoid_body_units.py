"""Choreonoid Body files: the header, the links list, tracks, sub-bodies and extra joints."""

import math
import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.formats import choreonoid
from body_bridge.formats.choreonoid import body as body_module
from body_bridge.model import JointType

HEAD = 'format: ChoreonoidBody\nformat_version: 1.0\nangle_unit: radian\n'


def write(tmp_path, text, name='m.body', head=HEAD):
    path = tmp_path / name
    path.write_text(head + textwrap.dedent(text).lstrip('\n'))
    return path


def load(tmp_path, text, **kw):
    model = choreonoid.load(write(tmp_path, text, **kw))
    return model, [w.split(': ', 1)[1] for w in model.warnings]


def refused(tmp_path, text, error=ModelError, **kw) -> ModelError:
    path = write(tmp_path, text, 'bad.body', **kw)
    with pytest.raises(error) as caught:
        choreonoid.load(path)
    assert '\n' not in str(caught.value)
    return caught.value


@pytest.mark.parametrize('head, message', [
    ('format: ChoreonoidBody\nformat_version: 0.9\n', 'format_version 0.9 is not supported (1.0 '
     'to 2.0)'),
    ('format: ChoreonoidBody\nformat_version: 2.1\n', 'format_version 2.1 is not supported (1.0 '
     'to 2.0)'),
    ('format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: radian\n',
     'angle_unit: radian is not allowed with format_version 2.0'),
    ('format: ChoreonoidBody\nangle_unit: grad\n',
     "angle_unit must be degree or radian, found 'grad'"),
    ('format_version: 1.0\n', 'not a Choreonoid Body file: "format: ChoreonoidBody" is missing'),
    ('format: Other\n', "not a Choreonoid Body file: format is 'Other'"),
])
def test_bad_headers_are_one_line_at_line_1(tmp_path, head, message):
    err = refused(tmp_path, 'links: [ { name: a } ]\n', head=head,
                  error=UnsupportedError if 'not supported' in message else ModelError)
    assert (err.line, err.message) == (1, message)


def test_versions_and_units_read(tmp_path):
    model, said = load(tmp_path, 'links: [ { name: a }, { name: b, parent: a, joint_type: '
                       'revolute, joint_range: [-90, 90] } ]\n',
                       head='format: ChoreonoidBody\nformat_version: 1.5\n')
    assert model.warnings == (
        f"{tmp_path / 'm.body'}:1: format_version 1.5 is read as 1.0/2.0 files are",)
    assert model.joint('b').limits.upper == pytest.approx(math.pi / 2)  # degrees by default
    for head in ('format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: degree\n',
                 'format: ChoreonoidBody\n'):
        model, said = load(tmp_path, 'links: [ { name: a }, { name: b, parent: a, joint_type: '
                           'revolute, joint_range: [-90, 90] } ]\n', head=head)
        assert said == [] and model.joint('b').limits.upper == pytest.approx(math.pi / 2)
    model, _ = load(tmp_path, 'links: [ { name: a }, { name: b, parent: a, joint_type: '
                    'revolute, joint_range: [-1, 1] } ]\n')
    assert model.joint('b').limits.upper == 1.0


@pytest.mark.parametrize('text, line, message', [
    ('name: x\n', 1, 'the body has no "links"'),
    ('links: []\n', 4, 'the body has no link'),
    ('links: 5\n', 4, '"links" must be a list, found int 5'),  # the line of the key
    ('links:\n  - 5\n', 5, 'a link must be a mapping, found int 5'),
    ('links:\n  - { name: a }\n  - { name: a }\n', 6, "duplicate link name 'a'"),
    ('root_link: b\nlinks:\n  - { name: a }\n', 1, "root_link 'b' is not a link of this body"),
    ('links:\n  - { name: a }\n  - { type: Beam, name: b }\n', 6,
     'Beam nodes in links are not supported'),
    ('links:\n  Link: { type: Skip }\n', 5, "node type 'Skip' differs from 'Link' given above it"),
])
def test_bad_link_lists_are_one_line(tmp_path, text, line, message):
    err = refused(tmp_path, text, error=UnsupportedError if 'supported' in message else
                  ModelError)
    assert (err.line, err.message) == (line, message)


@pytest.mark.parametrize('text, line, message', [
    ('name: x\n\nlinks:\n  5\n', 6, '"links" must be a list, found int 5'),
    ('links:\n  - { name: a }\n\n  -\n    5\n', 8, 'a link must be a mapping, found int 5'),
    ('links:\n  Link: { name: a }\n  Skip:\n    7\n', 6,
     'a link must be a mapping, found int 7'),
    ('links:\n  - { name: a }\n  - { name: b, parent: a }\nextra_joints: 3\n', 7,
     'extra_joints must be a list, found int 3'),
    ('links:\n  - { name: a }\n  - { name: b, parent: a }\nextra_joints:\n'
     '  - { link1_name: a, link2_name: b, joint_type: ball }\n  - 4\n', 9,
     'expected a mapping, found int 4'),
])
def test_a_scalar_where_a_mapping_or_list_belongs_names_its_own_line(tmp_path, text, line,
                                                                      message):
    err = refused(tmp_path, text)
    assert (err.line, err.message) == (line, message)


def test_a_top_level_that_is_no_mapping(tmp_path):
    err = refused(tmp_path, '- 1\n- 2\n', head='')
    assert (err.line, err.message) == (
        1, 'not a Choreonoid Body file: the top level is a list, not a mapping')


def test_links_as_a_mapping_skip_nodes_and_the_root(tmp_path):
    model, said = load(tmp_path, """
        name: robot
        root_link: b
        links:
          Link: { name: b }
          Skip: { name: old, anything: 1 }
        """)
    assert model.name == 'robot' and model.root == 'b' and said == []
    model, _ = load(tmp_path, """
        links:
          - { name: a }
          - { name: b, parent: a }
        """)
    assert model.name == 'm' and model.root == 'a'


def test_unknown_header_keys_are_warned(tmp_path):
    _, said = load(tmp_path, 'colour: red\nlinks: [ { name: a } ]\n')
    assert said == ["body: key 'colour' is not supported and was ignored"]


def test_the_number_of_links_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(body_module, 'MAX_LINKS', 2)
    model, _ = load(tmp_path, 'links: [ { name: a }, { name: b, parent: a } ]\n')
    assert len(model.links) == 2
    err = refused(tmp_path, 'links:\n  - { name: a }\n  - { name: b, parent: a }\n'
                  '  - { name: c, parent: a }\n')
    assert (err.line, err.message) == (
        7, 'the body has more than 2 links (sub-bodies and tracks included); refused')


TRACK = '{ type: ContinuousTrack, name: T, parent: a, num_joints: 4, joint_offset: [0.1, 0, 0]'


@pytest.mark.parametrize('keys, message', [
    ('{ type: ContinuousTrack, name: T, num_joints: 4, joint_offset: [0.1, 0, 0] }',
     'a ContinuousTrack needs a parent'),
    ('{ type: ContinuousTrack, name: T, parent: a, joint_offset: [0.1, 0, 0] }',
     'a ContinuousTrack needs num_joints of 3 or more'),
    ('{ type: ContinuousTrack, name: T, parent: a, num_joints: 10001, joint_offset: [1, 0, 0] }',
     'num_joints 10001 is more than the 10000 links a body may have'),
    (TRACK + ', joint_axis: [0, 0, 0] }', 'joint_axis is the zero vector'),
])
def test_bad_tracks_are_one_line(tmp_path, keys, message):
    err = refused(tmp_path, f'links:\n  - {{ name: a }}\n  - {keys}\n')
    assert (err.line, err.message) == (6, message)


def test_a_track_of_three_shoes_turns_about_z_by_default(tmp_path):
    model, said = load(tmp_path, f"""
        links:
          - {{ name: a }}
          - {TRACK[:-len(', joint_offset: [0.1, 0, 0]')].replace('4', '3')},
              joint_offset: [0.1, 0, 0], initial_joint_angles: [0.5, 0.25],
              elements: [ {{ type: Shape, geometry: {{ type: Box, size: [0.1, 0.1, 0.02] }} }},
                          {{ type: ForceSensor, name: F }} ] }}
        """)
    joint = model.joint('T')
    assert joint.type == JointType.TRACK and joint.axis.tolist() == [0, 0, 1]
    belt = model.link('T')
    assert len(belt.visuals) == 3 and [d.link for d in model.devices] == ['T']
    # the second shoe turned 0.5 rad about z from the first, the third 0.25 rad more
    x, y = zip(*[(v.pose.pos[0], v.pose.pos[1]) for v in belt.visuals])
    assert x == pytest.approx((0, 0.1, 0.1 + 0.1 * math.cos(0.5)))
    assert y == pytest.approx((0, 0, 0.1 * math.sin(0.5)))
    assert said[-1].startswith("ContinuousTrack 'T': the chain of 3 shoe links is approximated")


def test_track_angles_are_in_the_file_s_unit(tmp_path):
    model, _ = load(tmp_path, f"""
        links:
          - {{ name: a }}
          - {TRACK[:-len(', joint_offset: [0.1, 0, 0]')].replace('4', '3')},
              joint_offset: [0.1, 0, 0], initial_joint_angles: [90, 0],
              elements: [ {{ type: Shape, geometry: {{ type: Box, size: [0.1, 0.1, 0.02] }} }} ] }}
        """, head='format: ChoreonoidBody\n')
    ys = [v.pose.pos[1] for v in model.link('T').visuals]
    assert ys == pytest.approx([0, 0, 0.1])


def test_a_track_s_unused_keys_are_warned(tmp_path):
    _, said = load(tmp_path, f'links:\n  - {{ name: a }}\n  - {TRACK}, colour: red }}\n')
    assert "ContinuousTrack 'T': key 'colour' is not supported and was ignored" in said


def arm(tmp_path, name='arm.body', head=HEAD):
    write(tmp_path, """
        root_link: base
        links:
          - { name: base, mass: 1, inertia: [1, 0, 0, 1, 0, 1] }
          - { name: hand, parent: base, joint_type: revolute, joint_id: 1, joint_name: wrist,
              joint_range: [-1, 1], translation: [0, 0, 1],
              elements: [ { type: ForceSensor, name: ft } ] }
        extra_joints:
          - { name: loop, link1_name: base, link2_name: hand, joint_type: ball,
              link2_local_pos: [0, 0, -1] }
        """, name, head=head)


def test_sub_bodies_are_renamed_and_placed(tmp_path):
    arm(tmp_path)
    model, said = load(tmp_path, """
        links:
          - { name: body }
          - { type: SubBody, uri: arm.body, parent: body, prefix: L_, suffix: _1,
              joint_id_offset: 10, translation: [1, 0, 0] }
          - { type: SubBody, uri: arm.body, parent: body, prefix: R_, device_prefix: right_,
              rotation: [0, 0, 1, 1.5707963267948966] }
        """)
    assert [l.name for l in model.links] == ['body', 'L_base_1', 'L_hand_1', 'R_base', 'R_hand']
    left = model.joint('L_wrist_1')
    assert left.child == 'L_hand_1' and left.parent == 'L_base_1'
    assert left.meta['joint_id'] == 11 and model.joint('R_wrist').meta['joint_id'] == 1
    assert model.joint('L_base_1').parent == 'body'
    np.testing.assert_allclose(model.link('L_hand_1').pose.pos, [1, 0, 1])
    np.testing.assert_allclose(model.link('R_base').pose.rot @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    assert sorted(d.name for d in model.devices) == ['L_ft', 'right_ft']
    assert {d.name: d.link for d in model.devices} == {'L_ft': 'L_hand_1', 'right_ft': 'R_hand'}
    assert sorted((c.name, c.link1, c.link2) for c in model.closures) == [
        ('L_loop_1', 'L_base_1', 'L_hand_1'), ('R_loop', 'R_base', 'R_hand')]
    assert said == []


def test_a_sub_body_s_node_keys_apply_to_its_root(tmp_path):
    arm(tmp_path)
    model, said = load(tmp_path, """
        links:
          - { name: body }
          - { type: SubBody, uri: arm.body, parent: body, joint_type: revolute,
              joint_range: [-2, 2], colour: red }
        """)
    base = model.joint('base')
    assert base.type == JointType.REVOLUTE and base.limits.upper == 2.0
    np.testing.assert_allclose(model.link('base').pose.pos, [0, 0, 0])
    assert said == ["SubBody 'arm.body': key 'colour' is not supported and was ignored"]


@pytest.mark.parametrize('node, message', [
    ('{ type: SubBody, parent: a }', 'a SubBody needs a uri'),
    ('{ type: SubBody, uri: bad.body, parent: a }', "sub-body 'bad.body' includes itself"),
    ('{ type: SubBody, uri: none.body, parent: a }', "sub-body 'none.body' does not exist"),
    ('{ type: SubBody, uri: ., parent: a }', "sub-body '.' ("),
])
def test_bad_sub_bodies_are_one_line(tmp_path, node, message):
    err = refused(tmp_path, f'links:\n  - {{ name: a }}\n  - {node}\n')
    assert err.line == 6 and err.message.startswith(message)


def test_a_sub_body_cycle_through_two_files(tmp_path):
    write(tmp_path, 'links:\n  - { name: b }\n  - { type: SubBody, uri: bad.body, parent: b, '
          'prefix: x_ }\n', 'other.body')
    err = refused(tmp_path, 'links:\n  - { name: a }\n  - { type: SubBody, uri: other.body, '
                  'parent: a }\n')
    assert err.message == "sub-body 'bad.body' includes itself"
    assert err.path == str(tmp_path / 'other.body') and err.line == 6


def test_a_sub_body_read_twice_is_read_once(tmp_path):
    arm(tmp_path)
    model, said = load(tmp_path, """
        links:
          - { name: body }
          - { type: SubBody, uri: arm.body, parent: body, prefix: A }
          - { type: SubBody, uri: ./arm.body, parent: body, prefix: B }
        """)
    assert len(model.links) == 5 and said == []


def test_extra_joints(tmp_path):
    model, said = load(tmp_path, """
        links:
          - { name: a }
          - { name: b, parent: a, joint_type: revolute, translation: [0, 0, 1] }
        extra_joints:
          - { link1_name: a, link2_name: b, joint_type: hinge, joint_axis: X,
              link1_local_pos: [0, 0, 1] }
          - { link1_name: a, link2_name: b, joint_type: ball, link1_local_pos: [0, 0, 1] }
        """)
    hinge, ball = model.closures
    assert (hinge.name, hinge.type) == ('extra_joint0_a_b', 'hinge')
    assert hinge.axis.tolist() == [1, 0, 0] and ball.axis.tolist() == [0, 0, 1]
    assert (ball.name, ball.type) == ('extra_joint1_a_b', 'ball')
    assert hinge.pose1.pos.tolist() == [0, 0, 1] and hinge.pose2.pos.tolist() == [0, 0, 0]
    assert said == []


@pytest.mark.parametrize('joint, message', [
    ('{ link2_name: b, joint_type: ball }', 'an extra joint needs link1_name'),
    ('{ link1_name: a, link2_name: b }', 'an extra joint needs joint_type (ball, hinge, piston)'),
    ('{ link1_name: z, link2_name: b, joint_type: ball }', "link1_name 'z' is not a link of "
     'this body'),
])
def test_bad_extra_joints_are_one_line(tmp_path, joint, message):
    err = refused(tmp_path, 'links: [ { name: a }, { name: b, parent: a } ]\n'
                  f'extra_joints:\n  - {joint}\n')
    assert (err.line, err.message) == (6, message)
    err = refused(tmp_path, 'links: [ { name: a } ]\nextra_joints: 3\n')
    assert err.message == 'extra_joints must be a list, found int 3'


def test_an_extra_joint_s_unused_keys_are_warned(tmp_path):
    _, said = load(tmp_path, 'links: [ { name: a }, { name: b, parent: a } ]\n'
                   'extra_joints: [ { link1_name: a, link2_name: b, joint_type: ball, '
                   'stiff: 1 } ]\n')
    assert said == ["extra joint: key 'stiff' is not supported and was ignored"]


def test_a_sub_body_s_elements_add_devices_to_its_root_link(tmp_path):
    """As Choreonoid reads them: devices of the SubBody node's elements join the sub-body's
    root link, in its frame (a Transform placing them); shapes and masses are not taken."""
    arm(tmp_path)
    model, said = load(tmp_path, """
        links:
          - { name: body }
          - type: SubBody
            uri: arm.body
            parent: body
            prefix: L_
            translation: [1, 0, 0]
            elements:
              - { type: AccelerationSensor, name: acc, translation: [0, 0.5, 0] }
              - type: Transform
                translation: [0, 0, 2]
                elements: { RateGyroSensor: { name: gyro } }
        """)
    assert said == []
    devices = {d.name: d for d in model.devices}
    assert sorted(devices) == ['L_ft', 'acc', 'gyro']  # the prefix is the sub-body's own
    assert devices['acc'].link == devices['gyro'].link == 'L_base'
    np.testing.assert_allclose(devices['acc'].pose.pos, [0, 0.5, 0])
    np.testing.assert_allclose(devices['gyro'].pose.pos, [0, 0, 2])
    assert model.dropped == ()
    # one node under elements, and a mapping of type to node, as in links
    model, said = load(tmp_path, """
        links:
          - { name: body }
          - { type: SubBody, uri: arm.body, parent: body,
              elements: { type: RateGyroSensor, name: g1 } }
          - { type: SubBody, uri: arm.body, parent: body, prefix: B_,
              elements: { ForceSensor: { name: f2 }, RateGyroSensor: { name: g2 } } }
        """)
    assert {d.name: d.link for d in model.devices} == {
        'ft': 'hand', 'g1': 'base', 'B_ft': 'B_hand', 'f2': 'B_base', 'g2': 'B_base'}
    assert said == []


def test_shapes_in_a_sub_body_s_elements_are_not_used_and_said(tmp_path):
    arm(tmp_path)
    model, said = load(tmp_path, """
        links:
          - { name: body }
          - type: SubBody
            uri: arm.body
            parent: body
            elements:
              - { type: Shape, geometry: { type: Box, size: [1, 1, 1] } }
              - { type: RigidBody, mass: 3 }
              - { type: ForceSensor, name: f }
        """)
    assert model.link('base').collisions == () and model.link('base').visuals == ()
    assert model.link('base').inertial.mass == 1.0
    assert sorted(d.name for d in model.devices) == ['f', 'ft']
    assert said == ["SubBody 'arm.body': the shapes and masses of its elements are not used "
                    "(Choreonoid takes only devices from them); ignored"]
    assert model.warnings[0].startswith(f'{tmp_path / "m.body"}:9: ')  # its elements
    assert model.dropped == ()


def test_an_unsupported_element_of_a_sub_body_is_a_warning_and_dropped(tmp_path):
    arm(tmp_path)
    model, said = load(tmp_path, """
        links:
          - { name: body }
          - type: SubBody
            uri: arm.body
            parent: body
            elements:
              - { type: ForceSensor, name: f }
              - { type: WarpDrive, name: w }
              - { type: Group, elements: [ { type: Transform, elements: { Sonar: { } } } ] }
        """)
    path = tmp_path / 'm.body'
    assert sorted(d.name for d in model.devices) == ['f', 'ft']  # the others go on without them
    assert model.dropped == (
        f"{path}:11: WarpDrive nodes are not supported; this element of SubBody 'arm.body' "
        "was ignored",
        f"{path}:12: Sonar nodes are not supported; this element of SubBody 'arm.body' was "
        "ignored")
    assert list(model.dropped) == [w for w in model.warnings if 'not supported' in w]
    # a node written wrongly is still an error, with its line
    err = refused(tmp_path, """
        links:
          - { name: a }
          - type: SubBody
            uri: arm.body
            parent: a
            elements: [ { name: untyped } ]
        """)
    assert err.message == 'an element has no type' and err.line == 9


def test_a_sub_body_s_elements_of_the_wrong_kind_are_one_line(tmp_path):
    arm(tmp_path)
    err = refused(tmp_path, """
        links:
          - { name: a }
          - { type: SubBody, uri: arm.body, parent: a, elements: 5 }
        """)
    assert err.message.startswith('elements must be a list or a mapping, found ')
    assert err.line == 6
