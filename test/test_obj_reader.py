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


def test_blank_lines_and_comments_are_skipped(tmp_path):
    _, (part,) = _load(tmp_path, '# a square\n\n' + SQUARE + '\n   \n# its two halves\n'
                       'f 1 2 3\nf 1 3 4\n')
    assert len(part.mesh.faces) == 2


def test_a_last_line_ending_in_a_backslash_is_still_read(tmp_path):
    _, (part,) = _load(tmp_path, SQUARE + 'f 1 2 3 4 \\')
    assert len(part.mesh.faces) == 2


def test_vertices_and_triangles_up_to_the_limits_and_one_more(tmp_path, monkeypatch):
    from body_bridge.meshfiles import _common
    monkeypatch.setattr(_common, 'MAX_VERTICES', 4)
    monkeypatch.setattr(_common, 'MAX_TRIANGLES', 2)
    _, (part,) = _load(tmp_path, SQUARE + 'f 1 2 3\nf 1 3 4\n')  # 4 vertices, 2 triangles
    assert len(part.mesh.faces) == 2
    path = write(tmp_path, 'five.obj', SQUARE + 'v 0 0 1\n')
    assert refusal(path) == f'{path}:5: more than 4 vertices'
    _load(tmp_path, SQUARE + 'vt 0 0\n' * 4 + 'f 1 2 3\n', name='uv.obj')  # 4: the most
    path = write(tmp_path, 'uv5.obj', SQUARE + 'vt 0 0\n' * 5)
    assert refusal(path) == f'{path}:9: more than 4 texture coordinates'
    path = write(tmp_path, 'three.obj', SQUARE + 'f 1 2 3\nf 1 3 4\nf 2 3 4\n')
    assert refusal(path) == f'{path}:7: more than 2 triangles'
    path = write(tmp_path, 'quad.obj', SQUARE + 'f 1 2 3\nf 1 2 3 4\n')  # 1 + 2 triangles
    assert refusal(path) == f'{path}:6: more than 2 triangles'


def test_a_material_says_its_colour_opacity_and_shininess(tmp_path):
    # a keyword alone on its line is skipped; without d or Tr a material is opaque; Ns is
    # OpenGL's specular exponent, shininess its 1/128 (VRML's scale)
    (tmp_path / 'm.mtl').write_text('Ks 1 1 1\n# colours\nnewmtl plain\nillum\n'
                                    'Kd 0.2 0.4 0.6\nKa 0.2 0.2 0.2\n'
                                    'newmtl shiny\nNs 64\nd 0.25\n'
                                    'Ks 0.5 0.5 0.5\nKe 0 0.1 0\n')
    seen = []
    _, parts = _load(tmp_path, 'mtllib m.mtl\n' + SQUARE + 'usemtl plain\nf 1 2 3\n'
                     'usemtl shiny\nf 1 3 4\n', warn=seen.append)
    assert seen == []
    plain, shiny = (p.material for p in parts)
    assert plain.rgba == pytest.approx((0.2, 0.4, 0.6, 1.0)) and plain.shininess is None
    # without Kd: 0.8 grey, VRML's default diffuse colour, which every reader here uses
    assert shiny.rgba == pytest.approx((0.8, 0.8, 0.8, 0.25))
    assert shiny.shininess == 0.5
    assert shiny.specular == pytest.approx((0.5, 0.5, 0.5)) and plain.specular is None
    assert shiny.emission == pytest.approx((0.0, 0.1, 0.0)) and plain.emission is None


def test_tr_is_one_minus_d_and_d_wins(tmp_path):
    (tmp_path / 'm.mtl').write_text('newmtl a\nTr 0.75\nnewmtl b\nd 0.5\nTr 0.1\n'
                                    'newmtl c\nd -halo 0.4\n')
    _, parts = _load(tmp_path, 'mtllib m.mtl\n' + SQUARE + 'usemtl a\nf 1 2 3\n'
                     'usemtl b\nf 1 3 4\nusemtl c\nf 2 3 4\n')
    assert [p.material.rgba[3] for p in parts] == pytest.approx([0.25, 0.5, 0.4])


def test_a_face_of_a_reference_that_is_no_number_or_past_the_last_is_one_line(tmp_path):
    path = write(tmp_path, 'x.obj', SQUARE + 'f 1 2 x\n')
    assert refusal(path) == f"{path}:5: OBJ face: 'x' is not a vertex reference"
    path = write(tmp_path, 'five.obj', SQUARE + 'f 1 2 5\n')
    assert refusal(path) == f'{path}:5: OBJ face: vertex 5 does not exist (there are 4 so far)'


def test_a_missing_object_names_the_first_ten_there_or_none(tmp_path):
    path = write(tmp_path, 'plain.obj', SQUARE + 'f 1 2 3\n')
    assert refusal(path, node='lid') == f"{path}: no object or group named 'lid' (names: none)"
    groups = ''.join(f'g part{k}\nf 1 2 3\n' for k in range(12))
    path = write(tmp_path, 'many.obj', SQUARE + groups)
    listed = ', '.join(f"'part{k}'" for k in range(10))
    assert refusal(path, node='lid') == \
        f"{path}: no object or group named 'lid' (names: {listed})"
