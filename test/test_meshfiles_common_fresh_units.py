"""The mesh readers' shared pieces (meshfiles/_common.py): index and visit bounds, part names,
merging, welding, texture paths and warnings without a sink."""

import os
import sys

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.meshfiles import _common, load_mesh_file
from body_bridge.meshfiles._common import (Budget, LineIndex, MeshFileWarning, Parts, Warnings,
                                           check_indices, decode_text, drop_unused, rgba,
                                           safe_name, shininess_of_exponent, texture_path,
                                           unweld)
from body_bridge.model import Material

TRIANGLE = [[0, 0, 0], [1, 0, 0], [0, 1, 0]]


def test_the_visit_bound_is_read_when_called_and_passed_by_one(monkeypatch):
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 2)
    budget = Budget('m.iv')
    budget.visit(4)
    budget.visit(5)
    with pytest.raises(ModelError) as err:
        budget.visit(6)
    assert str(err.value) == ('m.iv:6: more than 2 scene nodes to expand (instancing too deep '
                              'or too wide)')


def test_an_index_out_of_range_is_named_largest_first():
    check_indices('m.off', 3, 'faces', np.array([0, 4]), 5)
    check_indices('m.off', 3, 'faces', np.zeros(0, np.int64), 0)
    for indices, bad in (([0, 5], 5), ([-1, 2], -1), ([-1, 7], 7), ([3, -2, 1], -2)):
        with pytest.raises(ModelError) as err:
            check_indices('m.off', 3, 'faces', np.array(indices), 5)
        assert str(err.value) == f'm.off:3: faces: index {bad} out of range (there are 5)'


def test_safe_names_keep_letters_digits_and_dot_dash_underscore():
    assert safe_name('A-z_0.9') == 'A-z_0.9'
    assert safe_name('left arm/2') == 'left_arm_2'
    assert safe_name('__é x__') == 'x'
    assert safe_name('!!!') == 'part'
    assert safe_name('') == 'part'


def test_a_file_or_node_without_triangles_is_refused():
    parts = Parts('d/m.obj', None, Budget('d/m.obj'))
    parts.add(TRIANGLE, np.zeros((0, 3)), None, 2)  # no faces: nothing added
    assert not parts
    with pytest.raises(ModelError) as err:
        parts.result()
    assert str(err.value) == 'd/m.obj: the file holds no surface geometry (no triangles)'
    with pytest.raises(ModelError) as err:
        Parts('d/m.iv', 'arm', Budget('d/m.iv')).result()
    assert str(err.value) == "d/m.iv: node 'arm' holds no surface geometry (no triangles)"


def test_one_part_is_named_after_the_file_and_node():
    budget = Budget('x')
    parts = Parts('/data/my mesh.v2.obj', 'left arm', budget)
    parts.add(TRIANGLE, [0, 1, 2], None, 1)
    assert parts
    assert (budget.vertices, budget.triangles) == (3, 1)
    (part,) = parts.result()
    assert part.mesh.name == 'my_mesh.v2_left_arm'
    assert part.mesh.source == '/data/my mesh.v2.obj'
    assert part.material is None


def test_several_parts_are_named_by_material_in_first_use_order_and_never_twice():
    red = Material((1.0, 0.0, 0.0, 1.0), 'red')
    unnamed = Material((0.0, 1.0, 0.0, 1.0))
    spaced, underscored = Material((0, 0, 1.0, 1.0), 'a b'), Material((0, 0, 0.5, 1.0), 'a_b')
    parts = Parts('m.wrl', None, Budget('m.wrl'))
    for material in (red, unnamed, None, spaced, underscored, red):
        parts.add(TRIANGLE, [0, 1, 2], material)
    result = parts.result()
    assert [p.mesh.name for p in result] == ['m_red', 'm_part1', 'm_part2', 'm_a_b', 'm_a_b_4']
    assert [p.material for p in result] == [red, unnamed, None, spaced, underscored]
    assert len(result[0].mesh.faces) == 2  # red's two triangles in one part


def test_merged_chunks_shift_their_faces_and_pad_missing_texture_coordinates():
    parts = Parts('m.obj', None, Budget('m.obj'))
    parts.add(TRIANGLE, [0, 1, 2], None)
    parts.add(np.add(TRIANGLE, 5.0), [2, 1, 0], None, texcoords=[[0.5, 1], [1, 1], [1, 0.5]])
    (part,) = parts.result()
    np.testing.assert_array_equal(part.mesh.faces, [[0, 1, 2], [5, 4, 3]])
    np.testing.assert_array_equal(part.mesh.vertices[3:], np.add(TRIANGLE, 5.0))
    np.testing.assert_array_equal(part.mesh.texcoords,
                                  [[0, 0], [0, 0], [0, 0], [0.5, 1], [1, 1], [1, 0.5]])
    plain = Parts('m.obj', None, Budget('m.obj'))
    plain.add(TRIANGLE, [0, 1, 2], None)
    plain.add(TRIANGLE, [0, 2, 1], None)
    assert plain.result()[0].mesh.texcoords is None


def test_vertex_coordinates_must_be_finite():
    parts = Parts('m.obj', None, Budget('m.obj'))
    with pytest.raises(ModelError) as err:
        parts.add([[0, 0, 0], [1, 0, 0], [0, np.inf, 0]], [0, 1, 2], None, 8)
    assert str(err.value) == 'm.obj:8: vertex coordinates: a value is not finite'


def test_unused_vertices_are_dropped_and_faces_renumbered():
    vertices = np.arange(15.0).reshape(5, 3)
    kept, faces = drop_unused(vertices, np.array([[4, 1, 3]]))
    np.testing.assert_array_equal(kept, vertices[[1, 3, 4]])
    np.testing.assert_array_equal(faces, [[2, 0, 1]])
    uv = np.arange(10.0).reshape(5, 2)
    kept, faces, kept_uv = drop_unused(vertices, np.array([[4, 1, 3]]), uv)
    np.testing.assert_array_equal(kept_uv, uv[[1, 3, 4]])
    np.testing.assert_array_equal(faces, [[2, 0, 1]])


def test_unwelding_makes_one_vertex_per_point_and_texture_pair():
    points = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0]])
    uv = np.array([[0.0, 0], [1, 0], [0, 1], [0.5, 0.5]])
    vertices, corners, texcoords = unweld(points, np.array([0, 1, 2, 0, 2]),
                                          uv, np.array([0, 1, 2, 3, 2]))
    # the corners' (point, uv) pairs: (0,0) (1,1) (2,2) (0,3) (2,2): four distinct
    assert len(vertices) == 4
    np.testing.assert_array_equal(vertices[corners], points[[0, 1, 2, 0, 2]])
    np.testing.assert_array_equal(texcoords[corners], uv[[0, 1, 2, 3, 2]])
    assert corners[2] == corners[4]


def test_texture_references_become_paths():
    base = os.path.join(os.sep, 'models', 'arm')
    assert texture_path(base, ' skin.png ') == os.path.join(base, 'skin.png')
    assert texture_path(base, '../skin.png') == os.path.join(os.sep, 'models', 'skin.png')
    assert texture_path(base, 'file:///tex/skin.png') == '/tex/skin.png'
    assert texture_path(base, 'file:skin.png') == os.path.join(base, 'skin.png')
    assert texture_path(base, 'http://example.org/skin.png') == 'http://example.org/skin.png'
    assert texture_path(base, '/tex/skin.png') == '/tex/skin.png'


def test_warnings_without_a_sink_are_python_warnings_once():
    warn = Warnings(None)
    with pytest.warns(MeshFileWarning) as said:
        warn('m.dae', 3, 'no unit')
        warn('m.dae', 4, 'no unit')
        warn('n.dae', None, 'no unit')
    assert [str(w.message) for w in said] == ['m.dae:3: no unit', 'n.dae: no unit']


def test_text_decoding_and_line_numbers_at_the_edges():
    assert decode_text(b'\xef\xbb\xbfv 1 2 3\n', 'm.obj') == 'v 1 2 3\n'  # BOM dropped
    assert decode_text('é'.encode('utf-8'), 'm.obj') == 'é'
    for text in ('a\nb\n', 'é\nb\n'):
        index = LineIndex(text)
        assert [index.line(i) for i in range(4)] == [1, 1, 2, 2]  # a newline ends its line


def test_colours_with_transparency_out_of_range_or_not_finite():
    assert rgba((0.2, 0.4, 0.6, 0.9), 2.0) == (0.2, 0.4, 0.6, 0.0)
    assert rgba((0.2, 0.4, 0.6), -1.0) == (0.2, 0.4, 0.6, 1.0)
    assert rgba((0.2, 0.4, 0.6), float('nan')) == (0.2, 0.4, 0.6, 1.0)
    assert shininess_of_exponent(float('nan')) == 0.0
    assert shininess_of_exponent(-5.0) == 0.0


OBJ_WITH_UNKNOWN = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nfoo bar\nf 1 2 3\n'
VRML_NESTED = ('#VRML V2.0 utf8\nTransform { children [ Group { children [ Shape {\n'
               ' geometry IndexedFaceSet { coord Coordinate { point [0 0 0, 1 0 0, 0 1 0] }\n'
               ' coordIndex [0 1 2 -1] } } Shape { geometry Text { } } ] } ] }\n')


@pytest.mark.parametrize('name, text', [('m.obj', OBJ_WITH_UNKNOWN), ('m.wrl', VRML_NESTED)])
def test_a_python_warning_points_at_the_line_that_loaded_the_file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.warns(MeshFileWarning) as said:
        load_mesh_file(path); line = sys._getframe().f_lineno  # noqa: E702
    assert [(w.filename, w.lineno) for w in said] == [(__file__, line)] * len(said)


def test_binary_data_is_looked_for_in_the_first_4_kib():
    with pytest.raises(ModelError) as err:
        decode_text(b'a' * 4095 + b'\x00', 'm.wrl')
    assert str(err.value) == 'm.wrl: binary data where a text file was expected'
    assert decode_text(b'a' * 4096 + b'\x00', 'm.wrl') == 'a' * 4096 + '\x00'
