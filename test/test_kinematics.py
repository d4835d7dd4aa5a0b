"""Forward kinematics of the state-publisher mode (kinematics.py) against a hand-computed arm:
a revolute joint turns its child about the axis, a prismatic one slides it along the axis, a
fixed one carries it, and a joint not given stays at its initial position."""

import math

import numpy as np
import pytest

from body_bridge.kinematics import forward_kinematics, joint_transform
from body_bridge.model import Joint, Link, Model, Pose


def _arm():
    links = (Link('base', Pose((0, 0, 0.5))), Link('upper', Pose((0, 0, 1.5))),
             Link('slider', Pose((1, 0, 1.5))), Link('tip', Pose((1, 0, 2.5))),
             Link('wheel', Pose((0, 1, 0.5))))
    joints = (Joint('shoulder', 'revolute', 'base', 'upper', axis=(0, 1, 0)),
              Joint('slide', 'prismatic', 'upper', 'slider', axis=(1, 0, 0), initial=0.25),
              Joint('weld', 'fixed', 'slider', 'tip'),
              Joint('spin', 'continuous', 'base', 'wheel', axis=(0, 1, 0)))
    return Model('arm', links, joints, root='base')


def test_each_joint_type_moves_its_child_as_its_axis_says():
    model = _arm()
    turn = joint_transform(model, model.joint('shoulder'), math.pi / 2)
    np.testing.assert_allclose(turn.pos, (0, 0, 1))
    np.testing.assert_allclose(turn.apply((1, 0, 0)), (0, 0, 0), atol=1e-12)   # x -> -z
    slide = joint_transform(model, model.joint('slide'), 0.5)
    np.testing.assert_allclose(slide.pos, (1.5, 0, 0))
    np.testing.assert_allclose(slide.rot, np.eye(3))
    weld = joint_transform(model, model.joint('weld'), 3.0)
    np.testing.assert_allclose(weld.pos, (0, 0, 1))
    spin = joint_transform(model, model.joint('spin'), math.pi)
    np.testing.assert_allclose(spin.rot, np.diag([-1.0, 1.0, -1.0]), atol=1e-12)


@pytest.mark.parametrize('q', [0.0, 0.3, -1.2])
def test_world_poses_of_a_bent_arm(q):
    world = forward_kinematics(_arm(), {'shoulder': q, 'slide': 0.1})
    c, s = math.cos(q), math.sin(q)
    np.testing.assert_allclose(world['base'].pos, (0, 0, 0.5))
    np.testing.assert_allclose(world['upper'].pos, (0, 0, 1.5))
    reach = 1.1                                   # the slider's offset plus the slide
    np.testing.assert_allclose(world['slider'].pos, (reach * c, 0, 1.5 - reach * s), atol=1e-12)
    np.testing.assert_allclose(world['tip'].pos, (reach * c + s, 0, 1.5 - reach * s + c),
                               atol=1e-12)
    np.testing.assert_allclose(world['wheel'].pos, (0, 1, 0.5))


def test_a_joint_not_given_stays_at_its_initial_position():
    world = forward_kinematics(_arm(), {})
    np.testing.assert_allclose(world['slider'].pos, (1.25, 0, 1.5))
    assert set(world) == {'base', 'upper', 'slider', 'tip', 'wheel'}
