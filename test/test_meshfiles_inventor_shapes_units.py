"""Inventor shape nodes on small files written here: VertexProperty's packed colours, FaceSet
counts, triangle strips and their colours, QuadMesh cells, the colour of each triangle under
PER_FACE and PER_PART material bindings, primitive defaults, and the clear lines of shapes
that use more vertices than there are."""

from __future__ import annotations

import numpy as np
import pytest

from body_bridge import geometry as geo
from body_bridge.errors import ModelError
from body_bridge.meshfiles import _common, load_mesh_file

import mesh_files

HEADER = '#Inventor V2.1 ascii\n'
SQUARES = 'Coordinate3 { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0, 5 0 0, 6 0 0, 6 1 0 ] }\n'


def load(tmp_path, text: str):
    return mesh_files.load(mesh_files.write(tmp_path, 'm.iv', HEADER + text))


def refused(tmp_path, text: str, message: str):
    path = mesh_files.write(tmp_path, 'm.iv', HEADER + text)
    with pytest.raises(ModelError, match=message):
        load_mesh_file(path)


def upward(mesh) -> bool:
    a, b, c = (mesh.vertices[mesh.faces[:, k]] for k in range(3))
    return bool(np.all(np.cross(b - a, c - a)[:, 2] > 0))


def test_vertex_property_unpacks_red_green_blue_and_alpha(tmp_path):
    # 0xRRGGBBAA: red 0x33, green 0x66, blue 0x99, alpha 0xCC.
    parts, _ = load(tmp_path, 'VertexProperty { vertex [ 0 0 0, 1 0 0, 0 1 0 ] '
                    f'orderedRGBA [ {0x336699CC} ] }}\nFaceSet {{ numVertices 3 }}\n')
    np.testing.assert_allclose(parts[0].material.rgba,
                               (0x33 / 255, 0x66 / 255, 0x99 / 255, 0xCC / 255), atol=1e-9)


def test_a_shape_s_own_vertex_property_gives_its_colours_to_it_alone(tmp_path):
    own = ('FaceSet { vertexProperty VertexProperty { vertex [ 0 0 0, 1 0 0, 0 1 0, '
           f'5 0 0, 6 0 0, 5 1 0 ] orderedRGBA [ {0xFF0000FF}, {0x00FF00FF} ] '
           'materialBinding PER_FACE } numVertices [ 3, 3 ] }\n')
    after = 'Coordinate3 { point [ 0 5 0, 1 5 0, 0 6 0 ] } FaceSet { numVertices 3 }\n'
    parts, messages = load(tmp_path, 'BaseColor { rgb 0 0 1 }\n' + own + after)
    assert colours(parts) == {(0.333, 0.333): RED, (5.333, 0.333): GREEN,
                              (0.333, 5.333): BLUE} and messages == []
    # Without colours of its own the shape keeps the inherited ones.
    parts, _ = load(tmp_path, 'BaseColor { rgb 0 0 1 }\n' + own.replace(
        f'orderedRGBA [ {0xFF0000FF}, {0x00FF00FF} ] ', ''))
    assert colours(parts) == {(0.333, 0.333): BLUE, (5.333, 0.333): BLUE}


def test_face_set_counts(tmp_path):
    parts, _ = load(tmp_path, SQUARES + 'FaceSet { numVertices -1 startIndex 3 }\n')
    # -1: one face of the rest of the vertices, from startIndex on.
    assert len(parts[0].mesh.faces) == 2 and parts[0].mesh.vertices[:, 0].min() == 0.0
    parts, _ = load(tmp_path, SQUARES + 'FaceSet { numVertices [ 4, 0, 3 ] }\n')
    assert len(parts[0].mesh.faces) == 3  # an empty face adds nothing
    assert geo.mesh_area(parts[0].mesh) == pytest.approx(1.5)
    for counts in ('[ 4, 4 ]', '[ 4, -2, 3 ]'):
        refused(tmp_path, SQUARES + f'FaceSet {{ numVertices {counts} }}\n',
                r'm\.iv:3: FaceSet uses \d+ vertices from 0 but there are 7$')
    refused(tmp_path, SQUARES + 'FaceSet { numVertices 3 startIndex -1 }\n',
            r'm\.iv:3: FaceSet uses 3 vertices from -1 but there are 7$')


def test_indices_out_of_range_and_huge_faces_get_one_line(tmp_path, monkeypatch):
    for shape in ('IndexedFaceSet', 'IndexedTriangleStripSet'):
        refused(tmp_path, SQUARES + f'{shape} {{ coordIndex [ 0, 1, 7, -1 ] }}\n',
                rf'm\.iv:3: {shape} coordIndex: index 7 out of range \(there are 7\)$')
    monkeypatch.setattr(_common, 'MAX_POLYGON_CORNERS', 4)
    parts, _ = load(tmp_path, SQUARES + 'FaceSet { numVertices [ 4 ] }\n')
    assert len(parts[0].mesh.faces) == 2
    refused(tmp_path, SQUARES + 'IndexedFaceSet { coordIndex [ 0, 1, 2, 3, 4, -1 ] }\n',
            r'm\.iv:3: a face has more than 4 corners$')


def test_strips_too_short_for_a_triangle_draw_nothing(tmp_path):
    parts, messages = load(tmp_path, SQUARES + 'TriangleStripSet { numVertices [ 2, 1 ] }\n'
                           'Cube { }\n')
    assert [len(p.mesh.faces) for p in parts] == [12] and messages == []


def test_triangle_strips_keep_one_winding_and_colour_each_strip(tmp_path):
    strips = ('Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0,  5 0 0, 6 0 0, 5 1 0, 6 1 0 ] }\n'
              'BaseColor { rgb [ 1 0 0, 0 0 1 ] } MaterialBinding { value PER_PART }\n')
    parts, _ = load(tmp_path, strips + 'TriangleStripSet { numVertices [ 3, 4 ] }\n')
    by_colour = {p.material.rgba[:3]: p.mesh for p in parts}
    assert len(by_colour[(1, 0, 0)].faces) == 1 and len(by_colour[(0, 0, 1)].faces) == 2
    assert by_colour[(0, 0, 1)].vertices[:, 0].min() == 5.0
    assert all(upward(mesh) for mesh in by_colour.values())
    refused(tmp_path, strips + 'TriangleStripSet { numVertices [ 3, 5 ] }\n',
            r'm\.iv:4: TriangleStripSet uses more vertices than there are$')


def test_quad_mesh_covers_its_cells(tmp_path):
    points = ', '.join(f'{x} {y} 0' for y in range(3) for x in range(3))
    grid = f'Coordinate3 {{ point [ {points} ] }}\n'
    parts, _ = load(tmp_path, grid + 'QuadMesh { verticesPerRow 3 verticesPerColumn 3 }\n')
    mesh = parts[0].mesh
    assert len(mesh.faces) == 8 and geo.mesh_area(mesh) == pytest.approx(4.0)
    centres = mesh.vertices[mesh.faces].mean(axis=1)
    cells = sorted(map(tuple, np.floor(centres[:, :2]).astype(int).tolist()))
    assert cells == [(0, 0)] * 2 + [(0, 1)] * 2 + [(1, 0)] * 2 + [(1, 1)] * 2
    a, b, c = (mesh.vertices[mesh.faces[:, k]] for k in range(3))
    turns = np.sign(np.cross(b - a, c - a)[:, 2])
    assert abs(turns.sum()) == 8  # one winding: no cell folded over itself
    for wide, tall in ((3, 2), (2, 3)):  # two cells: one row of two, two rows of one
        parts, _ = load(tmp_path, grid + f'QuadMesh {{ verticesPerRow {wide} '
                        f'verticesPerColumn {tall} }}\n')
        assert len(parts[0].mesh.faces) == 4
    # One row (verticesPerColumn's default) has no cells: nothing drawn beside the cube.
    parts, messages = load(tmp_path, grid + 'QuadMesh { verticesPerRow 3 } Cube { }\n')
    assert [len(p.mesh.faces) for p in parts] == [12] and messages == []
    for rows, start in ((4, 0), (3, 1), (2, -1), (1, 7)):
        refused(tmp_path, grid + f'QuadMesh {{ verticesPerRow 3 verticesPerColumn {rows} '
                f'startIndex {start} }}\n', r'm\.iv:3: QuadMesh uses more vertices than there '
                                            'are$')


def colours(parts) -> dict:
    """The colour of each triangle drawn, by its centre (x, y), and how many were drawn."""
    seen = {}
    for part in parts:
        centres = part.mesh.vertices[part.mesh.faces].mean(axis=1)
        for centre in centres:
            seen[tuple(np.round(centre[:2], 3).tolist())] = part.material.rgba[:3]
    assert len(seen) == sum(len(p.mesh.faces) for p in parts)  # no triangle drawn twice
    return seen


RED, GREEN, BLUE, GREY = (1, 0, 0), (0, 1, 0), (0, 0, 1), (0.5, 0.5, 0.5)
# A strip of two triangles (its second one turned to keep the winding), then one of one.
STRIP_POINTS = 'Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0, 1 1 0,  5 0 0, 6 0 0, 5 1 0 ] }\n'
FIRST, SECOND, THIRD = (0.333, 0.333), (0.667, 0.667), (5.333, 0.333)


@pytest.mark.parametrize('shape', ['TriangleStripSet { numVertices [ 4, 3 ] }',
                                   'IndexedTriangleStripSet { coordIndex [ 0, 1, 2, 3, -1, '
                                   '4, 5, 6, -1 ] }'])
def test_per_face_colours_each_triangle_of_a_strip(tmp_path, shape):
    # Open Inventor: for strip sets a face is each triangle, a part each strip.
    text = (STRIP_POINTS + 'BaseColor { rgb [ 1 0 0, 0 1 0, 0 0 1 ] }\n'
            'MaterialBinding { value PER_FACE }\n' + shape + '\n')
    parts, messages = load(tmp_path, text)
    assert colours(parts) == {FIRST: RED, SECOND: GREEN, THIRD: BLUE} and messages == []
    assert all(upward(p.mesh) for p in parts)
    parts, _ = load(tmp_path, text.replace('PER_FACE', 'PER_PART'))
    assert colours(parts) == {FIRST: RED, SECOND: RED, THIRD: GREEN}


def test_indexed_strips_pick_colours_per_triangle_or_per_strip(tmp_path):
    strips = STRIP_POINTS + 'BaseColor { rgb [ 1 0 0, 0 1 0, 0 0 1, 0.5 0.5 0.5 ] }\n'
    shape = 'IndexedTriangleStripSet {{ coordIndex [ 0, 1, 2, 3, -1, 4, 5, 6 ] ' \
            'materialIndex [ {} ] }}\n'
    parts, _ = load(tmp_path, strips + 'MaterialBinding { value PER_FACE_INDEXED }\n'
                    + shape.format('3, 0, 1'))
    assert colours(parts) == {FIRST: GREY, SECOND: RED, THIRD: GREEN}
    parts, _ = load(tmp_path, strips + 'MaterialBinding { value PER_PART_INDEXED }\n'
                    + shape.format('2, 3'))
    assert colours(parts) == {FIRST: BLUE, SECOND: BLUE, THIRD: GREY}
    # A strip too short for a triangle is still a part (the next strip takes the next colour)
    # but has no face.
    short = (STRIP_POINTS + 'BaseColor { rgb [ 1 0 0, 0 1 0, 0 0 1 ] }\n'
             'MaterialBinding { value PER_PART }\n'
             'TriangleStripSet { numVertices [ 1, 4, 0, 2 ] }\n')
    parts, _ = load(tmp_path, short)
    assert colours(parts) == {(0.667, 0.667): GREEN, (2.0, 0.667): GREEN}
    parts, _ = load(tmp_path, short.replace('PER_PART', 'PER_FACE'))
    assert colours(parts) == {(0.667, 0.667): RED, (2.0, 0.667): GREEN}


def test_quad_mesh_colours_each_cell_or_each_row(tmp_path):
    points = ', '.join(f'{x} {y} 0' for y in range(3) for x in range(4))
    grid = (f'Coordinate3 {{ point [ {points} ] }}\n'
            'BaseColor { rgb [ 1 0 0, 0 1 0, 0 0 1, 0.5 0.5 0.5, 1 0 0, 0 1 0 ] }\n')
    mesh = 'QuadMesh { verticesPerRow 4 verticesPerColumn 3 }\n'

    def cells(parts):
        found: dict = {}
        for (x, y), rgb in colours(parts).items():
            found.setdefault((int(x), int(y)), set()).add(rgb)
        assert all(len(c) == 1 for c in found.values())  # both triangles of a cell alike
        return {cell: c.pop() for cell, c in found.items()}

    parts, _ = load(tmp_path, grid + 'MaterialBinding { value PER_FACE }\n' + mesh)
    assert cells(parts) == {(0, 0): RED, (1, 0): GREEN, (2, 0): BLUE,
                            (0, 1): GREY, (1, 1): RED, (2, 1): GREEN}
    parts, _ = load(tmp_path, grid + 'MaterialBinding { value PER_PART }\n' + mesh)
    assert cells(parts) == {(0, 0): RED, (1, 0): RED, (2, 0): RED,
                            (0, 1): GREEN, (1, 1): GREEN, (2, 1): GREEN}


def test_cylinder_defaults(tmp_path):
    parts, messages = load(tmp_path, 'Cylinder { }\n')
    v = parts[0].mesh.vertices
    np.testing.assert_allclose((v.min(axis=0), v.max(axis=0)), ((-1, -1, -1), (1, 1, 1)),
                               atol=1e-9)
    assert messages == []
