"""Material lighting values reach the integrator's renderer (sim/sensing/appearance.py)."""

import math
import textwrap

import mujoco
import numpy as np
import pytest

from body_bridge.formats import load_model
from body_bridge.sim.sensing.appearance import emission_scale
from body_bridge.sim.building.build import build_spec
from body_bridge.sim.sensing.sensors import spot_cone


def shiny_box(tmp_path, material: str):
    path = tmp_path / 'box.body'
    path.write_text(textwrap.dedent(f"""
        format: ChoreonoidBody
        format_version: 2.0
        name: box
        links:
          - name: base
            joint_type: fixed
            mass: 1.0
            inertia: [ 0.1, 0, 0, 0.1, 0, 0.1 ]
            elements:
              - type: Shape
                geometry: {{ type: Box, size: [ 0.2, 0.2, 0.2 ] }}
                appearance:
                  material: {material}
    """))
    return load_model(path)


def compiled_material(model):
    mj = build_spec(model).compile()
    geom = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_GEOM, 'base:0')
    if geom < 0:  # geoms are unnamed: the box is the body's only geom
        geom = int(np.flatnonzero(mj.geom_bodyid == mj.body('base').id)[0])
    return mj, geom, int(mj.geom_matid[geom])


def test_choreonoid_material_lighting_reaches_the_renderer(tmp_path):
    model = shiny_box(tmp_path, '{ diffuse: [ 0.5, 0.5, 0.5 ], emissive: [ 0.25, 0.25, 0.25 ], '
                                'specular: [ 0.2, 0.4, 0.6 ], shininess: 0.7, '
                                'transparency: 0.25, ambient: 0.3 }')
    assert not [w for w in model.warnings if 'material' in w]  # every key is read
    material = model.link('base').visuals[0].material
    assert material.ambient == pytest.approx(0.3)
    mj, geom, mat = compiled_material(model)
    assert mat >= 0
    assert mj.mat_emission[mat] == pytest.approx(0.5)  # emissive luminance / diffuse's
    assert mj.mat_specular[mat] == pytest.approx(0.4)  # mean of the specular colour
    assert mj.mat_shininess[mat] == pytest.approx(0.7)
    np.testing.assert_allclose(mj.geom_rgba[geom], (0.5, 0.5, 0.5, 0.75), atol=1e-6)


def test_specular_exponent_is_shininess_times_128(tmp_path):
    model = shiny_box(tmp_path, '{ diffuse: [ 1, 0, 0 ], specular_exponent: 32 }')
    mj, _, mat = compiled_material(model)
    assert mj.mat_shininess[mat] == pytest.approx(0.25)


def test_a_plain_colour_needs_no_material(tmp_path):
    mj, geom, mat = compiled_material(shiny_box(tmp_path, '{ diffuse: [ 0, 1, 0 ] }'))
    assert mat == -1
    np.testing.assert_allclose(mj.geom_rgba[geom], (0, 1, 0, 1))


def test_emission_scale_is_a_luminance_ratio_at_most_one():
    assert emission_scale((0, 0, 0), (1, 1, 1)) == 0.0
    assert emission_scale((0.2, 0.2, 0.2), (0.4, 0.4, 0.4)) == pytest.approx(0.5)
    assert emission_scale((1, 1, 1), (0.1, 0.1, 0.1)) == 1.0
    assert emission_scale((1, 1, 1), (0, 0, 0)) == 1.0


def test_spot_light_cone_follows_beam_width_and_cut_off():
    # Choreonoid's defaults: a 90 degree beam inside a 45 degree cut-off lights evenly.
    cutoff, exponent = spot_cone({})
    assert cutoff == pytest.approx(45.0) and exponent == 0.0
    cutoff, exponent = spot_cone({'beam_width': math.radians(10), 'cut_off_angle':
                                  math.radians(30), 'cut_off_exponent': 4.0})
    assert cutoff == pytest.approx(30.0) and exponent == 4.0
