"""The integrator behind the node, without ROS: commands in, state out."""

import math

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.simulation import CommandRejected, Mode, Simulation, SimOptions

from conftest import SAMPLE_ARM, shared_model


@pytest.fixture
def arm():
    return Simulation(load_model(SAMPLE_ARM))


def run(sim, seconds):
    for _ in range(int(round(seconds / sim.period))):
        sim.step_period()


def test_holds_initial_pose_against_gravity(arm):
    run(arm, 1.0)
    np.testing.assert_allclose(arm.joint_positions(), 0.0, atol=1e-3)
    assert arm.time == pytest.approx(1.0)
    assert arm.warnings() == {}


def test_position_target_is_reached(arm):
    arm.command(Mode.POSITION, ['elbow_pitch'], [0.7])
    run(arm, 2.0)
    assert arm.joint_positions()[arm.joint_names.index('elbow_pitch')] == pytest.approx(0.7, abs=0.01)


def test_position_target_is_clipped_to_range(arm):
    arm.command(Mode.POSITION, ['elbow_pitch'], [10.0])
    run(arm, 2.0)
    q = arm.joint_positions()[arm.joint_names.index('elbow_pitch')]
    assert q == pytest.approx(math.radians(150), abs=0.02)


@pytest.mark.parametrize('names, values, message', [
    (['nope'], [0.0], "unknown joint 'nope'"),
    (['elbow_pitch'], [float('nan')], 'NaN'),
    (['elbow_pitch', 'wrist_pitch'], [0.0], '2 joint names but 1 values'),
])
def test_bad_commands_are_rejected(arm, names, values, message):
    with pytest.raises(CommandRejected, match=message):
        arm.command(Mode.POSITION, names, values)


def test_reset_restores_initial_state(arm):
    arm.command(Mode.POSITION, ['shoulder_yaw'], [1.0])
    run(arm, 1.0)
    arm.reset()
    assert arm.time == 0.0
    np.testing.assert_allclose(arm.joint_positions(), 0.0)
    run(arm, 0.5)
    np.testing.assert_allclose(arm.joint_positions(), 0.0, atol=1e-3)


def test_moving_transforms_match_world_poses(arm):
    arm.command(Mode.POSITION, ['shoulder_yaw', 'elbow_pitch'], [0.5, -0.4])
    run(arm, 1.0)
    pos, quat = arm.moving_transforms()
    names = arm.moving_frames
    k = names.index(('shoulder_pitch', 'elbow_pitch'))
    p_parent, q_parent = arm.body_pose('shoulder_pitch')
    p_child, _ = arm.body_pose('elbow_pitch')
    from body_bridge.model import quat_matrix
    np.testing.assert_allclose(quat_matrix(q_parent) @ pos[k] + p_parent, p_child, atol=1e-12)
    assert np.allclose(np.linalg.norm(quat, axis=1), 1.0)


def test_free_root_is_a_moving_frame():
    sim = Simulation(load_model(shared_model('choreonoid/share/model/misc/box1.body')),
                     SimOptions())
    assert sim.moving_frames == [(None, 'box')]
    run(sim, 1.0)
    pos, _ = sim.moving_transforms()
    assert pos[0][2] == pytest.approx(0.1, abs=2e-3)  # a 0.2 m box resting on the ground
