"""Commands to a Simulation (sim/control/commanding.py): what is refused, clipped, queued and capped."""

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import Box, Inertial, Joint, Link, Mimic, Model, Pose, Shape
from body_bridge.sim.simulation import CommandRejected, Mode, Simulation
from body_bridge.sim.control.trajectory import JointTrajectory

from conftest import REPO, SAMPLE_ARM

TRACKED = REPO / 'test' / 'data' / 'choreonoid' / 'tracked.body'


@pytest.fixture
def arm():
    return Simulation(load_model(SAMPLE_ARM))


def run(sim, seconds):
    for _ in range(int(round(seconds / sim.period))):
        sim.step_period()


def efforts_while(sim, seconds, joint=0):
    """The joint's effort [N m] at every physics step for ``seconds``."""
    seen = []
    sim.step_hooks.append(lambda s: seen.append(s.joint_efforts()[joint]))
    run(sim, seconds)
    sim.step_hooks.pop()
    return np.array(seen)


def test_a_joint_named_twice_is_refused_by_its_name(arm):
    with pytest.raises(CommandRejected, match="joint 'elbow_pitch' is named twice"):
        arm.command(Mode.POSITION, ['wrist_pitch', 'elbow_pitch', 'elbow_pitch'], [0, 0, 0])
    with pytest.raises(CommandRejected, match="joint 'wrist_pitch' is named twice"):
        arm.follow(JointTrajectory(('shoulder_yaw', 'wrist_pitch', 'wrist_pitch'),
                                   np.array([1.0]), np.zeros((1, 3))))


def test_a_joint_that_mimics_another_takes_no_command():
    def link(name):
        return Link(name, Pose((0.2, 0, 0)), Inertial(1.0, (0.1, 0, 0), np.eye(3) * 0.01),
                    visuals=(Shape(Box((0.1, 0.1, 0.1))),))
    model = Model('coupled', (Link('base'), link('l1'), link('l2')),
                  (Joint('a', 'revolute', 'base', 'l1', (0, 0, 1)),
                   Joint('f', 'revolute', 'l1', 'l2', (0, 0, 1), mimic=Mimic('a', 2.0, 0.0))),
                  'base')
    sim = Simulation(model)
    with pytest.raises(CommandRejected, match="joint 'f' follows another joint"):
        sim.command(Mode.POSITION, ['f'], [0.1])
    with pytest.raises(CommandRejected, match="unknown joint 'g'"):
        sim.command(Mode.POSITION, ['g'], [0.1])


def test_values_of_any_shape_and_a_plain_mode_number_are_taken(arm):
    # a column of values (one per name) and the mode as the integer a message carries
    notes = arm.command(1, ['elbow_pitch', 'wrist_pitch'], np.array([[9.0], [-1.0]]))
    assert notes == ['elbow_pitch: velocity target beyond its velocity limit '
                     '[-3.14159, 3.14159]: clipped']
    assert arm.modes()['elbow_pitch'] == Mode.POSITION  # applied at the next period
    arm.step_period()
    assert arm.modes()['elbow_pitch'] == Mode.VELOCITY
    run(arm, 0.2)
    v = arm.joint_velocities()[arm.joint_names.index('wrist_pitch')]
    assert v == pytest.approx(-1.0, abs=0.05)
    arm.command(2, ['shoulder_yaw'], [0.0])  # 0 position, 1 velocity, 2 effort
    arm.step_period()
    assert arm.modes()['shoulder_yaw'] == Mode.EFFORT


def test_a_track_takes_no_effort():
    sim = Simulation(load_model(TRACKED))
    with pytest.raises(CommandRejected, match=r"'TRACK_R' is a track: it takes a surface "
                                              r'speed \(velocity \[m/s\]\)'):
        sim.command(Mode.EFFORT, ['TRACK_R'], [1.0])
    assert sim.command(Mode.VELOCITY, ['TRACK_R'], [0.1]) == []


def test_command_hooks_hear_every_accepted_command(arm):
    heard = []
    arm.command_hooks.append(lambda mode, names: heard.append((mode, names)))
    arm.command(Mode.VELOCITY, ['elbow_pitch'], [0.1])
    arm.follow(JointTrajectory.from_points(['wrist_pitch', 'shoulder_yaw'], [1.0], [[0.1, 0.2]]))
    with pytest.raises(CommandRejected):
        arm.command(Mode.EFFORT, ['nope'], [0.1])
    assert heard == [(Mode.VELOCITY, ['elbow_pitch']),
                     (Mode.POSITION, ['wrist_pitch', 'shoulder_yaw'])]


def test_a_trajectory_that_ends_before_now_is_refused(arm):
    run(arm, 0.1)
    late = JointTrajectory.from_points(['elbow_pitch'], [0.05], [[0.1]])
    with pytest.raises(CommandRejected, match='the trajectory ends at 0.05 s, before the '
                                              'current simulated time 0.1 s'):
        arm.follow(late, start=0.0)
    assert arm.follow(late, start=0.06) == []  # ends at 0.11 s: still to come
    assert arm.follow(late) == []  # from the next period


def test_a_segment_too_fast_names_its_own_joint(arm):
    # one waypoint for two joints: only the second moves faster than its limit (pi rad/s)
    fast = JointTrajectory.from_points(['shoulder_yaw', 'elbow_pitch'], [0.5], [[0.1, 2.0]])
    assert arm.follow(fast) == ['elbow_pitch: trajectory faster than its velocity limit '
                                '3.14159: followed at the limit']


def test_desired_state_samples_the_trajectory_being_followed(arm):
    ramp = JointTrajectory.from_points(['elbow_pitch'], [1.0], [[0.5]])
    arm.follow(ramp, start=0.0)
    arm.command(Mode.POSITION, ['wrist_pitch'], [3.0])  # beyond its range: held at the limit
    run(arm, 0.2)
    pos, vel, following = arm.desired_state(['elbow_pitch', 'wrist_pitch'])
    np.testing.assert_allclose(pos, [0.5 * arm.time, np.radians(120)], rtol=1e-9)
    np.testing.assert_allclose(vel, [0.5, 0.0], rtol=1e-9)
    assert following[0] is not None and following[0].names == ('elbow_pitch',)
    assert following[1] is None


def test_an_effort_cap_holds_both_ways_and_zero_lifts_it(arm):
    # the yaw servo wants about 0.2 N m to start a 1.5 rad step
    arm.limit_efforts(['shoulder_yaw'], [0.05])
    arm.command(Mode.POSITION, ['shoulder_yaw'], [1.5])
    pushed = efforts_while(arm, 0.3)
    assert pushed.max() == pytest.approx(0.05, rel=1e-6)
    arm.command(Mode.POSITION, ['shoulder_yaw'], [-1.5])
    pulled = efforts_while(arm, 0.3)
    assert pulled.min() == pytest.approx(-0.05, rel=1e-6)
    arm.limit_efforts(['shoulder_yaw'], [0.0])  # 0: the joint's own limit (none here)
    arm.command(Mode.POSITION, ['shoulder_yaw'], [1.5])
    assert efforts_while(arm, 0.3).max() > 0.1


def test_an_effort_cap_above_the_joints_own_limit_is_lowered_to_it(arm):
    arm.limit_efforts(['elbow_pitch', 'wrist_pitch'], (float('inf'), 0.2))
    arm.step_period()
    act = arm._act[[2, 3]]
    assert list(arm.mj.actuator_forcelimited[act]) == [0, 1]
    np.testing.assert_allclose(arm.mj.actuator_forcerange[act], [[0, 0], [-0.2, 0.2]])


@pytest.mark.parametrize('names, limits, message', [
    (['elbow_pitch'], [0.1, 0.2], '1 joint names but 2 effort limits'),
    (['elbow_pitch', 'wrist_pitch'], [0.1], '2 joint names but 1 effort limits'),
    (['elbow_pitch'], [-0.1], 'an effort limit is negative or NaN'),
    (['elbow_pitch'], [float('nan')], 'an effort limit is negative or NaN'),
    (['nope'], [0.1], "unknown joint 'nope'"),
])
def test_bad_effort_limits_are_refused(arm, names, limits, message):
    with pytest.raises(CommandRejected, match=message):
        arm.limit_efforts(names, limits)


def test_a_trajectory_point_beyond_the_range_is_clipped_before_it_is_followed(arm):
    """wrist_pitch (+-120 degrees) sent to 4 rad in 2 s: the point is clipped to 120 degrees
    and the segment runs to it (half of it at half the time), not to 4 rad."""
    beyond = JointTrajectory.from_points(['wrist_pitch'], [2.0], [[4.0]])
    assert arm.follow(beyond, start=0.0) == ['wrist_pitch: trajectory point beyond its range '
                                             '[-2.0944, 2.0944]: clipped']
    run(arm, 0.5)
    pos, vel, _ = arm.desired_state(['wrist_pitch'])
    np.testing.assert_allclose(pos, [np.radians(120) * arm.time / 2.0], rtol=1e-9)
    np.testing.assert_allclose(vel, [np.radians(120) / 2.0], rtol=1e-9)


def test_joint_limits_are_the_models_and_the_default_speed_where_it_gives_none():
    import dataclasses
    from body_bridge.sim.building.options import SimOptions
    model = load_model(SAMPLE_ARM)
    joints = []
    for j in model.joints:
        if j.name == 'elbow_pitch':
            j = dataclasses.replace(j, limits=dataclasses.replace(j.limits, effort=5.0))
        if j.name == 'wrist_pitch':
            j = dataclasses.replace(j, limits=dataclasses.replace(j.limits, velocity=None))
        joints.append(j)
    sim = Simulation(dataclasses.replace(model, joints=tuple(joints)),
                     SimOptions(default_velocity_limit=2.0))
    speed, effort = sim.joint_limits(['wrist_pitch', 'elbow_pitch', 'shoulder_yaw'])
    np.testing.assert_allclose(speed, [2.0, np.pi, np.pi], rtol=1e-12)
    np.testing.assert_allclose(effort, [np.inf, 5.0, np.inf])


def test_a_servo_is_guarded_at_each_step_only_faster_than_half_its_limit(arm):
    # A joint moving at exactly GUARD (0.5) times its velocity limit is not guarded; the
    # next double up is; a joint in effort mode never is (its effort is withheld instead).
    sim = arm
    row = 0
    limit = float(sim._vlim[row])
    assert np.isfinite(limit)
    sim.data.qvel[sim._da[row]] = 0.5 * limit
    sim.begin_period()
    assert row not in sim._guarded.tolist() and not sim.steps_individually
    sim.data.qvel[sim._da[row]] = np.nextafter(0.5 * limit, np.inf)
    sim.begin_period()
    assert sim._guarded.tolist() == [row] and sim.steps_individually
    sim.command(Mode.EFFORT, [sim.actuated[row]], [0.0])
    sim.begin_period()
    assert row not in sim._guarded.tolist()


def test_a_velocity_command_stops_at_the_end_of_the_range_and_may_turn_back(arm):
    sim, row = arm, 0  # shoulder_yaw: range +-2.967 rad, limit pi rad/s
    sim.data.qpos[sim._qa[row]] = sim._upper[row]  # exactly at the end
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [0.5])
    sim.begin_period()
    assert sim.data.act[sim._actadr[row]] == 0.0  # not further out
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [-9.0])
    sim.begin_period()
    assert sim.data.act[sim._actadr[row]] == -np.pi  # back in, at its velocity limit
    sim.data.qpos[sim._qa[row]] = np.nextafter(sim._upper[row], 0.0)  # just inside
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [0.5])
    sim.begin_period()
    assert sim.data.act[sim._actadr[row]] == 0.5


def test_a_trajectory_feeds_its_velocity_forward_to_its_joints_only(arm):
    sim = arm
    run(sim, 0.1)
    sim.follow(JointTrajectory(('elbow_pitch',), np.array([0.5]), np.array([[0.4]])))
    sim.begin_period()
    bias = sim.mj.actuator_biasprm[sim._act, 0]
    follower = sim.actuated.index('elbow_pitch')
    others = [k for k in range(len(sim.actuated)) if k != follower]
    assert bias[others].tolist() == sim._gravity[others].tolist()  # gravity alone
    rate = sim.data.ctrl[sim._act[follower]]
    assert rate > 0.0
    assert bias[follower] == pytest.approx(sim.kv[follower] * rate + sim._gravity[follower])
    assert sim._runs[follower] is not None
    run(sim, 0.7)  # past its last waypoint: it holds that point, no longer following
    assert sim._runs[follower] is None and sim._target[follower] == 0.4
    sim.follow(JointTrajectory(('elbow_pitch',), np.array([2.0]), np.array([[-1.0]])))
    run(sim, 0.2)
    sim.follow(JointTrajectory(('elbow_pitch',), np.zeros(0), np.zeros((0, 1))))  # stop
    sim.begin_period()
    held = sim._target[follower]
    assert sim._runs[follower] is None and -1.0 < held < 0.4
    run(sim, 0.3)
    assert sim._target[follower] == held  # stopped where it was
