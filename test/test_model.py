"""The neutral model: pose algebra and the invariants every loader relies on."""

import math

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.model import (Inertial, Joint, JointType, Link, Model, Pose, matrix_quat,
                               matrix_rpy, quat_matrix)


def random_rotation(rng):
    q = rng.normal(size=4)
    return quat_matrix(q)


def test_pose_compose_and_inverse():
    rng = np.random.default_rng(1)
    for _ in range(20):
        a = Pose(rng.normal(size=3), random_rotation(rng))
        b = Pose(rng.normal(size=3), random_rotation(rng))
        np.testing.assert_allclose((a @ b).matrix(), a.matrix() @ b.matrix(), atol=1e-12)
        np.testing.assert_allclose((a @ a.inverse()).matrix(), np.eye(4), atol=1e-12)


def test_quaternion_and_rpy_round_trip():
    rng = np.random.default_rng(2)
    for _ in range(50):
        rot = random_rotation(rng)
        np.testing.assert_allclose(quat_matrix(matrix_quat(rot)), rot, atol=1e-12)
        np.testing.assert_allclose(Pose.from_rpy(matrix_rpy(rot)).rot, rot, atol=1e-9)


def test_rpy_matches_urdf_convention():
    # URDF: roll about fixed x, then pitch about fixed y, then yaw about fixed z.
    pose = Pose.from_rpy((0.0, 0.0, math.pi / 2))
    np.testing.assert_allclose(pose.apply((1, 0, 0)), (0, 1, 0), atol=1e-12)
    pose = Pose.from_rpy((math.pi / 2, 0.0, math.pi / 2))
    np.testing.assert_allclose(pose.apply((0, 1, 0)), (0, 0, 1), atol=1e-12)


def test_gimbal_lock_rpy():
    rot = Pose.from_rpy((0.3, math.pi / 2, 0.2)).rot
    np.testing.assert_allclose(Pose.from_rpy(matrix_rpy(rot)).rot, rot, atol=1e-9)


def _two_links(**joint):
    links = (Link('a'), Link('b', Pose((0, 0, 1))))
    j = dict(name='j', type=JointType.REVOLUTE, parent='a', child='b')
    j.update(joint)
    return links, (Joint(**j),)


def test_model_derives_joint_origin():
    links, joints = _two_links()
    model = Model('m', links, joints, root='a')
    np.testing.assert_allclose(model.joint_origin(joints[0]).pos, (0, 0, 1))
    assert [j.name for j in model.movable_joints] == ['j']


@pytest.mark.parametrize('change, message', [
    (dict(child='c'), "unknown link 'c'"),
    (dict(axis=(0, 0, 2)), 'not a unit vector'),
    (dict(parent='b', child='a'), 'root link a child'),
])
def test_model_rejects_broken_trees(change, message):
    links, joints = _two_links(**change)
    with pytest.raises(ModelError, match=message):
        Model('m', links, joints, root='a')


def test_model_rejects_unconnected_link():
    with pytest.raises(ModelError, match="'b' is not connected"):
        Model('m', (Link('a'), Link('b')), (), root='a')
    # the line named is the link's own where it has one, the model's file otherwise
    with pytest.raises(ModelError) as caught:
        Model('m', (Link('a'), Link('b', source='m.body:7')), (), root='a', source='m.body')
    assert str(caught.value) == "m.body:7: link 'b' is not connected to the root link 'a'"
    with pytest.raises(ModelError) as caught:
        Model('m', (Link('a'), Link('b')), (), root='a', source='m.body')
    assert str(caught.value) == "m.body: link 'b' is not connected to the root link 'a'"


def test_device_frames_avoid_link_names():
    from body_bridge.model import Device, DeviceKind
    links, joints = _two_links()
    model = Model('m', links, joints, root='a',
                  devices=(Device('b', DeviceKind.IMU, 'a'), Device('cam', DeviceKind.CAMERA, 'b')))
    assert model.device_frames() == {'b': 'a_b', 'cam': 'cam'}


def test_device_frames_never_share_a_name():
    """'b' is a link and 'a_b' a frame: the device 'b' on 'a' becomes 'a_b_frame'; the device
    named 'a_b_frame' then finds its own name taken by it and becomes 'b_a_b_frame'."""
    from body_bridge.model import Device, DeviceKind, Frame
    links, joints = _two_links()
    model = Model('m', links, joints, root='a', frames=(Frame('a_b', 'a'),),
                  devices=(Device('b', DeviceKind.IMU, 'a'),
                           Device('a_b_frame', DeviceKind.CAMERA, 'b')))
    assert model.device_frames() == {'b': 'a_b_frame', 'a_b_frame': 'b_a_b_frame'}


def test_total_mass():
    links = (Link('a', inertial=Inertial(2.0)), Link('b', Pose((0, 0, 1)), Inertial(0.5)))
    model = Model('m', links, (Joint('j', 'fixed', 'a', 'b'),), root='a')
    assert model.total_mass == 2.5
