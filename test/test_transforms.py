"""Poses and rotation helpers (model/transforms.py) checked against analytic cases: what a loader
gets back from each constructor, the rotation test on rotations and mirrors, and the quaternion
of every branch of the matrix-to-quaternion conversion."""

import dataclasses
import math

import numpy as np
import pytest

from body_bridge.model import Pose, is_rotation, matrix_quat, matrix_rpy, quat_matrix
from body_bridge.model.transforms import axis_angle_matrix


def _rotations(n, seed=3):
    rng = np.random.default_rng(seed)
    return [quat_matrix(rng.normal(size=4)) for _ in range(n)]


def test_a_pose_is_immutable_and_holds_float_arrays():
    pose = Pose([1, 2, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1])
    assert pose.pos.dtype == float and pose.pos.shape == (3,)
    assert pose.rot.shape == (3, 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        pose.pos = np.zeros(3)
    with pytest.raises(ValueError):
        pose.pos[0] = 5.0
    with pytest.raises(ValueError):
        pose.rot[0, 0] = 5.0
    assert pose.pos.tolist() == [1.0, 2.0, 3.0]


def test_the_homogeneous_matrix_round_trips():
    m = np.eye(4)
    m[:3, :3] = axis_angle_matrix((1, 2, 3), 0.7)
    m[:3, 3] = (0.5, -1.5, 2.0)
    pose = Pose.from_matrix(m)
    np.testing.assert_allclose(pose.pos, (0.5, -1.5, 2.0))
    np.testing.assert_allclose(pose.matrix(), m, atol=1e-15)


def test_constructors_without_a_position_are_at_the_origin():
    turn = Pose.from_axis_angle((0, 0, 2), math.pi / 2)
    assert turn.pos.tolist() == [0.0, 0.0, 0.0]
    np.testing.assert_allclose(turn.apply((1, 0, 0)), (0, 1, 0), atol=1e-15)
    assert Pose.from_axis_angle((0, 0, 1), 0.0, pos=(1, 2, 3)).pos.tolist() == [1, 2, 3]
    assert Pose.from_quat((1, 0, 0, 0)).pos.tolist() == [0.0, 0.0, 0.0]
    assert Pose.from_rpy((0, 0, 0)).pos.tolist() == [0.0, 0.0, 0.0]


def test_identity_within_its_tolerance_only():
    assert Pose().is_identity() and Pose.identity().is_identity()
    assert not Pose(pos=(1e-6, 0, 0)).is_identity()
    assert not Pose.from_rpy((0, 0, 1e-6)).is_identity()
    assert Pose.from_rpy((0, 0, 1e-6)).is_identity(tol=1e-5)


@pytest.mark.parametrize('rot', _rotations(20))
def test_rotations_are_rotations_and_their_mirrors_are_not(rot):
    assert is_rotation(rot)
    assert not is_rotation(-rot)
    assert not is_rotation(rot @ np.diag([1.0, -1.0, 1.0]))
    assert not is_rotation(rot * 1.001)                    # not unit columns
    skew = rot.copy()
    skew[:, 2] = (rot[:, 2] + 1e-3 * rot[:, 1]) / np.linalg.norm(rot[:, 2] + 1e-3 * rot[:, 1])
    assert not is_rotation(skew)                           # unit columns, not orthogonal


def test_no_number_that_is_not_finite_is_a_rotation():
    rot = np.eye(3)
    rot[2, 2] = math.nan
    assert not is_rotation(rot)
    assert is_rotation(np.eye(3)) and not is_rotation(np.diag([1.0, 1.0, -1.0]))


@pytest.mark.parametrize('bad', [(0, 0, 0, 0), (math.nan, 0, 0, 1), (math.inf, 0, 0, 0)])
def test_a_quaternion_of_no_length_is_refused(bad):
    with pytest.raises(ValueError, match='quaternion has zero length'):
        quat_matrix(bad)


@pytest.mark.parametrize('axis, angle', [
    ((1, 0, 0), math.pi), ((0, 1, 0), math.pi), ((0, 0, 1), math.pi),       # half turns: w = 0
    ((1, 0.2, 0.1), 3.0), ((0.1, 1, 0.2), 3.0), ((0.2, 0.1, 1), 3.0),       # each largest term
    ((1, 1, 1), 0.5), ((1, -2, 0.5), -2.0), ((0, 0, 1), 0.0)])
def test_the_quaternion_of_each_branch_is_the_rotation_s(axis, angle):
    rot = axis_angle_matrix(axis, angle)
    q = matrix_quat(rot)
    half = angle / 2
    expected = np.array([math.cos(half), *(np.asarray(axis) / np.linalg.norm(axis)
                                           * math.sin(half))])
    if expected[0] < 0:
        expected = -expected
    np.testing.assert_allclose(q, expected, atol=1e-12)
    np.testing.assert_allclose(quat_matrix(q), rot, atol=1e-12)
    np.testing.assert_allclose(Pose(rot=rot).quat(), expected, atol=1e-12)


def test_the_quaternion_of_a_rounded_matrix_is_still_unit():
    for rot in _rotations(10, seed=5):
        q = matrix_quat(np.round(rot, 3) * 1.002)
        assert abs(np.linalg.norm(q) - 1.0) < 1e-12 and q[0] >= 0


def test_rpy_at_the_gimbal_lock_puts_the_turn_in_yaw():
    for pitch in (math.pi / 2, -math.pi / 2):
        rot = Pose.from_rpy((0.3, pitch, 0.5)).rot
        rpy = matrix_rpy(rot)
        assert rpy[0] == 0.0 and rpy[1] == pytest.approx(pitch)
        np.testing.assert_allclose(Pose.from_rpy(rpy).rot, rot, atol=1e-9)
    np.testing.assert_allclose(Pose.from_rpy((0.1, -0.2, 0.3)).rpy(), (0.1, -0.2, 0.3))


@pytest.mark.parametrize('rot', [[[0, -1, 0], [1, 0, 0], [0, 0, 1]],     # a quarter turn about z
                                 [[0, 0, 1], [1, 0, 0], [0, 1, 0]]])     # axes cycled
def test_exact_axis_permutations_as_files_write_them_are_rotations(rot):
    assert is_rotation(rot)
    assert not is_rotation(-np.array(rot))
    assert not is_rotation(np.array(rot)[:, [1, 0, 2]])


def test_a_rotation_is_orthonormal_to_1e_9_by_default():
    """is_rotation's documented default tolerance: columns whose squared length is off by
    0.5e-9 pass, by 1.5e-9 do not (a column scaled by 1 + e has e.e off by about 2 e)."""
    rot = axis_angle_matrix((1, 2, 3), 0.7)
    assert is_rotation(rot * (1 + 0.25e-9))
    assert not is_rotation(rot * (1 + 0.75e-9))
    assert is_rotation(rot * (1 + 0.75e-9), tol=2e-9)


@pytest.mark.parametrize('axis', [(0, 0, 0), (math.inf, 0, 0), (math.nan, 1, 0)])
def test_a_rotation_about_no_axis_is_refused(axis):
    with pytest.raises(ValueError, match='rotation axis has zero length'):
        axis_angle_matrix(axis, 0.5)


@pytest.mark.parametrize('margin', [1.5e-12, 1e-10, 1e-6])
def test_rpy_near_the_gimbal_lock_rebuilds_its_matrix(margin):
    """Pitch within a hair of 90 degrees (sin p = 1 - margin, cos p down to 1.7e-6): roll and
    yaw are still told apart, and the rpy rebuild the matrix to 1e-9."""
    pitch = math.asin(1.0 - margin)
    rot = Pose.from_rpy((0.3, pitch, 0.5)).rot
    rpy = matrix_rpy(rot)
    np.testing.assert_allclose(Pose.from_rpy(rpy).rot, rot, atol=1e-9)
    assert rpy[0] == pytest.approx(0.3, abs=1e-4) and rpy[2] == pytest.approx(0.5, abs=1e-4)
