"""Choreonoid's contact material table: where it is found, its pairs, each link's values."""

from types import SimpleNamespace

import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.choreonoid.materials import (DEFAULT_MATERIAL, GROUND_MATERIAL,
                                                      find_table, link_contacts, read_table)
from body_bridge.model import ContactMaterial, ContactPair, ShapeContact


def test_the_table_nearest_above_the_model_is_found(tmp_path):
    model = tmp_path / 'a' / 'b' / 'robot.body'
    model.parent.mkdir(parents=True)
    assert find_table(str(model)) is None or not find_table(str(model)).startswith(str(tmp_path))
    share = tmp_path / 'share' / 'default' / 'materials.yaml'
    share.parent.mkdir(parents=True)
    share.write_text('contact_materials: []\n')
    assert find_table(str(model)) == str(share)
    near = tmp_path / 'a' / 'default' / 'materials.yaml'
    near.parent.mkdir(parents=True)
    near.write_text('contact_materials: []\n')
    assert find_table(str(model)) == str(near)
    beside = tmp_path / 'a' / 'b' / 'default' / 'materials.yaml'
    beside.parent.mkdir(parents=True)
    beside.write_text('contact_materials: []\n')
    assert find_table(str(model)) == str(beside)
    (tmp_path / 'a' / 'b' / 'share' / 'default').mkdir(parents=True)  # a folder, no file
    assert find_table(str(model)) == str(beside)


def test_no_table_anywhere_above_is_none(tmp_path):
    """Searching up to the file system's root ends (``/`` has no ``default/materials.yaml``)."""
    assert find_table('/robot.body') is None


def table(tmp_path, text):
    path = tmp_path / 'materials.yaml'
    path.write_text(text)
    said = []
    return read_table(str(path), said.append), [w.split(': ', 1)[1] for w in said], said


def test_pairs_with_their_defaults(tmp_path):
    pairs, said, _ = table(tmp_path, 'contact_materials:\n'
                           '  - { materials: [Default, Default], friction: 0.4, '
                           'restitution: 0.2 }\n'
                           '  - { materials: [Tire, Ground] }\n'
                           '  - { materials: [Ice, Ice], friction: 0, restitution: 1 }\n')
    assert pairs == (ContactPair('Default', 'Default', 0.4, 0.2),
                     ContactPair('Tire', 'Ground', 0.5, 0.0),
                     ContactPair('Ice', 'Ice', 0.0, 1.0))
    assert said == []


@pytest.mark.parametrize('entry, reason', [
    ('{ materials: [A] }', 'materials must name two materials'),
    ('{ materials: [A, B, C] }', 'materials must name two materials'),
    ('{ materials: [A, 3] }', 'materials must name two materials'),
    ('{ materials: A }', 'materials must name two materials'),
    ('5', 'materials must name two materials'),
    ('{ materials: [A, B], friction: -0.1 }', 'friction -0.1 or restitution 0 out of range'),
    ('{ materials: [A, B], friction: 1000000.0 }', 'friction 1e+06 or restitution 0 out of range'),
    ('{ materials: [A, B], restitution: -0.5 }', 'friction 0.5 or restitution -0.5 out of range'),
    ('{ materials: [A, B], restitution: 1.5 }', 'friction 0.5 or restitution 1.5 out of range'),
    ('{ materials: [A, B], friction: high }', "friction must be a number, not str 'high'"),
    ('{ materials: [A, B], friction: [1, 2] }', 'friction must be a number, not a list'),
    ('{ materials: [A, B], restitution: true }', 'restitution must be a number, not bool True'),
    ('{ materials: [A, B], restitution: { x: 1 } }',
     'restitution must be a number, not a mapping'),
])
def test_a_bad_entry_is_ignored_with_its_line(tmp_path, entry, reason):
    pairs, said, full = table(tmp_path, 'contact_materials:\n'
                              '  - { materials: [Default, Default], friction: 0.9 }\n'
                              f'  - {entry}\n')
    assert pairs == (ContactPair('Default', 'Default', 0.9, 0.0),)
    assert said == [f'contact material ignored: {reason}']
    assert full[0].startswith(f"{tmp_path / 'materials.yaml'}:")
    if entry != '5':
        assert full[0].split(': ', 1)[0].endswith(':3')


def test_a_quoted_number_is_a_number(tmp_path):
    pairs, said, _ = table(tmp_path, 'contact_materials:\n'
                           '  - { materials: [A, B], friction: "0.25", restitution: \'0.5\' }\n')
    assert pairs == (ContactPair('A', 'B', 0.25, 0.5),) and said == []


def test_the_largest_friction_below_the_bound_is_kept(tmp_path):
    pairs, said, _ = table(tmp_path, 'contact_materials:\n'
                           '  - { materials: [A, B], friction: 999999.0, restitution: 0.0 }\n')
    assert pairs == (ContactPair('A', 'B', 999999.0, 0.0),) and said == []


@pytest.mark.parametrize('text', ['contact_materials: 3\n', 'other: []\n', '- 1\n'])
def test_a_table_without_its_list_is_refused(tmp_path, text):
    path = tmp_path / 'materials.yaml'
    path.write_text(text)
    with pytest.raises(ModelError) as caught:
        read_table(str(path), print)
    assert caught.value.message == 'a material table needs a contact_materials list'
    assert caught.value.path == str(path)


def links(**collisions):
    return [SimpleNamespace(name=name, collisions=[None] * n) for name, n in collisions.items()]


def test_each_collision_shape_takes_its_link_s_material_against_default():
    pairs = (ContactPair('Default', 'Default', 0.4, 0.1), ContactPair('Default', 'Tire', 0.9, 0.3),
             ContactPair('Tire', 'Ground', 0.2, 0.0))
    out = link_contacts(links(wheel=2, body=1, mast=0), {'wheel': 'Tire'}, pairs)
    assert out == (ShapeContact('wheel', 0, ContactMaterial('Tire', 0.9, 0.3)),
                   ShapeContact('wheel', 1, ContactMaterial('Tire', 0.9, 0.3)),
                   ShapeContact('body', 0, ContactMaterial(DEFAULT_MATERIAL, 0.4, 0.1)))


def test_a_material_without_its_pair_takes_default_s_and_then_the_integrator_s():
    pairs = (ContactPair('Default', 'Default', 0.4, 0.1),)
    out = link_contacts(links(foot=1), {'foot': 'Rubber'}, pairs)
    assert out == (ShapeContact('foot', 0, ContactMaterial('Rubber', 0.4, 0.1)),)
    out = link_contacts(links(foot=1), {'foot': 'Rubber'}, (ContactPair('A', 'B', 0.7, 0.2),))
    assert out == (ShapeContact('foot', 0, ContactMaterial('Rubber', 1.0, 0.0)),)
    assert GROUND_MATERIAL == 'Ground'
