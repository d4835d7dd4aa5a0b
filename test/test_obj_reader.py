"""The OBJ reader (meshfiles/obj.py) on small files written here: continued lines, negative
references, texture coordinates with one number, material library names, the faces of a
textured material, and broken statements refused in one line with their line number."""

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.meshfiles import load_mesh_file

from mesh_files import refusal, write

SQUARE = 'v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n'


def _load(tmp_path, text, name='m.obj', **kw):
    path = write(tmp_path, name, text)
    return path, load_mesh_file(path, **kw)


def test_a_line_ending_in_a_backslash_continues_on_the_next(tmp_path):
    _, (part,) = _load(tmp_path, SQUARE + 'f 1 2 \\\n 3 4\n')
    assert len(part.mesh.faces) == 2 and len(part.mesh.vertices) == 4


def test_negative_references_count_back_from_the_last_vertex(tmp_path):
    _, (part,) = _load(tmp_path, SQUARE + 'v 5 5 5\nf -5 -4 -3\n')
    np.testing.assert_array_equal(np.sort(part.mesh.vertices[:, 0]), [0, 1, 1])
    assert part.mesh.vertices[:, 2].max() == 0.0


@pytest.mark.parametrize('text, line', [
    (SQUARE + 'v 1 2\n', "5: OBJ vertex needs 3 coordinates"),
    (SQUARE + 'vt a b\n', "5: OBJ texture coordinate: 'a b' is not one or two numbers"),
    (SQUARE + 'vt\n', "5: OBJ texture coordinate: '' is not one or two numbers"),
    (SQUARE + 'f 1 2 \\\n  9\n', '5: OBJ face: vertex 9 does not exist (there are 4 so far)'),
    (SQUARE + 'f 1 2 -5\n', '5: OBJ face: vertex -5 does not exist (there are 4 so far)'),
    (SQUARE + 'f ' + '1 ' * 100_001 + '\n', '5: OBJ face with more than 100000 corners'),
])
def test_a_broken_statement_is_one_line_with_its_line(tmp_path, text, line):
    path = write(tmp_path, 'bad.obj', text)
    assert refusal(path) == f'{path}:{line}'


def test_a_vertex_that_is_not_finite_is_refused_even_unused(tmp_path):
    path = write(tmp_path, 'nan.obj', SQUARE + 'v nan 0 0\nf 1 2 3\n')
    with pytest.raises(ModelError, match=r'nan\.obj: vertex coordinates: a value is not '
                                         r'finite$'):
        load_mesh_file(path)


def test_material_libraries_by_one_name_with_spaces_or_several(tmp_path):
    (tmp_path / 'my colours.mtl').write_text('newmtl red\nKd 1 0 0\n')
    (tmp_path / 'a.mtl').write_text('newmtl green\nKd 0 1 0\n')
    (tmp_path / 'b.mtl').write_text('newmtl blue\nKd 0 0 1\n')
    seen = []
    _, parts = _load(tmp_path, 'mtllib my colours.mtl\nmtllib a.mtl b.mtl\n' + SQUARE +
                     'usemtl red\nf 1 2 3\nusemtl green\nf 1 3 4\nusemtl blue\nf 2 3 4\n',
                     warn=seen.append)
    assert seen == []
    assert [p.material.rgba[:3] for p in parts] == [(1, 0, 0), (0, 1, 0), (0, 0, 1)]


def test_the_faces_of_a_textured_material_keep_their_texture_coordinates(tmp_path):
    (tmp_path / 'skin.png').write_bytes(b'')
    (tmp_path / 'skin.mtl').write_text('newmtl skin\nmap_Kd skin.png\n')
    _, (part,) = _load(tmp_path, 'mtllib skin.mtl\n' + SQUARE +
                       'vt 0.25\nvt 1 0\nvt 1 1\nusemtl skin\nf 1/1 2/2 3/3\n')
    assert part.material.texture.endswith('skin.png')
    assert sorted(part.mesh.texcoords.tolist()) == [[0.25, 0.0], [1.0, 0.0], [1.0, 1.0]]


def test_an_mtllib_naming_nothing_is_no_library(tmp_path):
    seen = []
    _, (part,) = _load(tmp_path, 'mtllib\n' + SQUARE + 'f 1 2 3\n', warn=seen.append)
    assert seen == [] and part.material is None and len(part.mesh.faces) == 1
