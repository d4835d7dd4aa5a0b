"""Contact materials reach the integrator: Chrono's minimum rule, Choreonoid's material table."""

import math
import textwrap

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.build import BuildOptions, build_spec


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
