"""How springs, motors, loads and contacts reach MuJoCo: native elements where they are exact."""

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.model import (Actuation, Function, Inertial, Joint, Link, LoopClosure, Model,
                               Motor, Pose, Spring)
from body_bridge.sim.building.build import BuildOptions, build_spec
from body_bridge.sim.mechanics.forces import plan_springs, restitution_damping
from body_bridge.formats.chrono.tree import exact_closure_pose
from body_bridge.sim.mechanics.closures import pose_for_frame
from body_bridge.sim.mechanics.forces_laws import map_force, rsda_angle, small_rotation, stop_force
from body_bridge.sim.simulation import SimOptions, Simulation

from linkages import four_bar_parts

DATA = Path(__file__).parent / 'data' / 'chrono'
BOX = Path(__file__).parent / 'data' / 'choreonoid' / 'box.body'


def compiled(name: str):
    model = load_model(DATA / name)
    return model, build_spec(model).compile()


def test_linear_springs_are_mujoco_tendons_and_joint_springs():
    model, mj = compiled('springs.yaml')
    plan = plan_springs(model)
    assert plan['osc_spring'] == ('tendon',)
    assert plan['torsion_spring'] == ('joint', 'torsion_hinge', 1.0)
    assert {name for name, how in plan.items() if how == ('hook',)} == {
        'curve_spring', 'map_spring', 'degressive_damper', 'stop_spring', 'ball_spring'}
    osc = mj.tendon('osc_spring').id
    assert mj.tendon_stiffness[osc] == 50.0 and mj.tendon_lengthspring[osc, 0] == 1.0
    pre = mj.tendon('preloaded_spring').id  # a preload is a longer spring: 1 + 10 / 100
    assert mj.tendon_lengthspring[pre, 0] == pytest.approx(1.1)
    assert mj.tendon_damping[pre] == 20.0
    hinge = mj.joint('torsion_hinge')
    assert hinge.stiffness[0] == 2.0
    assert mj.qpos_spring[hinge.qposadr[0]] == pytest.approx(math.radians(10))
    _, bushing = compiled('bushing.yaml')
    assert bushing.joint('hinged_bushing_tz').stiffness[0] == 1e4
    assert bushing.joint('hinged_bushing_rz').damping[0] == pytest.approx(0.4)


def test_position_and_speed_motors_have_drivers_force_motors_do_not():
    model, mj = compiled('motors.yaml')
    for motor in model.motors:
        has_driver = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_JOINT, f'{motor.name}:driver')
        assert (has_driver >= 0) == (motor.actuation != Actuation.FORCE), motor.name
    eq = mj.eq('pos_sine_motor:drive')
    assert eq.type == mujoco.mjtEq.mjEQ_JOINT
    assert mj.joint(int(mj.eq_obj1id[eq.id])).name == 'pos_sine_motor'
    assert mj.body('pos_sine_motor:driver').mass[0] == 1e6  # the reaction does not move it


def test_world_settings_and_contact_materials():
    model, mj = compiled('meshes.yaml')
    np.testing.assert_allclose(mj.opt.gravity, [0, 0, -9.8])
    assert mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_GEOM, 'ground_plane') < 0  # own ground
    block = [g for g in range(mj.ngeom) if mj.geom_bodyid[g] == mj.body('block').id
             and mj.geom_contype[g]]
    assert len(block) == 2
    ground = [g for g in range(mj.ngeom) if mj.geom_bodyid[g] == mj.body('ground').id]
    assert mj.geom_friction[block[0], 0] == pytest.approx(0.3)
    assert mj.geom_friction[ground[0], 0] == pytest.approx(0.5)
    assert mj.geom_solref[ground[0], 1] == pytest.approx(restitution_damping(0.2))
    # The model's links collide with each other (as in Chrono).
    assert mj.geom_contype[block[0]] & mj.geom_conaffinity[ground[0]]
    assert mj.geom_margin[block[0]] == 0.005  # the MESH's contact radius
    sim = Simulation(model, SimOptions())
    for _ in range(200):
        sim.step_period()
    # It landed on the ground, held off by the swept radius of its mesh.
    assert sim.body_pose('block')[0][2] == pytest.approx(0.005, abs=2e-4)


def test_force_law_helpers():
    assert stop_force(1.0, 0.5, 1.5) == 0.0
    assert stop_force(0.497, 0.5, 1.5) == pytest.approx(300.0)  # 200 N at 2 mm, 400 at 4
    assert stop_force(1.53, 0.5, 1.5) == pytest.approx(-4500.0)
    defs = np.array([0.0, 1.0])
    data = np.array([[-1.0, 0.0, 10.0], [1.0, 2.0, 12.0]])  # F = 10 d + v + 1
    for d, v in ((0.5, 0.0), (0.25, -0.5), (2.0, 3.0), (-1.0, 0.0)):
        assert map_force(defs, data, d, v) == pytest.approx(10 * d + v + 1)  # extrapolates
    turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    assert rsda_angle(np.eye(3), turn) == pytest.approx(math.pi / 2)
    np.testing.assert_allclose(small_rotation(turn), [0, 0, math.pi / 2])
    half = np.diag([-1.0, 1.0, -1.0])  # half a turn about y
    np.testing.assert_allclose(np.abs(small_rotation(half)), [0, math.pi, 0], atol=1e-9)


def test_a_motor_on_a_loop_closure_drives_the_closure_joint():
    links, joints = four_bar_parts()
    closure = LoopClosure('loop', 'hinge', 'coupler', 'rocker', Pose((0.5, 0, 0)),
                          Pose((0, 0, 0.3)), axis=(0, 1, 0))
    drive = Motor('loop_motor', 'rotation', 'position', Function('sine', (0.3, 0.5, 0, 0)),
                  closure='loop')
    model = Model('four_bar', links, joints, 'ground', closures=(closure,), motors=(drive,),
                  passive_joints=('a', 'b', 'd'), ground_plane=False)
    sim = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False)))
    joint = sim.mj.joint('loop:hinge0')
    # The drive's weight is the loop's inverse inertia about the driven angle: turning it by
    # dq turns the crank and the rocker (each 0.01 + 1 * 0.15^2 kg m^2 about its pivot) by
    # dq and moves the level coupler (1 kg) by 0.3 dq: 1 / (2 * 0.0325 + 0.09).
    assert sim.mj.dof_invweight0[joint.dofadr[0]] == pytest.approx(1 / 0.155, rel=1e-3)
    worst = 0.0
    for step in range(150):
        if step == 75:  # a box joins the world: the drive keeps its weight and its motion
            weight = sim.mj.dof_invweight0[joint.dofadr[0]]
            box, placed = load_model(BOX), SimOptions(initial_pose=Pose((3.0, 0.0, 0.5)))
            sim.world.add(box, placed, 'box/')
            Simulation(box, placed, world=sim.world)
            joint = sim.mj.joint('loop:hinge0')
            assert sim.mj.dof_invweight0[joint.dofadr[0]] == weight
        sim.step_period()
        target = 0.3 * math.sin(math.pi * sim.time)
        worst = max(worst, abs(sim.data.qpos[joint.qposadr[0]] - target))
    assert worst < 1e-4
    # The driven angle is the rocker's relative to the coupler, which stays level: d.
    a, b, d = (sim.joint_positions()[sim.joint_names.index(n)] for n in 'abd')
    assert d == pytest.approx(0.3 * math.sin(math.pi * sim.time), abs=1e-4)
    assert a == pytest.approx(d, abs=1e-4) and b == pytest.approx(-a, abs=1e-4)


def test_the_model_refuses_dangling_references():
    links = (Link('a'), Link('b', inertial=Inertial(1.0, inertia=np.eye(3))))
    joints = (Joint('j', 'prismatic', 'a', 'b', (1, 0, 0)),)
    with pytest.raises(ModelError, match="spring 's' refers to unknown link 'c'"):
        Model('m', links, joints, 'a', springs=(Spring('s', 'translational', 'a', 'c'),))
    with pytest.raises(ModelError, match="motor 'm' refers to unknown joint 'k'"):
        Model('m', links, joints, 'a', motors=(Motor('m', 'linear', 'force',
                                                     Function('constant', (1,)), joint='k'),))
    with pytest.raises(ModelError, match='exactly one joint or closure'):
        Model('m', links, joints, 'a', motors=(Motor('m', 'linear', 'force',
                                                     Function('constant', (1,))),))
    with pytest.raises(ModelError, match="unknown joint 'x'"):
        Model('m', links, joints, 'a', passive_joints=('x',))


def test_the_loader_places_closure_frames_as_the_integrator_reads_them():
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.normal(size=4)
        frame = Pose(rng.normal(size=3), Pose.from_quat(q).rot)
        a, b = exact_closure_pose(frame), pose_for_frame(frame)
        np.testing.assert_allclose(a.rot, b.rot, atol=1e-12)
        np.testing.assert_allclose(a.pos, b.pos)
