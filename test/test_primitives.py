"""Mesh helpers of geometry/primitives.py against analytic cases: a mirrored mesh still winds
outwards, bounds, the content digest, and the STL file a URDF points to read back."""

import struct

import numpy as np
import pytest

from body_bridge.geometry.primitives import (bounds, box_mesh, capsule_mesh, mesh_area,
                                             mesh_digest, mesh_volume, sphere_mesh,
                                             transform_mesh, write_stl)
from body_bridge.model import Mesh


@pytest.mark.parametrize('linear', [np.diag([-1.0, 1.0, 1.0]), np.diag([2.0, -1.0, -3.0])])
def test_a_mirrored_mesh_still_winds_outwards(linear):
    box = box_mesh((1.0, 2.0, 3.0))
    mirrored = transform_mesh(box, linear, (5, 0, 0))
    expected = 6.0 * abs(np.linalg.det(linear))
    assert mesh_volume(mirrored) == pytest.approx(expected)
    assert mesh_volume(transform_mesh(box, np.diag([2.0, 1.0, 1.0]))) == pytest.approx(12.0)


def test_bounds_are_the_per_axis_extremes():
    lo, hi = bounds([[1, -2, 3], [-4, 5, 0.5], [0, 0, 9]])
    assert lo.tolist() == [-4, -2, 0.5] and hi.tolist() == [1, 5, 9]
    lo, hi = bounds(sphere_mesh(0.5).vertices)
    np.testing.assert_allclose(lo, (-0.5, -0.5, -0.5), atol=1e-12)
    np.testing.assert_allclose(hi, (0.5, 0.5, 0.5), atol=1e-12)


def test_the_digest_changes_with_the_faces_and_the_vertices_only():
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    a = Mesh(v, [[0, 1, 2], [0, 3, 1]], name='a')
    assert mesh_digest(a) == mesh_digest(Mesh(v, [[0, 1, 2], [0, 3, 1]], name='other'))
    assert mesh_digest(a) != mesh_digest(Mesh(v, [[0, 2, 1], [0, 1, 3]]))
    assert mesh_digest(a) != mesh_digest(Mesh(v * 2, [[0, 1, 2], [0, 3, 1]]))
    assert len(mesh_digest(a)) == 12


def test_the_stl_written_has_unit_outward_normals_and_the_triangles(tmp_path):
    box = box_mesh((2.0, 4.0, 6.0))
    write_stl(box, tmp_path / 'box.stl')
    data = (tmp_path / 'box.stl').read_bytes()
    count = struct.unpack('<I', data[80:84])[0]
    assert count == 12 and len(data) == 84 + 50 * count
    records = np.frombuffer(data[84:], dtype=[('n', '<f4', 3), ('v', '<f4', (3, 3)),
                                              ('attr', '<u2')])
    np.testing.assert_allclose(np.linalg.norm(records['n'], axis=1), 1.0, atol=1e-6)
    centres = records['v'].mean(axis=1)
    assert (np.einsum('ij,ij->i', records['n'], centres) > 0).all()   # outwards
    np.testing.assert_array_equal(records['v'], box.vertices[box.faces].astype('<f4'))


def test_a_capsule_is_closed_with_single_pole_vertices():
    mesh = capsule_mesh(0.5, 1.0, n=16)
    z = mesh.vertices[:, 2]
    assert (z == 1.0).sum() == 1 and (z == -1.0).sum() == 1
    assert mesh_volume(mesh) == pytest.approx(np.pi * 0.25 * 1.0 + 4 / 3 * np.pi * 0.125,
                                              rel=0.05)
    assert mesh_area(mesh) == pytest.approx(2 * np.pi * 0.5 * 1.0 + 4 * np.pi * 0.25, rel=0.05)


def test_merged_meshes_keep_texture_coordinates_where_any_has_them():
    from body_bridge.geometry.primitives import merge_meshes
    tri = np.eye(3)
    textured = Mesh(tri, [[0, 1, 2]], texcoords=[[0.5, 0.5], [1, 0], [0, 1]], source='a.obj')
    merged = merge_meshes([textured, Mesh(tri + 1, [[0, 1, 2]])], name='both')
    assert merged.faces.tolist() == [[0, 1, 2], [3, 4, 5]] and merged.source == 'a.obj'
    assert merged.texcoords.tolist() == [[0.5, 0.5], [1, 0], [0, 1], [0, 0], [0, 0], [0, 0]]
    assert merge_meshes([Mesh(tri, [[0, 1, 2]])]).texcoords is None
    assert len(merge_meshes([]).faces) == 0
