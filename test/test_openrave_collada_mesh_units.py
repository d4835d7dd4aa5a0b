"""How a COLLADA mesh is read (body_bridge.formats.openrave.collada_physics) on variants of the
hand-written robot of ``test_openrave_collada``: interleaved inputs, position strides, the
document's unit, geometry that is hidden or not a mesh, the triangle budget, and a broken
mesh as one line; each vertex known from the file."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_openrave_collada import dae_variant

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formats.openrave import collada, collada_physics

VERTEX = '<input semantic="VERTEX" source="#verts" offset="0"/>'
P = '<p>0 2 1 0 1 3 0 3 2 1 2 3</p>'
FACES = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
#: the tetrahedron's corners as the file gives them [m]
CORNERS = [[0, 0, 0], [0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]


def write(tmp_path, *replacements, name='mesh.dae'):
    return dae_variant(tmp_path, *replacements, name=name)


def variant(tmp_path, *replacements):
    return load_model(write(tmp_path, *replacements))


def base_mesh(model):
    [visual] = model.link('base').visuals
    return visual.geometry


def refused(tmp_path, message, *replacements):
    path = write(tmp_path, *replacements)
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value).startswith(f'{path}:') and str(info.value).endswith(message), \
        str(info.value)


@pytest.mark.parametrize('inputs, p', [
    # a NORMAL after the VERTEX: every second index is the normal's
    (VERTEX + '<input semantic="NORMAL" source="#pos" offset="1"/>',
     '<p>0 9 2 9 1 9 0 9 1 9 3 9 0 9 3 9 2 9 1 9 2 9 3 9</p>'),
    # the VERTEX second, after a texture coordinate at offset 0 and a colour sharing it
    ('<input semantic="TEXCOORD" source="#pos" offset="0"/>'
     '<input semantic="COLOR" source="#pos" offset="0"/>'
     '<input semantic="VERTEX" source="#verts" offset="1"/>',
     '<p>7 0 7 2 7 1 7 0 7 1 7 3 7 0 7 3 7 2 7 1 7 2 7 3</p>'),
])
def test_interleaved_inputs_take_the_vertex_indices(tmp_path, inputs, p):
    mesh = base_mesh(variant(tmp_path, (VERTEX, inputs), (P, p)))
    np.testing.assert_array_equal(mesh.faces, FACES)
    np.testing.assert_allclose(mesh.vertices, CORNERS, atol=0)


def test_positions_with_a_fourth_coordinate_keep_three(tmp_path):
    mesh = base_mesh(variant(
        tmp_path,
        ('count="12">0 0 0 0.1 0 0 0 0.1 0 0 0 0.1</float_array>',
         'count="16">0 0 0 5 0.1 0 0 5 0 0.1 0 5 0 0 0.1 5 9</float_array>'),
        ('count="4" stride="3"', 'count="4" stride="4"')))
    np.testing.assert_allclose(mesh.vertices, CORNERS, atol=0)


def test_the_documents_unit_scales_the_mesh_and_the_frames(tmp_path):
    # 1 unit = 0.5 m: the tetrahedron half the size, link1 0.25 m up, its shape at its origin
    model = variant(tmp_path, ('<unit meter="1"/>', '<unit meter="0.5"/>'))
    np.testing.assert_allclose(base_mesh(model).vertices, np.array(CORNERS) * 0.5, atol=1e-15)
    np.testing.assert_allclose(model.link('link1').pose.pos, (0, 0, 0.25), atol=1e-12)
    [visual] = model.link('link1').visuals
    np.testing.assert_allclose(visual.pose.pos, (0, 0, 0), atol=1e-12)


@pytest.mark.parametrize('visible, drawn', [('0', False), ('1', True), ('0.5', True)])
def test_a_geometry_marked_invisible_still_collides(tmp_path, visible, drawn):
    model = variant(tmp_path, ('</mesh></geometry>',
                               '</mesh><extra type="geometry_info"><technique profile="OpenRAVE">'
                               f'<visible>{visible}</visible></technique></extra></geometry>'))
    assert len(model.link('base').visuals) == (1 if drawn else 0)
    assert len(model.link('base').collisions) == 1


def test_a_geometry_that_is_not_a_mesh_is_warned_about(tmp_path):
    path = write(tmp_path, ('</library_geometries>',
                            '<geometry id="curve"><spline/></geometry></library_geometries>'),
                 ('<instance_geometry url="#box"/>\n    <node id="n1"',
                  '<instance_geometry url="#box"/><instance_geometry url="#curve"/>\n'
                  '    <node id="n1"'))
    model = load_model(path)
    assert len(model.link('base').visuals) == 1
    assert sum("geometry '#curve' is not a <mesh>; ignored" in w for w in model.warnings) == 1


@pytest.mark.parametrize('budget, refused_at', [(8, None), (7, 7)])
def test_the_documents_triangles_are_counted_together(tmp_path, monkeypatch, budget,
                                                      refused_at):
    # two shapes of 4 triangles each: 8 fit a budget of 8, not one of 7
    monkeypatch.setattr(collada, 'MAX_TRIANGLES', budget)
    monkeypatch.setattr(collada_physics, 'MAX_TRIANGLES', budget)
    path = write(tmp_path)
    if refused_at is None:
        model = load_model(path)
        assert len(model.link('base').visuals) + len(model.link('link1').visuals) == 2
        return
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == f'{path}:24: more than {refused_at} triangles'


def test_a_primitive_without_indices_or_counts_makes_nothing(tmp_path):
    model = variant(tmp_path, (P, ''))
    assert model.link('base').visuals == ()
    model = variant(tmp_path, ('<triangles count="4" material="m">', '<polylist count="1">'),
                    ('</p></triangles>', '</p></polylist>'))
    assert model.link('base').visuals == ()


@pytest.mark.parametrize('replacements, message', [
    ((('<float_array id="pa" count="12">0 0 0 0.1 0 0 0 0.1 0 0 0 0.1</float_array>', ''),),
     ': a mesh source without <float_array>'),
    ((('0 0 0 0.1 0 0 0 0.1 0 0', '0 0 0 0.1 0 0 0 inf 0 0'),),
     ': <float_array> holds a number that is not finite'),
    ((('count="4" stride="3"', 'count="4" stride="2"'),),
     ': positions need three coordinates each'),
    (((VERTEX, '<input semantic="NORMAL" source="#pos" offset="0"/>'),),
     ': <triangles> has no VERTEX input with POSITION'),
    ((('<input semantic="POSITION" source="#pos"/>',
       '<input semantic="NORMAL" source="#pos"/>'),),
     ': <triangles> has no VERTEX input with POSITION'),
    (((P, '<p>0 2 1 0 1 3 0 3 2 1 2 x</p>'),), ': <p> holds something that is not an index'),
    (((P, '<p>0 2 1 0 1 3 0 3 2 1 2 -1</p>'),),
     ': <triangles> indexes a position that does not exist'),
    (((P, '<p>0 2 1 0 1 3 0 3 2 1 2 4</p>'),),
     ': <triangles> indexes a position that does not exist'),
])
def test_a_broken_mesh_is_one_line(tmp_path, replacements, message):
    refused(tmp_path, message, *replacements)


def test_a_child_node_of_no_link_draws_on_its_links(tmp_path):
    # a node below the base's node that no joint moves: its shape belongs to the base, placed
    # by the child's own transform
    model = variant(tmp_path, ('<instance_geometry url="#box"/>\n    <node id="n1"',
                               '<instance_geometry url="#box"/><node id="part"><translate>0.2 0 0'
                               '</translate><rotate>0 0 1 90</rotate>'
                               '<instance_geometry url="#box"/></node>\n    <node id="n1"'))
    visuals = model.link('base').visuals
    assert len(visuals) == 2 and len(model.link('link1').visuals) == 1
    np.testing.assert_allclose(visuals[1].pose.pos, (0.2, 0, 0), atol=1e-12)
    np.testing.assert_allclose(visuals[1].pose.rot, [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
                               atol=1e-12)


def chain(levels: int) -> tuple[tuple[str, str], ...]:
    """The base's node instantiating a chain of ``levels`` library nodes, each 1 cm above the
    one before, the last holding a shape."""
    nodes = ''.join(f'<node id="c{i}"><translate>0 0 0.01</translate>'
                    f'<instance_node url="#c{i + 1}"/></node>' for i in range(1, levels))
    nodes += (f'<node id="c{levels}"><translate>0 0 0.01</translate>'
              '<instance_geometry url="#box"/></node>')
    return (('<instance_geometry url="#box"/>\n    <node id="n1"',
             '<instance_geometry url="#box"/><instance_node url="#c1"/>\n    <node id="n1"'),
            (' <library_geometries>', f' <library_nodes>{nodes}</library_nodes>\n'
                                      ' <library_geometries>'))


@pytest.mark.parametrize('levels', [3, 199])
def test_instance_node_chains_are_followed_200_levels_deep(tmp_path, levels):
    # the scene's top node is level 0, the base's node 1, the chain's nodes 2, 3, ...
    visuals = variant(tmp_path, *chain(levels)).link('base').visuals
    assert len(visuals) == 2
    np.testing.assert_allclose(visuals[1].pose.pos, (0, 0, 0.01 * levels), atol=1e-9)


def test_a_chain_deeper_than_200_levels_is_one_line(tmp_path):
    assert collada_physics.MAX_NODE_DEPTH == 200
    path = write(tmp_path, *chain(200))
    line = 1 + next(i for i, text in enumerate(path.read_text().splitlines())
                    if '<library_nodes>' in text)
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == f'{path}:{line}: visual scene nodes are nested deeper than 200 levels'


def numpy1_fromstring(text, dtype, sep):
    """numpy 1's ``fromstring`` (Ubuntu 22.04 and 24.04 ship 1.21 and 1.26): the numbers up
    to the first word that is not one, and a DeprecationWarning (the numpy 2.4 of this
    venv raises a ValueError instead)."""
    assert sep == ' '
    read = []
    for word in text.split():
        try:
            read.append(dtype(word))
        except ValueError:
            warnings.warn('string or file could not be read to its end', DeprecationWarning)
            break
    return np.array(read, dtype=dtype)


@pytest.mark.parametrize('old, new, message', [
    ('0 0 0 0.1 0 0 0 0.1 0 0', '0 0 0 0.1 0 0 0 0.1 0 x',
     '<float_array> holds something that is not a number'),
    (P, '<p>0 2 1 0 1 3 0 3 2 x 2 3</p>', '<p> holds something that is not an index'),
])
def test_with_numpy_1_a_word_that_is_no_number_is_still_one_line(tmp_path, monkeypatch, old,
                                                                 new, message):
    # outside the tests a DeprecationWarning is no error: the reader makes it one
    monkeypatch.setattr(np, 'fromstring', numpy1_fromstring)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        refused(tmp_path, ': ' + message, (old, new))
    model = variant(tmp_path)       # the fake reads numbers as numpy does
    np.testing.assert_allclose(base_mesh(model).vertices, CORNERS, atol=0)
