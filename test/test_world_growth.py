"""A running world that models join and leave: the others carry on as if nothing happened."""

import mujoco
import numpy as np
import pytest

from body_bridge.errors import ModelError, ParameterError
from body_bridge.formats import load_model
from body_bridge.model import Pose
from body_bridge.sim.building import world as world_module
from body_bridge.sim.building.carry import carry_state
from body_bridge.sim.simulation import Mode, Simulation, SimOptions
from body_bridge.sim.control.trajectory import JointTrajectory

from conftest import REPO, SAMPLE_ARM

OWN = REPO / 'test' / 'data' / 'choreonoid'
CHRONO = REPO / 'test' / 'data' / 'chrono'
JOINTS = ['shoulder_yaw', 'shoulder_pitch', 'elbow_pitch']


def moving_arm() -> Simulation:
    """The sample arm following a 1 s trajectory of three joints."""
    arm = Simulation(load_model(SAMPLE_ARM))
    arm.follow(JointTrajectory(JOINTS, np.array([0.5, 1.0]),
                               np.array([[0.6, -0.4, 0.8], [-0.3, 0.5, -0.6]])))
    return arm


def run(sim, seconds):
    for _ in range(int(round(seconds / sim.period))):
        sim.step_period()


def positions(arm: Simulation) -> np.ndarray:
    return arm.joint_positions()[[arm.joint_names.index(n) for n in JOINTS]]


def spawn(world, path, prefix, pose=Pose()) -> Simulation:
    model = load_model(path)
    options = SimOptions(initial_pose=pose)
    world.add(model, options, prefix)
    return Simulation(model, options, world=world)


def test_the_arm_keeps_its_trajectory_across_a_spawn_and_a_delete():
    reference, arm = moving_arm(), moving_arm()
    world = arm.world
    times, gaps = [], []
    for period in range(150):
        if period == 40:
            box = spawn(world, OWN / 'box.body', 'box/', Pose((2.0, 0.0, 0.15)))
            assert box.index == 1 and world.sims == [arm, box]
        if period == 90:
            assert world.remove('box/') is box
            assert world.sims == [arm] and world.prefixes == ['']
        before = arm.time
        reference.step_period()
        arm.step_period()
        gaps.append(arm.time - before)
        times.append(arm.time)
        # The same motion as the arm that stayed alone (the servos are retuned at each
        # change of the world: far below what a user sees).
        np.testing.assert_allclose(positions(arm), positions(reference), atol=2e-4,
                                   err_msg=f'period {period}')
    np.testing.assert_allclose(gaps, arm.period, rtol=1e-9)
    assert times[-1] == pytest.approx(150 * arm.period)
    np.testing.assert_allclose(positions(arm), [-0.3, 0.5, -0.6], atol=2e-3)


def test_a_box_spawned_5_cm_above_the_floor_comes_to_rest_on_it():
    arm = Simulation(load_model(SAMPLE_ARM))
    run(arm, 0.1)
    box = spawn(arm.world, OWN / 'box.body', 'box/', Pose((0.8, 0.3, 0.15)))
    z0 = box.body_pose('box')[0][2]
    assert z0 == pytest.approx(0.15)
    run(arm, 1.0)
    pos, quat = box.body_pose('box')
    assert pos[2] == pytest.approx(0.1, abs=1e-3)  # half its 0.2 m height
    assert pos[:2] == pytest.approx([0.8, 0.3], abs=1e-3)
    assert arm.time == pytest.approx(1.1)


def test_commands_modes_and_limits_survive_a_change_of_the_world():
    arm = Simulation(load_model(SAMPLE_ARM))
    arm.command(Mode.VELOCITY, ['shoulder_yaw'], [0.5])
    arm.limit_efforts(['elbow_pitch'], [0.3])
    arm.step_period()
    spawn(arm.world, OWN / 'box.body', 'box/', Pose((2.0, 0.0, 0.5)))
    assert arm.modes()['shoulder_yaw'] == Mode.VELOCITY
    act = arm._act[arm.actuated.index('elbow_pitch')]
    assert arm.mj.actuator_forcerange[act, 1] == pytest.approx(0.3)
    run(arm, 0.5)
    i = arm.joint_names.index('shoulder_yaw')
    assert arm.joint_velocities()[i] == pytest.approx(0.5, abs=1e-3)


def test_a_spawned_arm_is_commanded_by_its_own_names_and_the_first_keeps_still():
    arm = Simulation(load_model(SAMPLE_ARM))
    other = spawn(arm.world, SAMPLE_ARM, 'arm2/', Pose((1.5, 0.0, 0.0)))
    assert other.prefix == 'arm2/' and other.mj.joint('arm2/elbow_pitch').id >= 0
    other.command(Mode.POSITION, ['elbow_pitch'], [0.7])
    run(arm, 1.5)
    assert other.joint_positions()[other.joint_names.index('elbow_pitch')] == \
        pytest.approx(0.7, abs=2e-3)
    np.testing.assert_allclose(arm.joint_positions(), 0.0, atol=1e-3)
    # Removed again: the first arm is bound to the new model and still holds still.
    arm.world.remove('arm2/')
    run(arm, 0.2)
    np.testing.assert_allclose(arm.joint_positions(), 0.0, atol=1e-3)
    assert arm.mj.nu == len(arm.actuated)


def test_reset_puts_a_spawned_model_back_where_it_was_spawned():
    arm = Simulation(load_model(SAMPLE_ARM))
    box = spawn(arm.world, OWN / 'box.body', 'box/', Pose((0.8, 0.0, 0.4)))
    run(arm, 0.8)
    assert box.body_pose('box')[0][2] == pytest.approx(0.1, abs=1e-3)
    arm.reset()
    assert arm.time == 0.0
    assert box.body_pose('box')[0] == pytest.approx([0.8, 0.0, 0.4])


def test_refused_changes_leave_the_world_as_it_was():
    arm = Simulation(load_model(SAMPLE_ARM))
    world = arm.world
    run(arm, 0.05)
    state = (world.mj, world.data, list(world.prefixes), arm.time)
    with pytest.raises(ValueError, match='empty or taken'):
        world.add(load_model(OWN / 'box.body'), SimOptions(), '')
    spawn(world, OWN / 'box.body', 'box/')
    with pytest.raises(ValueError, match="'box/' is empty or taken"):
        world.add(load_model(OWN / 'box.body'), SimOptions(), 'box/')
    with pytest.raises(ValueError, match="no model of the world has the prefix 'nope/'"):
        world.remove('nope/')
    with pytest.raises(ValueError, match='first model of a world cannot be removed'):
        world.remove('')
    world.remove('box/')
    assert world.prefixes == [''] and arm.time == state[3]


def test_a_model_the_integrator_refuses_leaves_the_world_as_it_was(monkeypatch):
    arm = Simulation(load_model(SAMPLE_ARM))
    arm.command(Mode.POSITION, ['elbow_pitch'], [0.4])
    run(arm, 0.3)
    world, box = arm.world, load_model(OWN / 'box.body')
    before = (world.mj, world.data, world.spec, arm.mj, arm.joint_positions(), arm.time)
    real = world_module.build_spec

    def refuse(model, options):
        if model is box:
            raise ValueError('repeated name')
        return real(model, options)
    monkeypatch.setattr(world_module, 'build_spec', refuse)
    with pytest.raises(ModelError, match=r'box\.body: the integrator cannot build the model: '
                       'repeated name'):
        world.add(box, SimOptions(), 'box/')
    assert (world.mj, world.data, world.spec, arm.mj) == before[:4]
    assert world.prefixes == [''] and len(world.entries) == 1
    assert arm.time == before[5]
    np.testing.assert_array_equal(arm.joint_positions(), before[4])
    run(arm, 1.0)
    assert arm.joint_positions()[arm.joint_names.index('elbow_pitch')] == \
        pytest.approx(0.4, abs=2e-3)


def _joints(order, extra=()):
    spec = mujoco.MjSpec()
    for name in order:
        body = spec.worldbody.add_body(name=f'body_{name}', pos=[0, 0, 1])
        body.add_geom(size=[0.1, 0, 0], mass=1.0)
        if name == 'free':
            body.add_freejoint(name='free')
        elif name == 'ball':
            body.add_joint(name='ball', type=mujoco.mjtJoint.mjJNT_BALL)
        else:
            body.add_joint(name=name, axis=[0, 1, 0])
    for name in extra:
        body = spec.worldbody.add_body(name=f'body_{name}')
        body.add_geom(size=[0.1, 0, 0], mass=1.0)
        body.add_joint(name=name, type=mujoco.mjtJoint.mjJNT_SLIDE, axis=[0, 0, 1])
    mj = spec.compile()
    return mj, mujoco.MjData(mj)


def test_carry_state_matches_elements_by_name_not_index():
    old_mj, old = _joints(['a', 'free', 'ball', 'b'], extra=['s'])  # s: a slider
    old.qpos[:] = np.arange(old_mj.nq) * 0.1 + 0.05
    old.qvel[:] = np.arange(old_mj.nv) * -0.2 - 0.1
    old.qacc_warmstart[:] = np.arange(old_mj.nv) * 0.3 + 0.2
    old.xfrc_applied[old_mj.body('body_b').id] = [1, 2, 3, 4, 5, 6]
    old.time = 3.25
    # Another order, each multi-dof joint followed by a joint of its own (nothing spills).
    for order in (['b', 'a', 'ball', 'free'], ['b', 'free', 'a', 'ball']):
        new_mj, new = _joints(order, extra=['c', 's'])  # a spill would land on c
        assert carry_state(old_mj, old, new_mj, new) == 5
        assert new.time == 3.25
        for name in ('a', 'b', 'free', 'ball', 's'):
            i, j = old_mj.joint(name), new_mj.joint(name)
            nq, nv = {'free': (7, 6), 'ball': (4, 3)}.get(name, (1, 1))
            np.testing.assert_array_equal(new.qpos[j.qposadr[0]:j.qposadr[0] + nq],
                                          old.qpos[i.qposadr[0]:i.qposadr[0] + nq])
            for field in ('qvel', 'qacc_warmstart'):
                np.testing.assert_array_equal(
                    getattr(new, field)[j.dofadr[0]:j.dofadr[0] + nv],
                    getattr(old, field)[i.dofadr[0]:i.dofadr[0] + nv])
        c = new_mj.joint('c')
        assert new.qpos[c.qposadr[0]] == 0.0 and new.qvel[c.dofadr[0]] == 0.0  # its own
        assert list(new.xfrc_applied[new_mj.body('body_b').id]) == [1, 2, 3, 4, 5, 6]
        assert not new.xfrc_applied[new_mj.body('body_a').id].any()


def _actuated(order, integrating=()):
    spec = mujoco.MjSpec()
    for name in order:
        body = spec.worldbody.add_body(name=f'body_{name}')
        body.add_geom(size=[0.1, 0, 0], mass=1.0)
        body.add_joint(name=name, axis=[0, 1, 0])
        act = spec.add_actuator(name=f'act_{name}', target=name,
                                trntype=mujoco.mjtTrn.mjTRN_JOINT)
        if name in integrating:
            act.dyntype = mujoco.mjtDyn.mjDYN_INTEGRATOR  # one activation
    mj = spec.compile()
    return mj, mujoco.MjData(mj)


def test_carry_state_carries_controls_and_activations_by_actuator_name():
    old_mj, old = _actuated(['a', 'b', 'c'], integrating=('a', 'b'))
    old.ctrl[:] = [0.1, 0.2, 0.3]
    old.act[:] = [0.5, 0.6]
    # b keeps its activation; c has one now (it had none), a none (it had one), d is new.
    new_mj, new = _actuated(['c', 'd', 'b', 'a'], integrating=('b', 'c', 'd'))
    carry_state(old_mj, old, new_mj, new)
    ctrl = {n: new.ctrl[new_mj.actuator(f'act_{n}').id] for n in 'abcd'}
    assert ctrl == pytest.approx({'a': 0.1, 'b': 0.2, 'c': 0.3, 'd': 0.0})
    act = {n: new.act[new_mj.actuator_actadr[new_mj.actuator(f'act_{n}').id]] for n in 'bcd'}
    assert act == pytest.approx({'b': 0.6, 'c': 0.0, 'd': 0.0})


def test_carry_state_leaves_a_joint_that_changed_type_at_its_initial_value():
    old_mj, old = _joints(['a'])
    old.qpos[:] = 0.7
    new_mj, new = _joints([], extra=['a'])  # 'a' is a slider now
    assert carry_state(old_mj, old, new_mj, new) == 0
    assert new.qpos[0] == 0.0


def test_a_spawned_arm_camera_sees_a_box_spawned_in_front_of_it():
    from body_bridge.sim.sensing.sensors import SensorSuite
    floor = Simulation(load_model(OWN / 'floor.body'), SimOptions())
    arm = spawn(floor.world, SAMPLE_ARM, 'arm/', Pose((0.0, 0.0, 0.0)))
    suite = SensorSuite(arm)
    camera = suite.samplers['hand_camera']
    try:
        reading = camera.read(depth=True)
        before = reading.rgb.copy(), reading.depth.copy()
        origin, axes = camera.optical_pose()
        # The box's centre 0.5 m along the optical axis (+z of the optical frame).
        spawn(floor.world, OWN / 'box.body', 'box/', Pose(tuple(origin + 0.5 * axes[:, 2])))
        after = camera.read(depth=True)
    finally:
        suite.close()
    h, w = after.depth.shape
    centre = after.depth[h // 2, w // 2]
    # The nearest face of the box (0.2 m deep at most along any axis) is 0.4 to 0.5 m away.
    assert 0.25 < centre < 0.5, centre
    assert before[1][h // 2, w // 2] > centre + 0.05
    r, g, b = (int(v) for v in after.rgb[h // 2, w // 2])
    assert r > b + 40 and g > b + 20, (r, g, b)  # the box's yellow (0.9, 0.7, 0.1)
    assert not np.array_equal(before[0][h // 2, w // 2], after.rgb[h // 2, w // 2])


def _release_a_speed_motor(sim):
    run(sim, 0.3)
    sim.command(Mode.POSITION, ['lin_speed_motor'], [-0.3])  # the servo takes it over


def _feed_the_controllers(sim):
    sim.forces.set_motor_input('arm_angle', 0.5)  # rad
    sim.forces.set_load_input('wheel_torque', [0.0, 0.0, 0.02])  # N m
    sim.forces.set_motor_input('cart_force', 0.4)  # N
    run(sim, 0.1)


CHRONO_CASES = [('motors.yaml', _release_a_speed_motor),
                ('controllers.yaml', _feed_the_controllers)]


@pytest.mark.parametrize('file, start', CHRONO_CASES)
def test_a_chrono_model_s_motors_go_on_across_a_spawn_and_a_delete(file, start):
    """Motors of every kind (functions of the time, SPEED motors' integrals, FORCE motors'
    wrenches, a motor a command released, controller inputs, a load controller): the
    model's joint path is the one it has alone."""
    reference, sim = (Simulation(load_model(CHRONO / file)) for _ in range(2))
    start(reference)
    start(sim)
    forces, world = sim.forces, sim.world
    for period in range(100):
        if period == 20:
            spawn(world, OWN / 'box.body', 'box/', Pose((-3.0, -3.0, 0.15)))
        if period == 60:
            world.remove('box/')
        reference.step_period()
        sim.step_period()
        np.testing.assert_allclose(sim.joint_positions(), reference.joint_positions(),
                                   atol=1e-5, err_msg=f'period {period}')
        np.testing.assert_allclose(sim.joint_velocities(), reference.joint_velocities(),
                                   atol=1e-3, err_msg=f'period {period}')
    # What the ROS controller topics feed (ros/control/chrono_controllers.py) is what drives it.
    assert sim.forces is forces
    assert forces.engaged('arm_angle' if file == 'controllers.yaml' else 'pos_sine_motor')
    if file == 'motors.yaml':
        assert not forces.engaged('lin_speed_motor')
        ramp = sim.joint_positions()[sim.joint_names.index('pos_ramp_motor')]
        assert ramp == pytest.approx(0.1 + 0.4 * sim.time, abs=1e-3)  # test_chrono_dynamics


@pytest.mark.parametrize('file, start', CHRONO_CASES)
def test_a_chrono_model_whose_elements_move_in_the_world_goes_on(file, start):
    """The Chrono model is the third of its world and the second leaves: every MuJoCo index
    of its bodies, joints, motors and equalities changes; its joint path does not."""
    def world_of_three():
        first = Simulation(load_model(OWN / 'box.body'),
                           SimOptions(initial_pose=Pose((-3.0, 3.0, 0.1))))
        spawn(first.world, OWN / 'box.body', 'box2/', Pose((-3.0, -3.0, 0.1)))
        return spawn(first.world, CHRONO / file, 'chrono/')
    reference, sim = world_of_three(), world_of_three()
    start(reference)
    start(sim)
    for period in range(50):
        if period == 10:
            sim.world.remove('box2/')
            assert sim.index == 1 and sim.prefix == 'chrono/'
        reference.step_period()
        sim.step_period()
        np.testing.assert_allclose(sim.joint_positions(), reference.joint_positions(),
                                   atol=1e-5, err_msg=f'period {period}')


def test_a_world_of_more_models_than_collision_bits_is_refused_in_one_line():
    box = load_model(OWN / 'box.body')
    many = [(box, SimOptions(initial_pose=Pose((i, 0.0, 0.1))))
            for i in range(world_module.MAX_MODELS + 1)]
    with pytest.raises(ModelError, match=f': {world_module.MAX_MODELS + 1} models in one world; '
                       f'at most {world_module.MAX_MODELS} can share one$'):
        world_module.World(many)
    with pytest.raises(ValueError, match='at least one model'):
        world_module.World([])
    full = world_module.World(many[:-1])
    with pytest.raises(ModelError, match=f'holds {world_module.MAX_MODELS} models already'):
        full.add(box, SimOptions(), 'one_more/')
    assert len(full.entries) == world_module.MAX_MODELS


@pytest.mark.parametrize('policy', ['pause', 'reset'])
def test_a_spawned_model_that_diverges_gets_the_note_and_the_world_its_policy(policy):
    arm = Simulation(load_model(SAMPLE_ARM), SimOptions(on_divergence=policy))
    world = arm.world
    run(arm, 0.1)
    box = spawn(world, OWN / 'box.body', 'box/', Pose((2.0, 0.0, 0.5)))
    other = spawn(world, OWN / 'box.body', 'other/', Pose((-2.0, 0.0, 0.5)))
    run(arm, 0.05)
    before = arm.time
    free = box.mj.joint('box/box_free')
    box.data.qvel[free.dofadr[0]] = 1e12  # m/s: beyond what the watchdog accepts
    diverged = world.step_period()
    assert diverged is not None and diverged.joint == 'box/box_free'
    assert arm.notes == [] and other.notes == [] and len(box.notes) == 1
    note = box.notes[0]
    assert note.startswith(f"the integrator diverged at t = {before:.6g} s (joint 'box_free': ")
    assert world.watchdog.count == 1
    if policy == 'pause':
        assert world.halted and arm.time == pytest.approx(before)
        assert '(on_divergence: pause)' in note
        assert box.data.qvel[free.dofadr[0]] == 1e12  # the state before that period
    else:
        assert not world.halted and arm.time == 0.0
        assert 'the world was reset to its initial state (on_divergence: reset)' in note
        assert abs(box.data.qvel[free.dofadr[0]]) < 1.0


def test_a_model_whose_root_is_the_world_cannot_be_placed(tmp_path):
    path = tmp_path / 'bolted.urdf'
    path.write_text(
        '<?xml version="1.0"?><robot name="bolted"><link name="world"/><link name="base">'
        '<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" '
        'izz="0.01"/></inertial><collision><geometry><box size="0.1 0.1 0.1"/></geometry>'
        '</collision></link><joint name="bolt" type="fixed"><parent link="world"/>'
        '<child link="base"/></joint></robot>')
    bolted = load_model(path)
    assert world_module.is_world_rooted(bolted)
    assert not world_module.is_world_rooted(load_model(SAMPLE_ARM))  # fixed, but to 'base'
    assert not world_module.is_world_rooted(load_model(OWN / 'box.body'))
    with pytest.raises(ParameterError, match='root link of bolted is the world'):
        world_module.World([(bolted, SimOptions(initial_pose=Pose((1.0, 0.0, 0.0))))])
    arm = Simulation(load_model(SAMPLE_ARM))
    with pytest.raises(ParameterError, match='cannot be moved'):
        arm.world.add(bolted, SimOptions(initial_pose=Pose((1.0, 0.0, 0.0))), 'bolted/')
    assert arm.world.prefixes == ['']


def test_a_chrono_model_joins_with_the_worlds_options_and_one_line_about_its_gravity():
    """MuJoCo 4 warns, with its own source path, about every option a model attached to the
    world has otherwise; the world gives its own options to the model first, and says in one
    line of its own when the model's gravity was not the world's."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # any warning left fails the test
        arm = Simulation(load_model(SAMPLE_ARM))
        world = arm.world
        spawn(world, CHRONO / 'motors.yaml', 'm/')  # 9.8 m/s^2 against 9.81: no note
        assert world.notes == []
        weightless = spawn(world, CHRONO / 'loads_mbs.yaml', 'l/')  # no gravity, dt 0.5 ms
    assert world.notes == [
        f"{weightless.model.name}: its gravity (0, 0, 0) m/s^2 is not the world's; the "
        "world's (0, 0, -9.81), the first model's, acts on it"]
    assert list(world.mj.opt.gravity) == [0.0, 0.0, -9.81]
    assert world.mj.opt.timestep == pytest.approx(0.001)


def test_an_attach_conflict_mujoco_still_finds_is_one_line_of_ours():
    import types
    import warnings

    def attach(child, prefix, frame):
        warnings.warn("Attach conflict when attaching 'b' to 'a', policy is 'warning'\n"
                      'flux: parent has 1, child has 2, keeping parent value\n')
        warnings.warn('something else', DeprecationWarning)
    option = types.SimpleNamespace(gravity=np.array([0.0, 0.0, -9.81]))
    spec = types.SimpleNamespace(option=option, attach=attach)
    child = types.SimpleNamespace(option=types.SimpleNamespace(gravity=np.array([0, 0, -1.62])))
    model = types.SimpleNamespace(name='moon_rover')
    with pytest.warns(DeprecationWarning, match='something else'):
        notes = world_module._attach(spec, child, model, 'r/', None)
    assert notes == [
        "moon_rover: its gravity (0, 0, -1.62) m/s^2 is not the world's; the world's "
        '(0, 0, -9.81), the first model\'s, acts on it',
        "moon_rover: MuJoCo keeps the world's settings: flux: parent has 1, child has 2, "
        'keeping parent value']
    assert list(child.option.gravity) == [0.0, 0.0, -9.81]  # the world's, given before
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # a user's filter: the conflicts are still ours to say
        child.option.gravity = np.array([0.0, 0.0, -9.95])  # 1.4 % off: said
        notes = world_module._attach(spec, child, model, 'r/', None)
    assert [n.split(':')[1] for n in notes] == [' its gravity (0, 0, -9.95) m/s^2 is not the '
                                                "world's; the world's (0, 0, -9.81), the "
                                                "first model's, acts on it",
                                                " MuJoCo keeps the world's settings"]
    option.gravity = np.zeros(3)  # a world without gravity: any gravity of the model is said
    child.option.gravity = np.array([0.0, 1e-6, 0.0])
    with pytest.warns(DeprecationWarning):
        assert 'its gravity (0, 1e-06, 0)' in world_module._attach(spec, child, model, 'r/',
                                                                   None)[0]
    child.option.gravity = np.zeros(3)
    with pytest.warns(DeprecationWarning):
        assert len(world_module._attach(spec, child, model, 'r/', None)) == 1  # the conflict
