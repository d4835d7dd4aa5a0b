"""The servos of a free-floating robot, on a model of our own (test/data/choreonoid/
stander.body: a torso on a free joint standing on one leg with a wide foot, and an arm), so
that a clone without the real model corpus tests them as SR1 and GR001 do with it."""

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.simulation import Mode, Simulation

from conftest import REPO
from test_simulation import _torque_response, record, run, settling_time

STANDER = REPO / 'test' / 'data' / 'choreonoid' / 'stander.body'


@pytest.fixture(scope='module')
def stander():
    return load_model(STANDER)


def test_servos_are_tuned_for_what_a_stance_leg_carries(stander):
    """In the air a joint meets the least inertia (both sides react); with its child link
    held (the foot on the ground) it turns the rest of the robot. A servo is tuned for the
    larger of base-held and child-held, at most 100 times the least. Checked against the
    dynamics of the robot rebuilt with every other joint fixed."""
    import mujoco
    sim = Simulation(stander)
    full = np.zeros((sim.mj.nv, sim.mj.nv))
    mujoco.mj_fullM(sim.mj, sim.data, full)
    for name in ('hip', 'knee', 'ankle', 'shoulder'):
        row = sim.actuated.index(name)
        least = _torque_response(stander, name)
        grounded = _torque_response(stander, name, hold_child=True)
        fixed = full[sim._da[row], sim._da[row]]  # base held: the diagonal of M
        assert sim.least_inertia[row] == pytest.approx(least, rel=1e-9)
        assert least < min(fixed, grounded)
        expected = min(max(fixed, grounded), 100.0 * least)
        assert sim.inertia[row] == pytest.approx(expected, rel=1e-9)
    ankle = sim.actuated.index('ankle')
    assert sim.inertia[ankle] > 20 * full[sim._da[ankle], sim._da[ankle]]  # it lifts the body


def test_stands_on_its_foot_and_moves_its_arm(stander):
    sim = Simulation(stander)
    start, _ = sim.body_pose('torso')
    run(sim, 1.0)
    assert np.max(np.abs(sim.joint_positions())) < 0.01  # holds its pose on the ground
    torso, quat = sim.body_pose('torso')
    assert torso[2] == pytest.approx(start[2], abs=0.005) and quat[0] > 0.999
    sim.command(Mode.POSITION, ['shoulder'], [-1.0])
    t, q, _, _ = record(sim, 1.5, 'shoulder')
    assert settling_time(t, q, -1.0, 0.02) < 1.0
    assert sim.body_pose('torso')[1][0] > 0.999  # still upright
    assert sim.warnings() == {}


def test_kinematic_floating_robot_stays_where_it_was_placed(stander):
    from body_bridge.sim.simulation import SimOptions
    sim = Simulation(stander, SimOptions(kinematic=True))
    start, _ = sim.body_pose('torso')
    sim.command(Mode.POSITION, ['shoulder'], [-1.0])
    run(sim, 1.0)
    np.testing.assert_allclose(sim.body_pose('torso')[0], start, atol=1e-12)
    assert sim.joint_positions()[sim.joint_names.index('shoulder')] == pytest.approx(-1.0)


def test_standing_it_carries_its_weight_on_its_ankle_sensor(stander):
    """The ground carries the robot; the ankle sensor carries all of it but its foot, and the
    torso's accelerometer reads 1 g, as SR1's sensors do with the corpus."""
    from test_sensors_sim import G, start
    sim, suite = start(STANDER)
    assert set(suite.samplers) == {'ankle_force', 'torso_accel'}
    run(sim, 1.0)
    carried = suite.samplers['ankle_force'].read().force[2]
    assert carried == pytest.approx((stander.total_mass - stander.link('foot').inertial.mass) * G,
                                    rel=0.01)
    np.testing.assert_allclose(suite.samplers['torso_accel'].read().linear_acceleration,
                               (0, 0, G), atol=0.05)
