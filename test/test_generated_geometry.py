"""Polygons and extrusions of geometry/generated.py against their definitions: ear clipping
gives n - 2 triangles, texture polygons must match the faces, and the cross-section planes of
an open, non-planar spine are VRML97's (the end points take their neighbour's Z axis)."""

import numpy as np
import pytest

from body_bridge.geometry.generated import _spine_frames, face_set_mesh, triangulate_polygon


def test_fewer_than_three_points_make_no_triangle():
    assert triangulate_polygon(np.zeros((2, 3))) == []
    assert triangulate_polygon(np.zeros((0, 3))) == []


@pytest.mark.parametrize('n', [4, 5, 8])
def test_a_convex_polygon_becomes_n_minus_2_proper_triangles(n):
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    pts = np.stack([np.cos(a), np.sin(a), np.zeros(n)], axis=1)
    tris = triangulate_polygon(pts)
    assert len(tris) == n - 2
    assert all(len(set(t)) == 3 for t in tris)
    area = sum(0.5 * np.cross(pts[j] - pts[i], pts[k] - pts[i])[2] for i, j, k in tris)
    assert area == pytest.approx(0.5 * n * np.sin(2 * np.pi / n))


def test_texture_polygons_that_do_not_match_the_faces_are_refused():
    square = [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]
    uv = [[0, 0], [1, 0], [1, 1], [0, 1]]
    mesh = face_set_mesh(square, [[0, 1, 2, 3]], texcoords=uv, tex_polygons=[[0, 1, 2, 3]])
    assert mesh.texcoords.shape == (4, 2)
    for bad in ([[0, 1, 2]], [[0, 1, 2, 3], [0, 1, 2]]):
        with pytest.raises(ValueError, match='do not match the faces corner for corner'):
            face_set_mesh(square, [[0, 1, 2, 3]], texcoords=uv, tex_polygons=bad)


def _vrml_frames(spine):
    """VRML97 4.6.5: Y along the spine, Z the cross product at each point (the ends of an open
    spine take their neighbour's; where three points are collinear, the previous Z, at the
    start the first defined one), flipped to agree with the previous one."""
    n = len(spine)

    def cross(i):
        c = min(max(i, 1), n - 2)
        return np.cross(spine[c + 1] - spine[c], spine[c - 1] - spine[c])
    first = next(cross(i) for i in range(n) if np.linalg.norm(cross(i)) > 1e-12)
    out, previous = [], None
    for i in range(n):
        y = spine[min(i + 1, n - 1)] - spine[max(i - 1, 0)]
        z = cross(i)
        if np.linalg.norm(z) <= 1e-12:
            z = first if previous is None else previous
        if previous is not None and z @ previous < 0:
            z = -z
        previous = z
        y, z = y / np.linalg.norm(y), z / np.linalg.norm(z)
        x = np.cross(y, z)
        x /= np.linalg.norm(x)
        out.append(np.column_stack([x, np.cross(z, x), z]))
    return out


@pytest.mark.parametrize('spine', [
    [[0, 0, 0], [0, 1, 0], [1, 2, 0.5], [1, 3, 2], [0, 4, 2.5]],
    [[0, 0, 0], [1, 1, 0], [1, 2, 1], [2, 2, 3]], [[0, 0, 0], [0, 1, 0], [1, 2, 0]],
    [[0, 0, 0], [0, 1, 0], [0, 2, 0], [1, 3, 0], [1, 4, 1], [1, 5, 1], [1, 6, 1]]])
def test_the_planes_of_an_open_spine_are_vrml97_s(spine):
    spine = np.array(spine, float)
    for got, expected in zip(_spine_frames(spine, False), _vrml_frames(spine), strict=True):
        np.testing.assert_allclose(got, expected, atol=1e-12)


def test_a_straight_spine_turns_plus_y_onto_it_even_downwards():
    up, = {tuple(np.round(f[:, 1], 12)) for f in _spine_frames(np.array([[0, 0, 0],
                                                                          [0, 0, 2.0]]), False)}
    assert up == (0.0, 0.0, 1.0)
    for frame in _spine_frames(np.array([[0, 0, 0], [0, -1.0, 0], [0, -2.0, 0]]), False):
        np.testing.assert_allclose(frame, np.diag([1.0, -1.0, -1.0]), atol=1e-12)
