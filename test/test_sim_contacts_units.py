"""Contact pairs and values of sim/mechanics/contacts.py, read from the compiled MuJoCo model."""

import math
import sys
import textwrap

import mujoco
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.mechanics import contacts
from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.building.options import SimOptions
from body_bridge.sim.simulation import Simulation

TABLE = ('contact_materials:\n  - {materials: [Default, Default], friction: 0.4}\n'
         '  - {materials: [Ground, Default], friction: 0.7}\n')


def chain(tmp_path):
    """A fixed base, arm1 turning on it, arm2 turning on arm1: boxes of material Default,
    two on arm1, every shape touching its neighbours (so only the rules keep pairs out)."""
    path = tmp_path / 'chain.body'
    table = tmp_path / 'materials.yaml'
    table.write_text(TABLE)
    box = '{ type: Shape, geometry: { type: Box, size: [ 0.1, 0.1, 0.1 ] } }'
    path.write_text(textwrap.dedent(f"""
        format: ChoreonoidBody
        format_version: 2.0
        name: chain
        links:
          - {{ name: base, joint_type: fixed, material: Default, mass: 1.0,
              inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ], elements: [ {box} ] }}
          - {{ name: arm1, parent: base, joint_type: revolute, joint_axis: Z, joint_id: 0,
              translation: [ 0, 0, 0.1 ], material: Default, mass: 1.0,
              inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ],
              elements: [ {box}, {{ type: Transform, translation: [ 0.05, 0, 0 ],
                                    elements: [ {box} ] }} ] }}
          - {{ name: arm2, parent: arm1, joint_type: revolute, joint_axis: Z, joint_id: 1,
              translation: [ 0, 0, 0.1 ], material: Default, mass: 1.0,
              inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ], elements: [ {box} ] }}
    """))
    return load_model(path, str(table))


def pairs_of(mj):
    return sorted(tuple(sorted((mj.geom(int(a)).name, mj.geom(int(b)).name)))
                  for a, b in zip(mj.pair_geom1, mj.pair_geom2))


def test_a_material_table_pairs_only_links_that_may_touch(tmp_path):
    """With self-collision: not two shapes of one link, not a link and its parent (MuJoCo
    never lets them touch; an explicit pair would), only base and arm2."""
    model = chain(tmp_path)
    world = Simulation(model, SimOptions(build=BuildOptions(self_collision=True,
                                                            ground_plane=False))).world
    assert pairs_of(world.mj) == [('arm2:0', 'base:0')]
    assert world.mj.pair_friction[0, 0] == pytest.approx(0.4)
    assert world.notes == []
    # without self-collision no link of the model touches another
    alone = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False))).world
    assert alone.mj.npair == 0


def test_pairs_beyond_the_limit_are_left_out_with_one_note(tmp_path, monkeypatch):
    monkeypatch.setattr(contacts, 'MAX_PAIRS', 2)
    world = Simulation(chain(tmp_path), SimOptions(build=BuildOptions(ground_plane='on'))).world
    assert world.mj.npair == 2  # of the four shapes with the plane
    assert list(world.mj.pair_friction[:, 0]) == pytest.approx([0.7, 0.7])
    assert world.notes == ['more than 2 contact pairs from the material table; the others use '
                           "the integrator's combination of their surfaces' values"]


@pytest.mark.filterwarnings('ignore:Attach conflict')  # Chrono's gravity 9.8: the world's kept
def test_the_minimum_rule_wins_against_the_ground_plane(tmp_path):
    """A Chrono block of friction 0.3 on the plane (MuJoCo's friction 1) of a world whose
    first model brings the plane: the contact takes the smaller, the block's."""
    from body_bridge.model import Pose
    from body_bridge.sim.building.world import World
    from conftest import SAMPLE_ARM
    path = tmp_path / 'block.yaml'
    path.write_text(textwrap.dedent("""
        chrono-version: 10.0
        model:
          name: block
          bodies:
            - name: block
              location: [0, 0, 0.051]
              mass: 1.0
              inertia: {moments: [0.01, 0.01, 0.01]}
              contact:
                materials: [{name: slick, coefficient_of_friction: 0.3}]
                shapes:
                  - {type: BOX, material: slick, dimensions: [0.1, 0.1, 0.1],
                     location: [0, 0, 0], orientation: [0, 0, 0]}
    """))
    world = World([(load_model(SAMPLE_ARM), SimOptions(initial_pose=Pose((3.0, 0, 0)))),
                   (load_model(path), SimOptions())])
    mj, data = world.mj, world.data
    mujoco.mj_step(mj, data, 50)
    assert data.ncon > 0
    assert {round(float(data.contact[i].friction[0]), 9) for i in range(data.ncon)} == {0.3}


def test_smc_contacts_are_as_stiff_at_every_depth(tmp_path):
    from test_contacts import chrono_ball
    model = chrono_ball(tmp_path, 1.0, (1e7, 0.5), (3e7, 0.3), 0.01)
    mj = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False))).world.mj
    assert mj.npair == 1
    dmin, dmax = mj.pair_solimp[0, :2]
    assert dmin == dmax == pytest.approx(0.95)


def test_an_undamped_hertz_contact_rebounds_fully_after_its_analytic_duration():
    """u'' = -u^(3/2) from u = 0, u' = 1: energy u'^2 / 2 + 2/5 u^(5/2) is kept, so the
    contact ends at speed 1 after 2 u_max (2/5) B(2/5, 1/2), u_max = (5/4)^(2/5)."""
    u_max = 1.25 ** 0.4
    beta = math.gamma(0.4) * math.gamma(0.5) / math.gamma(0.9)
    duration, rebound = contacts._hertz_bounce(1.0)
    assert rebound == pytest.approx(1.0, abs=1e-7)
    assert duration == pytest.approx(2 * u_max * 0.4 * beta, abs=1e-3)  # a step is 5e-4



@pytest.mark.filterwarnings('ignore:Attach conflict')  # Chrono's gravity 9.8: the world's kept
def test_no_smc_pair_between_the_ground_plane_and_a_fixed_body(tmp_path):
    """A world whose first model brings the plane (colliding with everything): the Chrono
    ball gets SMC pairs with its fixed plate and with the plane; the plate, fixed as the
    plane is, none with the plane (they never move against each other)."""
    from body_bridge.model import Pose
    from body_bridge.sim.building.world import World
    from conftest import SAMPLE_ARM
    from test_contacts import chrono_ball
    ball = chrono_ball(tmp_path, 1.0, (1e7, 0.5), (3e7, 0.3), 0.01)
    world = World([(load_model(SAMPLE_ARM), SimOptions(initial_pose=Pose((3.0, 0, 0)),
                                                       build=BuildOptions(ground_plane='on'))),
                   (ball, SimOptions())])
    assert pairs_of(world.mj) == [('ball_1/ball:0', 'ball_1/ground:0'),
                                  ('ball_1/ball:0', 'ground_plane')]
    assert world.notes == []


def test_an_smc_pair_takes_the_combined_modulus_of_both_materials(tmp_path):
    """1 / E* = (1 - nu1^2) / E1 + (1 - nu2^2) / E2 (Poisson ratio 0.3 on both sides), the
    ball's 1 kg against the fixed plate, and the smaller restitution, the ball's 0.3."""
    from test_contacts import chrono_ball
    model = chrono_ball(tmp_path, 1.0, (1e7, 0.5), (3e7, 0.3), 0.01)
    mj = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False))).world.mj
    modulus = 1.0 / ((1 - 0.3 ** 2) / 1e7 + (1 - 0.3 ** 2) / 3e7)
    assert list(mj.pair_solref[0]) == pytest.approx(contacts.hertz_solref(modulus, 1.0, 0.3),
                                                    rel=1e-12)
    assert mj.pair_friction[0, 0] == pytest.approx(0.5)


def test_a_pair_keeps_the_larger_margin_and_gap_of_its_geoms():
    """A mesh's contact radius is its geom's margin: the explicit pair holds contacts at it
    as MuJoCo would for the two geoms."""
    spec = mujoco.MjSpec()
    body = spec.worldbody.add_body(name='b', pos=[0, 0, 1])
    body.add_freejoint()
    g1 = body.add_geom(name='g1', size=[0.1, 0, 0], margin=0.01, gap=0.002)
    g2 = spec.worldbody.add_geom(name='g2', size=[0.1, 0, 0], margin=0.03, gap=0.001)
    contacts._add_pair(spec, g1, g2, 0.5, [0.02, 1.0])
    mj = spec.compile()
    assert (mj.pair_margin[0], mj.pair_gap[0]) == pytest.approx((0.03, 0.002))
    assert list(mj.pair_solref[0]) == pytest.approx([0.02, 1.0])


def _bounce_by_midpoint(restitution, h=1e-5):
    """Chrono's Hertz contact in units of tau and v (contacts._hertz_bounce's equation,
    ``u'' = -(u^(3/2) + sqrt(5) |b| u^(1/4) u')``, never pulling) integrated here by the
    explicit midpoint rule at 1/50 of the module's step: its error is about 4e-8 of the
    rebound (against RK4 at 2e-5), far below the module's."""
    log = math.log(restitution)
    damping = math.sqrt(5.0) * abs(log) / math.sqrt(log * log + math.pi ** 2)

    def push(u, w):
        u = max(u, 0.0)
        return -max(u ** 1.5 + damping * u ** 0.25 * w, 0.0)

    u, w, t = 0.0, 1.0, 0.0
    while not (w < 0 and push(u, w) == 0.0):
        half_u, half_w = u + h / 2 * w, w + h / 2 * push(u, w)
        u, w, t = u + h * half_w, w + h * push(half_u, half_w), t + h
    return t, -w


@pytest.mark.parametrize('restitution, chronos', [(0.3, 0.3), (0.0, sys.float_info.epsilon)])
def test_a_damped_hertz_contact_rebounds_as_a_fine_step_integration_says(restitution, chronos):
    """The module's RK4 (a step of 5e-4) against a fine-step midpoint integration: the
    rebound within 5e-6 (the module's own error is about 2e-6; an RK4 stage written wrong,
    a lower-order integrator, is 1e-5 or more off), the end within its step. Chrono's Hertz
    contact takes a restitution of 0 as the machine epsilon (ChContactSMC)."""
    duration, rebound = contacts._hertz_bounce(restitution)
    fine_duration, fine_rebound = _bounce_by_midpoint(chronos)
    assert rebound == pytest.approx(fine_rebound, abs=5e-6)
    assert duration == pytest.approx(fine_duration, abs=6e-4)


def _changed(model, link_name, inertial=None, smc=None):
    """The model with one link's inertial data dropped (``inertial='drop'``) or its contact
    material's SMC values replaced (a model built in code may leave out what the Chrono
    loader requires)."""
    import dataclasses
    links = tuple(dataclasses.replace(x, inertial=None)
                  if x.name == link_name and inertial == 'drop' else x for x in model.links)
    shapes = tuple(dataclasses.replace(c, material=dataclasses.replace(c.material, smc=smc))
                   if c.link == link_name and smc is not None else c for c in model.contacts)
    return dataclasses.replace(model, links=links, contacts=shapes)


def test_a_material_without_a_poisson_ratio_takes_chronos_default(tmp_path):
    """Chrono's ChContactMaterialSMC has Poisson ratio 0.3 unless told otherwise: the ball's
    material gives only Young's modulus 3e7; the plate gives 1e7 and 0.5."""
    from test_contacts import chrono_ball
    model = chrono_ball(tmp_path, 1.0, (1e7, 0.5), (3e7, 0.3), 0.01)
    model = _changed(model, 'ground', smc={'young_modulus': 1e7, 'poisson_ratio': 0.5})
    model = _changed(model, 'ball', smc={'young_modulus': 3e7})
    mj = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False))).world.mj
    modulus = 1.0 / ((1 - 0.5 ** 2) / 1e7 + (1 - 0.3 ** 2) / 3e7)
    assert list(mj.pair_solref[0]) == pytest.approx(contacts.hertz_solref(modulus, 1.0, 0.3),
                                                    rel=1e-12)


def test_a_moving_link_without_inertial_data_has_the_mass_the_integrator_gives_it(tmp_path):
    """A link without inertial data weighs what the integrator's body weighs (MuJoCo bounds
    it to MIN_MASS): its SMC pair is the Hertz contact of that mass."""
    from test_contacts import chrono_ball
    from body_bridge.sim.names import MIN_MASS
    model = _changed(chrono_ball(tmp_path, 1.0, (1e7, 0.5), (3e7, 0.3), 0.01), 'ball', 'drop')
    mj = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False))).world.mj
    mass = float(mj.body_mass[mj.body('ball').id])
    assert mass == pytest.approx(MIN_MASS)
    modulus = 1.0 / ((1 - 0.3 ** 2) / 1e7 + (1 - 0.3 ** 2) / 3e7)
    assert list(mj.pair_solref[0]) == pytest.approx(contacts.hertz_solref(modulus, mass, 0.3),
                                                    rel=1e-12)


def test_explicit_pairs_take_mujocos_default_torsional_rolling_friction_and_impedance(
        tmp_path):
    """A pair states all five friction values: the torsional and rolling ones are MuJoCo's
    defaults (a geom's), as for two geoms without a pair; an SMC pair's impedance is MuJoCo's
    default solimp with dmin raised to dmax (the same at every depth)."""
    from test_contacts import chrono_ball
    default = mujoco.MjSpec().worldbody.add_geom()
    model = chrono_ball(tmp_path, 1.0, (1e7, 0.5), (3e7, 0.3), 0.01)
    mj = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False))).world.mj
    assert list(mj.pair_friction[0]) == pytest.approx([0.5, 0.5, *default.friction[1:],
                                                       default.friction[2]], rel=1e-12)
    solimp = list(default.solimp)
    assert list(mj.pair_solimp[0]) == pytest.approx([solimp[1], *solimp[1:]], rel=1e-12)
    table = Simulation(chain(tmp_path), SimOptions(build=BuildOptions(
        self_collision=True, ground_plane=False))).world.mj
    assert list(table.pair_friction[0]) == pytest.approx([0.4, 0.4, *default.friction[1:],
                                                          default.friction[2]], rel=1e-12)


def test_a_restitution_above_one_rebounds_fully():
    """No damper rebounds more than it was hit (the loaders refuse a restitution above 1;
    forces.restitution_damping also takes one as undamped)."""
    assert contacts._hertz_bounce(1.5) == contacts._hertz_bounce(1.0)
    assert contacts.hertz_solref(1.1e7, 1.0, 1.5) == contacts.hertz_solref(1.1e7, 1.0, 1.0)


@pytest.mark.parametrize('speed', [1.0, 2.0])
def test_the_undamped_bounce_lasts_as_long_as_hertzs_at_the_characteristic_speed(
        monkeypatch, speed):
    """Undamped Hertz at impact speed v: the deepest penetration d from m v^2 / 2 =
    2/5 K d^(5/2), K = 4/3 E* sqrt(R), and the contact lasts 2.9432 d / v (Chrono's
    characteristic speed is 1 m/s; at another the bounce scales so)."""
    from body_bridge.sim.mechanics.forces import contact_bounce
    monkeypatch.setattr(contacts, 'HERTZ_SPEED', speed)
    modulus, mass = 1.1e7, 2.0
    timeconst, ratio = contacts.hertz_solref(modulus, mass, 1.0)
    depth = (15 * mass * speed ** 2 / (16 * modulus * math.sqrt(0.2))) ** 0.4
    duration = contact_bounce(ratio)[0] * timeconst * ratio  # the half period, in seconds
    assert duration == pytest.approx(2.9432 * depth / speed, rel=2e-3)


def test_any_positive_youngs_modulus_makes_an_smc_pair(tmp_path):
    """A very soft material (E = 0.5 Pa, Poisson ratio 0.3 on both sides) still gets
    Chrono's Hertz contact."""
    from test_contacts import chrono_ball
    model = chrono_ball(tmp_path, 1.0, (0.5, 0.5), (0.5, 0.3), 0.01)
    mj = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False))).world.mj
    assert mj.npair == 1
    modulus = 1.0 / (2 * (1 - 0.3 ** 2) / 0.5)
    assert list(mj.pair_solref[0]) == pytest.approx(contacts.hertz_solref(modulus, 1.0, 0.3),
                                                    rel=1e-12)


def test_a_contact_radius_under_a_metre_is_the_geoms_margin(tmp_path):
    """A swept radius of 4 mm keeps the ball's contacts 4 mm out: its geom's margin, and the
    SMC pair's (the larger of its two geoms')."""
    import dataclasses
    from test_contacts import chrono_ball
    model = chrono_ball(tmp_path, 1.0, (1e7, 0.5), (3e7, 0.3), 0.01)
    model = dataclasses.replace(model, contacts=tuple(
        dataclasses.replace(c, radius=0.004) if c.link == 'ball' else c
        for c in model.contacts))
    mj = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False))).world.mj
    assert mj.geom('ball:0').margin[0] == pytest.approx(0.004)
    assert mj.geom('ground:0').margin[0] == 0.0
    assert mj.pair_margin[0] == pytest.approx(0.004)


@pytest.mark.parametrize('never, pairs', [((('base', 'arm2'),), []),
                                          ((('arm1', 'arm2'),), [('arm2:0', 'base:0')])])
def test_links_listed_as_never_colliding_get_no_table_pair(tmp_path, never, pairs):
    """The model's ``adjacent`` pairs never touch: base and arm2 listed, no pair; arm1 and
    arm2 listed (already joined), base and arm2 keep theirs."""
    import dataclasses
    model = dataclasses.replace(chain(tmp_path), adjacent=never)
    world = Simulation(model, SimOptions(build=BuildOptions(self_collision=True,
                                                            ground_plane=False))).world
    assert pairs_of(world.mj) == pairs


def test_a_body_fixed_to_a_fixed_body_weighs_infinitely(tmp_path):
    """A second fixed Chrono body hangs from the first by a fixed joint: the ball (2 kg) on
    it bounces with its own mass, as on the ground itself."""
    def material(name, young):
        return (f'{{name: {name}, coefficient_of_friction: 0.5, coefficient_of_restitution: '
                f'0.3, physical_properties: {{Young_modulus: {young}, Poisson_ratio: 0.3}}}}')
    path = tmp_path / 'plate.yaml'
    path.write_text(textwrap.dedent(f"""
        chrono-version: 10.0
        model:
          name: plate
          bodies:
            - {{name: ground, location: [0, 0, 0], fixed: true}}
            - name: plate
              location: [0, 0, 0]
              fixed: true
              contact:
                materials: [{material('plate', 1e7)}]
                shapes:
                  - {{type: BOX, material: plate, dimensions: [2, 2, 0.2],
                     location: [0, 0, -0.1], orientation: [0, 0, 0]}}
            - name: ball
              location: [0, 0, 0.11]
              mass: 2.0
              inertia: {{moments: [0.008, 0.008, 0.008]}}
              contact:
                materials: [{material('rubber', 3e7)}]
                shapes:
                  - {{type: SPHERE, material: rubber, radius: 0.1, location: [0, 0, 0]}}
    """))
    mj = Simulation(load_model(path), SimOptions(build=BuildOptions(ground_plane=False))).world.mj
    assert pairs_of(mj) == [('ball:0', 'plate:0')]
    modulus = 1.0 / ((1 - 0.3 ** 2) / 1e7 + (1 - 0.3 ** 2) / 3e7)
    assert list(mj.pair_solref[0]) == pytest.approx(contacts.hertz_solref(modulus, 2.0, 0.3),
                                                    rel=1e-12)
