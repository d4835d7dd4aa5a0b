"""Inventor shape nodes on small files written here: VertexProperty's packed colours, FaceSet
counts, triangle strips and their colours, QuadMesh cells, primitive defaults, and the clear
lines of shapes that use more vertices than there are."""

from __future__ import annotations

import numpy as np
import pytest

from body_bridge import geometry as geo
from body_bridge.errors import ModelError
from body_bridge.meshfiles import load_mesh_file

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
    # One row (verticesPerColumn's default) has no cells: nothing drawn beside the cube.
    parts, messages = load(tmp_path, grid + 'QuadMesh { verticesPerRow 3 } Cube { }\n')
    assert [len(p.mesh.faces) for p in parts] == [12] and messages == []
    for rows, start in ((4, 0), (3, 1), (2, -1), (1, 7)):
        refused(tmp_path, grid + f'QuadMesh {{ verticesPerRow 3 verticesPerColumn {rows} '
                f'startIndex {start} }}\n', r'm\.iv:3: QuadMesh uses more vertices than there '
                                            'are$')


def test_cylinder_defaults(tmp_path):
    parts, messages = load(tmp_path, 'Cylinder { }\n')
    v = parts[0].mesh.vertices
    np.testing.assert_allclose((v.min(axis=0), v.max(axis=0)), ((-1, -1, -1), (1, 1, 1)),
                               atol=1e-9)
    assert messages == []
