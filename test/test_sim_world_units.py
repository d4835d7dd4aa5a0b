"""sim/building/world.py: what a world of several models promises (prefixes, the order of
binding, indices, the period, a model without a Simulation leaving), and a world with tracks:
its round friction cone and the step hooks of the other models, run at every physics step."""

import math
import textwrap

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.model import Inertial, Joint, Limits, Link, Model, Pose
from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.building.world import World
from body_bridge.sim.simulation import SimOptions, Simulation

from conftest import REPO
from openrave_robots import quintic_error

OWN = REPO / 'test' / 'data' / 'choreonoid'


def _pendulum(timestep=None) -> Model:
    mass = Inertial(1.0, (0.2, 0, 0), np.eye(3) * 0.01)
    return Model('pendulum', (Link('base'), Link('arm', Pose((0, 0, 1.0)), mass)),
                 (Joint('swing', 'revolute', 'base', 'arm', (0, 1, 0), Limits(-3.0, 3.0)),),
                 'base', timestep=timestep)


def test_the_first_prefix_must_be_empty_and_one_per_model():
    entries = [(_pendulum(), SimOptions()), (_pendulum(), SimOptions())]
    with pytest.raises(ValueError, match='one prefix per model, the first one empty'):
        World(entries, prefixes=['a/', 'b/'])
    with pytest.raises(ValueError, match='one prefix per model, the first one empty'):
        World(entries, prefixes=[''])
    assert World(entries).prefixes == ['', 'pendulum_1/']


def test_simulations_bind_in_order_and_no_more_than_the_world_has():
    model = _pendulum()
    world = World([(model, SimOptions())])
    Simulation(model, SimOptions(), world=world)
    with pytest.raises(ValueError, match="Simulations must be bound in the order of the "
                                         "world's models"):
        Simulation(model, SimOptions(), world=world)
    assert len(world.sims) == 1


def test_add_returns_the_index_of_the_model_it_added():
    world = Simulation(_pendulum()).world
    box = load_model(OWN / 'box.body')
    assert world.add(box, SimOptions(initial_pose=Pose((2.0, 0, 0.2))), 'box/') == 1
    assert world.add(box, SimOptions(initial_pose=Pose((-2.0, 0, 0.2))), 'box2/') == 2
    assert world.prefixes == ['', 'box/', 'box2/']


def test_a_model_that_leaves_before_its_simulation_was_made_leaves_the_others_bound():
    first = Simulation(_pendulum())
    world = first.world
    world.add(load_model(OWN / 'box.body'), SimOptions(initial_pose=Pose((2.0, 0, 0.2))),
              'box/')
    assert world.remove('box/') is None
    assert world.sims == [first] and world.prefixes == ['']
    first.step_period()
    assert first.time == pytest.approx(first.period)


def test_a_control_period_shorter_than_the_time_step_is_one_step():
    world = World([(_pendulum(), SimOptions(control_period=0.0002))])
    assert world.substeps == 1 and world.period == pytest.approx(0.001)
    sim = Simulation(world.entries[0][0], world.entries[0][1], world=world)
    sim.step_period()
    assert sim.time == pytest.approx(0.001)


def test_every_model_steps_at_the_first_model_s_time_step():
    sim = Simulation(_pendulum())
    sim.world.add(_pendulum(timestep=0.004), SimOptions(initial_pose=Pose((2.0, 0, 0))),
                  'slow/')
    assert sim.mj.opt.timestep == 0.001 and sim.world.substeps == 10


ROBOT = """
    <Robot name="powers"><KinBody>
      <Body name="base" type="static"><Geom type="box"><extents>0.05 0.05 0.05</extents></Geom>
      </Body>
      <Body name="l1"><Translation>0.3 0 0</Translation>
        <Geom type="box"><extents>0.1 0.02 0.02</extents><translation>0.1 0 0</translation>
        </Geom><Mass type="box"><extents>0.1 0.02 0.02</extents><total>0.5</total></Mass></Body>
      <Body name="l2"><Translation>0.6 0 0</Translation>
        <Geom type="box"><extents>0.1 0.02 0.02</extents><translation>0.1 0 0</translation>
        </Geom><Mass type="box"><extents>0.1 0.02 0.02</extents><total>0.5</total></Mass></Body>
      <Joint name="a" type="hinge"><Body>base</Body><Body>l1</Body><axis>0 0 1</axis>
        <limitsdeg>-90 90</limitsdeg></Joint>
      <Joint name="quintic" type="hinge" enable="false" mimic_pos="0.05*a^5 + a + 0.2"
        mimic_vel="|a 0.25*a^4 + 1"><Body>base</Body><Body>l2</Body><axis>0 0 1</axis>
        <limitsdeg>-360 360</limitsdeg></Joint>
    </KinBody></Robot>"""


@pytest.fixture
def powers(tmp_path):
    path = tmp_path / 'powers.robot.xml'
    path.write_text(textwrap.dedent(ROBOT))
    return load_model(path)


def test_a_world_with_tracks_has_a_round_friction_cone():
    """docs/mobile.md: the friction cone of a world with tracks is elliptic; other worlds keep
    MuJoCo's pyramid."""
    sim = Simulation(_pendulum())
    assert sim.mj.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL
    sim.world.add(load_model(OWN / 'tracked.body'),
                  SimOptions(initial_pose=Pose((2.0, 0, 0.2))), 'tank/')
    assert sim.mj.opt.cone == mujoco.mjtCone.mjCONE_ELLIPTIC
    sim.world.remove('tank/')
    assert sim.mj.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL


def test_a_nonlinear_mimic_holds_in_a_world_with_tracks(powers):
    """The tracks' contact hook makes the world step in two halves; the mimic's tendon is
    still relinearised before every physics step: 0.05 a^5 + a + 0.2 holds to 2 mm as a turns
    to 1.2 rad (linearised once at a = 0 it would be 0.12 rad off)."""
    options = SimOptions(build=BuildOptions(ground_plane=False), servo_frequency=2.0)
    sim = Simulation(powers, options)
    tank_options = SimOptions(initial_pose=Pose((3.0, 0, 0.2)))
    tank_model = load_model(OWN / 'tracked.body')
    sim.world.add(tank_model, tank_options, 'tank/')
    Simulation(tank_model, tank_options, world=sim.world)
    assert sim.world.contact_hooks
    a, worst = quintic_error(sim)
    assert a > 0.8 and worst < 2e-3 and not math.isnan(worst)


def test_a_world_mujoco_cannot_compile_is_one_line_naming_the_first_model(monkeypatch):
    """MuJoCo refuses the compiled whole (here a servo of a joint no model has): a ModelError
    naming the first model's file, in one line."""
    from body_bridge.errors import ModelError
    from body_bridge.sim.building import world as world_module
    real = world_module.build_spec
    broken = load_model(OWN / 'box.body')

    def with_a_stray_servo(model, options):
        spec = real(model, options)
        if model is broken:
            act = spec.add_actuator()
            act.name, act.target = 'stray', 'no_such_joint'
            act.trntype = mujoco.mjtTrn.mjTRN_JOINT
        return spec
    monkeypatch.setattr(world_module, 'build_spec', with_a_stray_servo)
    with pytest.raises(ModelError) as caught:
        World([(broken, SimOptions())])
    text = str(caught.value)
    assert text.startswith(f'{broken.source}: the integrator cannot compile the model: ')
    assert '\n' not in text and 'no_such_joint' in text


def test_a_plane_given_as_true_meets_the_models_materials(tmp_path):
    """ground_plane True is 'on' (docs: booleans mean on and off): the material table's
    Ground-Rubber friction makes the pair of the plane and a Rubber box, as with 'on'."""
    table = tmp_path / 'materials.yaml'
    table.write_text(textwrap.dedent("""
        materials:
          - {name: Default}
          - {name: Ground}
          - {name: Rubber}
        contact_materials:
          - {materials: [Ground, Rubber], friction: 0.05, restitution: 0.0}
    """))
    path = tmp_path / 'box.body'
    path.write_text(textwrap.dedent("""
        format: ChoreonoidBody
        format_version: 2.0
        name: box
        links:
          - name: box
            joint_type: free
            material: Rubber
            mass: 1.0
            inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]
            elements:
              - type: Shape
                geometry: { type: Box, size: [ 0.1, 0.1, 0.1 ] }
    """))
    model = load_model(path, str(table))
    assert model.contact_ground == 'Ground'
    for plane in (True, 'on', 'auto'):
        mj = World([(model, SimOptions(build=BuildOptions(ground_plane=plane)))]).mj
        assert mj.npair == 1 and mj.pair_geom1[0] == mj.geom('ground_plane').id
        assert mj.pair_friction[0, 0] == pytest.approx(0.05)
    for plane in (False, 'off'):
        assert World([(model, SimOptions(build=BuildOptions(ground_plane=plane)))]).mj.npair == 0
