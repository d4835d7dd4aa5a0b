"""Inventor shape nodes (meshfiles/_inventor_shapes.py) on small files written here: a Sphere's
default radius and a QuadMesh of one row (its default column count) that names more vertices
than there are."""

from __future__ import annotations

import numpy as np

import mesh_files

HEADER = '#Inventor V2.1 ascii\n'
THREE = 'Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0 ] }\n'


def test_a_sphere_without_radius_has_radius_1(tmp_path):
    parts, _ = mesh_files.load(mesh_files.write(tmp_path, 'm.iv', HEADER + 'Sphere { }\n'))
    distance = np.linalg.norm(parts[0].mesh.vertices, axis=1)
    np.testing.assert_allclose(distance, 1.0, rtol=1e-9)
    low, high = mesh_files.bounds(parts)
    np.testing.assert_allclose(high, (1, 1, 1), rtol=1e-9)
    np.testing.assert_allclose(low, (-1, -1, -1), rtol=1e-9)


def test_a_quad_mesh_row_longer_than_the_coordinates_is_refused(tmp_path):
    # verticesPerColumn defaults to 1: one row of 5 vertices, with 3 given.
    path = mesh_files.write(tmp_path, 'm.iv', HEADER + THREE + 'QuadMesh { verticesPerRow 5 }\n'
                            'Cube { }\n')
    assert mesh_files.refusal(path) == f'{path}:3: QuadMesh uses more vertices than there are'
    # One row that fits has no cells: nothing from it, the cube read.
    path = mesh_files.write(tmp_path, 'm.iv', HEADER + THREE + 'QuadMesh { verticesPerRow 3 }\n'
                            'Cube { }\n')
    parts, _ = mesh_files.load(path)
    np.testing.assert_allclose(mesh_files.bounds(parts)[1], (1, 1, 1))
    assert sum(len(p.mesh.faces) for p in parts) == 12
