"""Track devices of the physics plug-ins as track joints around their wheels (own models)."""

import numpy as np
import pytest

from body_bridge.formats import choreonoid
from body_bridge.model import Box, Cylinder, JointType

WHEELS = """
  - { name: W1, parent: TRACK, joint_type: revolute, joint_axis: Y, translation: [0.5, 0, 0],
      mass: 1, inertia: [0.1, 0, 0, 0.1, 0, 0.1],
      elements: { Shape: { geometry: { type: Cylinder, radius: 0.1, height: 0.2 } } } }
  - { name: W2, parent: TRACK, joint_type: revolute, joint_axis: Y, translation: [-0.5, 0, 0],
      mass: 1, inertia: [0.1, 0, 0, 0.1, 0, 0.1],
      elements: { Shape: { geometry: { type: Cylinder, radius: 0.1, height: 0.2 } } } }
"""


def load(tmp_path, track_joint, device):
    path = tmp_path / 't.body'
    path.write_text(f"""format: ChoreonoidBody
format_version: 1.0
angle_unit: radian
links:
  - {{ name: CHASSIS, joint_type: free, mass: 10, inertia: [1, 0, 0, 1, 0, 1] }}
  - {{ name: TRACK, parent: CHASSIS, {track_joint}, translation: [0, 0.5, 0],
      elements: [ {device} ] }}
""" + WHEELS)
    model = choreonoid.load(path)
    return model, [w.split(': ', 1)[1] for w in model.warnings]


def test_an_agx_belt_is_a_box_and_two_cylinders_around_its_wheels(tmp_path):
    model, said = load(tmp_path, 'joint_type: fixed', '{ type: AGXVehicleContinuousTrackDevice, '
                       'name: BELT, sprocketNames: [W1], idlerNames: W2, '
                       'nodeThickness: 0.02, nodeThickerThickness: 0.01, nodeWidth: 0.3 }')
    joint = model.joint('TRACK')
    assert joint.type == JointType.TRACK and joint.parent == 'CHASSIS'
    assert joint.axis.tolist() == [0, 1, 0]
    box, end1, end2 = model.link('TRACK').collisions
    # the wheels reach 0.1 m around their centres 1 m apart, plus the belt's 0.02 m
    assert box.geometry == Box(pytest.approx((1.0, 0.3, 0.24)))
    np.testing.assert_allclose(box.pose.pos, [0, 0, 0], atol=1e-12)
    for end, x in ((end1, 0.5), (end2, -0.5)):
        assert end.geometry == Cylinder(pytest.approx(0.12), pytest.approx(0.3))
        np.testing.assert_allclose(end.pose.pos, [x, 0, 0], atol=1e-12)
        np.testing.assert_allclose(end.pose.rot @ [0, 0, 1], [0, 1, 0], atol=1e-12)
    assert model.link('W1').collisions == () and len(model.link('W1').visuals) == 1
    assert said[-1] == ("AGXVehicleContinuousTrackDevice 'BELT': the belt is approximated: "
                        "joint 'TRACK' is a track (surface speed [m/s]) whose link is a rigid "
                        'belt around W1, W2')


def test_a_physx_belt_on_a_moving_link_gets_a_link_of_its_own(tmp_path):
    model, said = load(tmp_path, 'joint_type: revolute, joint_axis: Y',
                       '{ type: PxContinuousTrack, name: PX, sprocket: W1, idler: W2, '
                       'sprocket_radius: 0.15, idler_radius: 0.05, thickness: 0.01, '
                       'grouser_height: 0.01 }')
    assert model.joint('TRACK').type == JointType.CONTINUOUS
    joint = model.joint('PX')
    assert joint.type == JointType.TRACK and (joint.parent, joint.child) == ('TRACK', 'PX_belt')
    box = model.link('PX_belt').collisions[0]
    # the radius given (0.15) reaches past the wheels' shapes; 0.02 m of belt on every side
    assert box.geometry == Box(pytest.approx((1.0, 0.24, 0.34)))
    np.testing.assert_allclose(model.link('PX_belt').pose.pos, [0, 0.5, 0])
    assert said[-1].startswith("PxContinuousTrack 'PX': the belt is approximated: joint 'PX'")


def test_a_belt_needs_two_wheels_that_exist(tmp_path):
    model, said = load(tmp_path, 'joint_type: fixed', '{ type: AGXVehicleContinuousTrackDevice, '
                       'name: BELT, sprocketNames: [W1, NOPE] }')
    assert model.joint('TRACK').type == JointType.FIXED
    assert len(model.link('W1').collisions) == 1
    assert said[-1] == ("AGXVehicleContinuousTrackDevice 'BELT': kept as a device of kind "
                        '"other": it needs two wheels that exist; the belt is not simulated')
    assert not any('is kept as a device of kind "other" with its parameters' in w for w in said)


def test_three_wheels_off_line_and_no_thickness_given(tmp_path):
    """The belt runs from the first wheel to the last, across the axis (the offset along the
    axis is dropped); without thickness or width it is what the wheels reach."""
    path = tmp_path / 'three.body'
    wheel = ('  - {{ name: {}, parent: TRACK, joint_type: revolute, joint_axis: Y, '
             'translation: {}, mass: 1, inertia: [0.1, 0, 0, 0.1, 0, 0.1], elements: {{ Shape: '
             '{{ geometry: {{ type: Cylinder, radius: 0.1, height: 0.2 }} }} }} }}\n')
    path.write_text('format: ChoreonoidBody\nformat_version: 1.0\nlinks:\n'
                    '  - { name: CHASSIS, joint_type: free, mass: 10, inertia: [1, 0, 0, 1, 0, 1] }\n'
                    '  - { name: TRACK, parent: CHASSIS, joint_type: fixed, elements: [ { type: '
                    'AGXVehicleContinuousTrackDevice, name: B, sprocketNames: [W1], '
                    'rollerNames: [W3], idlerNames: [W2] } ] }\n' +
                    wheel.format('W1', '[0.5, 0, 0]') + wheel.format('W2', '[-0.3, 0.05, 0]') +
                    wheel.format('W3', '[0, 0, 0]'))
    model = choreonoid.load(path)
    box, end1, end2 = model.link('TRACK').collisions
    assert box.geometry == Box(pytest.approx((0.8, 0.25, 0.2)))
    np.testing.assert_allclose(box.pose.pos, [0.1, 0.05 / 3, 0], atol=1e-12)
    np.testing.assert_allclose(box.pose.rot.T @ box.pose.rot, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(box.pose.rot[:, 0], [-1, 0, 0], atol=1e-12)
    assert [c.geometry.radius for c in (end1, end2)] == pytest.approx([0.1, 0.1])


def test_fixed_wheels_make_a_belt_about_y(tmp_path):
    model, _ = load(tmp_path, 'joint_type: fixed', '{ type: AGXVehicleContinuousTrackDevice, '
                    'name: BELT, sprocketNames: [W1], idlerNames: [W2] }')
    assert model.joint('TRACK').axis.tolist() == [0, 1, 0]
    path = tmp_path / 't.body'
    path.write_text(path.read_text().replace('joint_type: revolute, joint_axis: Y',
                                             'joint_type: fixed'))
    assert choreonoid.load(path).joint('TRACK').axis.tolist() == [0, 1, 0]


def test_a_belt_link_whose_name_is_taken_is_not_made(tmp_path):
    model, said = load(tmp_path, 'joint_type: revolute', '{ type: PxContinuousTrack, '
                       'name: W1, sprocket: W1, idler: W2 }')
    assert said[-1] == ('PxContinuousTrack \'W1\': kept as a device of kind "other": '
                        "'W1_belt' or 'W1' is taken; the belt is not simulated")


def test_round_wheels_and_a_physx_belt_without_thickness(tmp_path):
    path = tmp_path / 't.body'
    model, _ = load(tmp_path, 'joint_type: fixed', '{ type: PxContinuousTrack, name: PX, '
                    'sprocket: W1, idler: W2, width: 0.3 }')
    box = model.link('TRACK').collisions[0]
    assert box.geometry == Box(pytest.approx((1.0, 0.3, 0.2)))  # the wheels' reach alone
    path.write_text(path.read_text().replace('type: Cylinder, radius: 0.1, height: 0.2',
                                             'type: Sphere, radius: 0.1'))
    box = choreonoid.load(path).link('TRACK').collisions[0]
    assert box.geometry == Box(pytest.approx((1.0, 0.3, 0.2)))
