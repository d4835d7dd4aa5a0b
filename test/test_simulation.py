"""The integrator behind the node, without ROS: commands in, state out."""

import math

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.simulation import CommandRejected, Mode, Simulation, SimOptions

from conftest import REPO, SAMPLE_ARM, shared_model

OWN = REPO / 'test' / 'data' / 'choreonoid'  # small models of our own


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
    q = arm.joint_positions()[arm.joint_names.index('elbow_pitch')]
    assert q == pytest.approx(0.7, abs=0.01)


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
    sim = Simulation(load_model(OWN / 'box.body'), SimOptions())
    assert sim.moving_frames == [(None, 'box')]
    run(sim, 1.0)
    pos, _ = sim.moving_transforms()
    assert pos[0][2] == pytest.approx(0.1, abs=2e-3)  # a 0.2 m box resting on the ground


# --- commands, limits and gains --------------------------------------------------------------

SR1 = 'choreonoid/share/model/SR1/SR1.body'


def record(sim, seconds, joint):
    """Run; return (times, positions, velocities) of one joint at every period, and the
    largest speed seen before any physics step."""
    i = sim.joint_names.index(joint)
    fastest = [0.0]

    def watch(s):
        fastest[0] = max(fastest[0], abs(s.data.qvel[s._dadr[i]]))
    sim.step_hooks.append(watch)
    t, q, v = [], [], []
    for _ in range(int(round(seconds / sim.period))):
        sim.step_period()
        t.append(sim.time)
        q.append(sim.joint_positions()[i])
        v.append(sim.joint_velocities()[i])
    sim.step_hooks.remove(watch)
    return np.array(t), np.array(q), np.array(v), fastest[0]


def settling_time(t, q, target, band):
    outside = np.flatnonzero(np.abs(q - target) > band)
    return 0.0 if not len(outside) else t[outside[-1]] - t[0] + (t[1] - t[0])


@pytest.mark.parametrize('joint, step', [('shoulder_yaw', 1.5), ('shoulder_pitch', -1.0),
                                         ('elbow_pitch', 1.0), ('wrist_pitch', 1.2)])
def test_position_step_settles_within_its_velocity_limit(arm, joint, step):
    limit = arm.model.joint(joint).limits.velocity
    arm.command(Mode.POSITION, [joint], [step])
    t, q, v, fastest = record(arm, 1.5, joint)
    assert settling_time(t, q, step, 0.02 * abs(step)) < 1.0
    assert fastest <= limit * (1 + 1e-12)
    assert np.max(np.abs(v)) > 0.95 * limit  # it did move at the limit: the ramp is not slower
    # the other joints held still
    others = [k for k, n in enumerate(arm.joint_names) if n != joint]
    assert np.max(np.abs(arm.joint_positions()[others])) < 2e-3


def test_velocity_command_holds_the_velocity(arm):
    arm.command(Mode.VELOCITY, ['shoulder_yaw', 'elbow_pitch'], [1.0, -0.5])
    run(arm, 0.3)
    for _ in range(40):
        arm.step_period()
        v = arm.joint_velocities()
        assert v[0] == pytest.approx(1.0, rel=0.02)
        assert v[2] == pytest.approx(-0.5, rel=0.02)


def test_effort_on_a_free_pendulum_gives_tau_over_inertia(tmp_path):
    from pendulum_model import AXIS_INERTIA, write_pendulum
    sim = Simulation(load_model(write_pendulum(tmp_path)))
    tau = 1.3
    sim.command(Mode.EFFORT, ['bob'], [tau])
    v = []
    for _ in range(3):
        sim.step_period()
        v.append(sim.joint_velocities()[0])
    acceleration = np.diff([0.0, *v]) / sim.period
    assert acceleration[0] == pytest.approx(tau / AXIS_INERTIA, rel=0.02)
    assert acceleration[1] == pytest.approx(tau / AXIS_INERTIA, rel=0.02)
    assert sim.joint_efforts()[0] == pytest.approx(tau)


def test_three_point_trajectory_is_followed(arm):
    from body_bridge.sim.control.trajectory import JointTrajectory
    points = [[0.5, -0.5], [1.0, 0.3], [0.2, 0.8]]
    arm.follow(JointTrajectory.from_points(['shoulder_pitch', 'elbow_pitch'], [1.0, 2.0, 3.0],
                                           points))
    reached = {}
    for _ in range(350):
        arm.step_period()
        t = round(arm.time, 6)
        if t in (1.0, 2.0, 3.0):
            reached[t] = arm.joint_positions()[[1, 2]]
    for t, point in zip((1.0, 2.0, 3.0), points):
        np.testing.assert_allclose(reached[t], point, atol=0.02)


def test_new_trajectory_starts_from_the_current_setpoint(arm):
    from body_bridge.sim.control.trajectory import JointTrajectory
    arm.follow(JointTrajectory.from_points(['elbow_pitch'], [1.0], [[1.0]]))
    run(arm, 0.5)
    before = arm.setpoints()['elbow_pitch']
    assert 0.4 < before < 0.6
    arm.follow(JointTrajectory.from_points(['elbow_pitch'], [1.0], [[-0.5]]))
    arm.step_period()
    after = arm.setpoints()['elbow_pitch']
    # no jump: one period of motion at most, towards the new goal
    assert before - arm.period * math.pi <= after < before
    run(arm, 1.5)
    assert arm.joint_positions()[2] == pytest.approx(-0.5, abs=2e-3)


def test_trajectory_points_beyond_limits_are_clipped_with_a_warning(arm):
    from body_bridge.sim.control.trajectory import JointTrajectory
    notes = arm.follow(JointTrajectory.from_points(['elbow_pitch'], [0.1, 2.0], [[0.5], [9.0]]))
    assert any('elbow_pitch: trajectory point beyond its range' in n for n in notes)
    assert any('elbow_pitch: trajectory faster than its velocity limit' in n for n in notes)
    _, q, _, fastest = record(arm, 2.5, 'elbow_pitch')
    assert fastest <= math.pi * (1 + 1e-12)
    assert q[-1] == pytest.approx(math.radians(150), abs=2e-3)


def test_targets_beyond_limits_are_clipped_with_a_warning_naming_the_joint(arm):
    notes = arm.command(Mode.VELOCITY, ['shoulder_yaw'], [10.0])
    assert notes == ['shoulder_yaw: velocity target beyond its velocity limit '
                     '[-3.14159, 3.14159]: clipped']
    _, _, v, fastest = record(arm, 0.5, 'shoulder_yaw')
    assert fastest <= math.pi * (1 + 1e-12)
    assert v[-1] == pytest.approx(math.pi, rel=1e-3)
    notes = arm.command(Mode.POSITION, ['elbow_pitch', 'wrist_pitch'], [-3.0, 0.1])
    assert notes == ['elbow_pitch: position target beyond its range [-2.61799, 2.61799]: clipped']


def with_effort_limit(model, joint_name, effort):
    from dataclasses import replace
    joints = tuple(replace(j, limits=replace(j.limits, effort=effort))
                   if j.name == joint_name else j for j in model.joints)
    return replace(model, joints=joints)


def test_effort_limits_hold_in_every_mode():
    model = with_effort_limit(load_model(SAMPLE_ARM), 'shoulder_yaw', 0.2)
    sim = Simulation(model)
    notes = sim.command(Mode.EFFORT, ['shoulder_yaw'], [5.0])
    assert notes == ['shoulder_yaw: effort target beyond its effort limit [-0.2, 0.2]: clipped']
    sim.step_period()
    assert sim.joint_efforts()[0] == pytest.approx(0.2)
    sim.command(Mode.POSITION, ['shoulder_yaw'], [1.5])  # the servo wants more: saturates
    efforts = []
    sim.step_hooks.append(lambda s: efforts.append(s.joint_efforts()[0]))
    run(sim, 1.0)
    peak = np.max(np.abs(efforts))
    assert peak == pytest.approx(0.2)


def test_effort_is_withheld_beyond_the_velocity_limit(arm):
    arm.command(Mode.EFFORT, ['shoulder_yaw'], [3.0])
    _, _, v, _ = record(arm, 1.0, 'shoulder_yaw')
    inertia = arm.inertia[0]
    # ros2_control's limiter acts once per control period: at most one period's acceleration over
    assert np.max(v) <= math.pi + 3.0 / inertia * arm.period
    assert np.max(v) > 0.9 * math.pi
    assert any('shoulder_yaw: effort withheld' in n for n in arm.notes)


def test_gain_overrides(arm):
    sim = Simulation(load_model(SAMPLE_ARM), SimOptions(gains={'elbow_pitch': (100.0, None),
                                                              'wrist_pitch': (50.0, 2.0)}))
    e, w = sim.actuated.index('elbow_pitch'), sim.actuated.index('wrist_pitch')
    assert sim.kp[e] == 100.0
    assert sim.kv[e] == pytest.approx(2.0 * math.sqrt(100.0 * sim.inertia[e]))
    assert (sim.kp[w], sim.kv[w]) == (50.0, 2.0)
    assert sim.kp[0] == arm.kp[0]
    with pytest.raises(ValueError, match='nope'):
        Simulation(load_model(SAMPLE_ARM), SimOptions(gains={'nope': (1.0, None)}))


def test_initial_positions_and_pose():
    from body_bridge.model import Pose
    pose = Pose.from_rpy((0.0, 0.0, math.pi / 2), pos=(1.0, 2.0, 0.5))
    sim = Simulation(load_model(SAMPLE_ARM), SimOptions(initial_positions={'elbow_pitch': 0.5},
                                                         initial_pose=pose))
    np.testing.assert_allclose(sim.joint_positions(), [0, 0, 0.5, 0])
    pos, quat = sim.body_pose('base')
    np.testing.assert_allclose(pos, [1, 2, 0.5], atol=1e-12)
    np.testing.assert_allclose(quat, pose.quat(), atol=1e-12)
    run(sim, 0.5)
    assert sim.joint_positions()[2] == pytest.approx(0.5, abs=1e-3)  # held there
    sim.command(Mode.POSITION, ['elbow_pitch'], [0.0])
    run(sim, 0.5)
    sim.reset()
    np.testing.assert_allclose(sim.joint_positions(), [0, 0, 0.5, 0])


def test_reset_clears_commands_and_trajectories(arm):
    from body_bridge.sim.control.trajectory import JointTrajectory
    arm.command(Mode.VELOCITY, ['shoulder_yaw'], [1.0])
    arm.follow(JointTrajectory.from_points(['elbow_pitch'], [5.0], [[1.0]]))
    run(arm, 0.5)
    arm.reset()
    assert set(arm.modes().values()) == {Mode.POSITION}
    run(arm, 0.5)
    np.testing.assert_allclose(arm.joint_positions(), 0.0, atol=1e-3)


# --- kinematic mode ----------------------------------------------------------------------------

def test_kinematic_model_follows_commands_exactly_under_velocity_limits():
    sim = Simulation(load_model(SAMPLE_ARM), SimOptions(kinematic=True))
    sim.command(Mode.POSITION, ['shoulder_pitch'], [1.0])  # gravity does not sag it
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [0.5])
    for k in range(1, 51):
        sim.step_period()
        q, v = sim.joint_positions(), sim.joint_velocities()
        assert q[1] == pytest.approx(min(1.0, math.pi * k * sim.period), abs=1e-12)
        assert q[0] == pytest.approx(0.5 * k * sim.period, abs=1e-12)
        assert v[0] == pytest.approx(0.5, abs=1e-12)
    pos, _ = sim.body_pose('elbow_pitch')  # the frames follow
    assert pos[0] == pytest.approx(0.3 * math.sin(1.0) * math.cos(0.25), abs=1e-9)
    with pytest.raises(CommandRejected, match='kinematic'):
        sim.command(Mode.EFFORT, ['shoulder_yaw'], [1.0])
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [3.0])
    run(sim, 2.0)
    assert sim.joint_positions()[0] == pytest.approx(math.radians(170))  # stops at its range
    assert sim.warnings() == {}


@pytest.mark.corpus
def test_kinematic_free_robot_stays_where_it_was_placed():
    sim = Simulation(load_model(shared_model(SR1)), SimOptions(kinematic=True))
    start, _ = sim.body_pose('WAIST')
    sim.command(Mode.POSITION, ['LARM_ELBOW'], [-1.0])
    run(sim, 1.0)
    np.testing.assert_allclose(sim.body_pose('WAIST')[0], start, atol=1e-12)
    assert sim.joint_positions()[sim.joint_names.index('LARM_ELBOW')] == pytest.approx(-1.0)


# --- a free-floating humanoid ------------------------------------------------------------------

def _torque_response(model, name, hold_child=False):
    """Inertia a unit torque on joint ``name`` meets, every other joint locked (fixed in the
    model), no gravity: from MuJoCo's forward dynamics, or with ``hold_child`` from the
    dynamics under a rigid constraint holding the joint's child link still,
    ``1 / (M^-1 - M^-1 J^T (J M^-1 J^T)^-1 J M^-1)_jj`` with ``J`` that link's Jacobian."""
    import mujoco
    from dataclasses import replace
    from body_bridge.model import JointType
    from body_bridge.sim.building.build import BuildOptions, build_spec
    joints = tuple(j if j.name == name else replace(j, type=JointType.FIXED)
                   for j in model.joints)
    spec = build_spec(replace(model, joints=joints), BuildOptions(ground_plane=False))
    spec.option.gravity = [0.0, 0.0, 0.0]
    mj = spec.compile()
    data = mujoco.MjData(mj)
    dof = mj.joint(name).dofadr[0]
    data.qfrc_applied[dof] = 1.0
    mujoco.mj_forward(mj, data)
    if not hold_child:
        return 1.0 / data.qacc[dof]
    mass = np.zeros((mj.nv, mj.nv))
    mujoco.mj_fullM(mj, data, mass)
    jac = np.zeros((6, mj.nv))
    mujoco.mj_jacBody(mj, data, jac[:3], jac[3:], mj.body(model.joint(name).child).id)
    inv = np.linalg.inv(mass)
    held = inv - inv @ jac.T @ np.linalg.solve(jac @ inv @ jac.T, jac @ inv)
    return 1.0 / held[dof, dof]


@pytest.mark.corpus
def test_effective_inertia_of_a_floating_humanoid():
    """In the air a joint of the free-floating SR1 meets the least inertia (both sides
    react); with its child link held (a foot on the ground) it turns the rest of the robot.
    A servo is tuned for the larger of base-held and child-held, so a stance leg holds the
    body, at most 100 times the least (stable when the load lifts). Checked against the
    dynamics of the robot rebuilt with every other joint fixed."""
    import mujoco
    model = load_model(shared_model(SR1))
    sim = Simulation(model)
    full = np.zeros((sim.mj.nv, sim.mj.nv))
    mujoco.mj_fullM(sim.mj, sim.data, full)
    for name in ('WAIST_P', 'LLEG_KNEE', 'LLEG_ANKLE_P', 'RARM_ELBOW'):
        row = sim.actuated.index(name)
        least = _torque_response(model, name)
        grounded = _torque_response(model, name, hold_child=True)
        fixed = full[sim._da[row], sim._da[row]]  # base held: the diagonal of M
        assert sim.least_inertia[row] == pytest.approx(least, rel=1e-9)
        assert least < min(fixed, grounded)
        expected = min(max(fixed, grounded), 100.0 * least)
        assert sim.inertia[row] == pytest.approx(expected, rel=1e-9)
    ankle = sim.actuated.index('LLEG_ANKLE_P')
    assert sim.inertia[ankle] > 20 * full[sim._da[ankle], sim._da[ankle]]  # it lifts the body


@pytest.mark.corpus
def test_small_humanoid_stands_with_default_servos():
    """GR001 (0.9 kg): servos tuned for the foot alone could not hold it up."""
    sim = Simulation(load_model(shared_model('choreonoid/share/model/GR001/GR001.body')))
    start, _ = sim.body_pose(sim.model.root)
    q0 = sim.joint_positions()
    run(sim, 2.0)
    pos, quat = sim.body_pose(sim.model.root)
    assert quat[0] > 0.999 and pos[2] == pytest.approx(start[2], abs=0.005)
    assert np.max(np.abs(sim.joint_positions() - q0)) < 0.03
    assert sim.warnings() == {}


@pytest.mark.corpus
def test_floating_humanoid_stands_and_moves_an_arm():
    sim = Simulation(load_model(shared_model(SR1)))
    start, _ = sim.body_pose('WAIST')
    run(sim, 1.0)
    assert np.max(np.abs(sim.joint_positions())) < 0.01  # holds its pose on the ground
    waist, quat = sim.body_pose('WAIST')
    assert waist[2] == pytest.approx(start[2], abs=0.01) and quat[0] > 0.999
    arm_joint = 'LARM_SHOULDER_P'
    sim.command(Mode.POSITION, [arm_joint], [-1.0])
    t, q, _, _ = record(sim, 1.5, arm_joint)
    assert settling_time(t, q, -1.0, 0.02) < 1.0
    assert sim.body_pose('WAIST')[1][0] > 0.999  # still upright
    assert sim.warnings() == {}


# --- several models in one world ---------------------------------------------------------------

def test_models_in_one_world_touch_each_other():
    from body_bridge.model import Pose
    from body_bridge.sim.building.build import BuildOptions
    from body_bridge.sim.simulation import simulate_together
    floor, box = load_model(OWN / 'floor.body'), load_model(OWN / 'box.body')
    arm = load_model(SAMPLE_ARM)
    no_plane = SimOptions(build=BuildOptions(ground_plane=False))
    sims = simulate_together([(floor, no_plane), (box, SimOptions(initial_pose=Pose((0, 0, 0.5)))),
                              (arm, SimOptions(initial_pose=Pose((1.0, 0, 0))))],
                             ['', 'box/', 'arm/'])
    assert sims[1].mj.body('box/box').id == sims[1].mj.body(sims[1].mj_name('box')).id
    sims[2].command(Mode.POSITION, ['elbow_pitch'], [0.5])
    for _ in range(150):
        sims[0].step_period()
    # the box fell 0.4 m and rests on the floor model (the world has no ground plane)
    assert sims[1].body_pose('box')[0][2] == pytest.approx(0.1, abs=2e-3)
    assert sims[2].body_pose('base')[0][0] == pytest.approx(1.0)
    assert sims[2].joint_positions()[2] == pytest.approx(0.5, abs=0.01)
    assert sims[1].moving_frames == [(None, 'box')]
    # without the floor the box falls through
    alone = Simulation(box, SimOptions(build=BuildOptions(ground_plane=False)))
    run(alone, 0.5)
    assert alone.body_pose('box')[0][2] < -1.0


def test_initial_pose_of_a_free_root():
    from body_bridge.model import Pose
    box = load_model(OWN / 'box.body')
    pose = Pose.from_rpy((0.0, 0.0, 0.3), pos=(2.0, -1.0, 0.1))
    sim = Simulation(box, SimOptions(initial_pose=pose))
    pos, quat = sim.body_pose('box')
    np.testing.assert_allclose(pos, [2.0, -1.0, 0.1], atol=1e-12)
    np.testing.assert_allclose(quat, pose.quat(), atol=1e-12)
    run(sim, 0.5)
    sim.reset()
    np.testing.assert_allclose(sim.body_pose('box')[0], [2.0, -1.0, 0.1], atol=1e-12)


def test_a_joint_drives_the_joints_that_mimic_it():
    """Effective inertia and gravity feed-forward count the mimicking joints: a linear
    coupling f = 2 a gives I_a + 4 I_f (analytic) and the follower's weight through 2x."""
    from body_bridge.model import Box, Inertial, Joint, Link, Mimic, Model, Pose, Shape
    def link(name, x, izz):
        return Link(name, Pose((x, 0, 0)), Inertial(1.0, (0.2, 0, 0), np.diag([0.01, izz, izz])),
                    visuals=(Shape(Box((0.1, 0.1, 0.1))),))
    model = Model('coupled', (Link('base'), link('l1', 0.0, 0.02), link('l2', 1.0, 0.05)),
                  (Joint('a', 'revolute', 'base', 'l1', (0, 0, 1)),
                   Joint('f', 'revolute', 'base', 'l2', (0, 1, 0), mimic=Mimic('a', 2.0, 0.0))),
                  'base')
    sim = Simulation(model)
    assert sim.actuated == ['a']
    i_a, i_f = 0.02 + 0.2 ** 2, 0.05 + 0.2 ** 2  # about each axis through its link origin
    assert sim.inertia[0] == pytest.approx(i_a + 4 * i_f, rel=1e-9)
    # f turns about y: its weight (1 kg at +0.2 m along x) turns it about +y with 1.962 N m;
    # a holds it through the coupling with twice that, the other way
    assert sim._gravity[0] == pytest.approx(-2 * 9.81 * 0.2, rel=1e-6)
    sim.command(Mode.POSITION, ['a'], [0.3])
    run(sim, 1.0)
    q = sim.joint_positions()
    assert q[0] == pytest.approx(0.3, abs=1e-3) and q[1] == pytest.approx(0.6, abs=2e-3)
