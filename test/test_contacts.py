"""Contact materials reach the integrator: Chrono's minimum rule, Choreonoid's material table."""

import math
import textwrap

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.building.build import BuildOptions, build_spec
from body_bridge.sim.building.options import SimOptions
from body_bridge.sim.simulation import Simulation

from conftest import shared_model

SR1 = 'choreonoid/share/model/SR1/SR1.body'


def chrono_blocks(tmp_path, ground_friction, block_friction):
    path = tmp_path / 'blocks.yaml'
    path.write_text(textwrap.dedent(f"""
        chrono-version: 10.0
        model:
          name: blocks
          bodies:
            - name: ground
              location: [0, 0, 0]
              fixed: true
              contact:
                materials:
                  - {{name: rough, coefficient_of_friction: {ground_friction}}}
                shapes:
                  - {{type: BOX, material: rough, dimensions: [4, 4, 0.2], location: [0, 0, -0.1],
                     orientation: [0, 0, 0]}}
            - name: block
              location: [0, 0, 0.06]
              mass: 1.0
              inertia: {{moments: [0.01, 0.01, 0.01]}}
              contact:
                materials:
                  - {{name: slick, coefficient_of_friction: {block_friction}}}
                shapes:
                  - {{type: BOX, material: slick, dimensions: [0.1, 0.1, 0.1],
                     location: [0, 0, 0], orientation: [0, 0, 0]}}
    """))
    return load_model(path)


@pytest.mark.parametrize('ground, block', [(0.8, 0.2), (0.2, 0.8)])
def test_chrono_contact_takes_the_smaller_friction(tmp_path, ground, block):
    model = chrono_blocks(tmp_path, ground, block)
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    data = mujoco.MjData(mj)
    mujoco.mj_step(mj, data, 200)
    assert data.ncon > 0
    frictions = {round(float(data.contact[i].friction[0]), 9) for i in range(data.ncon)}
    assert frictions == {0.2}


# --- Choreonoid's material table -------------------------------------------------------------

TABLE = """
materials:
  - {name: Default}
  - {name: Ice}
  - {name: Rubber}
contact_materials:
  - {materials: [Default, Default], friction: 0.5, restitution: 0.0}
  - {materials: [Ice, Rubber], friction: 0.3, restitution: 0.0}
"""


def body(tmp_path, name, material, size, mass, table=None):
    path = tmp_path / f'{name}.body'
    path.write_text(textwrap.dedent(f"""
        format: ChoreonoidBody
        format_version: 2.0
        name: {name}
        links:
          - name: {name}
            joint_type: {'free' if mass else 'fixed'}
            material: {material}
            mass: {mass or 1.0}
            inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]
            elements:
              - type: Shape
                geometry: {{ type: Box, size: {list(size)} }}
    """))
    return load_model(path, table)


def slide_on_ramp(tmp_path, angle):
    """How far [m] a Rubber box slides down an Ice ramp of ``angle`` [rad] in one second."""
    from body_bridge.model import Pose
    from body_bridge.sim.building.options import SimOptions
    from body_bridge.sim.building.world import World
    table = tmp_path / 'materials.yaml'
    table.write_text(TABLE)
    c, s = math.cos(angle), math.sin(angle)
    tilt = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])  # about +y: +x points downhill
    ramp = body(tmp_path, 'ramp', 'Ice', (2.0, 1.0, 0.1), 0, table)
    box = body(tmp_path, 'box', 'Rubber', (0.1, 0.1, 0.1), 1.0, table)
    world = World([(ramp, SimOptions(build=BuildOptions(ground_plane=False),
                                     initial_pose=Pose(tilt @ (0, 0, -0.05), tilt))),
                   (box, SimOptions(initial_pose=Pose(tilt @ (0, 0, 0.0502), tilt)))])
    assert world.mj.npair == 1 and world.mj.pair_friction[0, 0] == pytest.approx(0.3)
    data = world.data
    mujoco.mj_forward(world.mj, data)
    start = data.xpos[world.mj.body('box_1/box').id].copy()
    mujoco.mj_step(world.mj, data, int(round(1.0 / world.mj.opt.timestep)))
    return float((data.xpos[world.mj.body('box_1/box').id] - start) @ (tilt @ (1, 0, 0)))


def test_a_box_sticks_on_a_ramp_flatter_than_the_tables_friction(tmp_path):
    assert abs(slide_on_ramp(tmp_path, math.atan(0.25))) < 0.002  # 0.25 < 0.3


def test_a_box_slides_down_a_ramp_steeper_than_the_tables_friction(tmp_path):
    angle = math.atan(0.4)  # 0.4 > 0.3: a = g (sin - 0.3 cos), 0.5 a t^2 = 0.45 m in 1 s
    expected = 0.5 * 9.81 * (math.sin(angle) - 0.3 * math.cos(angle))
    assert slide_on_ramp(tmp_path, angle) == pytest.approx(expected, rel=0.1)


def test_links_naming_materials_without_a_table_say_so_once(tmp_path):
    model = body(tmp_path, 'box', 'Rubber', (0.1, 0.1, 0.1), 1.0)
    hits = [w for w in model.warnings if 'material table' in w]
    assert len(hits) == 1 and 'Rubber' in hits[0]
    assert model.contacts == ()


@pytest.mark.corpus
def test_a_real_model_uses_choreonoids_own_table_found_above_it():
    # SR1's soles are material Sole, its other links Default; the table beside the model
    # (../shared/models/choreonoid/share/default/materials.yaml) gives Ground-Sole 1.0 and
    # Ground-Default 0.5.
    model = load_model(shared_model(SR1))
    assert model.contact_ground == 'Ground'
    soles = {c.link for c in model.contacts if c.material.name == 'Sole'}
    assert soles == {'LLEG_ANKLE_R', 'RLEG_ANKLE_R'}
    world = Simulation(model).world
    assert world.mj.npair == len(model.contacts)  # every collision shape with the floor
    for k in range(world.mj.npair):
        geom = world.mj.geom(int(world.mj.pair_geom2[k]))
        link = geom.name.split(':')[0]
        assert world.mj.pair_geom1[k] == world.mj.geom('ground_plane').id
        assert world.mj.pair_friction[k, 0] == pytest.approx(1.0 if link in soles else 0.5)


@pytest.mark.corpus
def test_the_material_table_parameter_replaces_the_one_found(tmp_path):
    table = tmp_path / 'mine.yaml'
    table.write_text('contact_materials:\n  - {materials: [Ground, Sole], friction: 0.05}\n')
    model = load_model(shared_model(SR1), str(table))
    assert [(p.first, p.second, p.friction) for p in model.contact_pairs] == \
        [('Ground', 'Sole', 0.05)]
    world = Simulation(model).world  # only the soles' shapes have a pair in this table
    assert world.mj.npair == sum(c.material.name == 'Sole' for c in model.contacts) > 0
    np.testing.assert_allclose(world.mj.pair_friction[:, 0], 0.05)


# --- Chrono SMC material properties ----------------------------------------------------------

def chrono_ball(tmp_path, mass, ground, ball, height):
    """A ball of radius 0.1 m, its lowest point ``height`` above a fixed ground plate; each
    material's (Young's modulus or None, restitution) as given, Poisson ratio 0.3, and SMC
    coefficients too (which Chrono's YAML-built systems do not use)."""
    def material(name, values):
        young, restitution = values
        properties = '' if young is None else \
            f'physical_properties: {{Young_modulus: {young}, Poisson_ratio: 0.3}}, '
        return (f'{{name: {name}, coefficient_of_friction: 0.5, '
                f'coefficient_of_restitution: {restitution}, {properties}'
                'coefficients: {normal_stiffness: 2e5, normal_damping: 40, '
                'tangential_stiffness: 2e5, tangential_damping: 20}}')
    path = tmp_path / 'ball.yaml'
    path.write_text(textwrap.dedent(f"""
        chrono-version: 10.0
        model:
          name: ball
          bodies:
            - name: ground
              location: [0, 0, 0]
              fixed: true
              contact:
                materials: [{material('plate', ground)}]
                shapes:
                  - {{type: BOX, material: plate, dimensions: [2, 2, 0.2], location: [0, 0, -0.1],
                     orientation: [0, 0, 0]}}
            - name: ball
              location: [0, 0, {0.1 + height}]
              mass: {mass}
              inertia: {{moments: [{0.004 * mass}, {0.004 * mass}, {0.004 * mass}]}}
              contact:
                materials: [{material('rubber', ball)}]
                shapes:
                  - {{type: SPHERE, material: rubber, radius: 0.1, location: [0, 0, 0]}}
    """))
    return load_model(path)


def hertz_bounce(mass, modulus, restitution, height, radius=0.2, dt=1e-6):
    """Chrono's default SMC contact (Hertz, from material properties), integrated here with
    gravity throughout: Sn = 2 E* sqrt(R d), force 2/3 Sn d - gn v (never pulling),
    gn = -2 sqrt(5/6) beta sqrt(Sn m), beta = ln e / sqrt(ln^2 e + pi^2). Returns the contact's
    duration [s] (while the force pushes) and the ratio of the speeds after and before it."""
    g, z, v = 9.81, height, 0.0
    v = -math.sqrt(2 * g * height)  # at the plate
    z = 0.0
    log = math.log(restitution)
    beta = log / math.sqrt(log * log + math.pi ** 2)
    v_in, t = v, 0.0
    while True:
        depth = max(-z, 0.0)
        sn = 2 * modulus * math.sqrt(radius * depth)
        force = max(0.0, 2.0 / 3.0 * sn * depth +
                    2 * math.sqrt(5.0 / 6.0) * beta * math.sqrt(sn * mass) * v)  # only pushes
        v += (-g + force / mass) * dt
        z += v * dt
        t += dt
        if z > 0 or (force == 0.0 and v > 0):
            return t, -v / v_in


def simulated_bounce(model, height):
    """The ball's first bounce: how long the plate pushes it [s], and the ratio of its
    speeds when the push ends and when it starts."""
    sim = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False, timestep=1e-4)))
    mj, data = sim.world.mj, sim.world.data
    force = np.zeros(6)
    v_in = t_in = None
    for _ in range(int(1.0 / mj.opt.timestep)):
        speed = data.qvel[2]  # before the step whose contact force is read
        mujoco.mj_step(mj, data)
        pushing = False
        for i in range(data.ncon):
            mujoco.mj_contactForce(mj, data, i, force)
            pushing = pushing or force[0] > 1e-9
        if v_in is None and pushing:
            v_in, t_in = speed, data.time - mj.opt.timestep
        elif v_in is not None and not pushing:
            return data.time - mj.opt.timestep - t_in, -speed / v_in
    raise AssertionError('the ball did not bounce')


#: E 1e7 and 3e7 Pa, Poisson ratio 0.3: E* = 1 / (0.91 / 1e7 + 0.91 / 3e7) [Pa].
MODULUS = 1.0 / (0.91 / 1e7 + 0.91 / 3e7)


@pytest.mark.parametrize('mass', [0.5, 2.0, 20.0])
def test_chrono_smc_material_properties_make_the_bounce_of_chronos_hertz_contact(tmp_path,
                                                                                 mass):
    """At Chrono's characteristic impact speed (1 m/s) the bounce lasts as long as Chrono's
    Hertz contact's and rebounds as much (Chrono's damping for the smaller restitution of the
    two materials, 0.3, rebounds about 0.39: its force never pulls)."""
    height = 1.0 / (2 * 9.81)  # 1 m/s at the plate
    model = chrono_ball(tmp_path, mass, (1e7, 0.5), (3e7, 0.3), height)
    duration, restitution = simulated_bounce(model, height)
    chrono_duration, chrono_restitution = hertz_bounce(mass, MODULUS, 0.3, height)
    assert duration == pytest.approx(chrono_duration, rel=0.08)
    assert restitution == pytest.approx(chrono_restitution, abs=0.03)


def test_hertz_solref_matches_the_duration_and_rebound_of_hertzs_contact():
    from body_bridge.sim.mechanics.contacts import hertz_solref
    from body_bridge.sim.mechanics.forces import contact_bounce
    timeconst, ratio = hertz_solref(1.1e7, 1.0, 1.0)  # no damping: a floor for MuJoCo
    assert 0 < ratio < 1e-3
    # Undamped Hertz at 1 m/s: 2.94 times the deepest penetration (2.05 mm) over the speed.
    depth = (15 / (16 * 1.1e7 * math.sqrt(0.2))) ** 0.4
    omega = 1 / (timeconst * ratio)
    assert math.pi / omega == pytest.approx(2.9432 * depth, rel=2e-3)
    timeconst, ratio = hertz_solref(1.1e7, 1.0, 0.3)
    assert contact_bounce(ratio)[1] == pytest.approx(0.397, abs=2e-3)


@pytest.mark.parametrize('restitution', [0.3, 0.6, 0.9])
def test_without_material_properties_a_ball_rebounds_with_the_restitution(tmp_path,
                                                                          restitution):
    height = 1.0 / (2 * 9.81)
    model = chrono_ball(tmp_path, 1.0, (None, restitution), (None, restitution), height)
    assert simulated_bounce(model, height)[1] == pytest.approx(restitution, abs=0.05)


def test_restitution_is_the_rebound_of_a_contact_that_only_pushes():
    from body_bridge.sim.mechanics.forces import contact_restitution, restitution_damping
    for restitution in (0.2, 0.6, 0.95):
        assert contact_restitution(restitution_damping(restitution)) == \
            pytest.approx(restitution)
    assert restitution_damping(0.05) == 1.0  # below exp(-2): critically damped


def test_the_smc_values_not_used_are_named_in_one_warning_per_material(tmp_path):
    model = chrono_ball(tmp_path, 1.0, (1e7, 0.5), (3e7, 0.3), 0.01)
    hits = [w for w in model.warnings if 'SMC contact values' in w]
    assert len(hits) == 2  # plate and rubber
    assert all('normal_stiffness, normal_damping, tangential_stiffness, tangential_damping '
               'are kept in the model but not used' in w for w in hits)
