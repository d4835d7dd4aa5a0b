"""Mesh helpers of geometry/primitives.py against analytic cases: a mirrored mesh still winds
outwards, bounds, the content digest, the STL file a URDF points to read back, primitive meshes
closed edge by edge and symmetric, and principal boxes of a turned box and of a cloud."""

import struct

import numpy as np
import pytest

from body_bridge.geometry.primitives import (bounds, box_mesh, capsule_mesh, cone_mesh,
                                             cylinder_mesh, merge_meshes, mesh_area,
                                             mesh_digest, mesh_volume, principal_box,
                                             sphere_mesh, transform_mesh, write_stl)
from body_bridge.model import Mesh, Pose


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


@pytest.mark.parametrize('size', [(2.0, 4.0, 6.0), (0.02, 0.04, 0.06)])  # big, small faces
def test_the_stl_written_has_unit_outward_normals_and_the_triangles(tmp_path, size):
    box = box_mesh(size)
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


@pytest.mark.parametrize('mesh', [box_mesh((1.0, 2.0, 3.0)), sphere_mesh(0.5, n=12),
                                  cylinder_mesh(0.3, 1.2, n=10), cone_mesh(0.4, 0.9, n=9),
                                  capsule_mesh(0.2, 0.6, n=8)], ids=lambda m: m.name)
def test_primitive_meshes_are_closed_and_wound_outwards(mesh):
    """Every edge is shared by exactly two triangles that run along it in opposite
    directions (a closed, consistently wound surface), and the volume is positive."""
    directed = [(int(a), int(b)) for f in mesh.faces for a, b in ((f[0], f[1]), (f[1], f[2]),
                                                                 (f[2], f[0]))]
    assert len(set(directed)) == len(directed)  # no edge twice in one direction
    assert set(directed) == {(b, a) for a, b in directed}  # each one back the other way
    assert mesh_volume(mesh) > 0


def test_a_box_mesh_has_the_box_s_area_volume_and_outward_faces():
    mesh = box_mesh((1.0, 2.0, 3.0))
    assert mesh_volume(mesh) == pytest.approx(6.0)
    assert mesh_area(mesh) == pytest.approx(2 * (2.0 + 6.0 + 3.0))
    v = mesh.vertices[mesh.faces]
    normals = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    assert (np.einsum('ij,ij->i', normals, v.mean(axis=1)) > 0).all()


def test_the_principal_box_of_a_turned_box_is_that_box():
    """The corners of a 3 x 2 x 1 box turned and moved: its centre, its axes (largest spread
    first, a right-handed frame) and its sizes."""
    rng = np.random.default_rng(12)
    local = np.array([[sx * 1.5, sy * 1.0, sz * 0.5]
                      for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    for _ in range(8):  # eigh's vectors come in either handedness
        turn = Pose(rng.normal(size=3), Pose.from_quat(rng.normal(size=4)).rot)
        pose, extents = principal_box(turn.apply(local))
        np.testing.assert_allclose(extents, (3.0, 2.0, 1.0), atol=1e-9)
        np.testing.assert_allclose(pose.pos, turn.pos, atol=1e-9)
        np.testing.assert_allclose(np.abs(pose.rot.T @ turn.rot), np.eye(3), atol=1e-9)
        assert np.linalg.det(pose.rot) == pytest.approx(1.0)


def test_the_principal_box_holds_every_point_and_touches_each_side():
    """A lopsided cloud: the box in its own frame runs from -extents/2 to +extents/2."""
    rng = np.random.default_rng(13)
    points = rng.exponential(size=(60, 3)) * (4.0, 1.0, 0.3) + (1.0, -2.0, 0.5)
    pose, extents = principal_box(points)
    np.testing.assert_allclose(pose.rot.T @ pose.rot, np.eye(3), atol=1e-12)
    local = (points - pose.pos) @ pose.rot
    np.testing.assert_allclose(local.min(axis=0), -extents / 2, atol=1e-12)
    np.testing.assert_allclose(local.max(axis=0), extents / 2, atol=1e-12)
    assert extents[0] > extents[1] > extents[2]


def test_no_meshes_merge_into_an_empty_mesh_of_3d_points():
    empty = merge_meshes([], name='none')
    assert empty.vertices.shape == (0, 3) and empty.faces.shape == (0, 3)
    assert empty.name == 'none'


@pytest.mark.parametrize('mesh', [sphere_mesh(0.5), capsule_mesh(0.5, 1.0)],
                         ids=['sphere', 'capsule'])
def test_round_meshes_are_symmetric_top_to_bottom(mesh):
    """Mirrored through z = 0 the vertices are the same set: the poles and every ring."""
    points = {tuple(np.round(v, 12)) for v in mesh.vertices}
    assert points == {tuple(np.round(v * (1, 1, -1), 12) + 0.0) for v in mesh.vertices}


def test_a_sphere_mesh_has_its_vertices_on_the_sphere_and_nearly_its_volume():
    mesh = sphere_mesh(0.5)
    np.testing.assert_allclose(np.linalg.norm(mesh.vertices, axis=1), 0.5, atol=1e-12)
    assert mesh_volume(mesh) == pytest.approx(4 / 3 * np.pi * 0.125, rel=0.02)
