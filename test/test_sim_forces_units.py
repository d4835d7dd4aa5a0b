"""sim/mechanics/forces.py: the bounce of a contact that only pushes, which springs MuJoCo holds, and the
source lines its elements carry."""

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.building.build import build_spec
from body_bridge.sim.mechanics.forces import (MIN_RESTITUTION, contact_bounce, contact_restitution,
                                    plan_springs)

SPRINGS = Path(__file__).parent / 'data' / 'chrono' / 'springs.yaml'


def pushing_bounce(ratio, dt=1e-4):
    """x'' = -x - 2 z x' from x = 0, x' = 1 (RK4) until the force x + 2 z x' stops pushing:
    (its time, the speed then over the speed before)."""
    def acc(x, v):
        return -x - 2.0 * ratio * v
    x, v, t = 0.0, 1.0, 0.0
    while True:
        k1x, k1v = v, acc(x, v)
        k2x, k2v = v + dt / 2 * k1v, acc(x + dt / 2 * k1x, v + dt / 2 * k1v)
        k3x, k3v = v + dt / 2 * k2v, acc(x + dt / 2 * k2x, v + dt / 2 * k2v)
        k4x, k4v = v + dt * k3v, acc(x + dt * k3x, v + dt * k3v)
        nx = x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        nv = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        if nx + 2.0 * ratio * nv <= 0.0:  # the force changes sign within this step
            f0, f1 = x + 2.0 * ratio * v, nx + 2.0 * ratio * nv
            s = f0 / (f0 - f1)
            return t + s * dt, -(v + s * (nv - v))
        x, v, t = nx, nv, t + dt


@pytest.mark.parametrize('ratio', [0.1, 0.45, 0.8])
def test_a_contact_that_only_pushes_rebounds_as_its_motion_says(ratio):
    duration, restitution = contact_bounce(ratio)
    expected_duration, expected_restitution = pushing_bounce(ratio)
    assert duration == pytest.approx(expected_duration, abs=1e-5)
    assert restitution == pytest.approx(expected_restitution, abs=1e-5)
    assert contact_restitution(ratio) == restitution


def test_critical_damping_and_beyond_rebound_exp_minus_two():
    """x = t e^-t: the force (2 - t) e^-t ends at t = 2, at speed -e^-2."""
    assert contact_bounce(1.0) == (2.0, MIN_RESTITUTION)
    assert contact_bounce(1.5) == (2.0, MIN_RESTITUTION)
    assert MIN_RESTITUTION == pytest.approx(math.exp(-2))
    assert contact_bounce(0.0) == (math.pi, 1.0)  # undamped: half a period, all of it back
    assert contact_bounce(-0.2) == (math.pi, 1.0)  # no damping below zero either


def test_a_restitution_at_or_below_exp_minus_two_is_critically_damped_exactly():
    """Critical damping rebounds e^-2: that restitution and every smaller one get the ratio
    1 exactly (a bisection towards it would stop 2e-16 short at the bound)."""
    from body_bridge.sim.mechanics.forces import restitution_damping
    assert [restitution_damping(e) for e in (MIN_RESTITUTION, 0.05, 0.0)] == [1.0, 1.0, 1.0]


def test_a_damper_without_stiffness_is_native_a_preload_alone_is_not():
    model = load_model(SPRINGS)
    osc = next(s for s in model.springs if s.name == 'osc_spring')
    damper = replace(osc, name='damper', stiffness=0.0, damping=5.0)
    pushed = replace(osc, name='pushed', stiffness=0.0, preload=3.0)
    plan = plan_springs(replace(model, springs=(damper, pushed)))
    assert plan == {'damper': ('tendon',), 'pushed': ('hook',)}


def test_the_elements_of_a_spring_name_its_source_line():
    model = load_model(SPRINGS)
    spec = build_spec(model)
    osc = next(s for s in model.springs if s.name == 'osc_spring')
    assert osc.source == f'{SPRINGS}:65'
    assert spec.tendon('osc_spring').info == osc.source
    assert {spec.site(f'osc_spring:site{k}').info for k in (1, 2)} == {osc.source}


def test_a_joint_spring_with_a_preload_rests_preload_over_stiffness_further():
    """The torsion spring (2 N m/rad, rest 10 degrees) with a preload of 0.5 N m: MuJoCo's
    joint spring has its reference 0.25 rad beyond the rest angle, where the torque is 0."""
    model = load_model(SPRINGS)
    torsion = next(s for s in model.springs if s.name == 'torsion_spring')
    turned = replace(model, springs=(replace(torsion, preload=0.5),))
    assert plan_springs(turned)['torsion_spring'][0] == 'joint'
    joint = build_spec(turned).joint('torsion_hinge')
    assert float(joint.springref) == pytest.approx(math.radians(10.0) + 0.25, rel=1e-12)
    assert float(joint.stiffness[0]) == 2.0


def test_a_spring_on_a_joints_coordinate_rests_at_its_rest_plus_preload_over_stiffness():
    """A JOINT spring (x = q) of 2 N m/rad resting at 0.3 rad with a preload of 0.4 N m: the
    joint's torque is 0 at q = 0.3 + 0.4 / 2."""
    from body_bridge.model import Spring, SpringKind
    model = load_model(SPRINGS)
    spring = Spring('on_hinge', SpringKind.JOINT, joint='torsion_hinge', stiffness=2.0,
                    rest=0.3, preload=0.4)
    joint = build_spec(replace(model, springs=(spring,))).joint('torsion_hinge')
    assert float(joint.springref) == pytest.approx(0.5, rel=1e-12)
    assert float(joint.stiffness[0]) == 2.0


def test_a_torsion_spring_and_its_hinge_turned_together_hold_the_same_reference():
    """The RSDA's axis is its frames' z axis: hinge and spring frames both turned a quarter
    turn about y (the axis then along x) describe the same spring on the same hinge."""
    from body_bridge.model import Pose
    model = load_model(SPRINGS)
    torsion = next(s for s in model.springs if s.name == 'torsion_spring')
    turn = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])  # z -> x
    turned = replace(torsion, pose1=Pose(torsion.pose1.pos, turn @ torsion.pose1.rot),
                     pose2=Pose(torsion.pose2.pos, turn @ torsion.pose2.rot))
    joints = tuple(replace(j, axis=turn @ j.axis) if j.name == 'torsion_hinge' else j
                   for j in model.joints)
    refs = [float(build_spec(m).joint('torsion_hinge').springref)
            for m in (replace(model, springs=(torsion,)),
                      replace(model, springs=(turned,), joints=joints))]
    assert plan_springs(replace(model, springs=(turned,), joints=joints))[
        'torsion_spring'][0] == 'joint'
    assert refs[1] == pytest.approx(refs[0], abs=1e-12)
    assert abs(refs[0]) == pytest.approx(math.radians(10.0), rel=1e-12)


@pytest.mark.parametrize('beyond', [1.5e-9, 1e-3])
def test_an_inertia_beyond_the_rounding_band_compiles_balanced(beyond):
    """Principal moments 0.4 + 0.6 < C = 1 + beyond: past what the build nudges as rounding
    (1e-9 of C), MuJoCo balances them instead of refusing the model."""
    from body_bridge.model import Inertial, Link, Model
    inertial = Inertial(1.0, inertia=np.diag([0.4, 0.6, 1.0 + beyond]))
    mj = build_spec(Model('plate', (Link('plate', inertial=inertial),), (), 'plate')).compile()
    assert mj.body_mass[1] == pytest.approx(1.0)
    moments = sorted(mj.body_inertia[1])
    assert moments[0] + moments[1] >= moments[2]


def test_a_torsion_spring_named_from_the_other_link_turns_the_same_joint_the_other_way():
    """x is link2's angle about link1's z: with the links swapped, x = -q'. The same spring
    written from the other side (rest -10 degrees) holds the hinge at the same reference."""
    model = load_model(SPRINGS)
    torsion = next(s for s in model.springs if s.name == 'torsion_spring')
    swapped = replace(torsion, link1=torsion.link2, link2=torsion.link1, pose1=torsion.pose2,
                      pose2=torsion.pose1, rest=-torsion.rest)
    _, joint, sign = plan_springs(replace(model, springs=(torsion,)))['torsion_spring']
    assert plan_springs(replace(model, springs=(swapped,)))['torsion_spring'] == (
        'joint', joint, -sign)
    refs = [float(build_spec(replace(model, springs=(s,))).joint(joint).springref)
            for s in (torsion, swapped)]
    assert refs[0] == pytest.approx(refs[1], abs=1e-12)
    assert abs(refs[0]) == pytest.approx(math.radians(10.0), rel=1e-12)


def test_a_motors_driver_joint_and_equality_name_the_motor_joints_line():
    """Every element of the compiled model keeps the ``file:line`` it came from: a motor's
    driver joint and the equality coupling it carry its joint's line."""
    from body_bridge.sim.names import DRIVE_SUFFIX, DRIVER_SUFFIX
    path = Path(__file__).parent / 'data' / 'chrono' / 'motors.yaml'
    model = load_model(path)
    spec = build_spec(model)
    driven = [m for m in model.motors if m.actuation.value != 'force']
    assert len(driven) >= 3
    for motor in driven:
        line = model.joint(motor.joint).source
        assert line.startswith(f'{path}:')
        assert spec.joint(motor.name + DRIVER_SUFFIX).info == line
        assert spec.equality(motor.name + DRIVE_SUFFIX).info == line


def test_a_vertical_position_motor_holds_its_load_where_it_says(tmp_path):
    """Chrono's POSITION motor imposes its function: a 2 kg car on a vertical guide held at
    0.1 m stays there to 1e-6 m, gravity and all (the motor's driver must not sag under
    its own weight within a step)."""
    from body_bridge.sim.building.build import BuildOptions
    from body_bridge.sim.building.options import SimOptions
    from body_bridge.sim.simulation import Simulation
    path = tmp_path / 'lift.yaml'
    path.write_text(
        'chrono-version: 10.0\nmodel:\n  name: lift\n  bodies:\n'
        '    - {name: ground, location: [0, 0, 0], fixed: true}\n'
        '    - {name: car, location: [0, 0, 0], mass: 2.0, inertia: {moments: [0.01, 0.01, 0.01]}}\n'
        '  motors:\n'
        '    - {name: lift_motor, type: LINEAR, guide: PRISMATIC, body1: car, body2: ground,\n'
        '       location: [0, 0, 0], axis: [0, 0, 1], actuation_type: POSITION,\n'
        '       actuation_function: {type: CONSTANT, value: 0.1}}\n')
    sim = Simulation(load_model(path), SimOptions(build=BuildOptions(timestep=0.001),
                                                  control_period=0.001))
    heights = []
    for _ in range(500):
        sim.step_period()
        heights.append(float(sim.joint_positions()[sim.joint_names.index('lift_motor')]))
    assert max(abs(h - 0.1) for h in heights[100:]) < 1e-6
