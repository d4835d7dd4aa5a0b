"""sim/sensing/appearance.py: colours, textures and lighting values as MuJoCo's renderer gets them."""

import numpy as np
import pytest
from PIL import Image

from body_bridge.model import Box, Link, Material, Mesh, Model, Shape
from body_bridge.sim.sensing.appearance import emission_scale
from body_bridge.sim.building.build import BuildOptions, build_spec


@pytest.mark.parametrize('emission, diffuse, scale', [
    ((1, 0, 0), (1, 1, 1), 0.2126),  # Rec. 709 luminance of each primary over white
    ((0, 1, 0), (1, 1, 1), 0.7152),
    ((0, 0, 1), (1, 1, 1), 0.0722),
    ((0.5, 0.5, 0.5, 1.0), (1, 1, 1, 0.3), 0.5),  # alphas are no colour
    ((0.5, 0.5, 0.5), (2, 2, 2), 0.5),  # colours beyond 1 count as 1
    ((0, 0, 0), (0, 0, 0), 0.0),  # nothing glows: no emission, even on black
    ((0.2, 0.2, 0.2), (0, 0, 0), 1.0),  # a glow on black: all of it
])
def test_emission_is_a_luminance_ratio(emission, diffuse, scale):
    assert emission_scale(emission, diffuse) == pytest.approx(scale)


@pytest.fixture
def compiled(tmp_path):
    texture = tmp_path / 'wood.png'
    Image.new('RGB', (2, 2), (120, 80, 40)).save(texture)
    wood = Material(rgba=(0.3, 0.2, 0.1, 0.6), texture=str(texture))
    glossy = Material(rgba=(0.2, 0.4, 0.6, 1.0), specular=(1.5, 1.5, 1.5), shininess=1.5)
    cube = Mesh(np.array([[x, y, z] for x in (0, 0.1) for y in (0, 0.1) for z in (0, 0.1)],
                         float),
                np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
                          [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]]),
                'cube')  # no texture coordinates: MuJoCo maps the image itself
    solid = Material(rgba=(0.3, 0.2, 0.1, 1.0), texture=str(texture))  # another material
    shapes = (Shape(Box((0.1, 0.1, 0.1)), material=wood), Shape(cube, material=wood),
              Shape(Box((0.2, 0.1, 0.1)), material=glossy), Shape(Box((0.1, 0.2, 0.1)),
                                                                 material=solid))
    model = Model('looks', (Link('base', visuals=shapes),), (), 'base')
    return build_spec(model, BuildOptions(ground_plane=False)).compile()


def test_a_texture_replaces_the_diffuse_colour_and_keeps_the_alpha(compiled):
    mj = compiled
    assert mj.ntex == 1  # one image, however many shapes show it
    for g in (0, 1):
        np.testing.assert_allclose(mj.geom_rgba[g], [1, 1, 1, 0.6], rtol=1e-6)
        np.testing.assert_allclose(mj.mat_rgba[mj.geom_matid[g]], [1, 1, 1, 0.6], rtol=1e-6)
    assert mj.geom_matid[0] == mj.geom_matid[1]  # one material for both
    assert mj.geom_matid[3] != mj.geom_matid[0] and mj.nmat == 3


def test_specular_and_shininess_beyond_one_are_one(compiled):
    mj = compiled
    material = mj.geom_matid[2]
    assert (mj.mat_specular[material], mj.mat_shininess[material]) == (1.0, 1.0)
    np.testing.assert_allclose(mj.mat_rgba[material], [0.2, 0.4, 0.6, 1.0], rtol=1e-6)
