"""Choreonoid Body ``Link`` nodes: joint keys, ranges, axes, masses and ``import``."""

import math
import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import choreonoid
from body_bridge.model import JointType


def body(tmp_path, links_text, unit='radian', name='m.body'):
    """A body of a fixed root ``base`` and the links given (YAML list items, dedented)."""
    path = tmp_path / name
    path.write_text(f'format: ChoreonoidBody\nformat_version: 1.0\nangle_unit: {unit}\n'
                    'links:\n  - { name: base, joint_type: fixed }\n' +
                    textwrap.indent(textwrap.dedent(links_text).strip('\n'), '  ') + '\n')
    return path


def load(tmp_path, links_text, **kw):
    model = choreonoid.load(body(tmp_path, links_text, **kw))
    return model, [w.split(': ', 1)[1] for w in model.warnings]


def refused(tmp_path, links_text, **kw) -> ModelError:
    path = body(tmp_path, links_text, **kw)
    with pytest.raises(ModelError) as caught:
        choreonoid.load(path)
    assert caught.value.path == str(path) and '\n' not in str(caught.value)
    return caught.value


J = '- { name: j, parent: base, joint_type: revolute, '


def test_range_velocity_effort_and_armature_of_a_revolute_joint(tmp_path):
    model, said = load(tmp_path, J + 'joint_range: [-1, 2], max_joint_velocity: 3, '
                       'max_joint_effort: 40, rotor_inertia: 0.5, gear_ratio: 3, '
                       'joint_angle: 0.25, joint_id: 4, joint_name: joint_j }')
    joint = model.joint('joint_j')
    assert joint.child == 'j' and joint.type == JointType.REVOLUTE
    assert (joint.limits.lower, joint.limits.upper) == (-1.0, 2.0)
    assert (joint.limits.velocity, joint.limits.effort) == (3.0, 40.0)
    assert joint.armature == pytest.approx(4.5) and joint.initial == 0.25
    assert joint.meta['joint_id'] == 4
    assert said == []


def test_ranges_given_as_low_and_high(tmp_path):
    model, said = load(tmp_path, J + 'joint_velocity_range: [-2, 3], '
                       'joint_effort_range: [-50, 40] }')
    limits = model.joint('j').limits
    assert (limits.velocity, limits.effort) == (2.0, 40.0)  # the tighter side
    assert said == ['joint_velocity_range [-2, 3] is asymmetric; the limit used is 2',
                    'joint_effort_range [-50, 40] is asymmetric; the limit used is 40']
    err = refused(tmp_path, J + 'joint_velocity_range: [-2, 3, 4] }', name='three.body')
    assert err.line == 6


def test_armature_from_rotor_or_gear_alone(tmp_path):
    model, _ = load(tmp_path, J + 'rotor_inertia: 0.5 }\n'
                    '- { name: k, parent: base, joint_type: revolute, gear_ratio: 7 }')
    assert model.joint('j').armature == 0.5 and model.joint('k').armature == 0.0


def test_angles_follow_the_file_unit_and_displacement_wins(tmp_path):
    model, _ = load(tmp_path, J + 'joint_range: 90, max_joint_velocity: 180, '
                    'joint_angle: 45 }\n'
                    '- { name: k, parent: base, joint_type: revolute, joint_angle: 45, '
                    'joint_displacement: 0.1 }\n'
                    '- { name: p, parent: base, joint_type: prismatic, joint_range: [-0.5, 0.5], '
                    'max_joint_velocity: 2 }', unit='degree')
    j = model.joint('j')
    assert (j.limits.lower, j.limits.upper) == pytest.approx((-math.pi / 2, math.pi / 2))
    assert j.limits.velocity == pytest.approx(math.pi) and j.initial == pytest.approx(math.pi / 4)
    assert model.joint('k').initial == 0.1
    p = model.joint('p').limits
    assert (p.lower, p.upper, p.velocity) == (-0.5, 0.5, 2.0)


@pytest.mark.parametrize('value, lower, upper', [
    ('unlimited', None, None), ('[unlimited, 1]', None, 1.0), ('[-1, unlimited]', -1.0, None),
    ('0.5', -0.5, 0.5),
])
def test_joint_range_forms(tmp_path, value, lower, upper):
    model, _ = load(tmp_path, J + f'joint_range: {value} }}')
    joint = model.joint('j')
    assert (joint.limits.lower, joint.limits.upper) == (lower, upper)
    assert joint.type == (JointType.CONTINUOUS if lower is None and upper is None
                          else JointType.REVOLUTE)


@pytest.mark.parametrize('value, message', [
    ('[1, 2, 3]', 'joint_range must be [lower, upper] or one number'),
    ('[-1, abc]', "joint_range value 'abc' is not a number or \"unlimited\""),
    ('[-1, true]', 'joint_range value True is not a number or "unlimited"'),
    ('[-.inf, 1]', 'joint_range value -inf is not a number or "unlimited"'),
    ('wide', "joint_range value 'wide' is not a number or \"unlimited\""),
])
def test_bad_joint_ranges_are_one_line(tmp_path, value, message):
    err = refused(tmp_path, J + f'joint_range: {value} }}')
    assert (err.line, err.message) == (6, message)


def test_negative_maxima_are_taken_by_magnitude(tmp_path):
    model, said = load(tmp_path, J + 'max_joint_velocity: -3, max_joint_effort: -4 }\n'
                       '- { name: k, parent: base, joint_type: revolute, max_joint_velocity: 0 }')
    limits = model.joint('j').limits
    assert (limits.velocity, limits.effort) == (3.0, 4.0)
    assert said == ['max_joint_velocity -3 is negative; 3 is used',
                    'max_joint_effort -4 is negative; 4 is used']
    assert model.joint('k').limits.velocity == 0.0


@pytest.mark.parametrize('axis, expected', [
    ('X', (1, 0, 0)), ('+x', (1, 0, 0)), ('Y', (0, 1, 0)), (' z ', (0, 0, 1)),
    ('-X', (-1, 0, 0)), ('-Y', (0, -1, 0)), ('-Z', (0, 0, -1)), ('[0, 0.6, 0.8]', (0, 0.6, 0.8)),
])
def test_joint_axis_by_letter_or_vector(tmp_path, axis, expected):
    text = f'"{axis}"' if not axis.startswith('[') else axis
    model, said = load(tmp_path, J + f'joint_axis: {text} }}')
    assert model.joint('j').axis.tolist() == pytest.approx(expected, abs=1e-15)
    assert said == []


def test_joint_axis_not_unit_is_normalised_and_a_bad_one_refused(tmp_path):
    model, said = load(tmp_path, J + 'joint_axis: [0, 0, 2] }')
    assert model.joint('j').axis.tolist() == [0, 0, 1]
    assert said == ['joint_axis [0.0, 0.0, 2.0] is not a unit vector; normalised']
    assert refused(tmp_path, J + 'joint_axis: W }', name='w.body').message == \
        "joint_axis 'W' is not a vector or one of X, Y, Z, -X, -Y, -Z"
    assert refused(tmp_path, J + 'joint_axis: [0, 0, 0] }', name='zero.body').message == \
        'joint_axis is the zero vector'


def test_actuation_modes(tmp_path):
    model, _ = load(tmp_path, J + 'actuation_mode: jointTorque }\n'
                    '- { name: t, parent: base, joint_type: revolute, '
                    'actuation_mode: jointSurfaceVelocity }')
    assert model.joint('j').meta['actuation_mode'] == 'effort'
    assert model.joint('j').type == JointType.CONTINUOUS
    assert model.joint('t').type == JointType.TRACK
    assert model.joint('t').meta['actuation_mode'] == 'surface_velocity'
    err = refused(tmp_path, J + 'actuation_mode: jointMagic }', name='bad.body')
    assert err.message.startswith("actuation_mode 'jointMagic' is not one of jointEffort, ")


@pytest.mark.parametrize('links, line, message', [
    ('- { parent: base, joint_type: fixed }', 6, 'a link has no name'),
    (J + 'joint_id: -1 }', 6, 'joint_id must not be negative, found -1'),
    (J + 'joint_type: spinning }', 6, "joint_type 'spinning' is not one of fixed, free, "
     'revolute, prismatic, pseudo_continuous_track'),
    ('- { name: j, parent: base, mass: -2 }', 6, 'mass must not be negative, found -2'),
    ('- { name: j, parent: base, import: 5 }', 6,
     'import must be a mapping or a list of mappings, found int 5'),
])
def test_bad_links_are_one_line(tmp_path, links, line, message):
    err = refused(tmp_path, links)
    assert (err.line, err.message) == (line, message)


def test_link_mass_alone_takes_choreonoid_s_default_inertia(tmp_path):
    model, said = load(tmp_path, '- { name: j, parent: base, mass: 2, '
                       'center_of_mass: [0, 0, 0.1] }')
    inertial = model.link('j').inertial
    assert inertial.mass == 2.0 and inertial.com.tolist() == [0, 0, 0.1]
    np.testing.assert_array_equal(inertial.inertia, np.eye(3))
    assert said == ["link 'j' gives a mass but no inertia; Choreonoid's default inertia (the "
                    'identity, 1 kg m^2 about each axis) was used']


def test_link_mass_beside_a_rigid_body_adds_no_inertia_of_its_own(tmp_path):
    model, said = load(tmp_path, """
        - name: j
          parent: base
          mass: 1
          center_of_mass: [0, 0, 1]
          elements:
            - { type: RigidBody, mass: 1, center_of_mass: [0, 0, -1],
                inertia: [0.1, 0, 0, 0.1, 0, 0.2] }
        """)
    inertial = model.link('j').inertial
    assert inertial.mass == 2.0 and inertial.com.tolist() == [0, 0, 0]
    # the rigid body's own inertia and both point masses 1 m from the centre
    np.testing.assert_allclose(inertial.inertia, np.diag([2.1, 2.1, 0.2]))
    assert said == []


def test_masses_that_overflow_are_one_line(tmp_path):
    """Each inertia is finite, their sum is not; then a centre too far away."""
    err = refused(tmp_path, """
        - name: j
          parent: base
          elements:
            - &BIG { type: RigidBody, mass: 1, inertia: [6.0e+307, 0, 0, 6.0e+307, 0, 6.0e+307] }
            - *BIG
            - *BIG
        """)
    assert (err.line, err.message) == (
        6, "link 'j': its mass properties overflow (numbers too large)")
    err = refused(tmp_path, '- { name: j, parent: base, mass: 1.0e+308, '
                  'center_of_mass: [1.0e+308, 0, 0], inertia: [1, 0, 0, 1, 0, 1] }',
                  name='com.body')
    assert err.message == "link 'j': its mass properties overflow (numbers too large)"


def test_imports_add_keys_the_link_does_not_give(tmp_path):
    path = tmp_path / 'm.body'
    path.write_text(textwrap.dedent("""\
        format: ChoreonoidBody
        format_version: 1.0
        angle_unit: radian
        common: &JOINT { joint_type: revolute, joint_range: [-1, 1], max_joint_velocity: 2 }
        more: &MASS { mass: 3, joint_range: [-3, 3], inertia: [1, 0, 0, 1, 0, 1] }
        links:
          - { name: base, joint_type: fixed }
          - { name: j, parent: base, import: [*JOINT, *MASS], max_joint_velocity: 5 }
          - { name: k, parent: base, import: *MASS, joint_type: prismatic }
        """))
    model = choreonoid.load(path)
    j = model.joint('j')
    assert j.type == JointType.REVOLUTE and (j.limits.lower, j.limits.upper) == (-1, 1)
    assert j.limits.velocity == 5.0 and model.link('j').inertial.mass == 3.0
    k = model.joint('k')
    assert k.type == JointType.PRISMATIC and (k.limits.lower, k.limits.upper) == (-3, 3)
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "body: keys 'common', 'more' are not supported and were ignored"]


def test_link_placement_and_material(tmp_path):
    model, _ = load(tmp_path, '- { name: j, parent: base, translation: [1, 2, 3], '
                    'rotation: [0, 0, 1, 1.5707963267948966], material: Tire }\n'
                    '- { name: k, parent: j }')
    j = model.joint('j')
    assert j.type == JointType.FIXED
    np.testing.assert_allclose(model.link('j').pose.pos, (1, 2, 3))
    np.testing.assert_allclose(model.link('j').pose.rot, [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
                               atol=1e-15)
    np.testing.assert_allclose(model.link('k').pose.pos, (1, 2, 3))


def test_a_velocity_range_in_degrees_is_radians_per_second(tmp_path):
    model, _ = load(tmp_path, J + 'joint_velocity_range: [-90, 90] }\n'
                    '- { name: p, parent: base, joint_type: prismatic, '
                    'joint_velocity_range: [-0.5, 0.5] }', unit='degree')
    assert model.joint('j').limits.velocity == pytest.approx(math.pi / 2)
    assert model.joint('p').limits.velocity == 0.5  # metres per second: no angle unit


def test_a_joint_without_rotor_or_gear_has_no_armature(tmp_path):
    model, _ = load(tmp_path, J + 'joint_range: [-1, 1] }')
    assert model.joint('j').armature == 0.0


def test_a_link_of_zero_mass_has_no_mass_properties(tmp_path):
    """``mass: 0`` (Choreonoid's massless link): no inertial, no division by the total."""
    model, said = load(tmp_path, '- { name: j, parent: base, mass: 0, '
                       'center_of_mass: [0, 0, 0.1] }')
    assert model.link('j').inertial is None
    assert said == []
