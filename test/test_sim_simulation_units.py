"""sim/simulation.py: what a reset restores, how a joint changes command mode, efforts at the
ends of a range, the velocity limit at the end of every period, and a kinematic model's
floating base, on the sample arm and small models written here."""

import math

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import Box, Inertial, Joint, Limits, Link, Model, Pose, Shape
from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.building.world import World
from body_bridge.sim.control.trajectory import JointTrajectory
from body_bridge.sim.simulation import Mode, SimOptions, Simulation

from conftest import SAMPLE_ARM

YAW = 0  # shoulder_yaw: about the vertical, no gravity torque; range +-170 deg, pi rad/s


def run(sim, periods):
    for _ in range(periods):
        sim.step_period()


def test_a_reset_holds_each_joint_at_its_initial_position_whatever_it_was_told():
    """A joint started at 0.6 rad, then sent to 1.2 rad in position mode: after a reset it is
    back at 0.6 rad and stays there (its setpoint is its initial position, not the old
    target's nor MuJoCo's reset 0)."""
    sim = Simulation(load_model(SAMPLE_ARM), SimOptions(initial_positions={'shoulder_yaw': 0.6}))
    sim.command(Mode.POSITION, ['shoulder_yaw'], [1.2])
    run(sim, 100)
    assert sim.joint_positions()[YAW] == pytest.approx(1.2, abs=1e-3)
    sim.reset()
    assert sim.joint_positions()[YAW] == pytest.approx(0.6, abs=1e-12)
    for _ in range(30):
        sim.step_period()
        assert sim.joint_positions()[YAW] == pytest.approx(0.6, abs=1e-4)
    assert sim.setpoints()['shoulder_yaw'] == pytest.approx(0.6, abs=1e-9)


def test_a_reset_restores_each_joint_s_own_effort_limit():
    """limit_efforts' docstring: a reset restores every joint's own limit (shoulder_yaw has
    none): 3 N m asked after the reset is 3 N m exerted, not the 0.3 N m cap of before."""
    sim = Simulation(load_model(SAMPLE_ARM))
    sim.limit_efforts(['shoulder_yaw'], [0.3])
    sim.command(Mode.EFFORT, ['shoulder_yaw'], [3.0])
    sim.step_period()
    assert sim.joint_efforts()[YAW] == pytest.approx(0.3, rel=1e-9)
    sim.reset()
    sim.command(Mode.EFFORT, ['shoulder_yaw'], [3.0])
    sim.step_period()
    assert sim.joint_efforts()[YAW] == pytest.approx(3.0, rel=1e-9)


def test_a_joint_switched_from_velocity_to_position_holds_where_it_is():
    sim = Simulation(load_model(SAMPLE_ARM))
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [0.5])
    run(sim, 60)
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [0.0])
    run(sim, 60)
    here = float(sim.joint_positions()[YAW])
    assert here == pytest.approx(0.5 * 0.6, abs=0.02)
    sim.command(Mode.POSITION, ['shoulder_yaw'], [here])
    for _ in range(50):
        sim.step_period()
        assert sim.joint_positions()[YAW] == pytest.approx(here, abs=1e-4)
    assert sim.setpoints()['shoulder_yaw'] == pytest.approx(here, abs=1e-9)


def test_a_trajectory_given_with_the_switch_to_position_mode_starts_at_rest():
    """Velocity mode at 0.5 rad/s; in one period a position command where the joint is and a
    trajectory to 0.2 rad further in 1 s, at rest there: the trajectory starts from the
    position command's setpoint, at rest, so it is the cubic from rest to rest,
    d (3 t^2 - 2 t^3), its velocity 6 d (t - t^2): 0.012 rad/s at t = 0.01 s."""
    sim = Simulation(load_model(SAMPLE_ARM))
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [0.5])
    run(sim, 30)
    here = float(sim.joint_positions()[YAW])
    sim.command(Mode.POSITION, ['shoulder_yaw'], [here])
    sim.follow(JointTrajectory(['shoulder_yaw'], np.array([1.0]), np.array([[here + 0.2]]),
                               np.array([[0.0]])))  # a cubic: it ends at rest
    sim.step_period()
    pos, vel, following = sim.desired_state(['shoulder_yaw'])
    t = sim.period
    assert following[0] is not None
    assert vel[0] == pytest.approx(6 * 0.2 * (t - t * t), abs=1e-6)
    assert pos[0] == pytest.approx(here + 0.2 * (3 * t * t - 2 * t ** 3), abs=1e-6)


def test_efforts_at_the_ends_of_the_range_push_only_inwards():
    """At the lower end a positive effort (0.02 N m: the yaw joint drives little inertia) is
    applied and a negative one withheld with a note; an effort of 0 there is no note; a
    negative effort in the middle of the range is applied."""
    lower = -math.radians(170)
    sim = Simulation(load_model(SAMPLE_ARM), SimOptions(initial_positions={'shoulder_yaw': lower}))
    sim.command(Mode.EFFORT, ['shoulder_yaw'], [0.0])
    run(sim, 3)
    assert sim.notes == []
    sim.command(Mode.EFFORT, ['shoulder_yaw'], [0.02])
    run(sim, 5)
    assert sim.joint_efforts()[YAW] == pytest.approx(0.02, rel=1e-9)
    assert sim.joint_velocities()[YAW] > 0 and sim.joint_positions()[YAW] > lower
    assert sim.notes == []
    sim.reset()
    sim.command(Mode.EFFORT, ['shoulder_yaw'], [-0.02])
    sim.step_period()
    assert sim.joint_efforts()[YAW] == 0.0
    assert sim.notes and all('shoulder_yaw: effort withheld' in n for n in sim.notes)
    for end in (lower, -lower):  # an effort of 0 at either end withholds nothing
        sim = Simulation(load_model(SAMPLE_ARM), SimOptions(initial_positions={'shoulder_yaw':
                                                                               end}))
        sim.command(Mode.EFFORT, ['shoulder_yaw'], [0.0])
        run(sim, 3)
        assert sim.notes == []
    sim = Simulation(load_model(SAMPLE_ARM))
    sim.command(Mode.EFFORT, ['shoulder_yaw'], [-0.02])
    run(sim, 5)
    assert sim.joint_efforts()[YAW] == pytest.approx(-0.02, rel=1e-9)
    assert sim.joint_velocities()[YAW] < 0 and sim.notes == []


def test_no_joint_ends_a_period_faster_than_its_velocity_limit():
    """Sent 2.5 rad away in position mode, the yaw joint runs at its limit (pi rad/s) and its
    velocity read at the end of every period is within it."""
    sim = Simulation(load_model(SAMPLE_ARM))
    sim.command(Mode.POSITION, ['shoulder_yaw'], [2.5])
    fastest = 0.0
    for _ in range(80):
        sim.step_period()
        fastest = max(fastest, abs(float(sim.joint_velocities()[YAW])))
    assert math.pi * 0.99 < fastest <= math.pi * (1 + 1e-12)


def test_a_kinematic_model_s_floating_base_stays_at_rest():
    """A free body with an arm on a hinge, kinematic: the hinge follows its velocity command,
    the base neither moves nor has any velocity (gravity and the arm's swing move nothing)."""
    mass = Inertial(2.0, inertia=np.eye(3) * 0.02)
    model = Model('floater', (Link('body', Pose((0, 0, 1.0)), mass),
                              Link('arm', Pose((0.2, 0, 1.0)), mass)),
                  (Joint('swing', 'revolute', 'body', 'arm', (0, 0, 1), Limits(-3.0, 3.0)),),
                  'body', root_joint='free')
    sim = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False), kinematic=True))
    sim.command(Mode.VELOCITY, ['swing'], [1.0])
    for _ in range(50):
        sim.step_period()
        assert np.all(sim.data.qvel[:6] == 0.0)
    assert sim.joint_positions()[0] == pytest.approx(0.5, abs=1e-9)
    assert sim.body_pose('body')[0] == pytest.approx([0, 0, 1.0], abs=1e-12)


@pytest.mark.parametrize('mode', ['off', 'auto'])
def test_without_gravity_compensation_a_held_joint_sags_by_its_load_over_kp(mode):
    """Shoulder pitch held at 1 rad: with gravity_compensation off the servo settles where
    kp (q_set - q) carries the gravity torque (MuJoCo's own bias force at rest); with auto (on
    for a fixed base) it holds its setpoint."""
    sim = Simulation(load_model(SAMPLE_ARM), SimOptions(
        initial_positions={'shoulder_pitch': 1.0}, gravity_compensation=mode))
    run(sim, 300)
    row = sim.actuated.index('shoulder_pitch')
    sag = 1.0 - float(sim.joint_positions()[sim.joint_names.index('shoulder_pitch')])
    if mode == 'auto':
        assert abs(sag) < 1e-4
    else:
        load = float(sim.data.qfrc_bias[sim._da[row]])  # gravity at rest
        assert abs(load) > 0.5
        assert sag == pytest.approx(load / sim.kp[row], rel=0.02)


def test_a_reset_drops_the_commands_not_yet_applied():
    sim = Simulation(load_model(SAMPLE_ARM))
    sim.command(Mode.POSITION, ['shoulder_yaw'], [1.0])
    sim.reset()
    run(sim, 50)
    assert sim.joint_positions()[YAW] == pytest.approx(0.0, abs=1e-6)


def test_a_position_command_ends_the_trajectory_being_followed():
    sim = Simulation(load_model(SAMPLE_ARM))
    sim.follow(JointTrajectory(['shoulder_yaw'], np.array([2.0]), np.array([[1.0]])))
    run(sim, 50)
    assert 0.1 < sim.joint_positions()[YAW] < 0.5
    sim.command(Mode.POSITION, ['shoulder_yaw'], [-0.3])
    run(sim, 250)  # past the trajectory's end
    assert sim.joint_positions()[YAW] == pytest.approx(-0.3, abs=1e-3)
    assert sim.desired_state(['shoulder_yaw'])[2] == [None]


def test_a_trajectory_taken_over_from_a_moving_setpoint_starts_at_its_speed():
    """The yaw setpoint runs to 2.5 rad at its limit, pi rad/s; a trajectory given now, to
    0.5 rad further in 1 s and at rest there, is the cubic from (p0, pi) to (p0 + 0.5, 0):
    p0 + v0 t + (3 d - 2 v0) t^2 + (v0 - 2 d) t^3."""
    sim = Simulation(load_model(SAMPLE_ARM))
    sim.command(Mode.POSITION, ['shoulder_yaw'], [2.5])
    run(sim, 10)
    p0 = sim.setpoints()['shoulder_yaw']
    v0, d = math.pi, 0.5
    sim.follow(JointTrajectory(['shoulder_yaw'], np.array([1.0]), np.array([[p0 + d]]),
                               np.array([[0.0]])))
    sim.step_period()
    pos, vel, _ = sim.desired_state(['shoulder_yaw'])
    t = sim.period
    assert pos[0] == pytest.approx(p0 + v0 * t + (3 * d - 2 * v0) * t ** 2 +
                                   (v0 - 2 * d) * t ** 3, abs=1e-9)
    assert vel[0] == pytest.approx(v0 + 2 * (3 * d - 2 * v0) * t + 3 * (v0 - 2 * d) * t ** 2,
                                   abs=1e-9)


def test_a_kinematic_pusher_moves_a_box_as_far_as_itself():
    """A kinematic plate slides along x at 0.2 m/s for 1 s and pushes a 0.1 m cube resting on
    the floor in front of it: the cube ends where the plate's face puts it (its centre 0.05 m
    beyond the face, less the few millimetres MuJoCo's soft contact lets the plate sink into
    it while it pushes against friction), moved smoothly, not thrown."""
    plate = Link('plate', Pose((0, 0, 0.15)), Inertial(1.0, inertia=np.eye(3) * 0.01),
                 collisions=(Shape(Box((0.02, 0.4, 0.2))),))
    pusher = Model('pusher', (Link('base'), plate),
                   (Joint('slide', 'prismatic', 'base', 'plate', (1, 0, 0), Limits(-1.0, 1.0)),),
                   'base')
    cube = Model('cube', (Link('cube', Pose((0, 0, 0.05)),
                               Inertial(1.0, inertia=np.eye(3) * 1.0 * 0.02 / 6),
                               collisions=(Shape(Box((0.1, 0.1, 0.1))),)),),
                 (), 'cube', root_joint='free')
    world = World([(pusher, SimOptions(kinematic=True)),
                   (cube, SimOptions(initial_pose=Pose((0.07, 0, 0))))])
    sim = Simulation(pusher, SimOptions(kinematic=True), world=world)
    box = Simulation(cube, SimOptions(initial_pose=Pose((0.07, 0, 0))), world=world)
    sim.command(Mode.VELOCITY, ['slide'], [0.2])
    highest = 0.0
    for _ in range(100):
        sim.step_period()
        highest = max(highest, float(box.body_pose('cube')[0][2]))
    assert sim.joint_positions()[0] == pytest.approx(0.2, abs=1e-9)
    pos = box.body_pose('cube')[0]
    assert 0.25 < pos[0] <= 0.2 + 0.01 + 0.05
    assert abs(pos[1]) < 5e-3 and highest < 0.06


def test_a_new_position_target_moves_the_setpoint_on_from_where_it_was():
    """The yaw setpoint runs towards 2.5 rad at pi rad/s; a new target of 2.0 rad keeps it
    running from where it was, pi x 10 ms further each period, not from the joint's (lagging)
    measured position."""
    sim = Simulation(load_model(SAMPLE_ARM))
    sim.command(Mode.POSITION, ['shoulder_yaw'], [2.5])
    run(sim, 20)
    before = sim.setpoints()['shoulder_yaw']
    assert before == pytest.approx(20 * math.pi * sim.period, abs=1e-9)
    assert abs(before - sim.joint_positions()[YAW]) > 1e-4  # the joint lags its setpoint
    sim.command(Mode.POSITION, ['shoulder_yaw'], [2.0])
    sim.step_period()
    assert sim.setpoints()['shoulder_yaw'] == pytest.approx(before + math.pi * sim.period,
                                                            abs=1e-9)


def test_efforts_at_the_upper_end_push_only_inwards():
    upper = math.radians(170)
    sim = Simulation(load_model(SAMPLE_ARM), SimOptions(initial_positions={'shoulder_yaw': upper}))
    sim.command(Mode.EFFORT, ['shoulder_yaw'], [0.02])
    sim.step_period()
    assert sim.joint_efforts()[YAW] == 0.0
    assert sim.notes and all('shoulder_yaw: effort withheld' in n for n in sim.notes)
    sim.reset()
    sim.notes.clear()
    sim.command(Mode.EFFORT, ['shoulder_yaw'], [-0.02])
    run(sim, 5)
    assert sim.joint_efforts()[YAW] == pytest.approx(-0.02, rel=1e-9)
    assert sim.joint_velocities()[YAW] < 0 and sim.notes == []


@pytest.mark.parametrize('name', ['initial_velocity.yaml', 'motors.yaml'])
def test_a_reset_replays_the_first_run_of_a_model_with_forces(name):
    """Chrono models whose bodies start moving and whose motors integrate their speeds: after
    a reset the same 0.2 s play again, as from the start (the forces are reset too)."""
    from conftest import REPO
    sim = Simulation(load_model(REPO / 'test' / 'data' / 'chrono' / name))

    def play():
        out = []
        for _ in range(20):
            sim.step_period()
            out.append(np.concatenate([sim.data.qpos, sim.data.qvel]))
        return np.array(out)
    first = play()
    sim.reset()
    np.testing.assert_allclose(play(), first, rtol=0, atol=1e-9)


def test_each_moving_frame_is_its_joint_s_origin_turned_about_its_axis():
    """The sample arm's joints turn about z and y: each child frame in its parent frame is the
    model's joint origin times the rotation by the joint's position about its axis."""
    from body_bridge.model import quat_matrix
    q = {'shoulder_yaw': 0.3, 'shoulder_pitch': -0.4, 'elbow_pitch': 0.5, 'wrist_pitch': 0.6}
    model = load_model(SAMPLE_ARM)
    sim = Simulation(model, SimOptions(initial_positions=q))
    pos, quat = sim.moving_transforms()
    assert len(sim.moving_frames) == 4
    for k, (_, child) in enumerate(sim.moving_frames):
        joint = model.parent_joint(child)
        want = model.joint_origin(joint).matrix() @ Pose.from_axis_angle(
            joint.axis, q[joint.name]).matrix()
        assert pos[k] == pytest.approx(want[:3, 3], abs=1e-9)
        assert quat_matrix(quat[k]) == pytest.approx(want[:3, :3], abs=1e-9)
