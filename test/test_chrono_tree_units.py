"""How a Chrono system becomes a tree (formats/chrono/tree.py), checked on small own models."""

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.model import JointType

from chrono_files import write

HEAD = ('chrono-version: 10.0\nmodel:\n  angle_degrees: false\n  bodies:\n'
        '    - {name: g, location: [0, 0, 0], fixed: true}\n')
MOVING = '    - {name: m, location: [1, 0, 0], mass: 2, inertia: {moments: [1, 1, 1]}}\n'


def load(tmp_path, text):
    return load_model(write(tmp_path, text))


def test_a_locked_joint_is_a_fixed_joint_and_a_massless_body_has_no_inertial(tmp_path):
    model = load(tmp_path, HEAD + MOVING + '  joints:\n    - {name: weld, type: LOCK, '
                 'body1: m, body2: g, location: [0.5, 0, 0]}\n')
    (joint,) = model.joints
    assert (joint.name, joint.type, joint.parent, joint.child) == ('weld', JointType.FIXED,
                                                                   'g', 'm')
    np.testing.assert_allclose(model.link('m').pose.pos, [1, 0, 0])
    assert model.link('m').inertial.mass == 2
    assert model.link('g').inertial is None
    assert model.passive_joints == ()


def test_a_motor_on_a_tree_joint_drives_that_joint(tmp_path):
    model = load(tmp_path, HEAD + MOVING + '  motors:\n    - {name: spin, type: ROTATION, '
                 'body1: m, body2: g, location: [0, 0, 0], axis: [0, 0, 1], '
                 'actuation_type: SPEED, actuation_function: {type: CONSTANT, value: 2}}\n')
    (joint,) = model.joints
    (motor,) = model.motors
    assert (motor.name, motor.joint, motor.closure) == ('spin', joint.name, None)
    assert motor.actuation.value == 'speed' and motor.function.params == (2.0,)
    assert joint.type == JointType.CONTINUOUS


def test_two_bodies_no_joint_reaches_float_as_one_chain(tmp_path):
    model = load(tmp_path, HEAD + MOVING + '    - {name: n, location: [2, 0, 0], mass: 1, '
                 'inertia: {moments: [1, 1, 1]}}\n  joints:\n    - {name: j, type: REVOLUTE, '
                 'body1: n, body2: m, location: [1.5, 0, 0], axis: [0, 1, 0]}\n')
    assert [(j.name, j.type, j.parent, j.child) for j in model.joints] == [
        ('m_free', JointType.FREE, 'g', 'm'), ('j', JointType.CONTINUOUS, 'm', 'n')]
    assert [link.name for link in model.links] == ['g', 'm', 'n']


def test_a_root_named_world_is_kept_unique_against_the_bodies(tmp_path):
    text = ('chrono-version: 10.0\nmodel:\n  bodies:\n'
            '    - {name: world, location: [0, 0, 0], mass: 1, inertia: {moments: [1, 1, 1]}}\n'
            '    - {name: world_2, location: [1, 0, 0], mass: 1, inertia: {moments: [1, 1, 1]}}\n')
    model = load(tmp_path, text)
    assert model.root == 'world_3'
    assert [j.name for j in model.joints] == ['world_free', 'world_2_free']


def test_a_spring_naming_a_missing_body_fails_with_one_line(tmp_path):
    path = tmp_path / 'model.yaml'
    path.write_text(HEAD + MOVING + '  tsdas:\n    - {name: s, body1: g, body2: nope, '
                    'point1: [0, 0, 0], point2: [1, 0, 0], free_length: 1, spring_coefficient: 5}\n')
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert str(err.value) == f"{path}:8: unknown body 'nope'"


def test_a_distance_constraint_is_a_closure_along_the_line_between_its_points(tmp_path):
    model = load(tmp_path, HEAD + '    - {name: m, location: [0, 0, -2], mass: 1, inertia: '
                 '{moments: [1, 1, 1]}}\n  constraints:\n    - {name: rod, type: DISTANCE, '
                 'body1: g, body2: m, point1: [0, 0, 0], point2: [0, 0, -2]}\n')
    (closure,) = model.closures
    assert (closure.name, closure.type, closure.link1, closure.link2) == (
        'rod', 'distance', 'g', 'm')
    assert closure.length == pytest.approx(2.0)
    np.testing.assert_allclose(closure.axis, [0, 0, 1])
    np.testing.assert_allclose(closure.pose1.pos, [0, 0, 0])
    np.testing.assert_allclose(closure.pose2.pos, [0, 0, 0], atol=1e-12)  # m's own origin
    rot = closure.pose2.rot
    np.testing.assert_allclose(rot.T @ rot, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(rot[:, 0], [0, 0, -1], atol=1e-12)  # x from point1 to point2
    # the bob floats in the tree; the closure holds it
    assert [j.type for j in model.joints] == [JointType.FREE]


def test_initial_velocities_only_for_bodies_that_give_one(tmp_path):
    model = load(tmp_path, HEAD + MOVING + '    - {name: n, location: [2, 0, 0], mass: 1, '
                 'inertia: {moments: [1, 1, 1]}, initial_linear_velocity: [0, 3, 0]}\n')
    (velocity,) = model.initial_velocities
    assert velocity.link == 'n'
    np.testing.assert_allclose(velocity.linear, [0, 3, 0])
    np.testing.assert_allclose(velocity.angular, [0, 0, 0])


def test_a_motor_that_closes_a_loop_drives_its_closure(tmp_path):
    motor = ('    - {{name: {}, type: ROTATION, body1: m, body2: g, location: [0, 0, 0], '
             'axis: [0, 0, 1], actuation_type: SPEED, actuation_function: {{type: CONSTANT, '
             'value: 1}}}}\n')
    model = load(tmp_path, HEAD + MOVING + '  motors:\n' + motor.format('a') + motor.format('b'))
    (closure,) = model.closures
    assert [(m.name, m.joint, m.closure) for m in model.motors] == [
        ('a', 'a', None), ('b', None, closure.name)]
    assert closure.name == 'b'


def test_a_revolute_spherical_constraint_has_a_right_handed_frame(tmp_path):
    model = load(tmp_path, HEAD + '    - {name: m, location: [0, 0, -2], mass: 1, inertia: '
                 '{moments: [1, 1, 1]}}\n  constraints:\n    - {name: rs, type: '
                 'REVOLUTE-SPHERICAL, body1: g, body2: m, point1: [0, 0, 0], point2: [0, 0, -2], '
                 'axis: [0, 1, 0]}\n')
    (closure,) = model.closures
    assert closure.type == 'revolute_spherical' and closure.length == pytest.approx(2.0)
    rot = closure.pose2.rot
    np.testing.assert_allclose(rot.T @ rot, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(rot, [[0, -1, 0], [0, 0, 1], [-1, 0, 0]], atol=1e-12)


@pytest.mark.parametrize('element', [
    '  constraints:\n    - {name: c, type: DISTANCE, body1: g, body2: nope, point1: [0, 0, 0], '
    'point2: [1, 0, 0]}\n',
    '  body_loads:\n    - {name: f, type: TORQUE, body: nope, load: [0, 0, 1]}\n'])
def test_a_constraint_or_load_naming_a_missing_body_fails_with_one_line(tmp_path, element):
    path = write(tmp_path, HEAD + MOVING + element)
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert str(err.value) == f"{path}:8: unknown body 'nope'"
