"""load_model: the loader chosen by the file's ending, the checks every model gets."""

import textwrap

import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.model import Box

KNOWN = ('.body, .dae, .env.xml, .kinbody.xml, .robot.xml, .urdf, .xml, .yaml, .yml, .zae')


def test_an_unknown_ending_names_every_known_one(tmp_path):
    path = tmp_path / 'robot.sdf'
    path.write_text('<sdf/>')
    with pytest.raises(ModelError) as caught:
        load_model(path)
    assert (caught.value.path, caught.value.line) == (str(path), None)
    assert caught.value.message == f'unknown model format (known file endings: {KNOWN})'


@pytest.mark.parametrize('name', ['r.body', 'r.URDF', 'r.robot.xml', 'r.yaml', 'r.dae'])
def test_a_missing_file_of_a_known_format_is_one_line(tmp_path, name):
    with pytest.raises(ModelError) as caught:
        load_model(tmp_path / name)
    assert caught.value.path == str(tmp_path / name) and caught.value.line is None
    assert caught.value.message.startswith('no such file')


BODY = """\
format: ChoreonoidBody
links:
  - { name: a, material: Tire, colour: 1 }
  - { name: b, parent: a, colour: 1 }
  - name: c
    parent: a
    colour: 1
    elements:
      Shape:
        appearance: { texture: { url: none.png } }
        geometry: { type: TriangleMesh, vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0],
                    triangles: [0, 1, 2] }
"""

URDF = """<robot name="r"><link name="a"><collision><geometry><box size="1 1 1"/></geometry>
</collision></link></robot>
"""


def test_a_body_file_is_checked_its_textures_too_and_its_warnings_folded(tmp_path):
    path = tmp_path / 'r.body'
    path.write_text(BODY)
    model = load_model(path)
    (visual,) = model.link('c').visuals
    assert visual.material.texture is None  # the missing image is dropped
    (collision,) = model.link('c').collisions
    assert isinstance(collision.geometry, Box)  # the flat mesh collides as a thin box
    said = [w.split(': ', 1)[1] for w in model.warnings]
    assert said[0] == ("link 'a': key 'colour' is not supported and was ignored (3 warnings "
                       "like this one; the others at 'b' (line 4), 'c' (line 5))")
    assert any('flat' in w for w in said) and any('none.png' in w for w in said)


def test_the_material_table_goes_to_body_files_only(tmp_path):
    table = tmp_path / 'table.yaml'
    table.write_text('contact_materials:\n  - { materials: [Tire, Default], friction: 0.25 }\n')
    path = tmp_path / 'r.body'
    path.write_text(textwrap.dedent(BODY))
    model = load_model(str(path), material_table=str(table))
    assert model.contact_pairs[0].friction == 0.25
    urdf = tmp_path / 'r.urdf'
    urdf.write_text(URDF)
    assert load_model(urdf, material_table=str(table)).link('a').collisions
    assert load_model(urdf, material_table='').link('a').collisions
    assert load_model(path, material_table='').contact_pairs == ()
