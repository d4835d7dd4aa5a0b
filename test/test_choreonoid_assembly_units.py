"""A Body file as read becomes the model: world poses, root, passive joints, checks, names."""

import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import choreonoid
from body_bridge.model import JointType


def load(tmp_path, text, name='m.body'):
    path = tmp_path / name
    path.write_text('format: ChoreonoidBody\nformat_version: 1.0\nangle_unit: radian\n' +
                    textwrap.dedent(text).lstrip('\n'))
    model = choreonoid.load(path)
    return model, [w.split(': ', 1)[1] for w in model.warnings]


def refused(tmp_path, text) -> ModelError:
    with pytest.raises(ModelError) as caught:
        load(tmp_path, text, 'bad.body')
    return caught.value


def test_world_poses_follow_the_tree_in_any_order(tmp_path):
    model, _ = load(tmp_path, """
        root_link: a
        links:
          - { name: c, parent: b, translation: [0, 0, 1] }
          - { name: a, translation: [1, 0, 0] }
          - { name: b, parent: a, translation: [0, 1, 0], rotation: [0, 0, 1, 1.5707963267948966] }
        """)
    np.testing.assert_allclose(model.link('a').pose.pos, [1, 0, 0])
    np.testing.assert_allclose(model.link('b').pose.pos, [1, 1, 0])
    np.testing.assert_allclose(model.link('c').pose.pos, [1, 1, 1], atol=1e-12)
    assert model.root == 'a' and [j.child for j in model.joints] == ['c', 'b']


def test_cycles_and_orphans_are_one_line(tmp_path):
    err = refused(tmp_path, 'links:\n  - { name: a }\n  - { name: b, parent: c }\n'
                  '  - { name: c, parent: b }\n')
    assert err.message.startswith('links form a cycle through') and err.line in (6, 7)
    err = refused(tmp_path, 'links:\n  - { name: a }\n  - { name: b }\n')
    assert (err.line, err.message) == (6, "link 'b' has no parent")


def test_the_root_s_joint(tmp_path):
    model, said = load(tmp_path, 'links:\n  - { name: a, joint_type: free }\n')
    assert model.root_joint == JointType.FREE and said == []
    model, said = load(tmp_path, 'links:\n  - { name: a, joint_type: revolute, parent: x }\n')
    assert model.root_joint == JointType.FIXED
    assert said == ["root link 'a' has a parent; it was ignored",
                    "root link 'a' has joint_type revolute; it is attached to the world as "
                    'fixed']


def test_joints_without_an_id_are_passive_where_others_have_one(tmp_path):
    model, _ = load(tmp_path, """
        links:
          - { name: a }
          - { name: b, parent: a, joint_type: revolute, joint_id: 0 }
          - { name: c, parent: a, joint_type: revolute }
          - { name: d, parent: a, joint_type: prismatic, joint_range: [-1, 1] }
          - { name: e, parent: a, joint_type: pseudo_continuous_track }
          - { name: f, parent: a }
        """)
    assert model.passive_joints == ('c', 'd')
    model, _ = load(tmp_path, 'links:\n  - { name: a }\n  - { name: b, parent: a, joint_type: '
                    'revolute }\n')
    assert model.passive_joints == ()


def test_a_track_joint_s_axis_is_made_unit(tmp_path):
    model, _ = load(tmp_path, 'links:\n  - { name: a }\n  - { name: t, parent: a, joint_type: '
                    'pseudo_continuous_track, joint_axis: [0, 2, 0], max_joint_velocity: 1 }\n')
    joint = model.joint('t')
    assert joint.type == JointType.TRACK and joint.axis.tolist() == [0, 1, 0]
    assert joint.limits.velocity == 1.0 and joint.limits.lower is None


@pytest.mark.parametrize('inertia, warned', [
    ('[1, 0, 0, 1, 0, 1]', False), ('[1, 0, 0, 1, 0, 2]', False),
    ('[1, 0, 0, 1, 0, 2.1]', True), ('[1, 0, 0, 1, 0, -0.1]', True),
])
def test_an_inertia_no_rigid_body_has_is_warned(tmp_path, inertia, warned):
    _, said = load(tmp_path, f'links:\n  - {{ name: a, mass: 1, inertia: {inertia} }}\n')
    found = [w for w in said if 'A + B >= C' in w]
    assert len(found) == warned
    if warned:
        assert found[0].startswith("link 'a': the inertia (principal moments ")


def test_devices_of_one_name_are_renamed_with_a_warning(tmp_path):
    model, said = load(tmp_path, """
        links:
          - { name: a, elements: [ { type: ForceSensor, name: f }, { type: ForceSensor, name: f },
                                   { type: ForceSensor, name: f } ] }
        """)
    assert [d.name for d in model.devices] == ['f', 'f_2', 'f_3']
    assert said == ["device name 'f' is used twice; this one is called 'f_2'",
                    "device name 'f' is used twice; this one is called 'f_3'"]


def test_a_warning_repeated_by_aliases_is_said_once_with_its_count(tmp_path):
    model, said = load(tmp_path, """
        links:
          - name: a
            elements:
              - &FLAT { type: Shape, geometry: { type: Box, size: [1, 1, 0] } }
              - *FLAT
              - *FLAT
        """)
    assert len(model.link('a').visuals) == 3
    assert len(said) == 1 and said[0].endswith('physics engines accept it (3 times)')


def test_links_that_touch_only_wires_have_no_collision_shapes(tmp_path):
    model, _ = load(tmp_path, """
        links:
          - { name: a, elements: { Shape: { geometry: { type: Box, size: [1, 1, 1] } } } }
          - { name: g, parent: a, elements: { Shape: { geometry: { type: Box, size: [1, 1, 1] } } } }
        collisionDetection: { excludeLinksDynamic: [g] }
        """)
    assert model.link('g').collisions == () and len(model.link('g').visuals) == 1
    assert len(model.link('a').collisions) == 1


def test_link_materials_without_a_table_say_so_and_a_bad_table_too(tmp_path):
    text = 'links:\n  - { name: a, material: Tire }\n  - { name: b, parent: a, material: Ice }\n'
    model, said = load(tmp_path, text)
    assert model.contact_pairs == () and model.contact_ground is None
    assert said == ['links name contact materials (Ice, Tire) but no Choreonoid material table '
                    'was found (default/materials.yaml above the model, or the material_table '
                    "parameter); contacts use the integrator's default values"]
    (tmp_path / 'default').mkdir()
    (tmp_path / 'default' / 'materials.yaml').write_text('other: 1\n')
    model, said = load(tmp_path, text)
    assert model.contact_pairs == ()
    assert said[-1].endswith("a material table needs a contact_materials list; contacts use "
                             "the integrator's default values")
    (tmp_path / 'default' / 'materials.yaml').write_text(
        'contact_materials:\n  - { materials: [Tire, Default], friction: 0.8 }\n')
    model, said = load(tmp_path, text)
    assert model.contact_ground == 'Ground' and model.contact_pairs[0].friction == 0.8
    assert said == []
    model, _ = load(tmp_path, 'links:\n  - { name: a, elements: { Shape: { geometry: '
                    '{ type: Box, size: [1, 1, 1] } } } }\n')
    assert model.contact_pairs == () and model.contact_ground is None
    assert model.contacts == ()  # no link names a material: the integrator's values


@pytest.mark.parametrize('inertia, warned', [
    # a thin disc: A + B = C exactly; a rod: A = 0, B = C; both bodies exist
    ('[0, 0, 0, 1, 0, 1]', False), ('[0.5, 0, 0, 0.5, 0, 1]', False),
    # A + B = 1.1 < C = 1.5 although B + B >= C
    ('[0.1, 0, 0, 1, 0, 1.5]', True),
    # large moments: the tolerance is 1e-9 of the largest (2e-6 here), so 1e-7 short of
    # A + B = C is rounding, 1e-5 short is not
    ('[1000, 0, 0, 1000, 0, 2000.0000001]', False), ('[1000, 0, 0, 1000, 0, 2000.00001]', True),
    # below 1 kg m^2 the tolerance is 1e-9 kg m^2 itself
    ('[0.25, 0, 0, 0.25, 0, 0.5000000005]', False), ('[0.25, 0, 0, 0.25, 0, 0.5000000015]', True),
])
def test_the_rigid_body_inertia_check_at_its_edges(tmp_path, inertia, warned):
    _, said = load(tmp_path, f'links:\n  - {{ name: a, mass: 1, inertia: {inertia} }}\n')
    assert len([w for w in said if 'A + B >= C' in w]) == warned


@pytest.mark.parametrize('gap, warned', [(0.5e-6, False), (1.5e-6, True)])
def test_an_extra_joint_s_points_may_be_a_micrometre_apart(tmp_path, gap, warned):
    """Points up to 1e-6 m apart at the reference pose are the same point (rounding of
    written poses); farther apart is warned."""
    _, said = load(tmp_path, f"""
        links:
          - {{ name: a }}
          - {{ name: b, parent: a, joint_type: revolute, translation: [0, 0, 1] }}
        extra_joints:
          - {{ link1_name: a, link2_name: b, joint_type: ball, link1_local_pos: [0, 0, {1 + gap!r}] }}
        """)
    found = [w for w in said if 'apart at the reference pose' in w]
    assert len(found) == warned
    if warned:
        assert found[0] == ("the points of extra joint 'extra_joint0_a_b' are 1.5e-06 m apart "
                            'at the reference pose; the integrator holds them there')
