"""Chrono models in the integrator, against analytic motion and independent computations."""

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest
from conftest import shared_model
from test_chrono_load import OWN, REAL_MBS

from body_bridge.formats import load_model
from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.mechanics.closures import closure_gaps
from body_bridge.model import Pose
from body_bridge.sim.simulation import Mode, SimOptions, Simulation, simulate_together

DATA = Path(__file__).parent / 'data' / 'chrono'
G = 9.8  # Chrono YAML's gravity


def simulation(path, timestep=None) -> Simulation:
    build = BuildOptions() if timestep is None else BuildOptions(timestep=timestep)
    return Simulation(load_model(path), SimOptions(build=build, control_period=0.001))


def run(sim: Simulation, seconds: float, every=None) -> None:
    """Step ``seconds``; call ``every(sim)`` after each control period."""
    for _ in range(round(seconds / sim.period)):
        sim.step_period()
        if every is not None:
            every(sim)


def q(sim: Simulation, joint: str) -> float:
    return float(sim.joint_positions()[sim.joint_names.index(joint)])


def com(sim: Simulation, link: str) -> np.ndarray:
    """A link's centre of mass at the current state (fresh kinematics)."""
    mujoco.mj_kinematics(sim.mj, sim.data)
    return sim.data.xipos[sim.mj.body(link).id].copy()


def velocity(sim: Simulation, link: str) -> np.ndarray:
    """(angular, linear at the link origin), model frame, at the current state."""
    mujoco.mj_forward(sim.mj, sim.data)
    out = np.zeros(6)
    mujoco.mj_objectVelocity(sim.mj, sim.data, mujoco.mjtObj.mjOBJ_BODY,
                             sim.mj.body(link).id, out, 0)
    return out


def crossings(times, values) -> list[float]:
    """Times where ``values`` crosses zero upwards (linear interpolation)."""
    t, v = np.asarray(times), np.asarray(values)
    i = np.flatnonzero((v[:-1] < 0) & (v[1:] >= 0))
    return list(t[i] - v[i] * (t[i + 1] - t[i]) / (v[i + 1] - v[i]))


def pendulum_period(inertia_pivot: float, mass: float, distance: float, amplitude: float):
    """Period of a physical pendulum, with the amplitude correction to fourth order."""
    t0 = 2 * math.pi * math.sqrt(inertia_pivot / (mass * G * distance))
    return t0 * (1 + amplitude ** 2 / 16 + 11 * amplitude ** 4 / 3072)


# --- joints -----------------------------------------------------------------------------------


def test_pendulum_period():
    sim = simulation(DATA / 'pendulum.yaml')
    times, angles = [], []
    run(sim, 6.0, lambda s: (times.append(s.time), angles.append(q(s, 'pivot') + 0.1)))
    period = np.diff(crossings(times, angles)).mean()
    assert period == pytest.approx(pendulum_period(0.01 + 2.0, 2.0, 1.0, 0.1), rel=1e-3)
    assert min(angles) == pytest.approx(-0.1, abs=1e-3)  # released at rest 0.1 rad out
    assert sim.warnings() == {}


def double_pendulum_reference(seconds: float, dt: float = 1e-4):
    """RK4 of the double pendulum's Lagrange equations: COM positions at each 1 ms."""
    m1 = m2 = 1.0
    i1 = i2 = 0.001
    l1, l2 = 1.0, 0.8

    def accel(state):
        a, b, da, db = state
        c, s = math.cos(a - b), math.sin(a - b)
        mass = np.array([[m1 * l1 ** 2 + i1 + m2 * l1 ** 2, m2 * l1 * l2 * c],
                         [m2 * l1 * l2 * c, m2 * l2 ** 2 + i2]])
        rhs = np.array([-m2 * l1 * l2 * s * db ** 2 - (m1 + m2) * G * l1 * math.sin(a),
                        m2 * l1 * l2 * s * da ** 2 - m2 * l2 * G * math.sin(b)])
        return np.concatenate([[da, db], np.linalg.solve(mass, rhs)])

    state = np.array([math.radians(30), math.radians(60), 0.0, 0.0])
    out = []
    for step in range(round(seconds / dt)):
        k1 = accel(state)
        k2 = accel(state + dt / 2 * k1)
        k3 = accel(state + dt / 2 * k2)
        k4 = accel(state + dt * k3)
        state = state + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        if (step + 1) % 10 == 0:
            a, b = state[:2]
            upper = np.array([l1 * math.sin(a), 0, -l1 * math.cos(a)])
            out.append((upper, upper + [l2 * math.sin(b), 0, -l2 * math.cos(b)]))
    return out


def test_double_pendulum_follows_its_equations_of_motion():
    sim = simulation(DATA / 'double_pendulum.yaml', timestep=1e-4)
    reference = double_pendulum_reference(2.0)
    worst = 0.0
    for upper, lower in reference:
        sim.step_period()
        worst = max(worst, np.linalg.norm(com(sim, 'upper') - upper),
                    np.linalg.norm(com(sim, 'lower') - lower))
    assert worst < 2e-3
    assert np.linalg.norm(reference[-1][1] - reference[0][1]) > 0.5  # it did swing


def four_bar_rocker(crank_angle: float) -> np.ndarray:
    """Direction of the rocker (D to C) for a crank angle (from +x towards +z), upper branch."""
    a, b, c = 0.2, 0.6, 0.5
    pb = np.array([a * math.cos(crank_angle), a * math.sin(crank_angle)])
    pd = np.array([0.5, 0.0])
    gap = pd - pb
    dist = np.linalg.norm(gap)
    along = (b * b - c * c + dist * dist) / (2 * dist)
    normal = np.array([-gap[1], gap[0]]) / dist
    pc = pb + along * gap / dist + math.sqrt(b * b - along * along) * normal
    return (pc - pd) / c


def test_four_bar_rocker_follows_the_crank_and_the_loop_holds():
    sim = simulation(DATA / 'four_bar.yaml')
    start = four_bar_rocker(math.pi / 2)
    rest = sim.model.link('rocker').pose.rot
    gaps, errors = [], []

    def check(s):
        # SPEED 1 rad/s about +y: the crank angle (from +x towards +z) decreases.
        assert q(s, 'crank_motor') == pytest.approx(s.time, abs=1e-4)
        expected = four_bar_rocker(math.pi / 2 - s.time)
        mujoco.mj_kinematics(s.mj, s.data)
        turn = s.data.xmat[s.mj.body('rocker').id].reshape(3, 3) @ rest.T
        direction = turn @ [start[0], 0.0, start[1]]
        errors.append(float(np.linalg.norm(direction[[0, 2]] - expected)))
        gaps.append(max(closure_gaps(s.mj, s.data).values()))
    run(sim, 10.0, check)
    assert max(errors) < 1e-4
    assert max(gaps) < 1e-4
    assert sim.warnings() == {}


def cardan_output(input_angle: float, previous: float) -> float:
    """Output shaft angle of a Cardan joint, from the cross staying square (independent)."""
    beta = math.radians(30)
    u = np.array([math.cos(beta), math.sin(beta), 0.0])
    a1 = np.array([0.0, -math.sin(input_angle), math.cos(input_angle)])  # z turned about x
    v0 = np.array([0.5, -math.sqrt(3) / 2, 0.0])
    # a1 . (v0 cos t + (u x v0) sin t) = 0
    t = math.atan2(-(a1 @ v0), a1 @ np.cross(u, v0))
    return t + math.pi * round((previous - t) / math.pi)


def test_universal_joint_shaft_follows_the_cardan_relation():
    sim = simulation(DATA / 'universal_shaft.yaml')
    output = sim.model.link('shaft_out')
    rest = output.pose.rot
    state = {'angle': 0.0, 'worst': 0.0}

    def check(s):
        theta1 = q(s, 'in_drive')
        assert theta1 == pytest.approx(2 * s.time, abs=1e-4)
        expected = cardan_output(theta1, state['angle'])
        state['angle'] = expected
        mujoco.mj_kinematics(s.mj, s.data)
        rot = s.data.xmat[s.mj.body('shaft_out').id].reshape(3, 3) @ rest.T
        # The output turns about its own axis u: read the angle from the turned y axis.
        u = rest[:, 0]
        y0, y1 = rest[:, 1], rot @ rest[:, 1]
        measured = math.atan2(float(np.cross(y0, y1) @ u), float(y0 @ y1))
        diff = (measured - expected + math.pi) % (2 * math.pi) - math.pi
        state['worst'] = max(state['worst'], abs(diff))
    run(sim, 4.0, check)
    assert state['worst'] < 1e-4
    # The textbook form: tan(out) = tan(in) / cos(beta) with the input yoke in the shafts'
    # plane; here it starts normal to it, so tan(out) = tan(in) cos(beta).
    assert math.tan(cardan_output(0.7, 0.7)) == pytest.approx(math.tan(0.7) *
                                                               math.cos(math.radians(30)))


def test_point_on_a_line_slides_down_it_and_spins_freely():
    sim = simulation(DATA / 'point_line.yaml')
    run(sim, 2.0)
    t = sim.time
    direction = np.array([math.sqrt(3) / 2, 0, -0.5])
    expected = np.array([0, 0, 1]) + 0.5 * G * 0.5 * t * t * direction
    np.testing.assert_allclose(com(sim, 'bead'), expected, atol=0.01)  # semi-implicit Euler
    assert q(sim, 'wire_slide') == pytest.approx(0.25 * G * t * t, rel=2e-3)
    np.testing.assert_allclose(velocity(sim, 'bead')[:3], [0, 0, 3], atol=1e-9)


def test_point_on_a_plane_slides_down_the_slope():
    sim = simulation(DATA / 'point_plane.yaml')
    run(sim, 2.0)
    t = sim.time
    normal = np.array([math.sin(math.radians(20)), 0, math.cos(math.radians(20))])
    gravity = np.array([0, 0, -G])
    along = gravity - (gravity @ normal) * normal
    expected = np.array([0, 0, 1]) + np.array([0, 0.5, 0]) * t + 0.5 * along * t * t
    np.testing.assert_allclose(com(sim, 'puck'), expected, rtol=2e-3, atol=1e-6)
    assert abs((com(sim, 'puck') - [0, 0, 1]) @ normal) < 1e-6  # on the plane


# --- springs ----------------------------------------------------------------------------------


def test_spring_mass_and_torsion_frequencies():
    sim = simulation(DATA / 'springs.yaml')
    worst = {'osc': 0.0, 'torsion': 0.0}

    def check(s):
        t = s.time
        worst['osc'] = max(worst['osc'], abs(q(s, 'osc_slide') - 0.2 * (math.cos(5 * t) - 1)))
        expected = math.radians(10) * (1 - math.cos(10 * t))  # about the free angle
        worst['torsion'] = max(worst['torsion'], abs(q(s, 'torsion_hinge') - expected))
    run(sim, 3.0, check)
    assert worst['osc'] < 1e-3 and worst['torsion'] < 2e-3
    # The RSDA on a spherical joint is a torque: theta = (w0 / w) sin(w t), w = 10 rad/s.
    mujoco.mj_kinematics(sim.mj, sim.data)
    quat = sim.data.xquat[sim.mj.body('ball_torsion').id]
    angle = 2 * math.atan2(quat[3], quat[0])
    assert angle == pytest.approx(0.1 * math.sin(10 * sim.time), abs=1e-3)
    assert sim.warnings() == {}


def test_spring_laws_come_to_their_equilibria():
    sim = simulation(DATA / 'springs.yaml')
    run(sim, 4.0)
    weight = 2.0 * G
    assert q(sim, 'preloaded_slide') == pytest.approx(10 / 100, abs=1e-5)  # preload / k
    assert q(sim, 'curve_slide') == pytest.approx(-weight / 1000, abs=1e-5)  # first segment
    assert q(sim, 'map_slide') == pytest.approx(-weight / 1000, abs=1e-5)
    # Degressive damper against 10 N: 20 v / (1 + 0.5 v) = 10.
    speed = sim.joint_velocities()[sim.joint_names.index('degressive_slide')]
    assert speed == pytest.approx(2 / 3, abs=1e-4)
    # Soft spring (10 N/m) held by the 1.05 m bump stop: 1e5 N/m over its first 2 mm.
    stretch = -q(sim, 'stopped_slide')
    overshoot = (weight - 10 * 0.05) / (1e5 + 10)
    assert stretch == pytest.approx(0.05 + overshoot, abs=1e-5)


# --- motors ---------------------------------------------------------------------------------


MOTOR_CLOSED_FORMS = {
    'pos_constant_motor': lambda t: 0.3,
    'pos_polynomial_motor': lambda t: 0.5 * t - 0.1 * t * t,
    'pos_sine_motor': lambda t: 0.5 * math.sin(math.pi * t + math.pi / 6) + 0.1,  # phase 30 deg
    'pos_ramp_motor': lambda t: 0.1 + 0.4 * t,
    'pos_data_motor': lambda t: 1 - abs(t % 2 - 1),  # a triangle repeated every 2 s
    'speed_sine_motor': lambda t: 4 / math.pi * (1 - math.cos(math.pi * t / 2)),
    'speed_data_motor': lambda t: (2 * (t // 4) + {0: lambda x: x * x / 2,
                                                   1: lambda x: 0.5 + (x - 1),
                                                   2: lambda x: 1.5 + (x - 2) - (x - 2) ** 2 / 2,
                                                   3: lambda x: 2.0}[int(t % 4)](t % 4)),
    'torque_motor': lambda t: 0.5 * (0.1 / 0.02) * t * t,
    'lin_position_motor': lambda t: 0.1 + 0.4 * t,
    'lin_speed_motor': lambda t: 0.2 * t,
    'lin_force_motor': lambda t: 0.5 * 2.0 * t * t,
    'cylindrical_motor': lambda t: t,
    'spherical_motor': lambda t: 0.0,
    'free_guide_motor': lambda t: 0.3 * math.sin(math.pi * t),
    'free_spindle_motor': lambda t: 1.5 * t,
}


def test_motors_follow_their_functions():
    sim = simulation(DATA / 'motors.yaml')
    worst = {name: 0.0 for name in MOTOR_CLOSED_FORMS}

    def check(s):
        t = s.time
        if t < 0.1:
            return  # POSITION motors whose function does not start at 0 jump there first
        for name, closed in MOTOR_CLOSED_FORMS.items():
            worst[name] = max(worst[name], abs(q(s, name) - closed(t)))
    run(sim, 5.0, check)
    for name, error in worst.items():
        # FORCE motors integrate an acceleration (semi-implicit Euler: a dt t / 2 at most).
        # The triangle's kinks (the rate jumps by 2 rad/s) lag by a few milliradians.
        limit = {'torque_motor': 2e-2, 'lin_force_motor': 2e-2, 'pos_data_motor': 3e-3}.get(
            name, 2e-4)
        assert error < limit, f'{name}: off by {error:.2e}'
    t = sim.time
    # The free freedoms stay free: falling along the cylindrical spindle, the free guide...
    assert q(sim, 'cylindrical_motor_slide') == pytest.approx(-0.5 * G * t * t, rel=1e-3)
    assert com(sim, 'free_guide')[2] == pytest.approx(-0.5 * G * t * t, rel=1e-3)
    assert com(sim, 'free_spindle')[2] == pytest.approx(-0.5 * G * t * t, rel=1e-3)
    np.testing.assert_allclose(velocity(sim, 'spherical')[:3], [0, 0, 2], atol=1e-6)
    assert sim.warnings() == {}


def test_a_command_takes_a_motor_over_until_reset():
    sim = simulation(DATA / 'motors.yaml')
    run(sim, 0.5)
    assert sim.forces.engaged('lin_speed_motor')
    sim.command(Mode.POSITION, ['lin_speed_motor'], [-0.3])
    run(sim, 2.0)
    assert not sim.forces.engaged('lin_speed_motor')
    assert q(sim, 'lin_speed_motor') == pytest.approx(-0.3, abs=2e-3)  # the servo holds it
    assert q(sim, 'pos_ramp_motor') == pytest.approx(0.1 + 0.4 * sim.time, abs=1e-3)  # the rest
    sim.reset()
    assert sim.forces.engaged('lin_speed_motor')
    run(sim, 1.0)
    assert q(sim, 'lin_speed_motor') == pytest.approx(0.2, abs=1e-3)


@pytest.mark.corpus
def test_controller_motor_takes_its_input():
    sim = simulation(shared_model('chrono/data/yaml/mbs/model_inverted_pendulum_motor.yaml'))
    assert sim.forces.controllers == [('cart_controller', 'motor')]
    sim.forces.set_motor_input('cart_controller', 3.0)  # FORCE: 3 N
    run(sim, 0.1)
    # Upright and balanced at first, the pendulum (0.5 kg, 0.5 m up, 0.625 kg m^2 about the
    # pivot) lags: the cart's effective mass is m_c + m_p - (m_p d)^2 / I_p = 1.4 kg.
    effective = 1.0 + 0.5 - (0.5 * 0.5) ** 2 / (0.5 + 0.5 * 0.25)
    assert q(sim, 'cart_controller') == pytest.approx(0.5 * 3.0 / effective * 0.1 ** 2,
                                                      rel=0.02)
    with pytest.raises(ValueError, match='finite'):
        sim.forces.set_motor_input('cart_controller', float('nan'))
    with pytest.raises(KeyError):
        sim.forces.set_load_input('cart_controller', [1.0, 0.0, 0.0])  # not a load controller


def test_controller_motors_of_our_own_take_their_inputs():
    """test/data/chrono/controllers.yaml: a FORCE controller on a free 2 kg slider follows
    x = F t^2 / 2m; a POSITION controller turns its arm to the input; NaN is refused."""
    sim = simulation(DATA / 'controllers.yaml')
    assert sorted(sim.forces.controllers) == [('arm_angle', 'motor'), ('cart_force', 'motor'),
                                              ('wheel_torque', 'torque')]
    sim.forces.set_motor_input('cart_force', 3.0)  # [N]
    sim.forces.set_motor_input('arm_angle', 0.5)  # [rad]
    run(sim, 0.5)
    assert q(sim, 'cart_force') == pytest.approx(0.5 * 3.0 / 2.0 * 0.5 ** 2, rel=0.02)
    assert q(sim, 'arm_angle') == pytest.approx(0.5, abs=1e-3)
    with pytest.raises(ValueError, match='finite'):
        sim.forces.set_motor_input('cart_force', float('inf'))


# --- loads ------------------------------------------------------------------------------------


def test_body_loads_accelerate_as_newton_says():
    sim = simulation(DATA / 'loads_mbs.yaml')  # no gravity, time step 0.5 ms
    assert sim.mj.opt.timestep == 5e-4
    assert sim.forces.controllers == [('thruster', 'force')]
    sim.forces.set_load_input('thruster', [0, 3, 0])
    run(sim, 0.1)  # a force at a point fixed in space: -0.5 N m about y at first
    np.testing.assert_allclose(velocity(sim, 'anchored'), [0, -1.0, 0, 0, 0, 0.1], atol=2e-3)
    sim.reset()
    sim.forces.set_load_input('thruster', [0, 3, 0])
    times, offset_vx = [], []

    def record(s):
        times.append(s.time)
        offset_vx.append(velocity(s, 'offset')[3])
    run(sim, 1.0, record)
    t = sim.time
    np.testing.assert_allclose(velocity(sim, 'pushed')[3:], [4 / 2 * t, 0, 0], atol=1e-3)
    np.testing.assert_allclose(velocity(sim, 'spun')[:3], [0, 0, 0.1 / 0.05 * t], atol=1e-3)
    np.testing.assert_allclose(velocity(sim, 'modulated')[3:], [t * t, 0, 0], atol=2e-3)
    np.testing.assert_allclose(velocity(sim, 'remote')[3:], [0, 3 * t, 0], atol=2e-3)
    # The lever: a local force at a local point turns the body (-0.5 N m about z, so the
    # angle is -5 t^2) and pushes it along its turning x axis: vx = int cos(5 t^2).
    spin = velocity(sim, 'offset')[:3]
    np.testing.assert_allclose(spin, [0, 0, -10 * t], atol=5e-3)
    fine = np.linspace(0, t, 20001)
    samples = np.cos(5 * fine * fine)  # the trapezoid rule (np.trapezoid is numpy 2 only)
    vx = float(np.sum(0.5 * (samples[1:] + samples[:-1]) * np.diff(fine)))
    assert offset_vx[-1] == pytest.approx(vx, abs=5e-3)


# --- bushings, constraints, initial state --------------------------------------------------------


def test_bushings_deflect_by_load_over_stiffness():
    sim = simulation(DATA / 'bushing.yaml')
    run(sim, 3.0)
    assert q(sim, 'locked_bushing_tz') == pytest.approx(-2.0 * G / 1e4, rel=1e-3)
    assert q(sim, 'hinged_bushing_rz') == pytest.approx(0.1 / 2, rel=1e-3)  # the DOF stiffness
    assert q(sim, 'looped_hinge') == pytest.approx(0.1 / 100, rel=1e-3)  # the loop's bushing
    assert sim.warnings() == {}


def test_constraints_hold_pendulums_and_sliders():
    sim = simulation(DATA / 'constraints.yaml')
    times, dx, rx, gaps = [], [], [], []

    def record(s):
        times.append(s.time)
        dx.append(com(s, 'distance_bob')[0])
        rx.append(com(s, 'rs_bob')[0])
        gaps.append(max(closure_gaps(s.mj, s.data).values()))
    run(sim, 6.0, record)
    period = pendulum_period(1.0, 1.0, 1.0, 0.1)  # point masses (their spin is free)
    assert np.diff(crossings(times, dx)).mean() == pytest.approx(period, rel=1e-3)
    assert np.diff(crossings(times, rx)).mean() == pytest.approx(period, rel=1e-3)
    mujoco.mj_kinematics(sim.mj, sim.data)
    bar = sim.mj.body('rt_bar').id
    rot = sim.data.xmat[bar].reshape(3, 3)
    offset = sim.data.xpos[bar] - [0, 4, 0]
    assert offset @ rot[:, 0] == pytest.approx(1.0, abs=1e-4)  # the revolute-translational link
    assert abs(offset[2]) < 1e-4 and abs(rot[2, 2] - 1) < 1e-8
    assert max(gaps) < 1e-4


def test_initial_velocities_launch_a_projectile():
    sim = simulation(DATA / 'initial_velocity.yaml')
    v = velocity(sim, 'shot')
    np.testing.assert_allclose(v[:3], [0, 0, 2], atol=1e-12)  # local z is the model's z
    run(sim, 1.0)
    t = sim.time
    expected = [t, 0.1, 1 + 3 * t - 0.5 * G * t * t]
    np.testing.assert_allclose(com(sim, 'shot'), expected, atol=6e-3)  # semi-implicit Euler
    np.testing.assert_allclose(velocity(sim, 'shot')[:3], [0, 0, 2], atol=1e-9)


# --- the real slider-crank ---------------------------------------------------------------------


def speed_profile_integral(t: float) -> float:
    """int_0^t of the slider-crank's repeated DATA speed profile (closed form, per piece)."""
    def piece(x):  # x in [0, 16)
        ramps = [(0, 1, 0, 3.14), (1, 4, 3.14, 3.14), (4, 5, 3.14, 0), (5, 8, 0, 0),
                 (8, 9, 0, -3.14), (9, 12, -3.14, -3.14), (12, 13, -3.14, 0), (13, 16, 0, 0)]
        total = 0.0
        for a, b, fa, fb in ramps:
            if x <= a:
                break
            end = min(x, b)
            f_end = fa + (fb - fa) * (end - a) / (b - a)
            total += (fa + f_end) / 2 * (end - a)
        return total
    return piece(t % 16)  # each period integrates to zero


@pytest.mark.corpus
def test_slider_crank_slider_follows_the_crank():
    sim = simulation(shared_model('chrono/historical/58ece18a/data/yaml/models/'
                                  'slider_crank.yaml'))
    worst = {'slider': 0.0, 'motor': 0.0, 'gap': 0.0}

    def check(s):
        angle = q(s, 'ground_crank')  # the motor's coordinate: ground relative to crank
        worst['motor'] = max(worst['motor'], abs(angle - speed_profile_integral(s.time)))
        # The crank turns by -angle about y; its pin starts at (-2, 0, 0), the rod is 4 m.
        theta = -angle
        pin = np.array([-2 * math.cos(theta), 2 * math.sin(theta)])  # (x, z)
        slider_x = pin[0] + math.sqrt(16 - pin[1] ** 2)
        worst['slider'] = max(worst['slider'], abs(2 + q(s, 'ground_slider') * -1 - slider_x))
        worst['gap'] = max([worst['gap']] + [v for k, v in closure_gaps(s.mj, s.data).items()
                                             if ':' not in k])
    run(sim, 10.0, check)
    assert worst['slider'] < 1e-3
    assert worst['motor'] < 1e-3
    assert worst['gap'] < 1e-4
    assert q(sim, 'ground_crank') == pytest.approx(speed_profile_integral(10.0), abs=1e-3)


# --- every model: ten seconds -------------------------------------------------------------

TEN_SECONDS = [pytest.param(f'chrono/{r}', marks=pytest.mark.corpus) for r in REAL_MBS] + \
    [f'own/{name}' for name in OWN]


@pytest.mark.parametrize('name', TEN_SECONDS)
def test_ten_seconds_without_warnings_or_loop_drift(name):
    kind, _, relative = name.partition('/')
    path = DATA / relative if kind == 'own' else shared_model(name)
    model = load_model(path)
    sim = Simulation(model)
    closures = {c.name for c in model.closures}
    worst = [0.0]

    def check(s):
        gaps = closure_gaps(s.mj, s.data)
        worst[0] = max([worst[0]] + [gaps[c] for c in closures if c in gaps])
    run(sim, 10.0, check)
    assert sim.time == pytest.approx(10.0)
    assert sim.warnings() == {}
    assert np.all(np.isfinite(sim.data.qpos))
    assert worst[0] < 1e-4
    # Every body has a TF frame: the root, a fixed joint's child (/tf_static) or a moving one.
    framed = {model.root} | {child for _, child in sim.moving_frames}
    framed |= {j.child for j in model.joints if j.type.value == 'fixed'}
    assert framed >= {link.name for link in model.links}


@pytest.mark.parametrize('name', ['motors', 'springs', 'four_bar', 'bushing',
                                  'initial_velocity', 'loads'])
def test_a_model_second_in_a_world_moves_as_it_does_alone(name):
    """Motors, springs, bushings, loop closures, loads and initial velocities find their
    MuJoCo elements under the model's prefix when another model comes first in the world."""
    path = DATA / f'{name}.yaml'
    alone = Simulation(load_model(path), SimOptions())
    model = load_model(path)
    first, second = simulate_together(
        [(load_model(DATA / 'springs.yaml'), SimOptions(initial_pose=Pose((50.0, 0.0, 0.0)))),
         (model, SimOptions())], ['', 'second/'])
    start = {link.name: alone.body_pose(link.name)[0] for link in model.links}
    for _ in range(50):  # 0.5 s
        alone.step_period()
        first.world.step_period()
    moved = 0.0
    for link in model.links:
        position = alone.body_pose(link.name)[0]
        moved = max(moved, float(np.abs(position - start[link.name]).max()))
        assert second.body_pose(link.name)[0] == pytest.approx(position, abs=1e-9), link.name
    assert moved > 1e-3  # something moved
    assert second.joint_positions() == pytest.approx(alone.joint_positions(), abs=1e-9)
