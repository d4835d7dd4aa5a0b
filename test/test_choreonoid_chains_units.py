"""A ContinuousTrack's chain of shoes as one track link: shoe poses, belt shapes, mass."""

import math

import numpy as np
import pytest

from body_bridge.formats.choreonoid.chains import belt_of_chain
from body_bridge.formats.choreonoid.elements import LinkParts
from body_bridge.formats.choreonoid.links import LinkSpec
from body_bridge.model import (Box, Cylinder, Inertial, Mesh, Pose, Shape, Sphere,
                               axis_angle_matrix)

Y = np.array([0.0, 1.0, 0.0])


def shoe(*collisions, inertial=Inertial(0.5, (0, 0, 0), np.diag([1e-3, 2e-3, 3e-3])),
         rot=np.eye(3)):
    box = Shape(Box((0.1, 0.2, 0.02)))
    parts = LinkParts('T', visuals=[box], collisions=list(collisions or [box]))
    return LinkSpec('T', 'base', Pose((1, 2, 3), rot), 'm.body:5', inertial=inertial,
                    parts=parts, joint_type='revolute')


def test_a_straight_chain_is_a_box_and_two_end_cylinders():
    belt = belt_of_chain(shoe(), 4, np.array([0.1, 0, 0]), [], Y)
    assert belt.joint_type == 'pseudo_continuous_track' and belt.shoes == 4
    assert belt.axis.tolist() == [0, 1, 0] and belt.offset.pos.tolist() == [1, 2, 3]
    np.testing.assert_allclose([v.pose.pos for v in belt.parts.visuals],
                               [[0, 0, 0], [0.1, 0, 0], [0.2, 0, 0], [0.3, 0, 0]], atol=1e-12)
    box, end1, end2 = belt.parts.collisions
    assert box.geometry.size == pytest.approx((0.38, 0.2, 0.02))
    np.testing.assert_allclose(box.pose.pos, [0.15, 0, 0], atol=1e-12)
    np.testing.assert_allclose(box.pose.rot, np.eye(3), atol=1e-12)
    for end, x in ((end1, -0.04), (end2, 0.34)):
        assert end.geometry.radius == pytest.approx(0.01)
        assert end.geometry.length == pytest.approx(0.2)
        np.testing.assert_allclose(end.pose.pos, [x, 0, 0], atol=1e-12)
        np.testing.assert_allclose(end.pose.rot @ [0, 0, 1], Y, atol=1e-12)  # along the axis
        assert end.source == 'm.body:5'
    assert box.source == 'm.body:5'


def test_the_chain_s_mass_is_its_shoes():
    belt = belt_of_chain(shoe(), 3, np.array([0.1, 0, 0]), [], Y)
    inertial = belt.inertial
    assert inertial.mass == pytest.approx(1.5)
    np.testing.assert_allclose(inertial.com, [0.1, 0, 0], atol=1e-12)
    # three shoes' own inertia and two of them 0.1 m from the centre along x
    extra = 2 * 0.5 * 0.1 ** 2
    np.testing.assert_allclose(np.diag(inertial.inertia), [3e-3, 6e-3 + extra, 9e-3 + extra])
    assert belt_of_chain(shoe(inertial=None), 3, np.array([0.1, 0, 0]), [], Y).inertial is None


def test_initial_angles_bend_the_chain_and_missing_ones_are_zero():
    belt = belt_of_chain(shoe(), 4, np.array([0.1, 0, 0]), [math.pi / 2], Y)
    positions = [v.pose.pos for v in belt.parts.visuals]
    # about +Y, +x turns to -z: the second shoe bends down, the rest go on straight
    np.testing.assert_allclose(positions, [[0, 0, 0], [0.1, 0, 0], [0.1, 0, -0.1],
                                           [0.1, 0, -0.2]], atol=1e-12)
    np.testing.assert_allclose(belt.parts.visuals[3].pose.rot, axis_angle_matrix(Y, math.pi / 2),
                               atol=1e-12)


def test_the_shoe_s_own_rotation_turns_each_next_shoe():
    """Each shoe sits in the previous one as the first sits in its parent (rotation too)."""
    turn = axis_angle_matrix((0, 0, 1), math.pi / 2)
    belt = belt_of_chain(shoe(rot=turn), 3, np.array([0.1, 0, 0]), [], np.array([1.0, 0, 0]))
    np.testing.assert_allclose([v.pose.pos for v in belt.parts.visuals],
                               [[0, 0, 0], [0.1, 0, 0], [0.1, 0.1, 0]], atol=1e-12)
    np.testing.assert_allclose(belt.parts.visuals[2].pose.rot, turn @ turn, atol=1e-12)


def test_round_shapes_bound_the_belt_by_their_boxes():
    ball = Shape(Sphere(0.05), Pose((0, 0, 0.1)))
    belt = belt_of_chain(shoe(ball), 3, np.array([0.1, 0, 0]), [], Y)
    box = belt.parts.collisions[0]
    assert box.geometry.size == pytest.approx((0.2, 0.1, 0.1))
    np.testing.assert_allclose(box.pose.pos, [0.1, 0, 0.1], atol=1e-12)
    roller = Shape(Cylinder(0.05, 0.3), Pose((0, 0, 0), axis_angle_matrix((1, 0, 0), math.pi / 2)))
    box = belt_of_chain(shoe(roller), 3, np.array([0.1, 0, 0]), [], Y).parts.collisions[0]
    assert box.geometry.size == pytest.approx((0.2, 0.3, 0.1))


def test_a_mesh_counts_by_its_origin_and_no_collision_means_no_belt():
    mesh = Shape(Mesh(np.eye(3), np.array([[0, 1, 2]])), Pose((0, 0, 0.1)))
    belt = belt_of_chain(shoe(mesh), 3, np.array([0.1, 0, 0]), [], Y)
    box, end1, end2 = belt.parts.collisions
    assert box.geometry.size == pytest.approx((0.2, 0, 0))
    np.testing.assert_allclose(box.pose.pos, [0.1, 0, 0.1], atol=1e-12)
    spec = shoe()
    spec.parts.collisions.clear()
    belt = belt_of_chain(spec, 3, np.array([0.1, 0, 0]), [], Y)
    assert belt.parts.collisions == [] and len(belt.parts.visuals) == 3


def test_a_shoe_s_centre_of_mass_turns_with_the_shoe():
    spec = shoe(inertial=Inertial(1.0, (0.05, 0, 0), np.diag([1e-3, 2e-3, 3e-3])))
    belt = belt_of_chain(spec, 2, np.array([0.1, 0, 0]), [math.pi / 2], Y)
    # the first centre at x 0.05; the second shoe at x 0.1 turned +x to -z: its centre 0.05 below
    np.testing.assert_allclose(belt.inertial.com, [0.075, 0, -0.025], atol=1e-12)
    # the turned shoe's inertia is diag(3, 2, 1) e-3; each centre is (0.025, 0, 0.025) away
    np.testing.assert_allclose(belt.inertial.inertia, [[5.25e-3, 0, 1.25e-3], [0, 6.5e-3, 0],
                                                       [1.25e-3, 0, 5.25e-3]], atol=1e-12)


def test_the_belt_lies_across_the_axis_when_the_shoe_is_turned_about_another():
    """The belt's long side is the shoe's x made perpendicular to the axis (and unit)."""
    turn = axis_angle_matrix((0, 0, 1), math.radians(30))
    belt = belt_of_chain(shoe(rot=turn), 3, np.array([0.1, 0, 0]), [], Y)
    box = belt.parts.collisions[0]
    rot = box.pose.rot
    np.testing.assert_allclose(rot.T @ rot, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(rot[:, 1], Y, atol=1e-12)
    along = turn @ [1, 0, 0]
    along[1] = 0
    np.testing.assert_allclose(rot[:, 0], along / np.linalg.norm(along), atol=1e-12)


def test_a_chain_turning_about_z_has_its_belt_along_x_and_across_z():
    """A chain about z (a track lying flat): the belt runs along the shoes' x, is as wide as
    their z and as high as their y; nothing of the shoes' y leaks into its long side."""
    z = np.array([0.0, 0.0, 1.0])
    belt = belt_of_chain(shoe(), 3, np.array([0.1, 0, 0]), [], z)
    box, end1, end2 = belt.parts.collisions
    # the shoes span x -0.05 to 0.25, z -0.01 to 0.01, y -0.1 to 0.1: radius 0.1, and the
    # straight part is 0.3 - 2 * 0.1 long
    assert box.geometry.size == pytest.approx((0.1, 0.02, 0.2))
    np.testing.assert_allclose(box.pose.pos, [0.1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(box.pose.rot[:, 0], [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(box.pose.rot[:, 1], z, atol=1e-12)
    for end, x in ((end1, 0.05), (end2, 0.15)):
        assert end.geometry.radius == pytest.approx(0.1)
        assert end.geometry.length == pytest.approx(0.02)
        np.testing.assert_allclose(end.pose.pos, [x, 0, 0], atol=1e-12)
        np.testing.assert_allclose(end.pose.rot @ [0, 0, 1], z, atol=1e-12)


def test_the_belt_s_long_side_is_square_to_an_oblique_axis():
    """With an axis along no coordinate axis, the long side is the shoe's x less its part
    along the axis, (I - a aT) x, made unit; the belt's second axis is the joint axis."""
    turn = axis_angle_matrix((0, 0, 1), math.radians(30))
    axis = np.array([0.0, 1.0, 1.0]) / math.sqrt(2)
    belt = belt_of_chain(shoe(rot=turn), 3, np.array([0.1, 0, 0]), [], axis)
    rot = belt.parts.collisions[0].pose.rot
    along = (np.eye(3) - np.outer(axis, axis)) @ (turn @ [1, 0, 0])
    np.testing.assert_allclose(rot[:, 0], along / np.linalg.norm(along), atol=1e-12)
    np.testing.assert_allclose(rot[:, 1], axis, atol=1e-12)
    np.testing.assert_allclose(rot.T @ rot, np.eye(3), atol=1e-12)
    assert rot[:, 0] @ axis == pytest.approx(0, abs=1e-12)
