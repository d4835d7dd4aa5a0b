"""Choreonoid Body files: the whole format, each feature on a small file and on real models."""

import math
import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.formats import load_model
from body_bridge.model import Box, Cylinder, DeviceKind, JointType, Mesh, Sphere

from conftest import shared_model

HEADER = 'format: ChoreonoidBody\nformat_version: 1.0\n'


def body(tmp_path, text, name='m.body'):
    """Write a Body file (HEADER is prepended unless the text has a format key)."""
    text = textwrap.dedent(text).lstrip()
    if not text.startswith('format'):
        text = HEADER + text
    path = tmp_path / name
    path.write_text(text)
    return path


def load(tmp_path, text, name='m.body'):
    return load_model(body(tmp_path, text, name))


def fails(tmp_path, text, message, line, error=ModelError, name='m.body'):
    path = body(tmp_path, text, name)
    with pytest.raises(error, match=message) as info:
        load_model(path)
    assert str(info.value).startswith(f'{info.value.path}:{line}: ')
    assert '\n' not in str(info.value)
    return info.value


# --- header --------------------------------------------------------------------------------


def test_version_2_snake_case_and_name_default(tmp_path):
    model = load(tmp_path, """
        format: ChoreonoidBody
        format_version: 2.0
        angle_unit: degree
        root_link: b
        links:
          - { name: a, parent: b, joint_type: revolute, joint_range: [ -90, 45 ] }
          - { name: b, joint_type: free }
        """, name='robot.body')
    assert model.name == 'robot' and model.root == 'b' and model.root_joint == JointType.FREE
    joint = model.joint('a')
    assert (joint.limits.lower, joint.limits.upper) == pytest.approx((-math.pi / 2, math.pi / 4))


def test_camel_and_snake_keys_mix_in_one_link(tmp_path):
    model = load(tmp_path, """
        links:
          - name: a
          - { name: b, parent: a, jointType: prismatic, joint_axis: -y, jointRange: [ -0.1, 0.2 ],
              max_joint_velocity: 0.5, jointVelocityRange: [ -0.3, 0.3 ] }
        """)
    joint = model.joint('b')
    assert joint.type == JointType.PRISMATIC
    np.testing.assert_allclose(joint.axis, (0, -1, 0))
    # Prismatic ranges are metres (no angle unit); joint_velocity_range wins.
    assert (joint.limits.lower, joint.limits.upper, joint.limits.velocity) == (-0.1, 0.2, 0.3)


@pytest.mark.parametrize('text, message', [
    ('format: ChoreonoidBody\nformat_version: 2.5\nlinks: [ { name: a } ]\n',
     'format_version 2.5 is not supported'),
    ('format: ChoreonoidBody\nangle_unit: gradian\nlinks: [ { name: a } ]\n',
     "angle_unit must be degree or radian, found 'gradian'"),
    ('format: ChoreonoidBody\nroot_link: z\nlinks: [ { name: a } ]\n',
     "root_link 'z' is not a link"),
])
def test_header_errors(tmp_path, text, message):
    fails(tmp_path, text, message, 1)


# --- links and joints ----------------------------------------------------------------------


def test_joint_parameters(tmp_path):
    model = load(tmp_path, """
        links:
          - name: a
          - name: b
            parent: a
            joint_type: revolute
            joint_axis: [ 0, 2, 0 ]
            joint_id: 7
            joint_name: elbow
            max_joint_velocity: 180
            max_joint_effort: 12.5
            rotor_inertia: 2.0e-4
            gear_ratio: 50
            joint_angle: 30
        """)
    joint = model.joint('elbow')
    assert joint.child == 'b' and joint.meta['joint_id'] == 7
    np.testing.assert_allclose(joint.axis, (0, 1, 0))
    assert joint.limits.velocity == pytest.approx(math.pi)
    assert joint.limits.effort == 12.5
    assert joint.armature == pytest.approx(2.0e-4 * 50 ** 2)
    assert joint.initial == pytest.approx(math.radians(30))
    assert any('not a unit vector' in w for w in model.warnings)


@pytest.mark.corpus
def test_pseudo_continuous_track_is_a_track_joint():
    model = load_model(shared_model('choreonoid/share/model/misc/conveyor.body'))
    joint = model.joint('TRACK')
    assert joint.type == JointType.TRACK and joint.type.rigid
    np.testing.assert_allclose(joint.axis, (0.0, -1.0, 0.0))
    assert joint in model.movable_joints
    assert not any('pseudo_continuous_track' in w for w in model.warnings)


@pytest.mark.corpus
def test_free_joints_below_the_root_are_independent_bodies():
    model = load_model(shared_model('choreonoid/share/model/misc/pyramid.body'))
    assert [j.type for j in model.joints] == [JointType.FREE, JointType.FREE]
    np.testing.assert_allclose(model.link('box2').pose.pos, (0.35, 1.0, 0.3))


def test_mass_without_inertia_takes_choreonoids_default(tmp_path):
    model = load(tmp_path, 'links: [ { name: a, mass: 2.0 } ]\n')
    inertial = model.link('a').inertial
    assert inertial.mass == 2.0
    np.testing.assert_allclose(inertial.inertia, np.eye(3))
    assert any('default inertia' in w for w in model.warnings)


def test_link_mass_and_rigid_bodies_combine(tmp_path):
    # A 1 kg link mass at the origin and a 3 kg RigidBody at x = 0.4, turned 90 degrees about
    # z (its Ixx and Iyy swap): centre at x = 0.3; parallel axes add 1 * 0.3^2 + 3 * 0.1^2 to
    # Iyy and Izz.
    model = load(tmp_path, """
        links:
          - name: a
            mass: 1.0
            inertia: [ 0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01 ]
            elements:
              - type: RigidBody
                translation: [ 0.4, 0, 0 ]
                rotation: [ 0, 0, 1, 90 ]
                mass: 3.0
                inertia: [ 0.1, 0, 0, 0, 0.2, 0, 0, 0, 0.3 ]
        """)
    inertial = model.link('a').inertial
    assert inertial.mass == 4.0
    np.testing.assert_allclose(inertial.com, (0.3, 0, 0), atol=1e-12)
    expected = np.diag([0.01 + 0.2, 0.01 + 0.1 + 1 * 0.09 + 3 * 0.01, 0.01 + 0.3 + 0.12])
    np.testing.assert_allclose(inertial.inertia, expected, atol=1e-12)


def test_import_adds_keys_and_the_links_own_win(tmp_path):
    model = load(tmp_path, """
        joint_spec: &SPEC { jointType: revolute, jointRange: [ -10, 10 ], mass: 2.0,
                            inertia: [ 1, 0, 0, 1, 0, 1 ], friction_model: viscous }
        links:
          - name: a
          - { name: b, parent: a, import: *SPEC, mass: 3.0 }
        """)
    joint = model.joint('b')
    assert joint.type == JointType.REVOLUTE
    assert joint.limits.upper == pytest.approx(math.radians(10))
    assert model.link('b').inertial.mass == 3.0
    assert any("'friction_model'" in w for w in model.warnings)


@pytest.mark.corpus
def test_real_imports_are_read_and_their_unknown_keys_named():
    model = load_model(shared_model('choreonoid/historical/89196252/sample/TrackedVehicle/'
                                    'TrackedVehicle.body'))
    assert any("'hingeCompliance'" in w and 'WHEEL_L0' in w for w in model.warnings)


@pytest.mark.parametrize('text, line, message', [
    ('links:\n  - name: a\n  - name: b\n    parent: a\n    joint_range: [ 1, 2, 3 ]\n', 7,
     r'joint_range must be \[lower, upper\]'),
    ('links:\n  - name: a\n  - name: b\n    parent: a\n    joint_range: [ big, 2 ]\n', 7,
     "joint_range value 'big'"),
    ('links:\n  - name: a\n    joint_axis: W\n', 5, "joint_axis 'W' is not a vector"),
    ('links:\n  - name: a\n  - name: a\n', 5, "duplicate link name 'a'"),
    ('links:\n  - name: a\n  - name: b\n', 5, "link 'b' has no parent"),
    ('links:\n  - name: a\n  - { name: b, parent: c }\n  - { name: c, parent: b }\n', 5,
     'cycle'),
    ('links:\n  - name: a\n    mass: -1\n', 5, 'mass must not be negative'),
    ('links:\n  - name: a\n    joint_id: one\n', 5, 'joint_id must be an integer'),
    ('links:\n  - type: Sensor\n    name: a\n', 4, 'Sensor nodes in links are not supported'),
])
def test_link_errors(tmp_path, text, line, message):
    fails(tmp_path, text, message, line)


# --- elements ----------------------------------------------------------------------------


def test_visual_collision_and_plain_shapes(tmp_path):
    model = load(tmp_path, """
        links:
          - name: a
            elements:
              - type: Visual
                translation: [ 1, 0, 0 ]
                elements: { Shape: { geometry: { type: Box, size: [ 1, 1, 1 ] } } }
              - type: Collision
                shape: { geometry: { type: Sphere, radius: 0.5 } }
              - type: Group
                elements: [ { type: Shape, geometry: { type: Cylinder, radius: 1, height: 1 } } ]
              - type: Skip
                elements: { Shape: { geometry: { type: Nonsense } } }
        """)
    link = model.link('a')
    assert [type(s.geometry) for s in link.visuals] == [Box, Cylinder]
    assert [type(s.geometry) for s in link.collisions] == [Sphere, Cylinder]
    np.testing.assert_allclose(link.visuals[0].pose.pos, (1, 0, 0))
    assert link.visuals[1] is link.collisions[1]
    assert model.warnings == ()


def test_visual_inside_collision_is_an_error(tmp_path):
    fails(tmp_path, """
        links:
          - name: a
            elements:
              Collision:
                elements:
                  - type: Visual
                    shape: { geometry: { type: Box, size: [ 1, 1, 1 ] } }
        """, 'a Visual node is inside a Collision node', 8)


@pytest.mark.corpus
def test_real_model_separates_visual_meshes_from_collision_primitives():
    model = load_model(shared_model('choreonoid/share/model/PA10/PA10.body'))
    base = model.link('BASE')
    assert base.visuals and all(isinstance(s.geometry, Mesh) for s in base.visuals)
    assert [type(s.geometry) for s in base.collisions] == [Cylinder]
    assert not set(map(id, base.visuals)) & set(map(id, base.collisions))


def test_transforms_compose_and_translations_sum(tmp_path):
    model = load(tmp_path, """
        links:
          - name: a
            elements:
              Transform:
                translation: [ [ 1, 0, 0 ], [ 0, 2, 0 ] ]
                rotation: [ [ 0, 0, 1, 90 ], [ 1, 0, 0, 90 ] ]
                elements:
                  Transform:
                    translation: [ 0, 0, 1 ]
                    elements: { Shape: { geometry: { type: Box, size: [ 0.1, 0.2, 0.3 ] } } }
        """)
    shape = model.link('a').visuals[0]
    # Translations sum to (1, 2, 0); Rz(90) Rx(90) turns the inner (0, 0, 1) into (1, 0, 0).
    np.testing.assert_allclose(shape.pose.pos, (2, 2, 0), atol=1e-12)


def test_optional_unknown_node_is_skipped_with_a_warning(tmp_path):
    model = load(tmp_path, """
        links:
          - name: a
            elements: [ { type: FancyThing, is_optional: true } ]
        """)
    assert any('FancyThing' in w and 'is_optional' in w for w in model.warnings)


def test_yaml_scene_resource_by_anchor(tmp_path):
    (tmp_path / 'parts.yaml').write_text(textwrap.dedent("""\
        COLOR: &RED { material: { diffuse: [ 1, 0, 0 ] } }
        WHEEL: &WHEEL
          - { type: RigidBody, mass: 2.0, inertia: [ 1, 0, 0, 1, 0, 1 ] }
          - type: Shape
            geometry: { type: Cylinder, radius: 0.1, height: 0.05 }
            appearance: *RED
        """))
    model = load(tmp_path, """
        links:
          - name: a
            elements:
              - { type: Resource, uri: parts.yaml, node: WHEEL, translation: [ 0, 0.5, 0 ] }
        """)
    link = model.link('a')
    assert link.inertial.mass == 2.0
    np.testing.assert_allclose(link.inertial.com, (0, 0.5, 0))
    (shape,) = link.visuals
    assert shape.geometry == Cylinder(0.1, 0.05) and shape.material.rgba == (1, 0, 0, 1)
    np.testing.assert_allclose(shape.pose.pos, (0, 0.5, 0))
    assert shape.source.startswith(str(tmp_path / 'parts.yaml'))


@pytest.mark.corpus
def test_real_yaml_resource_places_visual_and_collision():
    model = load_model(shared_model('choreonoid/share/model/AizuWheel/AizuWheel.body'))
    chassis = model.link('CHASSIS')
    assert all(isinstance(s.geometry, Mesh) for s in chassis.visuals)
    assert len(chassis.collisions) > 50 and all(isinstance(s.geometry, Box)
                                                for s in chassis.collisions)
    assert chassis.inertial.mass == pytest.approx(36.59264)


def test_missing_anchor_names_the_anchors(tmp_path):
    (tmp_path / 'parts.yaml').write_text('A: &A { type: Group }\n')
    fails(tmp_path, """
        links:
          - name: a
            elements: { Resource: { uri: parts.yaml, node: B } }
        """, r"node 'B' is not an anchor of 'parts.yaml' \(anchors: A\)", 5)


def test_missing_mesh_file(tmp_path):
    fails(tmp_path, """
        links:
          - name: a
            elements:
              - type: Shape
                geometry: { type: Resource, uri: nowhere.stl }
        """, "resource 'nowhere.stl' does not exist", 7)


def test_unreadable_mesh_format(tmp_path):
    (tmp_path / 'part.xyz').write_text('1 2 3\n')
    fails(tmp_path, """
        links:
          - name: a
            elements: { Resource: { uri: part.xyz } }
        """, "cannot read resource: .*part.xyz: mesh format '.xyz' is not supported", 5,
          error=UnsupportedError)


@pytest.mark.parametrize('geometry, line, message', [
    ('{ type: Sphere, radius: -1 }', 7, 'Sphere radius must be a positive number'),
    ('{ type: Capsule, radius: 1 }', 7, 'Capsule height must be a positive number'),
    ('{ type: Blob }', 7, 'geometry type Blob is not supported'),
    ('{ type: IndexedFaceSet, vertices: [ 0, 0, 0, 1, 0, 0, 0, 1, 0 ], faces: [ 0, 1, 5, -1 ] }',
     7, 'face index out of range'),
    ('{ type: Extrusion, spine: [ 0, 0, 0, 0, 0, 0 ] }', 7, 'two equal consecutive points'),
    ('{ type: Resource, uri: "${SHARE}/model.stl" }', 7, 'path variable'),
])
def test_geometry_errors(tmp_path, geometry, line, message):
    fails(tmp_path, f"""
        links:
          - name: a
            elements:
              - type: Shape
                geometry: {geometry}
        """, message, line, error=ModelError)


# --- devices -------------------------------------------------------------------------------


def look(model, device):
    """World direction a camera or range sensor looks along, and its up direction."""
    world = model.link(device.link).pose @ device.pose
    return world.rot[:, 0], world.rot[:, 2]


@pytest.mark.corpus
def test_camera_parameters_and_defaults():
    model = load_model(shared_model('choreonoid/share/model/misc/FourWheelCar.body'))
    (camera,) = model.devices
    assert camera.kind == DeviceKind.CAMERA and camera.type_name == 'Camera'
    params = dict(camera.params)
    assert params['format'] == 'COLOR_DEPTH' and params['lens_type'] == 'NORMAL'
    assert (params['width'], params['height']) == (320, 240)
    assert params['field_of_view'] == pytest.approx(math.radians(65))
    assert (params['near_clip_distance'], params['far_clip_distance']) == (0.04, 200.0)
    forward, up = look(model, camera)
    np.testing.assert_allclose(forward, (0, 0, -1), atol=1e-12)  # Choreonoid's -Z
    np.testing.assert_allclose(up, (0, 1, 0), atol=1e-12)


@pytest.mark.corpus
def test_optical_frame_rotation_of_a_real_camera():
    model = load_model(shared_model('choreonoid/share/model/Tank/TankBody.body'))
    kinect = next(d for d in model.devices if d.name == 'Kinect')
    # The Kinect node states the robotics frame (x forward, z up); the turret looks along +x.
    forward, up = look(model, kinect)
    np.testing.assert_allclose(forward, (1, 0, 0), atol=1e-9)
    np.testing.assert_allclose(up, (0, 0, 1), atol=1e-9)
    theta = next(d for d in model.devices if d.name == 'Theta')
    assert theta.params['lens_type'] == 'DUAL_FISHEYE' and theta.params['on'] is False
    vlp = next(d for d in model.devices if d.name == 'VLP-16')
    assert vlp.kind == DeviceKind.RANGE
    assert vlp.params['yaw_range'] == pytest.approx(2 * math.pi)
    assert vlp.params['pitch_step'] == pytest.approx(math.radians(2))
    assert vlp.params['detection_rate'] == 0.9


@pytest.mark.parametrize('frame, forward, up', [
    ('gl', (0, 0, -1), (0, 1, 0)),
    ('cv', (0, 0, 1), (0, -1, 0)),
    ('robotics', (1, 0, 0), (0, 0, 1)),
])
def test_optical_frame_names(tmp_path, frame, forward, up):
    model = load(tmp_path, f"""
        links:
          - name: a
            elements: [ {{ type: Camera, name: c, optical_frame: {frame} }} ]
        """)
    got_forward, got_up = look(model, model.devices[0])
    np.testing.assert_allclose(got_forward, forward, atol=1e-12)
    np.testing.assert_allclose(got_up, up, atol=1e-12)


def test_sensor_kinds_and_units(tmp_path):
    model = load(tmp_path, """
        links:
          - name: a
            elements:
              - { type: AccelerationSensor, name: acc, id: 0, max_acceleration: [ 20, 20, 20 ] }
              - { type: RateGyroSensor, name: gyro, maxAngularVelocity: [ 180, 180, 180 ] }
              - { type: Imu, name: imu }
              - { type: ForceSensor, name: ft, translation: [ 0, 0, -0.1 ],
                  max_force: [ 100, 100, 200 ], max_torque: [ 5, 5, 5 ] }
              - { type: RangeSensor, name: lrf, scanAngle: 135, scanStep: 0.25 }
              - { type: SpotLight, name: light, beam_width: 36, on: false }
              - { type: PointLight, name: lamp, attenuation: [ 1, 0, 0.5 ] }
        """)
    devices = {d.name: d for d in model.devices}
    assert {d.name: d.kind for d in model.devices} == {
        'acc': DeviceKind.ACCELEROMETER, 'gyro': DeviceKind.GYRO, 'imu': DeviceKind.IMU,
        'ft': DeviceKind.FORCE, 'lrf': DeviceKind.RANGE, 'light': DeviceKind.LIGHT,
        'lamp': DeviceKind.LIGHT}
    assert devices['acc'].params['id'] == 0
    assert devices['gyro'].params['max_angular_velocity'] == pytest.approx((math.pi,) * 3)
    assert devices['ft'].params['max_force'] == (100, 100, 200)
    np.testing.assert_allclose(devices['ft'].pose.pos, (0, 0, -0.1))
    assert devices['lrf'].params['yaw_range'] == pytest.approx(math.radians(135))
    assert devices['lrf'].params['max_distance'] == 10.0  # Choreonoid's default
    light = devices['light'].params
    assert light['beam_width'] == pytest.approx(math.radians(36)) and light['on'] is False
    assert light['direction'] == (0, 0, -1)
    assert light['cut_off_angle'] == pytest.approx(math.pi / 4)
    assert devices['lamp'].params['attenuation'] == (1, 0, 0.5)
    assert 'direction' not in devices['lamp'].params


@pytest.mark.corpus
def test_plug_in_devices_are_kept_with_their_parameters():
    model = load_model(shared_model('choreonoid/share/model/misc/mid360.body'))
    (lidar,) = model.devices
    assert lidar.kind == DeviceKind.OTHER and lidar.type_name == 'LivoxMid360'
    assert lidar.params['max_pitch_angle'] == 52 and lidar.params['samples'] == 24000
    np.testing.assert_allclose(lidar.pose.pos, (0, 0, 0.025))
    assert any('LivoxMid360' in w for w in model.warnings)
    for name in ('fire', 'rain', 'snow', 'fountain'):
        model = load_model(shared_model(f'choreonoid/share/model/misc/{name}.body'))
        (device,) = model.devices
        assert device.kind == DeviceKind.OTHER and device.name == f'Base_{device.type_name}'


@pytest.mark.corpus
def test_competitor_marker_and_on_keys():
    model = load_model(shared_model('choreonoid/share/model/AizuSpider/AizuSpiderNS.body'))
    devices = {d.name: d for d in model.devices}
    assert devices['CompetitorMarker'].kind == DeviceKind.OTHER
    # "on: false" (a YAML 1.1 boolean key) is read as Choreonoid reads it.
    assert devices['LEFT_CAMERA'].params['on'] is False
    assert devices['FRONT_CAMERA'].params['on'] is True
    assert devices['LRF'].params['yaw_range'] == pytest.approx(math.radians(135))
    assert not any("'True'" in w or "'on'" in w for w in model.warnings)


@pytest.mark.corpus
def test_real_camera_frames_in_a_yaml_resource():
    # AizuSpiderCommon.yaml turns each camera with rotations about z and x (GL convention).
    model = load_model(shared_model('choreonoid/share/model/AizuSpider/AizuSpiderNS.body'))
    devices = {d.name: d for d in model.devices}
    for name, forward in (('FRONT_CAMERA', (1, 0, 0)), ('BACK_CAMERA', (-1, 0, 0)),
                          ('LEFT_CAMERA', (0, 1, 0)), ('RIGHT_CAMERA', (0, -1, 0))):
        got_forward, got_up = look(model, devices[name])
        np.testing.assert_allclose(got_forward, forward, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(got_up, (0, 0, 1), atol=1e-12, err_msg=name)
    np.testing.assert_allclose(devices['FRONT_CAMERA'].pose.pos, (0.25470, 0, 0.13550))


def test_device_errors_and_duplicates(tmp_path):
    fails(tmp_path, """
        links:
          - name: a
            elements:
              Transform:
                scale: [ 2, 2, 2 ]
                elements: { Camera: { name: c } }
        """, 'Camera is under a scaling Transform', 8)
    fails(tmp_path, 'links: [ { name: a, elements: [ { type: Camera, format: RGB } ] } ]\n',
          "camera format 'RGB' is not one of", 3)
    model = load(tmp_path, """
        links:
          - name: a
            elements: [ { type: Imu, name: s }, { type: Imu, name: s } ]
        """)
    assert [d.name for d in model.devices] == ['s', 's_2']
    assert any("device name 's' is used twice" in w for w in model.warnings)


# --- sub-bodies, tracks, extra joints ------------------------------------------------------


@pytest.mark.corpus
def test_sub_bodies_with_suffixes():
    model = load_model(shared_model('choreonoid/share/model/misc/BoxesOnFloor.body'))
    assert [link.name for link in model.links] == ['Floor', 'box1', 'box2', 'box3', 'box4']
    assert model.joint('box2').type == JointType.FREE and model.joint('box2').parent == 'Floor'
    np.testing.assert_allclose(model.link('box2').pose.pos, (0.0108, 0.2371, 1.0699))
    assert model.link('box3').inertial.mass == 12.8


@pytest.mark.corpus
def test_sub_body_prefixes_device_prefix_and_joint_ids():
    model = load_model(shared_model('choreonoid/share/model/AizuSpider/AizuSpiderSS.body'))
    arm = load_model(shared_model('choreonoid/share/model/JACO2/JACO2.body'))
    assert len(model.links) == 11 + len(arm.links)
    assert model.joint('SHOULDER').meta['joint_id'] == arm.joint('SHOULDER').meta['joint_id'] + 4
    assert 'ARM_CAMERA' in {d.name for d in model.devices}
    # The SubBody node places the arm's root link on the chassis.
    base = model.link('CHASSIS').pose.inverse() @ model.link('BASE').pose
    np.testing.assert_allclose(base.pos, (-0.06320, -0.094, 0.5150), atol=1e-12)
    np.testing.assert_allclose(base.rot @ (1, 0, 0), (0, 1, 0), atol=1e-12)
    assert model.joint('BASE').type == JointType.FIXED and model.joint('BASE').parent == 'CHASSIS'


def test_sub_body_prefix_suffix_device_prefix_and_joint_id_offset(tmp_path):
    body(tmp_path, """
        links:
          - { name: BASE, joint_type: fixed }
          - { name: WRIST, parent: BASE, joint_type: revolute, joint_id: 1,
              translation: [ 0, 0, 0.2 ],
              elements: [ { type: ForceSensor, name: FORCE } ] }
        """, name='arm.body')
    model = load(tmp_path, """
        links:
          - { name: CHASSIS, joint_type: free, mass: 10 }
          - { type: SubBody, uri: arm.body, parent: CHASSIS, prefix: L_, suffix: _1,
              device_prefix: LEFT_, joint_id_offset: 4, translation: [ 0.1, 0.2, 0.3 ],
              rotation: [ 0, 0, 1, 90 ] }
          - { type: SubBody, uri: arm.body, parent: CHASSIS, prefix: R_,
              translation: [ 0.1, -0.2, 0.3 ] }
        """)
    assert [link.name for link in model.links] == ['CHASSIS', 'L_BASE_1', 'L_WRIST_1',
                                                   'R_BASE', 'R_WRIST']
    assert {d.name: d.link for d in model.devices} == {'LEFT_FORCE': 'L_WRIST_1',
                                                       'R_FORCE': 'R_WRIST'}  # the prefix
    assert model.joint('L_WRIST_1').meta['joint_id'] == 5
    assert model.joint('R_WRIST').meta['joint_id'] == 1
    # The SubBody node places the sub-body's root on the chassis with a fixed joint.
    base = model.joint('L_BASE_1')
    assert base.type == JointType.FIXED and base.parent == 'CHASSIS'
    np.testing.assert_allclose(model.link('L_BASE_1').pose.pos, (0.1, 0.2, 0.3), atol=1e-12)
    np.testing.assert_allclose(model.link('L_BASE_1').pose.rot @ (1, 0, 0), (0, 1, 0),
                               atol=1e-12)
    np.testing.assert_allclose(model.link('R_WRIST').pose.pos, (0.1, -0.2, 0.5), atol=1e-12)


def test_optical_frame_rotation_turns_the_gl_frame(tmp_path):
    """optical_frame_rotation is the GL frame's rotation in the device frame: a quarter turn
    about X makes a GL camera (looking along -Z) look along +Y of the link, as Choreonoid
    reads it; the model's device frame looks along its +x."""
    model = load(tmp_path, """
        links:
          - name: a
            elements:
              - { type: Camera, name: plain }
              - { type: Camera, name: turned, optical_frame_rotation: [ 1, 0, 0, 90 ] }
              - { type: RangeSensor, name: scanner, optical_frame: robotics }
        """)
    devices = {d.name: d for d in model.devices}
    forward, up = look(model, devices['plain'])
    np.testing.assert_allclose(forward, (0, 0, -1), atol=1e-9)
    np.testing.assert_allclose(up, (0, 1, 0), atol=1e-9)
    forward, up = look(model, devices['turned'])
    np.testing.assert_allclose(forward, (0, 1, 0), atol=1e-9)
    np.testing.assert_allclose(up, (0, 0, 1), atol=1e-9)
    forward, up = look(model, devices['scanner'])
    np.testing.assert_allclose(forward, (1, 0, 0), atol=1e-9)
    np.testing.assert_allclose(up, (0, 0, 1), atol=1e-9)


def test_each_sub_body_file_has_its_own_angle_unit(tmp_path):
    body(tmp_path, """
        links: [ { name: arm, joint_type: fixed }, { name: hand, parent: arm,
                   joint_type: revolute, joint_range: 90 } ]
        """, name='arm.body')
    model = load(tmp_path, """
        format: ChoreonoidBody
        formatVersion: 1.0
        angleUnit: radian
        links:
          - { name: base }
          - { type: SubBody, uri: arm.body, parent: base,
              rotation: [ 0, 0, 1, 1.5707963267948966 ] }
        """)
    assert model.joint('hand').limits.upper == pytest.approx(math.pi / 2)  # degrees there
    np.testing.assert_allclose(model.link('arm').pose.rot @ (1, 0, 0), (0, 1, 0), atol=1e-12)


def test_sub_body_errors(tmp_path):
    fails(tmp_path, 'links: [ { name: a }, { type: SubBody, uri: m.body, parent: a } ]\n',
          "sub-body 'm.body' includes itself", 3)
    fails(tmp_path, 'links: [ { name: a }, { type: SubBody, uri: none.body } ]\n',
          "sub-body 'none.body' does not exist", 3)


def test_continuous_track_of_our_own(tmp_path):
    model = load(tmp_path, """
        links:
          - { name: ROOT, joint_type: free, mass: 10, inertia: [1, 0, 0, 0, 1, 0, 0, 0, 1] }
          - type: ContinuousTrack
            name: SHOE
            parent: ROOT
            translation: [0.5, 0, 0]
            joint_axis: Y
            num_joints: 6
            joint_offset: [0.1, 0, 0]
            initial_joint_angles: [30, -30]
            mass: 0.5
            inertia: [0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01]
            elements:
              - { type: Shape, geometry: { type: Box, size: [0.1, 0.2, 0.02] } }
              - { type: AccelerationSensor, name: SHOE_ACCEL }
        """)
    assert [link.name for link in model.links] == ['ROOT', 'SHOE']  # one link for the chain
    joint = model.joint('SHOE')
    assert joint.type == JointType.TRACK and joint.parent == 'ROOT'
    np.testing.assert_allclose(joint.axis, (0, 1, 0))
    belt = model.link('SHOE')
    assert belt.inertial.mass == pytest.approx(6 * 0.5)
    assert len(belt.visuals) == 6  # the shoes where they start: a bend down and back up
    heights = [v.pose.pos[2] for v in belt.visuals]
    assert heights == pytest.approx([0, 0, -0.05, -0.05, -0.05, -0.05], abs=1e-9)
    box = belt.collisions[0].geometry
    assert box.size[1] == pytest.approx(0.2)  # as wide as a shoe
    assert [d.link for d in model.devices] == ['SHOE']  # devices stay on the track's link
    assert any("ContinuousTrack 'SHOE': the chain of 6 shoe links is approximated" in w
               for w in model.warnings)
    fails(tmp_path, """
        links:
          - { name: ROOT }
          - { type: ContinuousTrack, name: T, parent: ROOT, num_joints: 2,
              joint_offset: [0.1, 0, 0] }
        """, 'a ContinuousTrack needs num_joints of 3 or more', 5)
    fails(tmp_path, """
        links:
          - { name: ROOT }
          - { type: ContinuousTrack, name: T, parent: ROOT, num_joints: 4 }
        """, 'a ContinuousTrack needs joint_offset', 5)


@pytest.mark.corpus
def test_a_continuous_track_chain_is_approximated_by_one_track_link():
    model = load_model(shared_model('choreonoid/historical/89196252/sample/TrackedVehicle/'
                                    'TrackedVehicle.body'))
    assert [link.name for link in model.links if link.name.startswith('FOOT_L')] == ['FOOT_L']
    joint = model.joint('FOOT_L')
    assert joint.type == JointType.TRACK and joint.parent == 'ROOT'
    np.testing.assert_allclose(joint.axis, (0, 1, 0))
    belt = model.link('FOOT_L')
    assert belt.inertial.mass == pytest.approx(40 * 5.142)  # the 40 shoes'
    assert len(belt.visuals) == 40  # the shoes, where they start
    np.testing.assert_allclose(belt.pose.pos, (1.1184, 1.1, 0.15))
    # The belt encloses the shoes at their initial angles: six 30-degree bends at each end
    # of a chain of 0.167 m links make a loop 0.167 / tan(15 deg) = 0.623 m high between the
    # joints, and the 0.05 m shoes stand outside it at the top and at the bottom.
    box = belt.collisions[0].geometry
    assert box.size[1] == pytest.approx(0.3)
    assert box.size[2] == pytest.approx(0.167 / math.tan(math.radians(15)) + 0.1, abs=1e-3)
    assert any("ContinuousTrack 'FOOT_L': the chain of 40 shoe links is approximated" in w
               for w in model.warnings)
    assert any("the wheels inside the belt of 'FOOT_L'" in w for w in model.warnings)


@pytest.mark.corpus
def test_extra_joint_closes_the_steering_linkage():
    from body_bridge.sim.simulation import Mode, Simulation
    model = load_model(shared_model('choreonoid/share/model/misc/FourWheelCar.body'))
    (closure,) = model.closures
    assert (closure.type, closure.link1, closure.link2) == ('hinge', 'STEERING', 'STEERING_LEFT')
    sim = Simulation(model)
    sim.command(Mode.EFFORT, ['STEERING_LEFT', 'STEERING'], [0.0, 0.0])
    sim.command(Mode.POSITION, ['STEERING_RIGHT'], [0.3])
    for _ in range(200):
        sim.step_period()
    q = dict(zip(sim.joint_names, sim.joint_positions(), strict=True))
    # A parallelogram: the left wheel steers as the right one does.
    assert q['STEERING_RIGHT'] == pytest.approx(0.3, abs=0.01)
    assert q['STEERING_LEFT'] == pytest.approx(q['STEERING_RIGHT'], abs=1e-3)
    assert sim.warnings() == {}


def test_extra_joint_types_and_errors(tmp_path):
    model = load(tmp_path, """
        links:
          - name: a
          - { name: b, parent: a, joint_type: revolute, translation: [ 1, 0, 0 ] }
        extra_joints:
          - { link1_name: a, link2_name: b, joint_type: piston, axis: Y,
              link1_local_pos: [ 1, 0, 0 ] }
          - { link1Name: a, link2Name: b, jointType: ball, link2LocalPos: [ 0, 0, 1 ] }
        """)
    piston, ball = model.closures
    assert piston.type == 'piston' and ball.type == 'ball'
    np.testing.assert_allclose(piston.axis, (0, 1, 0))
    assert any("extra joint 'extra_joint1_a_b' are 1.41 m apart" in w for w in model.warnings)
    fails(tmp_path, """
        links: [ { name: a }, { name: b, parent: a } ]
        extra_joints: [ { link1_name: a, link2_name: c, joint_type: ball } ]
        """, "link2_name 'c' is not a link", 4)
    fails(tmp_path, """
        links: [ { name: a }, { name: b, parent: a } ]
        extra_joints: [ { link1_name: a, link2_name: b, joint_type: gear } ]
        """, "extra joint type 'gear' is not supported", 4, error=UnsupportedError)
    fails(tmp_path, """
        links: [ { name: a }, { name: b, parent: a } ]
        extra_joints: [ { link1_name: a, link2_name: b, joint_type: hinge } ]
        """, 'a hinge extra joint needs an axis', 4)
