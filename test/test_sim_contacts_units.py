"""Contact pairs and values of sim/mechanics/contacts.py, read from the compiled MuJoCo model."""

import math
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
