"""The STL reader (meshfiles/stl.py) on small files written here: binary files whose header
starts like an ASCII one, files that are too short or not finite, ASCII files longer than
the 4096 bytes looked at to tell the two kinds apart, and ASCII keywords out of place."""

import struct

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.meshfiles import load_mesh_file

from mesh_files import refusal, write

TRIANGLE = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))


def _binary(header: bytes, triangles, count=None, extra=b'') -> bytes:
    body = b''.join(struct.pack('<12fH', 0, 0, 1, *np.ravel(t), 0) for t in triangles)
    count = len(triangles) if count is None else count
    return header.ljust(80, b' ') + struct.pack('<I', count) + body + extra


def _ascii(facets: int, name='part') -> str:
    one = ('facet normal 0 0 1\n outer loop\n  vertex {0} 0 0\n  vertex {1} 0 0\n'
           '  vertex {0} 1 0\n endloop\nendfacet\n')
    return (f'solid {name}\n' + ''.join(one.format(k, k + 1) for k in range(facets))
            + f'endsolid {name}\n')


def test_a_binary_file_whose_header_says_solid_and_facet_is_read_as_binary(tmp_path):
    path = write(tmp_path, 'exported.stl',
                 _binary(b'solid facet exporter 1.0', [TRIANGLE, TRIANGLE]))
    (part,) = load_mesh_file(path)
    np.testing.assert_array_equal(part.mesh.vertices, sorted(TRIANGLE))
    assert part.mesh.faces.shape == (2, 3)   # the same triangle twice, its corners welded


def test_bytes_after_the_stated_triangles_are_ignored_with_a_warning(tmp_path):
    path = write(tmp_path, 'tail.stl', _binary(b'x', [TRIANGLE], extra=b'\0' * 7))
    seen = []
    (part,) = load_mesh_file(path, warn=seen.append)
    assert len(part.mesh.faces) == 1
    assert seen == [f'{path}: 7 bytes after the last of the 1 triangles the header states '
                    'were ignored']


def test_a_binary_file_shorter_than_its_header_or_its_count_is_one_line(tmp_path):
    short = write(tmp_path, 'short.stl', b'\0' * 10)
    with pytest.raises(ModelError, match=r'short\.stl: binary STL shorter than its 84-byte '
                                         r'header \(10 bytes\)$'):
        load_mesh_file(short)
    cut = write(tmp_path, 'cut.stl', _binary(b'x', [TRIANGLE], count=2))
    with pytest.raises(ModelError, match=r'cut\.stl: binary STL header states 2 triangles '
                                         r'\(184 bytes\) but the file has 134 bytes$'):
        load_mesh_file(cut)


def test_a_vertex_that_is_not_finite_is_one_line(tmp_path):
    path = write(tmp_path, 'nan.stl', _binary(b'x', [((0, 0, 0), (1, 0, 0), (0, np.nan, 0))]))
    with pytest.raises(ModelError, match=r'nan\.stl: vertex coordinates: a value is not '
                                         r'finite$'):
        load_mesh_file(path)


def test_an_ascii_file_longer_than_the_bytes_looked_at_is_read(tmp_path):
    path = tmp_path / 'long.stl'
    text = _ascii(60)
    assert len(text) > 4096 and 'endsolid' not in text[:4096]
    path.write_text(text)
    (part,) = load_mesh_file(path)
    assert len(part.mesh.faces) == 60 and part.mesh.vertices[:, 0].max() == 60.0


@pytest.mark.parametrize('broken, line', [
    (_ascii(1).replace(' outer loop', ' inner loop'), "3: ASCII STL: expected 'outer', found "
                                                       "'inner'"),
    (_ascii(1).replace('endloop', 'endloops'), "7: ASCII STL: expected 'endloop', found "
                                               "'endloops'"),
    (_ascii(1).replace('endsolid part\n', ''), "9: ASCII STL: expected 'endsolid', found the "
                                               "end of the file"),
])
def test_an_ascii_keyword_out_of_place_is_one_line_with_its_line(tmp_path, broken, line):
    path = write(tmp_path, 'bad.stl', broken)
    assert refusal(path) == f'{path}:{line}'


def test_ascii_corners_are_welded_and_a_polygon_facet_is_split(tmp_path):
    path = write(tmp_path, 'two.stl', _ascii(2))
    (part,) = load_mesh_file(path)
    assert len(part.mesh.vertices) == 5 and len(part.mesh.faces) == 2   # (1, 0, 0) shared
    quad = tmp_path / 'quad.stl'
    quad.write_text('solid q\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n'
                    'vertex 1 1 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid q\n')
    (part,) = load_mesh_file(quad)
    assert len(part.mesh.vertices) == 4 and len(part.mesh.faces) == 2
    assert sorted(set(part.mesh.faces.ravel().tolist())) == [0, 1, 2, 3]


def test_a_solid_is_chosen_by_name_and_a_missing_one_is_one_line(tmp_path):
    path = write(tmp_path, 'named.stl', _ascii(1, 'wheel') + _ascii(2, 'body'))
    (part,) = load_mesh_file(path, 'body')
    assert len(part.mesh.faces) == 2
    assert refusal(path, node='arm') == f"{path}: no solid named 'arm' (solids: 'wheel', 'body')"


def test_an_ascii_file_of_empty_solids_is_ascii_whatever_its_length(tmp_path):
    name = 'exported_by_a_cad_tool_' * 5
    path = write(tmp_path, 'empty.stl', f'solid {name}\nendsolid {name}\n')
    assert path.stat().st_size > 84
    # read as text: no bogus triangle count
    assert refusal(path) == f'{path}: the file holds no surface geometry (no triangles)'


def test_an_empty_binary_file_of_84_bytes_has_no_triangles(tmp_path):
    path = write(tmp_path, 'empty.stl', _binary(b'x', []))  # the header and a count of 0
    assert len(path.read_bytes()) == 84
    with pytest.raises(ModelError, match=r'empty\.stl: the file holds no surface geometry '
                                         r'\(no triangles\)$'):
        load_mesh_file(path)


@pytest.mark.parametrize('blank', [' ' * 507, ' ' * 508, '\n' * 5000 + '\t'])
def test_an_ascii_file_is_ascii_after_any_blank_space(tmp_path, blank):
    (part,) = load_mesh_file(write(tmp_path, 'blank.stl', blank + _ascii(2)))
    assert len(part.mesh.faces) == 2


def test_more_ascii_corners_than_a_mesh_may_have_is_one_line(tmp_path, monkeypatch):
    from body_bridge.meshfiles import _common
    monkeypatch.setattr(_common, 'MAX_VERTICES', 6)
    (part,) = load_mesh_file(write(tmp_path, 'six.stl', _ascii(2)))  # 6 corners: the most
    assert len(part.mesh.faces) == 2
    monkeypatch.setattr(_common, 'MAX_VERTICES', 5)
    path = write(tmp_path, 'many.stl', _ascii(2))  # 6 corners
    with pytest.raises(ModelError, match=r'many\.stl:1[56]: ASCII STL: more than 5 vertices$'):
        load_mesh_file(path)


def test_a_binary_file_with_a_nul_byte_is_binary_whatever_its_header_says(tmp_path):
    # "solid ... facet" in the header and a length its count does not explain: its NUL bytes
    # still say binary (the count's own bytes hold three)
    path = write(tmp_path, 'odd.stl', _binary(b'solid facet exporter', [TRIANGLE],
                                              extra=b'\n\n'))
    seen = []
    (part,) = load_mesh_file(path, warn=seen.append)
    assert len(part.mesh.faces) == 1 and len(seen) == 1


def test_a_binary_file_has_no_named_parts(tmp_path):
    path = write(tmp_path, 'one.stl', _binary(b'x', [TRIANGLE]))
    assert refusal(path, node='wheel') == \
        f"{path}: node 'wheel': a binary STL file has no named parts"


def test_a_long_word_out_of_place_is_shown_by_its_first_40_characters(tmp_path):
    word = 'w' * 39 + 'xyz'
    path = write(tmp_path, 'long.stl', f'solid part\nfacet normal 0 0 1\n {word}\n')
    assert refusal(path) == f"{path}:3: ASCII STL: expected 'outer', found {'w' * 39 + 'x'!r}"


def test_a_file_cut_in_the_middle_of_a_vertex_ends_early_in_one_line(tmp_path):
    path = write(tmp_path, 'cut.stl', 'solid part\nfacet normal 0 0 1\n outer loop\n'
                                       '  vertex 0 0 0\n  vertex 1 0')
    assert refusal(path) == f'{path}:5: ASCII STL: the file ends early'
