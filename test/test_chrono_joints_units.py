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
