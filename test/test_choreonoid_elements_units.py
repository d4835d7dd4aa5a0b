"""Choreonoid Body ``elements``: node types, nesting bounds, masses, warnings, mesh names."""

import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import choreonoid
from body_bridge.formats.choreonoid import elements, nodes
from body_bridge.model import Mesh

HEAD = 'format: ChoreonoidBody\nformat_version: 1.0\nangle_unit: radian\nlinks:\n  - name: a\n'


def body(tmp_path, elements_text, name='m.body'):
    """A one-link body whose ``elements`` (text at the link's indentation + 2) is given."""
    path = tmp_path / name
    path.write_text(HEAD + '    elements:\n' + textwrap.indent(
        textwrap.dedent(elements_text).strip('\n'), '      ') + '\n')
    return path


def refused(path) -> ModelError:
    with pytest.raises(ModelError) as caught:
        choreonoid.load(path)
    assert caught.value.path == str(path) and '\n' not in str(caught.value)
    return caught.value


def warnings(model) -> list[str]:
    return [w.split(': ', 1)[1] for w in model.warnings]


BOX = 'Shape: { geometry: { type: Box, size: [1, 1, 1] } }'


def test_an_element_without_type_names_its_line(tmp_path):
    path = body(tmp_path, f"""
        - {{ type: Shape, geometry: {{ type: Box, size: [1, 1, 1] }} }}
        - {{ name: nothing }}
        """)
    err = refused(path)
    assert (err.line, err.message) == (8, 'an element has no type')


def test_a_type_differing_from_its_mapping_key_is_refused(tmp_path):
    path = body(tmp_path, """
        Shape: { type: Transform, geometry: { type: Box, size: [1, 1, 1] } }
        """)
    err = refused(path)
    assert err.line == 7
    assert err.message == "node type 'Transform' differs from 'Shape' given above it"
    model = choreonoid.load(body(tmp_path, """
        Shape: { type: Shape, geometry: { type: Box, size: [1, 1, 1] } }
        """, 'same.body'))
    assert len(model.link('a').visuals) == 1


def nested(levels: int) -> str:
    text = BOX
    for _ in range(levels):
        text = f'Transform: {{ elements: {{ {text} }} }}'
    return text


def test_nesting_of_elements_is_bounded():
    assert elements.MAX_DEPTH == 64


@pytest.mark.parametrize('levels', [elements.MAX_DEPTH, elements.MAX_DEPTH + 1])
def test_nesting_bound_is_exact(tmp_path, levels):
    path = body(tmp_path, nested(levels))
    if levels <= elements.MAX_DEPTH:
        assert len(choreonoid.load(path).link('a').visuals) == 1
    else:
        err = refused(path)
        assert err.message == 'elements are nested deeper than 64 levels' and err.line == 7


@pytest.mark.parametrize('form, count', [('list', 4), ('mapping', 7)])
def test_every_element_node_counts_towards_the_bound(tmp_path, monkeypatch, form, count):
    """Each node counts once, and so does a mapping of nodes (aliases can repeat either)."""
    shapes = [BOX.replace('Shape: {', '{ type: Shape,', 1)] * 4
    text = ('\n'.join(f'- {s}' for s in shapes) if form == 'list' else
            'Group:\n  elements:\n' + '\n'.join(f'    - {s}' for s in shapes[:2]) +
            '\nTransform:\n  elements: { ' + BOX + ' }')
    monkeypatch.setattr(nodes, 'MAX_ELEMENTS', count - 1)
    err = refused(body(tmp_path, text))
    assert err.message.startswith(f'more than {count - 1} element nodes to read')
    monkeypatch.setattr(nodes, 'MAX_ELEMENTS', count)
    model = choreonoid.load(body(tmp_path, text, 'fits.body'))
    assert len(model.link('a').visuals) == (4 if form == 'list' else 3)


@pytest.mark.parametrize('asymmetry, warned', [(1.5e-9, True), (0.5e-9, False), (0.0, False)])
def test_an_asymmetric_inertia_is_warned_and_made_symmetric(tmp_path, asymmetry, warned):
    """The bound is 1e-9 of the largest term, and at least 1e-9 kg m^2."""
    path = body(tmp_path, f"""
        RigidBody:
          mass: 1.0
          inertia: [0.01, 0.001, 0, {0.001 + asymmetry!r}, 0.02, 0, 0, 0, 0.03]
        """)
    model = choreonoid.load(path)
    said = [w for w in warnings(model) if 'not symmetric' in w]
    assert said == (['inertia is not symmetric; its symmetric part is used'] if warned else [])
    inertia = model.link('a').inertial.inertia
    np.testing.assert_allclose(inertia, inertia.T, rtol=0, atol=1e-15)
    assert inertia[0, 1] == pytest.approx(0.001 + asymmetry / 2, rel=0, abs=1e-15)


def test_a_large_inertia_is_judged_relative_to_its_largest_term(tmp_path):
    path = body(tmp_path, """
        RigidBody: { mass: 1.0, inertia: [100, 1, 0, 1.00000045, 200, 0, 0, 0, 300] }
        """)
    assert any('not symmetric' in w for w in warnings(choreonoid.load(path)))
    path = body(tmp_path, """
        RigidBody: { mass: 1.0, inertia: [100, 1, 0, 1.00000015, 200, 0, 0, 0, 300] }
        """, 'close.body')
    assert not any('not symmetric' in w for w in warnings(choreonoid.load(path)))


def test_rigid_body_mass_of_zero_is_kept_and_a_negative_one_refused(tmp_path):
    model = choreonoid.load(body(tmp_path, """
        - { type: RigidBody, mass: 0, center_of_mass: [0, 0, 1] }
        - { type: RigidBody, mass: 2.0, center_of_mass: [0, 0, 0.5] }
        """))
    assert model.link('a').inertial.mass == pytest.approx(2.0)
    assert not model.warnings
    err = refused(body(tmp_path, 'RigidBody: { mass: -1 }', 'neg.body'))
    assert (err.line, err.message) == (7, 'mass must not be negative, found -1')


@pytest.mark.parametrize('elements_text, line, message', [
    ('- { type: Shape, geometry: { type: Box, size: [1, 1, 1] } }\n-\n  5', 9,
     'expected a mapping, found int 5'),
    (f'{BOX}\nTransform:\n  7', 8, 'expected a mapping, found int 7'),
    ('- type: Shape\n  appearance: {}\n  geometry: 7', 9, 'expected a mapping, found int 7'),
    ('- type: Visual\n  name: v\n  shape: 3', 9, 'expected a mapping, found int 3'),
    ('- type: Collision\n  name: c\n  resource: 2', 9, 'expected a mapping, found int 2'),
    ('- type: Transform\n  name: t\n  elements: 4', 9,
     'elements must be a list or a mapping, found int 4'),
    ('- type: RigidBody\n  name: r\n  mass: -1', 9, 'mass must not be negative, found -1'),
    ('- type: RigidBody\n  name: r\n  inertia: [1, 2]', 9,
     'inertia must have 6 or 9 numbers, found 2'),
])
def test_an_error_about_a_value_names_its_own_line(tmp_path, elements_text, line, message):
    err = refused(body(tmp_path, elements_text))
    assert (err.line, err.message) == (line, message)


def test_a_scalar_for_a_link_s_elements_names_its_line(tmp_path):
    path = tmp_path / 'm.body'
    path.write_text(HEAD + '    mass: 1\n    elements: 5\n')
    err = refused(path)
    assert (err.line, err.message) == (7, 'elements must be a list or a mapping, found int 5')


def test_unused_keys_of_a_rigid_body_are_warned(tmp_path):
    model = choreonoid.load(body(tmp_path, 'RigidBody: { mass: 1.0, density: 3 }'))
    assert warnings(model) == ["RigidBody: key 'density' is not supported and was ignored"]


def test_named_nodes_and_skip_nodes_are_read_without_warnings(tmp_path):
    model = choreonoid.load(body(tmp_path, """
        - { type: Transform, name: frame, translation: [0, 0, 1], elements: [ { type: Shape,
            name: box, geometry: { type: Box, size: [1, 1, 1] } } ] }
        - { type: Skip, name: old, geometry: 3, anything: [1, 2] }
        - { type: Group, name: g }
        """))
    assert warnings(model) == []
    (shape,) = model.link('a').visuals
    np.testing.assert_allclose(shape.pose.pos, (0, 0, 1))


def test_scene_only_and_optional_nodes_are_skipped_with_a_warning(tmp_path):
    model = choreonoid.load(body(tmp_path, """
        - { type: DirectionalLight, direction: [0, 0, -1] }
        - { type: Hologram, is_optional: true }
        """))
    assert warnings(model) == [
        'DirectionalLight is a scene-only node with no meaning for a robot model; it was '
        'ignored',
        'Hologram nodes are not supported; this one is optional (is_optional: true) and was '
        'skipped, as Choreonoid does']


STL = """solid t
facet normal 0 0 1
outer loop
vertex 0 0 0
vertex 1 0 0
vertex 0 1 0
endloop
endfacet
endsolid t
"""


@pytest.mark.parametrize('uri, name', [
    ('parts/Arm Part.v2.stl', 'a_arm_part_v2'),
    ('parts/wheel-left_2.stl', 'a_wheel-left_2'),
])
def test_mesh_resources_are_named_after_link_and_file(tmp_path, uri, name):
    (tmp_path / 'parts').mkdir(exist_ok=True)
    (tmp_path / uri).write_text(STL)
    model = choreonoid.load(body(tmp_path, f"""
        - {{ type: Resource, uri: "{uri}" }}
        - {{ type: Visual, resource: {{ uri: "{uri}" }} }}
        """))
    both, visual_only = model.link('a').visuals
    assert isinstance(both.geometry, Mesh) and both.geometry.name == name
    assert visual_only.geometry.name == name
    assert [s.geometry.name for s in model.link('a').collisions] == [name]


def test_shapes_under_a_device_sit_in_the_device_s_frame(tmp_path):
    model = choreonoid.load(body(tmp_path, """
        - type: ForceSensor
          name: FS
          translation: [0, 0, 1]
          elements: { Shape: { geometry: { type: Box, size: [0.1, 0.1, 0.1] } } }
        """))
    (visual,) = model.link('a').visuals
    np.testing.assert_allclose(visual.pose.pos, [0, 0, 1])
    assert len(model.link('a').collisions) == 1 and [d.name for d in model.devices] == ['FS']


def test_a_shape_without_geometry_is_warned_and_one_without_type_refused(tmp_path):
    model = choreonoid.load(body(tmp_path, '- { type: Shape }\n'))
    assert model.link('a').visuals == () and model.link('a').collisions == ()
    assert warnings(model) == ['Shape has no geometry; it was ignored']
    err = refused(body(tmp_path, '- { type: Shape, geometry: { size: [1, 1, 1] } }\n', 'n.body'))
    assert (err.line, err.message) == (7, 'geometry has no type')


def test_a_yaml_resource_that_includes_itself_is_one_error(tmp_path):
    (tmp_path / 'loop.yaml').write_text('{ type: Resource, uri: loop.yaml }\n')
    with pytest.raises(ModelError) as caught:
        choreonoid.load(body(tmp_path, '- { type: Resource, uri: loop.yaml }\n'))
    err = caught.value  # at the resource file's own line, never a RecursionError
    assert err.path == str(tmp_path / 'loop.yaml') and err.line == 1
    assert err.message == f'elements are nested deeper than {elements.MAX_DEPTH} levels'
