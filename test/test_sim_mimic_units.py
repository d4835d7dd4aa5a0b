"""sim/mechanics/mimic.py: which formulas become MuJoCo joint couplings, which a relinearised tendon,
how stiff they are, and that they hold from the first instant."""

import math

import mujoco
import pytest

from body_bridge.sim.building.build import BuildOptions, build_spec
from body_bridge.sim.mechanics.mimic import TENDON_PREFIX
from body_bridge.sim.simulation import Mode, SimOptions, Simulation

from openrave_robots import mimic_robot

#: l2's joint, following ``a``.
SECOND = """<Joint name="quartic" type="hinge" enable="false" mimic_pos="0.1*a^4 - a"
        mimic_vel="|a 0.4*a^3 - 1"><Body>base</Body><Body>l2</Body><axis>0 0 1</axis>
        <limitsdeg>-360 360</limitsdeg></Joint>"""


@pytest.fixture
def powers(tmp_path):
    return mimic_robot(tmp_path, SECOND)


def test_up_to_the_fourth_degree_a_joint_coupling_beyond_a_tendon(powers):
    mj = build_spec(powers, BuildOptions(ground_plane=False)).compile()
    joint_eqs = [k for k in range(mj.neq) if mj.eq_type[k] == mujoco.mjtEq.mjEQ_JOINT]
    assert [mj.joint(int(mj.eq_obj1id[k])).name for k in joint_eqs] == ['quartic']
    assert mj.eq_data[joint_eqs[0], :5].tolist() == pytest.approx([0, -1, 0, 0, 0.1])
    assert [mj.tendon(k).name for k in range(mj.ntendon)] == [TENDON_PREFIX + 'quintic']


def test_the_couplings_are_as_stiff_as_designed(powers):
    """A time constant of two steps, critically damped, impedance 0.99 to 0.999 over 1 mm."""
    mj = build_spec(powers, BuildOptions(ground_plane=False, timestep=0.002)).compile()
    assert mj.neq == 2
    for k in range(mj.neq):
        assert mj.eq_solref[k].tolist() == pytest.approx([0.004, 1.0])
        assert mj.eq_solimp[k].tolist() == pytest.approx([0.99, 0.999, 0.001, 0.5, 2.0])


def test_the_elements_of_a_mimic_joint_name_its_source_line(powers):
    spec = build_spec(powers, BuildOptions(ground_plane=False))
    sources = {powers.joint(n).source for n in ('quartic', 'quintic')}
    assert None not in sources and len(sources) == 2
    assert {eq.info for eq in spec.equalities} == sources
    assert spec.tendon(TENDON_PREFIX + 'quintic').info == powers.joint('quintic').source


def test_a_formula_holds_from_the_first_instant_and_all_along(powers):
    sim = Simulation(powers, SimOptions(build=BuildOptions(ground_plane=False),
                                        servo_frequency=2.0))
    mujoco.mj_forward(sim.mj, sim.data)  # before any step: no constraint is violated
    rows = [i for i in range(sim.data.nefc)
            if sim.data.efc_type[i] == mujoco.mjtConstraint.mjCNSTR_EQUALITY]
    assert len(rows) == 2
    assert max(abs(sim.data.efc_pos[i]) for i in rows) < 1e-12
    sim.command(Mode.POSITION, ['a'], [1.2])
    worst = 0.0
    for _ in range(150):
        sim.step_period()
        q = dict(zip(sim.joint_names, sim.joint_positions()))
        worst = max(worst, abs(q['quintic'] - (0.05 * q['a'] ** 5 + q['a'] + 0.2)),
                    abs(q['quartic'] - (0.1 * q['a'] ** 4 - q['a'])))
    assert q['a'] > 0.8
    assert worst < 2e-3
    assert not math.isnan(worst)


def test_a_formula_holds_from_the_first_instant_of_a_leader_started_away_from_zero(powers):
    """The tendon is linearised at the initial positions: with the leader starting at
    0.5 rad (where the gradient's offset is not 0), the compiled equality holds before any
    step, and the follower starts where its formula puts it."""
    import dataclasses
    joints = tuple(dataclasses.replace(j, initial=0.5) if j.name == 'a' else j
                   for j in powers.joints)
    model = dataclasses.replace(powers, joints=joints)
    sim = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False)))
    mujoco.mj_forward(sim.mj, sim.data)
    rows = [i for i in range(sim.data.nefc)
            if sim.data.efc_type[i] == mujoco.mjtConstraint.mjCNSTR_EQUALITY]
    assert len(rows) == 2
    assert max(abs(sim.data.efc_pos[i]) for i in rows) < 1e-12
    q = dict(zip(sim.joint_names, sim.joint_positions()))
    assert q['a'] == pytest.approx(0.5)
    assert q['quintic'] == pytest.approx(0.05 * 0.5 ** 5 + 0.5 + 0.2, abs=1e-12)
