"""Chrono joints, bushings, motors and constraints (formats/chrono/joints.py), on own models."""

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import JointType

import chrono_files
from chrono_files import error

HEAD = ('chrono-version: 10.0\nmodel:\n  bodies:\n'
        '    - {name: g, location: [0, 0, 0], fixed: true}\n'
        '    - {name: m, location: [1, 0, 0], mass: 2, inertia: {moments: [1, 1, 1]}}\n')


def write(tmp_path, text):
    return chrono_files.write(tmp_path, HEAD + text)


def joints(model):
    return [(j.name, j.type, np.round(j.axis, 12).tolist()) for j in model.joints]


def test_a_point_line_joint_slides_along_its_axis_and_turns_freely(tmp_path):
    model = load_model(write(tmp_path, '  joints:\n    - {name: w, type: POINT_LINE, body1: m, '
                             'body2: g, location: [1, 0, 0]}\n'))
    assert joints(model) == [('w_slide', JointType.PRISMATIC, [1, 0, 0]),
                             ('w_ball', JointType.BALL, [0, 0, 1])]
    np.testing.assert_allclose(model.link('w_link1').pose.rot[:, 0], [1, 0, 0], atol=1e-12)
    model = load_model(write(tmp_path, '  joints:\n    - {name: w, type: POINT_LINE, body1: g, '
                             'body2: m, location: [1, 0, 0], axis: [0, 1, 0]}\n'))
    # seen from body1 the chain is reversed and its axes negated
    assert joints(model) == [('w_ball', JointType.BALL, [0, 0, 1]),
                             ('w_slide', JointType.PRISMATIC, [0, -1, 0])]
    np.testing.assert_allclose(model.link('w_link1').pose.rot[:, 0], [0, 1, 0], atol=1e-12)


def test_a_point_plane_joint_slides_in_the_plane_normal_to_its_axis(tmp_path):
    model = load_model(write(tmp_path, '  joints:\n    - {name: p, type: POINT_PLANE, body1: g, '
                             'body2: m, location: [1, 0, 0]}\n'))
    assert joints(model) == [('p_ball', JointType.BALL, [0, 0, 1]),
                             ('p_y', JointType.PRISMATIC, [0, -1, 0]),
                             ('p_x', JointType.PRISMATIC, [-1, 0, 0])]


def test_a_universal_bushing_gives_its_two_hinges_the_dof_values(tmp_path):
    model = load_model(write(tmp_path, '''  joints:
    - name: u
      type: UNIVERSAL
      body1: g
      body2: m
      location: [0, 0, 0]
      axis1: [1, 0, 0]
      axis2: [0, 1, 0]
      bushing_data: {stiffness_linear: 0.5, stiffness_rotational: 0.25, damping_linear: 0.375,
                     damping_rotational: 0.125, DOF: {stiffness_rotational: 0.75,
                     damping_rotational: 0.625, stiffness_linear: 0, damping_linear: 0}}
'''))
    assert {s.joint: (s.stiffness, s.damping) for s in model.springs} == {
        'u_tx': (0.5, 0.375), 'u_ty': (0.5, 0.375), 'u_tz': (0.5, 0.375),
        'u_rx': (0.75, 0.625), 'u_ry': (0.75, 0.625), 'u_rz': (0.25, 0.125)}
    assert model.warnings == ()


def test_a_bushing_dof_needs_its_rotational_stiffness(tmp_path):
    path = write(tmp_path, '  joints:\n    - {name: r, type: REVOLUTE, body1: m, body2: g, '
                 'location: [0, 0, 0], axis: [0, 0, 1], bushing_data: {stiffness_linear: 1, '
                 'stiffness_rotational: 1, damping_linear: 1, damping_rotational: 1, DOF: '
                 '{damping_rotational: 1, stiffness_linear: 0, damping_linear: 0}}}\n')
    assert error(path) == "joint 'r' bushing_data DOF: \"stiffness_rotational\" is missing"


def test_a_joint_without_body1_fails(tmp_path):
    path = write(tmp_path, '  joints:\n    - {name: j, type: LOCK, body2: g, '
                 'location: [0, 0, 0]}\n')
    assert error(path) == "joint 'j': \"body1\" is missing"


MOTOR = ('  motors:\n    - {name: mo, body1: m, body2: g, axis: [0, 0, 1], actuation_type: '
         'SPEED, actuation_function: {type: CONSTANT, value: 1}')


def test_a_motor_without_type_or_location_fails(tmp_path):
    assert error(write(tmp_path, MOTOR + ', location: [0, 0, 0]}\n')) == \
        "motor 'mo': \"type\" is missing"
    assert error(write(tmp_path, MOTOR + ', type: ROTATION}\n')) == \
        "motor 'mo': \"location\" is missing"


def test_a_guide_on_a_rotation_motor_is_warned_and_ignored(tmp_path):
    model = load_model(write(tmp_path, MOTOR + ', type: ROTATION, location: [0, 0, 0], '
                             'guide: SPHERICAL}\n'))
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "motor 'mo': \"guide: SPHERICAL\" does not apply to a ROTATION motor; ignored (the "
        'spindle is REVOLUTE)']
    assert joints(model) == [('mo', JointType.CONTINUOUS, [0, 0, 1])]


@pytest.mark.parametrize('gap, fails', [(0.5e-9, True), (1.5e-9, False)])
def test_constraint_points_a_nanometre_apart_coincide(tmp_path, gap, fails):
    path = write(tmp_path, f'  constraints:\n    - {{name: c, type: DISTANCE, body1: g, body2: m, '
                 f'point1: [0, 0, 0], point2: [{gap}, 0, 0]}}\n')
    if fails:
        assert error(path) == ("constraint 'c': \"point1\" and \"point2\" coincide (a SPHERICAL "
                               'joint holds that)')
    else:
        assert load_model(path).closures[0].length == pytest.approx(gap)


def world_axes(model):
    """Each tree joint's axis in the model frame (its child link's frame turned)."""
    return [np.round(model.link(j.child).pose.rot @ j.axis, 12).tolist() for j in model.joints]


def test_a_spherical_joint_is_one_ball_at_its_location(tmp_path):
    model = load_model(write(tmp_path, '  joints:\n    - {name: s, type: SPHERICAL, body1: m, '
                             'body2: g, location: [1, 0, 2]}\n'))
    assert [(j.name, j.type, j.parent, j.child) for j in model.joints] == [
        ('s', JointType.BALL, 'g', 'm')]
    np.testing.assert_allclose(model.link('m').pose.pos, [1, 0, 2])


def test_a_revolute_joint_turns_about_its_axis_at_its_location(tmp_path):
    model = load_model(write(tmp_path, '  joints:\n    - {name: r, type: REVOLUTE, body1: m, '
                             'body2: g, location: [1, 0, 2], axis: [0, 3, 4]}\n'))
    assert [j.type for j in model.joints] == [JointType.CONTINUOUS]
    assert world_axes(model) == [[0, 0.6, 0.8]]
    np.testing.assert_allclose(model.link('m').pose.pos, [1, 0, 2])


def test_a_universal_joints_hinges_turn_about_axis1_on_body1_and_axis2_on_body2(tmp_path):
    # perpendicular axes: the cross piece turns about axis2 on body2 (here g, the parent) and
    # body1 turns about axis1 on the cross piece
    model = load_model(write(tmp_path, '  joints:\n    - {name: u, type: UNIVERSAL, body1: m, '
                             'body2: g, location: [1, 0, 0], axis1: [0, 2, 0], '
                             'axis2: [1, 0, 1]}\n'))
    assert [(j.name, j.parent, j.child) for j in model.joints] == [
        ('u_axis2', 'g', 'u_link1'), ('u_axis1', 'u_link1', 'm')]
    h = np.sqrt(0.5)
    np.testing.assert_allclose(world_axes(model), [[h, 0, h], [0, 1, 0]], atol=1e-12)


def test_a_universal_joint_of_oblique_axes_keeps_an_orthonormal_frame(tmp_path):
    # axis2 at 45 degrees to axis1: the frame's y is axis2's part normal to axis1
    model = load_model(write(tmp_path, '  joints:\n    - {name: u, type: UNIVERSAL, body1: m, '
                             'body2: g, location: [1, 0, 0], axis1: [1, 0, 0], '
                             'axis2: [1, 1, 0]}\n'))
    rot = model.link('u_link1').pose.rot
    np.testing.assert_allclose(rot.T @ rot, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(rot, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(world_axes(model), [[0, 1, 0], [1, 0, 0]], atol=1e-12)


@pytest.mark.parametrize('missing', ['axis1', 'axis2'])
def test_a_universal_joint_needs_both_axes(tmp_path, missing):
    axes = {'axis1': 'axis1: [1, 0, 0]', 'axis2': 'axis2: [0, 1, 0]'}
    del axes[missing]
    path = write(tmp_path, '  joints:\n    - {name: u, type: UNIVERSAL, body1: m, body2: g, '
                 f'location: [0, 0, 0], {", ".join(axes.values())}}}\n')
    assert error(path) == f"joint 'u': \"{missing}\" is missing"


BUSHING = ('  joints:\n    - {{name: r, type: REVOLUTE, body1: m, body2: g, location: [0, 0, 0], '
           'axis: [0, 0, 1], bushing_data: {{{keys}}}}}\n')
CONSTRAINED = ('stiffness_linear: 0.5, damping_linear: 0.375, stiffness_rotational: 0.25, '
               'damping_rotational: 0.125')


def test_a_bushing_without_dof_leaves_its_free_rotation_free(tmp_path):
    # the spec: without DOF the unconstrained directions get stiffness and damping 0.0
    model = load_model(write(tmp_path, BUSHING.format(keys=CONSTRAINED)))
    assert {s.joint: (s.stiffness, s.damping) for s in model.springs} == {
        'r_tx': (0.5, 0.375), 'r_ty': (0.5, 0.375), 'r_tz': (0.5, 0.375),
        'r_rx': (0.25, 0.125), 'r_ry': (0.25, 0.125)}  # r_rz: no spring, no damper
    assert [j.name for j in model.joints][-1] == 'r_rz'


@pytest.mark.parametrize('key', ['stiffness_linear', 'damping_linear', 'stiffness_rotational',
                                 'damping_rotational'])
def test_a_bushing_needs_all_four_constrained_values(tmp_path, key):
    keys = ', '.join(k for k in CONSTRAINED.split(', ') if not k.startswith(key))
    assert error(write(tmp_path, BUSHING.format(keys=keys))) == \
        f"joint 'r' bushing_data: \"{key}\" is missing"


def test_a_bushing_dofs_linear_values_are_said_unused(tmp_path):
    keys = CONSTRAINED + (', DOF: {stiffness_linear: 5000, damping_linear: 0, '
                          'stiffness_rotational: 500, damping_rotational: 25}')
    model = load_model(write(tmp_path, BUSHING.format(keys=keys)))
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "joint 'r' bushing_data DOF: \"stiffness_linear\" 5000 is not used: a REVOLUTE joint "
        'has no free translation (Chrono does not use it either)']
    assert {s.joint: (s.stiffness, s.damping) for s in model.springs}['r_rz'] == (500, 25)


def test_a_motor_needs_its_name_and_axis(tmp_path):
    assert error(write(tmp_path, MOTOR.replace('name: mo, ', '') + ', type: ROTATION, '
                       'location: [0, 0, 0]}\n')) == 'motor: "name" is missing'
    assert error(write(tmp_path, MOTOR.replace('axis: [0, 0, 1], ', '') + ', type: ROTATION, '
                       'location: [0, 0, 0]}\n')) == "motor 'mo': \"axis\" is missing"


def test_an_unknown_motor_key_is_warned(tmp_path):
    model = load_model(write(tmp_path, MOTOR + ', type: ROTATION, location: [0, 0, 0], '
                             'gear: 2}\n'))
    assert [w.split(': ', 1)[1] for w in model.warnings] == [
        "motor 'mo': key \"gear\" is not part of the Chrono model format; ignored"]


def test_a_constraint_needs_its_type(tmp_path):
    path = write(tmp_path, '  constraints:\n    - {name: c, body1: g, body2: m, '
                 'point1: [0, 0, 0], point2: [1, 0, 0]}\n')
    assert error(path) == "constraint 'c': \"type\" is missing"


@pytest.mark.parametrize('length, off, fails', [
    (10, 5e-6, False), (10, 2e-5, True), (0.1, 5e-8, False), (0.1, 2e-7, True)])
def test_a_revolute_constraints_second_point_is_in_the_plane_to_a_millionth_of_its_length(
        tmp_path, length, off, fails):
    path = write(tmp_path, '  constraints:\n    - {name: c, type: REVOLUTE-SPHERICAL, body1: g, '
                 f'body2: m, point1: [0, 0, 0], point2: [{length}, 0, {off}], '
                 'axis: [0, 0, 1]}\n')
    if fails:
        assert error(path) == ("constraint 'c': \"point2\" must lie in the plane through "
                               '"point1" normal to "axis"')
    else:
        assert load_model(path).closures[0].length == pytest.approx(np.hypot(length, off))


P, B, C = JointType.PRISMATIC, JointType.BALL, JointType.CONTINUOUS


@pytest.mark.parametrize('keys, chain', [
    ('type: LINEAR', [('mo', P)]),  # the spec's default guide: PRISMATIC
    ('type: LINEAR, guide: prismatic', [('mo', P)]),
    ('type: LINEAR, guide: SPHERICAL', [('mo', P), ('mo_ball', B)]),
    ('type: LINEAR, guide: FREE', [('mo', P), ('mo_x', P), ('mo_y', P), ('mo_ball', B)]),
    ('type: ROTATION', [('mo', C)]),  # the spec's default spindle: REVOLUTE
    ('type: ROTATION, spindle: CYLINDRICAL', [('mo_slide', P), ('mo', C)]),
    ('type: ROTATION, spindle: FREE', [('mo_x', P), ('mo_y', P), ('mo_z', P), ('mo', C),
                                       ('mo_rx', C), ('mo_ry', C)])])
def test_a_motor_drives_along_its_axis_with_what_its_guide_or_spindle_frees(
        tmp_path, keys, chain):
    model = load_model(write(tmp_path, f'  motors:\n    - {{name: mo, {keys}, body1: m, '
                             'body2: g, location: [1, 0, 2], axis: [0, 3, 4], actuation_type: '
                             'POSITION, actuation_function: {type: CONSTANT, value: 1}}\n'))
    assert [(j.name, j.type) for j in model.joints] == chain
    (motor,) = model.motors
    assert motor.joint == 'mo'
    axes = dict(zip([j.name for j in model.joints], world_axes(model)))
    np.testing.assert_allclose(axes['mo'], [0, 0.6, 0.8], atol=1e-12)
    slides = [axes[name] for name, kind in chain if kind == P]
    np.testing.assert_allclose(np.array(slides) @ np.array(slides).T, np.eye(len(slides)),
                               atol=1e-12)  # the freed translations are orthonormal
    for joint in model.joints:  # every freedom at the motor's location
        np.testing.assert_allclose(model.link(joint.child).pose.pos, [1, 0, 2], atol=1e-12)


def test_a_motor_needs_its_actuation_function(tmp_path):
    path = write(tmp_path, '  motors:\n    - {name: mo, type: ROTATION, body1: m, body2: g, '
                 'location: [0, 0, 0], axis: [0, 0, 1], actuation_type: SPEED}\n')
    assert error(path) == "motor 'mo': \"actuation_function\" is missing"


SPHERICAL_BUSHING = ('  joints:\n    - {{name: s, type: {kind}, body1: m, body2: g, location: '
                     '[0, 0, 0], bushing_data: {{' + CONSTRAINED + ', DOF: {{stiffness_linear: '
                     '0, damping_linear: 0, stiffness_rotational: 0.75, damping_rotational: '
                     '0.625}}}}}}\n')


def test_a_spherical_bushing_gives_its_three_rotations_the_dof_values(tmp_path):
    model = load_model(write(tmp_path, SPHERICAL_BUSHING.format(kind='SPHERICAL')))
    assert {s.joint: (s.stiffness, s.damping) for s in model.springs} == {
        's_tx': (0.5, 0.375), 's_ty': (0.5, 0.375), 's_tz': (0.5, 0.375),
        's_rx': (0.75, 0.625), 's_ry': (0.75, 0.625), 's_rz': (0.75, 0.625)}


def test_a_lock_bushing_holds_all_six_directions_with_the_constrained_values(tmp_path):
    model = load_model(write(tmp_path, SPHERICAL_BUSHING.format(kind='LOCK')))
    assert {s.joint: (s.stiffness, s.damping) for s in model.springs} == {
        's_tx': (0.5, 0.375), 's_ty': (0.5, 0.375), 's_tz': (0.5, 0.375),
        's_rx': (0.25, 0.125), 's_ry': (0.25, 0.125), 's_rz': (0.25, 0.125)}
    assert [j.name for j in model.joints] == ['s_tx', 's_ty', 's_tz', 's_rx', 's_ry', 's_rz']


@pytest.mark.parametrize('key', ['damping_rotational', 'stiffness_linear', 'damping_linear'])
def test_a_bushing_dof_needs_all_four_values(tmp_path, key):
    keys = {'stiffness_rotational': 1, 'damping_rotational': 1, 'stiffness_linear': 0,
            'damping_linear': 0}
    del keys[key]
    dof = ', '.join(f'{k}: {v}' for k, v in keys.items())
    path = write(tmp_path, BUSHING.format(keys=CONSTRAINED + f', DOF: {{{dof}}}'))
    assert error(path) == f"joint 'r' bushing_data DOF: \"{key}\" is missing"


def test_a_negative_bushing_stiffness_is_refused(tmp_path):
    keys = CONSTRAINED.replace('stiffness_rotational: 0.25', 'stiffness_rotational: -1')
    assert error(write(tmp_path, BUSHING.format(keys=keys))) == \
        "joint 'r' bushing_data: \"stiffness_rotational\" must be at least 0, found -1"


def test_a_joint_of_a_body_with_itself_is_refused(tmp_path):
    path = write(tmp_path, '  joints:\n    - {name: j, type: LOCK, body1: m, body2: m, '
                 'location: [0, 0, 0]}\n')
    assert error(path) == "joint 'j': body1 and body2 are the same body 'm'"


@pytest.mark.parametrize('keys, message', [
    ('type: GEAR, point1: [0, 0, 0], point2: [1, 0, 0]',
     '"type" is \'GEAR\'; expected one of DISTANCE, REVOLUTE-SPHERICAL, REVOLUTE-TRANSLATIONAL'),
    ('type: DISTANCE, point2: [1, 0, 0]', '"point1" is missing'),
    ('type: DISTANCE, point1: [1, 0, 0]', '"point2" is missing')])
def test_a_constraints_type_and_points_are_checked(tmp_path, keys, message):
    path = write(tmp_path, f'  constraints:\n    - {{name: c, body1: g, body2: m, {keys}}}\n')
    assert error(path) == f"constraint 'c': {message}"


def test_a_distance_constraint_keeps_its_points_distance(tmp_path):
    path = write(tmp_path, '  constraints:\n    - {name: c, type: distance, body1: g, body2: m, '
                 'point1: [1, 2, 3], point2: [-1, 5, 9]}\n')
    (closure,) = load_model(path).closures
    assert (closure.type, closure.length) == ('distance', 7.0)


def test_a_kinematic_joint_has_no_spring(tmp_path):
    # the spec: without bushing_data a joint is kinematic, no compliance in any direction
    model = load_model(write(tmp_path, '  joints:\n    - {name: r, type: REVOLUTE, body1: m, '
                             'body2: g, location: [0, 0, 0], axis: [0, 0, 1]}\n'
                             '    - {name: s, type: SPHERICAL, body1: m, body2: g, location: '
                             '[0, 0, 0]}\n'))
    assert model.springs == () and model.bushings == ()
    assert [c.type for c in model.closures] == ['ball']


def test_a_motor_closing_a_loop_measures_body1_from_body2(tmp_path):
    # motor coordinates are body1's motion relative to body2 (the master): the closure's
    # chain starts on body2; a joint (here REVOLUTE) closing a loop does the same
    model = load_model(write(tmp_path, '  joints:\n    - {name: r, type: REVOLUTE, body1: m, '
                             'body2: g, location: [0, 0, 0], axis: [0, 0, 1]}\n' + MOTOR +
                             ', type: ROTATION, location: [0, 0, 0]}\n' +
                             MOTOR.replace('  motors:\n', '').replace('mo,', 'mo2,') +
                             ', type: ROTATION, location: [0, 0, 0]}\n'))
    assert [j.name for j in model.joints] == ['mo']  # motors come first in the tree
    assert [(c.name, c.type, c.link1, c.link2) for c in model.closures] == [
        ('mo2', 'hinge', 'g', 'm'), ('r', 'hinge', 'g', 'm')]
    assert [(m.name, m.joint, m.closure) for m in model.motors] == [
        ('mo', 'mo', None), ('mo2', None, 'mo2')]
