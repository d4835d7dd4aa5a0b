"""Contact materials reach the integrator: Chrono's minimum rule, Choreonoid's material table."""

import math
import textwrap

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.build import BuildOptions, build_spec
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
    from body_bridge.sim.options import SimOptions
    from body_bridge.sim.world import World
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
