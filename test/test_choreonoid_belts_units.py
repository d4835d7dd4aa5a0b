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


def test_a_belt_from_the_first_wheel_to_the_last_around_a_lower_roller(tmp_path):
    """Sprocket W1 (x 0.5), roller W3 below the middle (z -0.15), idler W2 (x -0.5): the belt
    runs from the first wheel to the last (along -x), its bound by hand: x from -0.6 to 0.6,
    z from -0.25 (the roller's bottom) to 0.1, y the wheels' 0.3 m height."""
    path = tmp_path / 'roller.body'
    wheel = ('  - {{ name: {}, parent: TRACK, joint_type: revolute, joint_axis: Y, '
             'translation: {}, mass: 1, inertia: [0.1, 0, 0, 0.1, 0, 0.1], elements: {{ Shape: '
             '{{ geometry: {{ type: Cylinder, radius: 0.1, height: 0.3 }} }} }} }}\n')
    path.write_text('format: ChoreonoidBody\nformat_version: 1.0\nlinks:\n'
                    '  - { name: CHASSIS, joint_type: free, mass: 10, inertia: [1, 0, 0, 1, 0, 1] }\n'
                    '  - { name: TRACK, parent: CHASSIS, joint_type: fixed, elements: [ { type: '
                    'AGXVehicleContinuousTrackDevice, name: B, sprocketNames: [W1], '
                    'rollerNames: [W3], idlerNames: [W2] } ] }\n' +
                    wheel.format('W1', '[0.5, 0, 0]') + wheel.format('W2', '[-0.5, 0, 0]') +
                    wheel.format('W3', '[0, 0, -0.15]'))
    model = choreonoid.load(path)
    box, end1, end2 = model.link('TRACK').collisions
    radius = (0.1 + 0.25) / 2
    assert box.geometry == Box(pytest.approx((1.2 - 2 * radius, 0.3, 2 * radius)))
    np.testing.assert_allclose(box.pose.pos, [0, 0, -0.075], atol=1e-12)
    np.testing.assert_allclose(box.pose.rot[:, 0], [-1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(box.pose.rot[:, 1], [0, 1, 0], atol=1e-12)
    for end, x in ((end1, 0.6 - radius), (end2, -0.6 + radius)):
        assert end.geometry == Cylinder(pytest.approx(radius), pytest.approx(0.3))
        np.testing.assert_allclose(end.pose.pos, [x, 0, -0.075], atol=1e-12)
    assert all(model.link(w).collisions == () for w in ('W1', 'W2', 'W3'))


def test_wheels_without_shapes_make_a_belt_through_their_centres(tmp_path):
    """No shape and no radius: the belt is the line between the wheels' centres (TRACK sits
    halfway between them) thickened by the node thickness on every side."""
    path = tmp_path / 't.body'
    load(tmp_path, 'joint_type: fixed', '{ type: ForceSensor, name: FS }')
    text = path.read_text().replace(
        "elements: { Shape: { geometry: { type: Cylinder, radius: 0.1, height: 0.2 } } } ", '')
    text = text.replace('{ type: ForceSensor, name: FS }',
                        '{ type: AGXVehicleContinuousTrackDevice, name: BELT, '
                        'sprocketNames: [W1], idlerNames: [W2], nodeThickness: 0.02, '
                        'nodeWidth: 0.3 }')
    path.write_text(text)
    model = choreonoid.load(path)
    assert model.link('W1').visuals == () and model.link('W1').collisions == ()
    box, end1, end2 = model.link('TRACK').collisions
    assert box.geometry == Box(pytest.approx((1.0, 0.3, 0.04)))
    np.testing.assert_allclose(box.pose.pos, [0, 0, 0], atol=1e-12)
    for end, x in ((end1, 0.5), (end2, -0.5)):
        assert end.geometry == Cylinder(pytest.approx(0.02), pytest.approx(0.3))
        np.testing.assert_allclose(end.pose.pos, [x, 0, 0], atol=1e-12)
    # without a width either (and the centres on one line across): as wide as it is thick
    path.write_text(text.replace(', nodeWidth: 0.3', ''))
    box = choreonoid.load(path).link('TRACK').collisions[0]
    assert box.geometry == Box(pytest.approx((1.0, 0.04, 0.04)))
    # a PhysX radius of 0.1 m and nothing across: 0.1 m round the centres, as wide as high
    path.write_text(text.replace("{ type: AGXVehicleContinuousTrackDevice, name: BELT, "
                                 "sprocketNames: [W1], idlerNames: [W2], nodeThickness: 0.02, "
                                 "nodeWidth: 0.3 }", "{ type: PxContinuousTrack, name: PX, "
                                 "sprocket: W1, idler: W2, sprocket_radius: 0.1 }"))
    box = choreonoid.load(path).link('TRACK').collisions[0]
    assert box.geometry == Box(pytest.approx((1.0, 0.2, 0.2)))


def test_other_devices_are_no_belts(tmp_path):
    model, said = load(tmp_path, 'joint_type: fixed', '{ type: ForceSensor, name: FS }')
    assert model.joint('TRACK').type == JointType.FIXED
    assert model.link('TRACK').collisions == ()
    assert len(model.link('W1').collisions) == 1
    assert not any('FS' in w for w in said)


def test_the_track_axis_is_the_first_wheel_s_axis_turned_by_its_frame(tmp_path):
    """W1 turned +90 degrees about x with its joint about its z: the axis is Rx(90) z = -y
    in the track's frame (W2 is not turned: its frame would give z)."""
    path = tmp_path / 't.body'
    load(tmp_path, 'joint_type: fixed', '{ type: AGXVehicleContinuousTrackDevice, '
         'name: BELT, sprocketNames: [W1], idlerNames: [W2] }')
    path.write_text(path.read_text().replace(
        'joint_axis: Y, translation: [0.5, 0, 0]',
        'joint_axis: Z, rotation: [1, 0, 0, 1.5707963267948966], translation: [0.5, 0, 0]'))
    model = choreonoid.load(path)
    np.testing.assert_allclose(model.joint('TRACK').axis, [0, -1, 0], atol=1e-12)


def test_a_shoe_chain_without_collision_shapes_leaves_the_wheels_alone(tmp_path):
    path = tmp_path / 'chain.body'
    path.write_text("""format: ChoreonoidBody
format_version: 1.0
links:
  - { name: ROOT, joint_type: free, mass: 10, inertia: [1, 0, 0, 1, 0, 1] }
  - { name: W, parent: ROOT, joint_type: revolute, joint_axis: Y, mass: 1,
      inertia: [0.1, 0, 0, 0.1, 0, 0.1],
      elements: { Shape: { geometry: { type: Cylinder, radius: 0.1, height: 0.2 } } } }
  - { type: ContinuousTrack, name: SHOE, parent: ROOT, joint_axis: Y, num_joints: 4,
      joint_offset: [0.1, 0, 0], mass: 0.5, inertia: [0.01, 0, 0, 0.01, 0, 0.01],
      elements: [ { type: Visual, elements: { Shape: { geometry: { type: Box,
                    size: [0.1, 0.2, 0.02] } } } } ] }
""")
    model = choreonoid.load(path)
    assert model.joint('SHOE').type == JointType.TRACK
    assert model.link('SHOE').collisions == () and len(model.link('SHOE').visuals) == 4
    assert len(model.link('W').collisions) == 1
    assert not any('lose their collision' in w for w in model.warnings)


def test_wheels_inside_a_shoe_chain_s_belt_out_to_its_round_ends(tmp_path):
    """Four straight shoes 0.1 m apart (boxes 0.1 x 0.2 x 0.02): the belt's box spans x from
    -0.04 to 0.34, its round ends reach 0.01 further, to -0.05 and 0.35. A wheel at x 0.345
    (inside an end) loses its collision shapes; one at x 0.36 (outside) keeps them."""
    path = tmp_path / 'chain.body'
    wheel = ('  - {{ name: {}, parent: ROOT, joint_type: revolute, joint_axis: Y, '
             'translation: [{}, 0, 0], mass: 1, inertia: [0.1, 0, 0, 0.1, 0, 0.1], elements: '
             '{{ Shape: {{ geometry: {{ type: Cylinder, radius: 0.005, height: 0.2 }} }} }} }}\n')
    path.write_text("""format: ChoreonoidBody
format_version: 1.0
links:
  - { name: ROOT, joint_type: free, mass: 10, inertia: [1, 0, 0, 1, 0, 1] }
  - { type: ContinuousTrack, name: SHOE, parent: ROOT, joint_axis: Y, num_joints: 4,
      joint_offset: [0.1, 0, 0], mass: 0.5, inertia: [0.01, 0, 0, 0.01, 0, 0.01],
      elements: { Shape: { geometry: { type: Box, size: [0.1, 0.2, 0.02] } } } }
""" + wheel.format('IN', 0.345) + wheel.format('OUT', 0.36))
    model = choreonoid.load(path)
    box = model.link('SHOE').collisions[0]
    assert box.geometry == Box(pytest.approx((0.38, 0.2, 0.02)))
    assert model.link('IN').collisions == ()
    assert len(model.link('OUT').collisions) == 1
    assert any(w.endswith("the wheels inside the belt of 'SHOE' (IN) lose their collision "
                          'shapes: the belt rests on them') for w in model.warnings)


def test_box_and_mesh_wheels_bound_the_belt_by_their_extent(tmp_path):
    """W1 a 0.2 m cube (half 0.1 on every side), W2 a mesh whose vertices reach 0.1 m on
    every side: the same bound as 0.1 m wheels, x from -0.6 to 0.6, z and y +-0.1."""
    path = tmp_path / 't.body'
    load(tmp_path, 'joint_type: fixed', '{ type: AGXVehicleContinuousTrackDevice, '
         'name: BELT, sprocketNames: [W1], idlerNames: [W2] }')
    cylinder = '{ type: Cylinder, radius: 0.1, height: 0.2 }'
    text = path.read_text()
    text = text.replace(cylinder, '{ type: Box, size: [0.2, 0.2, 0.2] }', 1)
    text = text.replace(cylinder, '{ type: TriangleMesh, vertices: [-0.1, -0.1, -0.1, '
                        '0.1, 0.1, 0.1, 0.1, -0.1, 0.1], triangles: [0, 1, 2] }', 1)
    path.write_text(text)
    box, end1, end2 = choreonoid.load(path).link('TRACK').collisions
    assert box.geometry == Box(pytest.approx((1.0, 0.2, 0.2)))
    np.testing.assert_allclose(box.pose.pos, [0, 0, 0], atol=1e-12)
    assert end1.geometry == Cylinder(pytest.approx(0.1), pytest.approx(0.2))


def test_the_larger_physx_radius_counts_whichever_wheel_it_is(tmp_path):
    for radii, height in (('sprocket_radius: 0.05, idler_radius: 0.2', 0.4),
                          ('idler_radius: 0.15', 0.3), ('sprocket_radius: 0.15', 0.3)):
        model, _ = load(tmp_path, 'joint_type: fixed', '{ type: PxContinuousTrack, name: PX, '
                        f'sprocket: W1, idler: W2, width: 0.3, {radii} }}')
        box = model.link('TRACK').collisions[0]
        assert box.geometry == Box(pytest.approx((1.0, 0.3, height))), radii
