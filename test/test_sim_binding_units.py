"""sim/building/binding.py: the joints' limits as the model and the options give them, the
kinematic mode's forces and mimic velocities, and a model's mimic hook made again, not kept
twice, when the world changes around it."""

import math

import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import (Box, Inertial, Joint, Limits, Link, Mimic, Model, Pose,
                               Shape, quat_matrix)
from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.simulation import Mode, SimOptions, Simulation

from conftest import REPO, SAMPLE_ARM
from openrave_robots import mimic_robot, quintic_error

NO_FLOOR = BuildOptions(ground_plane=False)


def _wheel(limits: Limits) -> Model:
    """A disc turning about z on a fixed base (no gravity torque about the axis)."""
    mass = Inertial(1.0, inertia=np.diag([0.02, 0.02, 0.04]))
    links = (Link('base', inertial=mass), Link('disc', Pose((0, 0, 0.1)), mass,
                                                collisions=(Shape(Box((0.2, 0.2, 0.02))),)))
    joints = (Joint('spin', 'continuous', 'base', 'disc', (0, 0, 1), limits),)
    return Model(name='wheel', links=links, joints=joints, root='base')


def test_a_continuous_joint_has_no_range_whatever_limits_the_file_gives():
    sim = Simulation(_wheel(Limits(-1.0, 1.0, 2.0, 5.0)), SimOptions(build=NO_FLOOR))
    lower, upper = sim.joint_range(['spin'])
    assert lower.tolist() == [-math.inf] and upper.tolist() == [math.inf]
    sim.command(Mode.POSITION, ['spin'], [2.5])  # beyond the file's "upper" of 1 rad
    for _ in range(300):
        sim.step_period()
    assert sim.joint_positions()[0] == pytest.approx(2.5, abs=1e-3)


@pytest.mark.parametrize('default, expected', [(0.5, 0.5), (2.0, 2.0), (0.0, math.inf),
                                               (-1.0, math.inf)])
def test_the_default_velocity_limit_applies_where_the_model_gives_none(default, expected):
    sim = Simulation(_wheel(Limits()), SimOptions(build=NO_FLOOR,
                                                 default_velocity_limit=default))
    speed, effort = sim.joint_limits(['spin'])
    assert speed.tolist() == [expected] and effort.tolist() == [math.inf]
    if math.isfinite(expected):  # and a velocity command is held to it
        sim.command(Mode.VELOCITY, ['spin'], [5.0])
        for _ in range(100):
            sim.step_period()
        assert sim.joint_velocities()[0] == pytest.approx(expected, rel=1e-3)


def test_a_kinematic_model_s_servos_exert_no_force():
    """Kinematic joints are posed, not driven: the efforts read back are zero while the joints
    start away from zero and follow position and velocity commands, and after a joint goes
    back to position mode where it is."""
    sim = Simulation(load_model(SAMPLE_ARM), SimOptions(
        kinematic=True, initial_positions={'elbow_pitch': 0.7, 'shoulder_yaw': -0.4}))
    sim.command(Mode.POSITION, ['shoulder_pitch'], [1.0])
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [0.5])
    for _ in range(30):
        sim.step_period()
        assert np.all(sim.joint_efforts() == 0.0)
    assert sim.joint_velocities()[0] == pytest.approx(0.5, abs=1e-12)
    sim.command(Mode.POSITION, ['shoulder_yaw'], [-0.5])
    for _ in range(30):
        sim.step_period()
        assert np.all(sim.joint_efforts() == 0.0)
    q = dict(zip(sim.joint_names, sim.joint_positions()))
    assert q['elbow_pitch'] == pytest.approx(0.7) and q['shoulder_yaw'] == pytest.approx(-0.5)


#: l2's joint, following ``a``.
SECOND = """<Joint name="half" type="hinge" enable="false" mimic_pos="0.5*a + 0.1"
        mimic_vel="|a 0.5"><Body>base</Body><Body>l2</Body><axis>0 0 1</axis>
        <limitsdeg>-360 360</limitsdeg></Joint>"""


@pytest.fixture
def powers(tmp_path):
    return mimic_robot(tmp_path, SECOND)


def test_kinematic_mimic_joints_move_at_their_formula_s_rate(powers):
    """q_half = 0.5 a + 0.1, so its velocity is 0.5 a'; q_quintic = 0.05 a^5 + a + 0.2, so
    (0.25 a^4 + 1) a'."""
    sim = Simulation(powers, SimOptions(build=NO_FLOOR, kinematic=True))
    sim.command(Mode.VELOCITY, ['a'], [0.4])
    for _ in range(50):
        sim.step_period()
        q = dict(zip(sim.joint_names, sim.joint_positions()))
        v = dict(zip(sim.joint_names, sim.joint_velocities()))
        assert v['a'] == pytest.approx(0.4, abs=1e-12)
        assert v['half'] == pytest.approx(0.2, abs=1e-9)
        assert v['quintic'] == pytest.approx((0.25 * q['a'] ** 4 + 1) * 0.4, abs=1e-9)
        assert q['quintic'] == pytest.approx(0.05 * q['a'] ** 5 + q['a'] + 0.2, abs=1e-12)
    assert q['a'] == pytest.approx(0.4 * 50 * sim.period, abs=1e-9)


def test_a_nonlinear_mimic_holds_after_a_model_before_it_leaves_the_world(powers):
    """The third model of a world, whose tendon-held mimic is relinearised every step, keeps
    its formula once the second model (a box, 7 coordinates) is removed and every coordinate
    of the third moved down."""
    arm = Simulation(load_model(SAMPLE_ARM))
    world = arm.world
    box_model = load_model(REPO / 'test' / 'data' / 'choreonoid' / 'box.body')
    world.add(box_model, SimOptions(initial_pose=Pose((2.0, 0.0, 0.15))), 'box/')
    Simulation(box_model, SimOptions(initial_pose=Pose((2.0, 0.0, 0.15))), world=world)
    options = SimOptions(initial_pose=Pose((0.0, 2.0, 0.5)), servo_frequency=2.0)
    world.add(powers, options, 'powers/')
    sim = Simulation(powers, options, world=world)
    hooks = len(sim.step_hooks)
    world.remove('box/')
    assert len(sim.step_hooks) == hooks  # made again, not added to
    a, worst = quintic_error(sim)
    assert a > 0.8 and worst < 2e-3
    q = dict(zip(sim.joint_names, sim.joint_positions()))
    # Its frames are found again too: each link at its joint's origin, turned about z by
    # the joint's position.
    assert sorted(sim.moving_frames) == [('base', 'l1'), ('base', 'l2'), ('base', 'l3')]
    pos, quat = sim.moving_transforms()
    joint_of = {'l1': 'a', 'l2': 'half', 'l3': 'quintic'}
    for k, (_, child) in enumerate(sim.moving_frames):
        joint = powers.joint(joint_of[child])
        want = powers.joint_origin(joint).matrix() @ Pose.from_axis_angle(
            (0, 0, 1), q[joint.name]).matrix()
        assert pos[k] == pytest.approx(want[:3, 3], abs=1e-9)
        assert quat_matrix(quat[k]) == pytest.approx(want[:3, :3], abs=1e-9)


def _ball_and_hinge(ball_first: bool) -> Model:
    """base -> l1 -> l2 along x, a ball joint and a hinge about y in the order asked."""
    mass = Inertial(1.0, inertia=np.eye(3) * 0.01)
    links = (Link('base', inertial=mass), Link('l1', Pose((0.2, 0, 0)), mass),
             Link('l2', Pose((0.4, 0, 0)), mass))
    first, second = ('ball', 'revolute') if ball_first else ('revolute', 'ball')
    joints = (Joint('j1', first, 'base', 'l1', (0, 1, 0), Limits(-2.0, 2.0)),
              Joint('j2', second, 'l1', 'l2', (0, 1, 0), Limits(-2.0, 2.0)))
    return Model(name='balls', links=links, joints=joints, root='base')


def test_a_kinematic_ball_joint_holds_only_its_own_four_coordinates():
    """The hinge after a ball joint (its coordinate the next in qpos) follows its command
    while the ball joint holds its initial (unit) quaternion."""
    sim = Simulation(_ball_and_hinge(True), SimOptions(build=NO_FLOOR, kinematic=True))
    assert sim.joint_names == ['j2']
    sim.command(Mode.POSITION, ['j2'], [0.3])
    for _ in range(100):
        sim.step_period()
    assert sim.joint_positions()[0] == pytest.approx(0.3, abs=1e-12)
    assert sim.data.qpos[:4].tolist() == [1.0, 0.0, 0.0, 0.0]
    _, quat = sim.body_pose('l2')  # turned by 0.3 rad about y
    assert quat == pytest.approx([math.cos(0.15), 0, math.sin(0.15), 0], abs=1e-12)


def test_a_ball_joint_last_in_the_model_is_simulated():
    """A hinge about y then a ball joint, both on gravity's line: the hinge goes where it is
    told, and is retuned as it moves."""
    sim = Simulation(_ball_and_hinge(False), SimOptions(build=NO_FLOOR))
    first = float(sim.inertia[0])
    sim.command(Mode.POSITION, ['j1'], [0.5])
    for _ in range(300):
        sim.step_period()
    assert sim.joint_positions()[0] == pytest.approx(0.5, abs=1e-3)
    assert np.isfinite(sim.data.qpos).all() and float(sim.inertia[0]) > 0 and first > 0


def test_a_model_without_servos_has_no_gains():
    mass = Inertial(1.0, inertia=np.eye(3) * 0.01)
    model = Model(name='lump', links=(Link('base', inertial=mass),
                                      Link('top', Pose((0, 0, 0.1)), mass)),
                  joints=(Joint('weld', 'fixed', 'base', 'top'),), root='base')
    sim = Simulation(model, SimOptions(build=NO_FLOOR))
    sim.step_period()
    assert sim.actuated == [] and sim.joint_names == []
    assert sim.kp.shape == sim.kv.shape == sim.inertia.shape == (0,)


def test_the_servos_are_retuned_for_where_the_joints_are_when_the_world_changes():
    """After a box joins, the moving arm's gains are those a new arm at the same joint
    positions is tuned with (not those of its last tuning, up to 0.02 rad before)."""
    arm = Simulation(load_model(SAMPLE_ARM))
    arm.command(Mode.VELOCITY, ['shoulder_pitch', 'elbow_pitch'], [0.9, -0.7])
    for _ in range(33):
        arm.step_period()
    box = load_model(REPO / 'test' / 'data' / 'choreonoid' / 'box.body')
    arm.world.add(box, SimOptions(initial_pose=Pose((2.0, 0.0, 0.15))), 'box/')
    here = Simulation(load_model(SAMPLE_ARM), SimOptions(
        initial_positions=dict(zip(arm.joint_names, arm.joint_positions().tolist()))))
    assert arm.inertia == pytest.approx(here.inertia, rel=1e-9)
    assert arm.kp == pytest.approx(here.kp, rel=1e-9)
    assert arm.kv == pytest.approx(here.kv, rel=1e-9)


def test_a_floating_base_with_a_mimic_joint_is_servoed():
    """A free body, no gravity: a hinge told to go to 0.4 rad gets there, and the joint that
    mimics it (-2 times it plus 0.1) follows."""
    mass = Inertial(1.0, inertia=np.eye(3) * 0.01)
    small = Inertial(0.2, inertia=np.eye(3) * 0.002)
    links = (Link('body', inertial=mass), Link('arm', Pose((0.2, 0, 0)), small),
             Link('fin', Pose((-0.2, 0, 0)), small))
    joints = (Joint('swing', 'revolute', 'body', 'arm', (0, 0, 1), Limits(-2.0, 2.0)),
              Joint('follow', 'revolute', 'body', 'fin', (0, 0, 1), Limits(-3.0, 3.0),
                    mimic=Mimic('swing', -2.0, 0.1)))
    model = Model(name='floater', links=links, joints=joints, root='body', root_joint='free',
                  gravity=(0.0, 0.0, 0.0))
    sim = Simulation(model, SimOptions(build=NO_FLOOR))
    assert sim.actuated == ['swing']
    sim.command(Mode.POSITION, ['swing'], [0.4])
    for _ in range(300):
        sim.step_period()
    q = dict(zip(sim.joint_names, sim.joint_positions()))
    assert q['swing'] == pytest.approx(0.4, abs=1e-3)
    assert q['follow'] == pytest.approx(-2.0 * q['swing'] + 0.1, abs=1e-3)
    assert np.isfinite(sim.inertia).all() and sim.inertia[0] > 0
