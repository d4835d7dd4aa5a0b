"""Choreonoid Body files: the core of the format (links, joints, mass, primitive shapes)."""

import math
import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.formats import choreonoid, load_model
from body_bridge.model import Box, Cylinder, DeviceKind, JointType, Sphere

from conftest import SAMPLE_ARM, shared_model


HEADER = 'format: ChoreonoidBody\nformat_version: 1.0\n'


def write(tmp_path, text, name='m.body'):
    """Write a Body file; text that starts with HEADER has the rest dedented."""
    path = tmp_path / name
    if text.startswith(HEADER):
        text = HEADER + textwrap.dedent(text[len(HEADER):]).lstrip()
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def test_sample_arm_structure():
    model = load_model(SAMPLE_ARM)
    assert model.root == 'base' and model.root_joint == JointType.FIXED
    assert [j.name for j in model.movable_joints] == [
        'shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch']
    elbow = model.joint('elbow_pitch')
    assert elbow.parent == 'shoulder_pitch' and elbow.type == JointType.REVOLUTE
    np.testing.assert_allclose(elbow.axis, (0, 1, 0))
    assert elbow.limits.lower == pytest.approx(-math.radians(150))
    assert elbow.limits.velocity == pytest.approx(math.pi)
    np.testing.assert_allclose(model.link('hand').pose.pos, (0, 0, 0.81))
    assert model.total_mass == pytest.approx(9.2)
    kinds = {d.kind for d in model.devices}
    assert {DeviceKind.IMU, DeviceKind.ACCELEROMETER, DeviceKind.GYRO, DeviceKind.FORCE,
            DeviceKind.CAMERA, DeviceKind.RANGE} <= kinds
    assert model.warnings == ()


def test_sample_camera_looks_along_hand_axis():
    model = load_model(SAMPLE_ARM)
    camera = next(d for d in model.devices if d.kind == DeviceKind.CAMERA)
    world = model.link(camera.link).pose @ camera.pose
    # Device frames look along +x; the hand points up at the reference configuration.
    np.testing.assert_allclose(world.rot[:, 0], (0, 0, 1), atol=1e-12)
    assert camera.params['width'] == 320
    assert camera.params['field_of_view'] == pytest.approx(math.pi / 3)


def test_radian_unit_and_camel_case_keys(tmp_path):
    path = write(tmp_path, """
        format: ChoreonoidBody
        formatVersion: 1.0
        angleUnit: radian
        links:
          - name: a
            jointType: fixed
          - name: b
            parent: a
            jointType: revolute
            jointAxis: -X
            jointRange: [ -1.5, 0.5 ]
            maxJointVelocity: 2.0
            jointAngle: 0.25
            rotation: [ 0, 0, 1, 1.5707963267948966 ]
    """)
    model = load_model(path)
    j = model.joint('b')
    np.testing.assert_allclose(j.axis, (-1, 0, 0))
    assert (j.limits.lower, j.limits.upper, j.limits.velocity) == (-1.5, 0.5, 2.0)
    assert j.initial == 0.25
    np.testing.assert_allclose(model.link('b').pose.apply((1, 0, 0)), (0, 1, 0), atol=1e-12)


def test_degrees_by_default_and_scalar_range(tmp_path):
    path = write(tmp_path, HEADER + """
        links:
          - name: a
          - name: b
            parent: a
            joint_type: revolute
            joint_range: 45
            joint_displacement: 0.5
            joint_angle: 90
    """)
    j = load_model(path).joint('b')
    assert j.limits.lower == pytest.approx(-math.pi / 4)
    assert j.limits.upper == pytest.approx(math.pi / 4)
    assert j.initial == 0.5  # joint_displacement is in radians and wins over joint_angle


def test_unlimited_revolute_is_continuous(tmp_path):
    path = write(tmp_path, HEADER + """
        links:
          - name: a
          - name: b
            parent: a
            joint_type: revolute
            joint_range: [ unlimited, unlimited ]
    """)
    assert load_model(path).joint('b').type == JointType.CONTINUOUS


def test_rigid_bodies_combine(tmp_path):
    # Two 1 kg points at x = +-0.5: centre at 0, Iyy = Izz = 2 * 1 * 0.25.
    path = write(tmp_path, HEADER + """
        links:
          - name: a
            elements:
              - type: RigidBody
                mass: 1.0
                center_of_mass: [ 0.5, 0, 0 ]
              - type: Transform
                translation: [ -1.0, 0, 0 ]
                elements:
                  RigidBody: { mass: 1.0, center_of_mass: [ 0.5, 0, 0 ] }
    """)
    inertial = load_model(path).link('a').inertial
    assert inertial.mass == 2.0
    np.testing.assert_allclose(inertial.com, (0, 0, 0), atol=1e-12)
    np.testing.assert_allclose(np.diag(inertial.inertia), (0, 0.5, 0.5))


def test_shapes_follow_nested_transforms(tmp_path):
    path = write(tmp_path, HEADER + """
        links:
          - name: a
            elements:
              - type: Transform
                translation: [ 1, 0, 0 ]
                rotation: [ 0, 0, 1, 90 ]
                elements:
                  - type: Transform
                    translation: [ 1, 0, 0 ]
                    elements:
                      Shape: { geometry: { type: Cylinder, radius: 0.1, height: 0.4 } }
                  - type: Shape
                    geometry: { type: Sphere, radius: 0.2 }
                    appearance: { material: { diffuseColor: [ 1, 0, 0 ], transparency: 0.5 } }
    """)
    link = load_model(path).link('a')
    cyl, sphere = link.visuals
    assert isinstance(cyl.geometry, Cylinder) and cyl.geometry.length == 0.4
    np.testing.assert_allclose(cyl.pose.pos, (1, 1, 0), atol=1e-12)
    # Choreonoid cylinders run along their local Y; after the 90 degree yaw that is world -X.
    np.testing.assert_allclose(np.abs(cyl.pose.rot[:, 2]), (1, 0, 0), atol=1e-12)
    assert isinstance(sphere.geometry, Sphere)
    assert sphere.material.rgba == (1.0, 0.0, 0.0, 0.5)


def test_scaled_box(tmp_path):
    path = write(tmp_path, HEADER + """
        links:
          - name: a
            elements:
              Transform:
                scale: [ 2, 3, 4 ]
                elements: { Shape: { geometry: { type: Box, size: [ 1, 1, 1 ] } } }
    """)
    shape = load_model(path).link('a').visuals[0]
    assert isinstance(shape.geometry, Box) and shape.geometry.size == (2.0, 3.0, 4.0)


@pytest.mark.parametrize('body, line, message', [
    ('format: Other\nlinks: []\n', 1, 'not a Choreonoid Body file'),
    ('format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: radian\nlinks: [ {name: a} ]\n', 1,
     'radian is not allowed with format_version 2.0'),
    ('format: ChoreonoidBody\nlinks:\n  - name: a\n  - name: b\n    parent: c\n', 4,
     "parent link 'c' of 'b' is not defined"),
    ('format: ChoreonoidBody\nlinks:\n  - name: a\n    joint_type: spinning\n', 4,
     "joint_type 'spinning'"),
    ('format: ChoreonoidBody\nlinks:\n  - name: a\n    elements:\n      - type: Shape\n'
     '        geometry: { type: Box, size: [ 1, -1, 1 ] }\n', 6,
     'Box size must be three numbers, none negative'),
    ('format: ChoreonoidBody\nlinks:\n  - name: a\n    mass: heavy\n', 4, 'mass must be a number'),
    ('format: ChoreonoidBody\nlinks:\n  - name: a\n    rotation: [ 0, 0, 0, 90 ]\n', 4,
     'zero vector'),
    ('format: ChoreonoidBody\nlinks: [\n', 3, 'invalid YAML'),
])
def test_errors_name_file_and_line(tmp_path, body, line, message):
    path = tmp_path / 'bad.body'
    path.write_text(body)
    with pytest.raises(ModelError, match=message) as info:
        load_model(path)
    assert info.value.path == str(path) and info.value.line == line
    assert str(info.value).startswith(f'{path}:{line}: ')
    assert '\n' not in str(info.value)


def test_unknown_node_type_is_unsupported(tmp_path):
    path = write(tmp_path, HEADER + """
        links:
          - name: a
            elements:
              - type: Teleporter
    """)
    with pytest.raises(UnsupportedError, match='Teleporter nodes are not supported'):
        load_model(path)


def test_ignored_keys_are_warned(tmp_path):
    path = write(tmp_path, HEADER + """
        links:
          - name: a
            colour: blue
    """)
    (warning,) = load_model(path).warnings
    assert warning.startswith(f'{path}:4: ') and "'colour'" in warning


def test_missing_file():
    with pytest.raises(ModelError, match='no such file'):
        load_model('/nonexistent/robot.body')


@pytest.mark.corpus
@pytest.mark.parametrize('relative', [
    'choreonoid/share/model/misc/box1.body',
    'choreonoid/share/model/misc/floor.body',
    'choreonoid/share/model/SR1/SR1.body',
])
def test_real_models_load(relative):
    model = choreonoid.load(shared_model(relative))
    assert model.links


@pytest.mark.corpus
def test_sr1_matches_the_file():
    model = load_model(shared_model('choreonoid/share/model/SR1/SR1.body'))
    assert model.root == 'WAIST' and model.root_joint == JointType.FREE
    assert len(model.movable_joints) == 29
    np.testing.assert_allclose(model.link('WAIST').pose.pos, (0, 0, 0.7135))
    # CHEST gives no joint_axis: Choreonoid's default is +Z.
    np.testing.assert_allclose(model.joint('CHEST').axis, (0, 0, 1))
    assert model.link('WAIST_R').inertial.mass == 30.0
