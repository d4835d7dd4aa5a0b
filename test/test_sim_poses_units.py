"""sim/building/poses.py: link poses at given joint positions, against the poses worked out by
hand for a small chain (a hinge about z, then a slider along x)."""

import math

import numpy as np
import pytest

from body_bridge.model import Inertial, Joint, Limits, Link, Model, Pose
from body_bridge.sim.building.poses import LinkPoses


def _chain():
    """base at the origin; ``arm`` 0.2 m above it, turning about z; ``tip`` 0.1 m along the
    arm's x, sliding along that x (link poses in the model frame, all joints at zero)."""
    mass = Inertial(0.5, inertia=np.eye(3) * 0.01)
    links = (Link('base', inertial=mass), Link('arm', Pose((0, 0, 0.2)), mass),
             Link('tip', Pose((0.1, 0, 0.2)), mass))
    joints = (Joint('turn', 'revolute', 'base', 'arm', (0, 0, 1), Limits(-3.0, 3.0)),
              Joint('slide', 'prismatic', 'arm', 'tip', (1, 0, 0), Limits(-1.0, 1.0)))
    return Model(name='chain', links=links, joints=joints, root='base')


def _rz(angle):
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _expected(turn, slide):
    """The poses by hand: the tip at 0.2 m up, (0.1 + slide) m along the arm turned by turn."""
    r = _rz(turn)
    return {'base': ((0, 0, 0), np.eye(3)), 'arm': ((0, 0, 0.2), r),
            'tip': (r @ np.array([0.1 + slide, 0, 0]) + (0, 0, 0.2), r)}


def _assert_poses(got, want):
    assert set(got) == set(want)
    for name, (pos, rot) in want.items():
        assert got[name][0] == pytest.approx(pos, abs=1e-12), name
        assert got[name][1] == pytest.approx(rot, abs=1e-12), name


def test_each_link_s_pose_is_the_chain_s_worked_by_hand():
    poses = LinkPoses(_chain())
    _assert_poses(poses.at({'turn': 0.7, 'slide': 0.05}), _expected(0.7, 0.05))
    _assert_poses(poses.at({'turn': -math.pi / 2, 'slide': -0.3}), _expected(-math.pi / 2, -0.3))


def test_a_joint_left_out_is_at_its_zero_whatever_an_earlier_call_set():
    poses = LinkPoses(_chain())
    poses.at({'turn': 1.2, 'slide': 0.4})
    _assert_poses(poses.at({'slide': 0.05}), _expected(0.0, 0.05))
    _assert_poses(poses.at({}), _expected(0.0, 0.0))


def test_the_poses_returned_are_kept_when_asked_again():
    poses = LinkPoses(_chain())
    first = poses.at({'turn': 0.5})
    poses.at({'turn': -1.0, 'slide': 0.2})
    _assert_poses(first, _expected(0.5, 0.0))
