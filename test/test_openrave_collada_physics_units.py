"""COLLADA meshes, materials and rigid bodies (body_bridge.formats.openrave.collada_physics)
on variants of the hand-written robot of ``test_openrave_collada``: every primitive kind's
triangles, colours and transparency of an effect, negative masses as one line."""

from __future__ import annotations

import numpy as np
import pytest
from test_openrave_collada import DAE, dae_variant

from body_bridge.errors import ModelError
from body_bridge.formats import load_model

VERTEX = '<input semantic="VERTEX" source="#verts" offset="0"/>'
TRIANGLES = (f'<triangles count="4" material="m">{VERTEX}\n'
             '   <p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles>')


def variant(tmp_path, *replacements):
    return load_model(dae_variant(tmp_path, *replacements))


@pytest.mark.parametrize('primitive, faces', [
    (f'<tristrips count="1">{VERTEX}<p>0 1 2 3</p></tristrips>', [[0, 1, 2], [2, 1, 3]]),
    # every second triangle of a strip turned round to keep the winding
    (f'<tristrips count="1">{VERTEX}<p>0 1 2 3 0 1</p></tristrips>',
     [[0, 1, 2], [2, 1, 3], [2, 3, 0], [0, 3, 1]]),
    (f'<trifans count="1">{VERTEX}<p>0 1 2 3</p></trifans>', [[0, 1, 2], [0, 2, 3]]),
    (f'<polylist count="2">{VERTEX}<vcount>3 4</vcount><p>2 1 0 0 1 2 3</p></polylist>',
     [[2, 1, 0], [0, 1, 2], [0, 2, 3]]),
    (f'<polygons count="2">{VERTEX}<p>0 1 2 3</p><p>3 2 1</p><p>0 1</p></polygons>',
     [[0, 1, 2], [0, 2, 3], [3, 2, 1]]),
])
def test_every_primitive_kind_makes_its_triangles(tmp_path, primitive, faces):
    model = variant(tmp_path, (TRIANGLES, primitive))
    [visual] = model.link('base').visuals
    np.testing.assert_array_equal(visual.geometry.faces, faces)
    assert len(visual.geometry.vertices) == 4


def test_lines_are_not_surfaces(tmp_path):
    model = variant(tmp_path, (TRIANGLES, TRIANGLES + f'<lines count="1">{VERTEX}<p>0 1</p>'
                                                      '</lines>'))
    assert sum('<lines> in a mesh are not surfaces; ignored' in w for w in model.warnings) == 1


EFFECTS = ''' <library_effects><effect id="fx"><profile_COMMON><technique sid="t">
  <{shading}><diffuse><color>2 0.5 -1 1</color></diffuse>
  <transparency><float>{opacity}</float></transparency></{shading}>
 </technique></profile_COMMON></effect></library_effects>
 <library_materials><material id="mat"><instance_effect url="#fx"/></material>
 </library_materials>
 <library_geometries>'''
BOUND = ('<instance_geometry url="#box"><bind_material><technique_common>'
         '<instance_material symbol="m" target="#mat"/></technique_common></bind_material>'
         '</instance_geometry>')


@pytest.mark.parametrize('shading, opacity, rgba', [
    ('lambert', '0.25', (1.0, 0.5, 0.0, 0.25)),
    ('phong', '0.25', (1.0, 0.5, 0.0, 0.25)),
    ('blinn', '0', (1.0, 0.5, 0.0, 1.0)),      # fully transparent: OpenRAVE draws it opaque
    ('constant', '1', (1.0, 0.5, 0.0, 1.0)),
])
def test_an_effects_colour_and_transparency(tmp_path, shading, opacity, rgba):
    model = variant(tmp_path, (' <library_geometries>',
                               EFFECTS.format(shading=shading, opacity=opacity)),
                    ('<instance_geometry url="#box"/>', BOUND))
    [visual] = model.link('base').visuals
    assert visual.material.rgba == pytest.approx(rgba)


def test_the_mass_frame_turns_the_inertia_and_negative_masses_are_refused(tmp_path):
    model = load_model(_write(tmp_path, DAE))
    link2 = model.link('link2')
    # principal moments 0.01 0.02 0.03 about the mass frame, turned 90 deg about z in the
    # world: about the world's x the second moment, about its y the first
    world = link2.pose.rot @ link2.inertial.inertia @ link2.pose.rot.T
    np.testing.assert_allclose(world, np.diag([0.02, 0.01, 0.03]), atol=1e-12)
    # turned about x too, in the mass frame: Rz(90) Rx(90) takes x, y, z to y, z, x
    model = variant(tmp_path, ('<rotate>0 0 1 90</rotate></mass_frame>',
                               '<rotate>0 0 1 90</rotate><rotate>1 0 0 90</rotate></mass_frame>'))
    link2 = model.link('link2')
    world = link2.pose.rot @ link2.inertial.inertia @ link2.pose.rot.T
    np.testing.assert_allclose(world, np.diag([0.03, 0.01, 0.02]), atol=1e-12)
    for old, new in (('<mass>2</mass>', '<mass>-2</mass>'),
                     ('<inertia>0.01 0.02 0.03</inertia>', '<inertia>0.01 -0.02 0.03</inertia>')):
        with pytest.raises(ModelError) as info:
            variant(tmp_path, (old, new))
        assert str(info.value).endswith(": rigid body '': a negative mass or inertia")
    model = variant(tmp_path, ('<mass>2</mass>', '<mass>0</mass>'),
                    ('<inertia>0.01 0.02 0.03</inertia>', '<inertia>0 0 0</inertia>'))
    assert model.link('link2').inertial.mass == 0.0


def test_an_instance_node_cycle_leaves_each_node_where_it_first_is(tmp_path):
    # link2's node instantiates the root node again: each node keeps the frame of its first
    # visit, so the body stands as without the cycle (link1 0.5 m up, turned 90 deg about z)
    model = variant(tmp_path, ('<rotate sid="j2_axis">0 0 1 0</rotate>',
                               '<rotate sid="j2_axis">0 0 1 0</rotate><instance_node url="#n0"/>'))
    np.testing.assert_allclose(model.link('base').pose.pos, (0, 0, 0), atol=1e-12)
    for name in ('link1', 'link2'):
        pose = model.link(name).pose
        np.testing.assert_allclose(pose.pos, (0, 0, 0.5), atol=1e-12)
        np.testing.assert_allclose(pose.rot, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)
    [visual] = model.link('link1').visuals
    np.testing.assert_allclose(visual.pose.pos, (0, 0, 0), atol=1e-12)
    assert model.link('link2').visuals == ()


def test_a_colour_of_three_numbers_without_transparency_is_opaque(tmp_path):
    effects = EFFECTS.format(shading='phong', opacity='1').replace(
        '<color>2 0.5 -1 1</color>', '<color>0.2 0.4 0.6</color>').replace(
        '<transparency><float>1</float></transparency>', '')
    model = variant(tmp_path, (' <library_geometries>', effects),
                    ('<instance_geometry url="#box"/>', BOUND))
    [visual] = model.link('base').visuals
    assert visual.material.rgba == pytest.approx((0.2, 0.4, 0.6, 1.0))


def test_a_rigid_body_without_a_mass_frame_or_a_mass(tmp_path):
    # without <mass_frame> the mass sits at the parent node's origin (n0: the world's), link2
    # being 0.5 m up: its centre 0.5 m below link2's origin, the moments along n0's axes
    model = variant(tmp_path, ('<mass_frame><translate>0 0.1 0.5</translate><rotate>0 0 1 90'
                               '</rotate></mass_frame>', ''))
    link2 = model.link('link2')
    np.testing.assert_allclose(link2.pose.apply(link2.inertial.com), (0, 0, 0), atol=1e-12)
    world = link2.pose.rot @ link2.inertial.inertia @ link2.pose.rot.T
    np.testing.assert_allclose(world, np.diag([0.01, 0.02, 0.03]), atol=1e-12)
    # without <mass> the link keeps OpenRAVE's default, and <dynamic> still holds
    model = variant(tmp_path, ('<mass>2</mass>', ''),
                    ('<dynamic>true</dynamic>', '<dynamic>false</dynamic>'))
    assert model.link('link2').inertial.mass == pytest.approx(1e-10)
    assert any("link 'link2' is static but its body moves" in w for w in model.warnings)


def _write(folder, text):
    path = folder / 'plain.dae'
    path.write_text(text)
    return path
