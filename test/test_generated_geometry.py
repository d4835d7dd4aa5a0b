"""Polygons and extrusions of geometry/generated.py against their definitions: ear clipping
gives n - 2 triangles, texture polygons must match the faces, and the cross-section planes of
an open, non-planar spine are VRML97's (the end points take their neighbour's Z axis);
concave polygons in any plane are covered with their winding, a straight spine carries its
cross-section turned by each orientation, and a closed spine sweeps a torus by Pappus."""

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
    for bad in ([[0, 1, 2, 4]], [[0, 1, -1, 3]]):  # one past the last, and negative
        with pytest.raises(ValueError, match=r'texture coordinate index out of range 0\.\.3'):
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


def _turned(points2d, seed):
    """2-D points placed in a random plane of space, and that plane's unit normal."""
    from body_bridge.model import Pose
    rng = np.random.default_rng(seed)
    turn = Pose(rng.normal(size=3), Pose.from_quat(rng.normal(size=4)).rot)
    pts = np.column_stack([np.asarray(points2d, float), np.zeros(len(points2d))])
    return turn.apply(pts), turn.rot[:, 2]


# Concave, wound counter-clockwise: an L, a star, a comb; their areas by the shoelace formula.
CONCAVE = {
    'L': [(0, 0), (3, 0), (3, 1), (1, 1), (1, 2), (0, 2)],
    'star': [(np.cos(a) * r, np.sin(a) * r) for k, (a, r) in
             enumerate((2 * np.pi * k / 10, 1.0 if k % 2 == 0 else 0.4) for k in range(10))],
    'comb': [(0, 0), (5, 0), (5, 3), (4, 3), (4, 1), (3, 1), (3, 3), (2, 3), (2, 1), (1, 1),
             (1, 3), (0, 3)],
}


@pytest.mark.parametrize('name', sorted(CONCAVE))
@pytest.mark.parametrize('seed', [1, 2, 3, 4])
def test_a_concave_polygon_in_any_plane_is_covered_with_its_winding(name, seed):
    """n - 2 triangles, each wound as the polygon (its normal along the plane's), whose areas
    add up to the polygon's: the triangles cover it without overlap. The list starts at
    another corner each time (a reflex one first too)."""
    flat = np.roll(np.asarray(CONCAVE[name], float), seed * 3, axis=0)
    x, y = flat[:, 0], flat[:, 1]
    area = 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    pts, normal = _turned(flat, seed)
    tris = triangulate_polygon(pts)
    assert len(tris) == len(flat) - 2
    normals = [np.cross(pts[j] - pts[i], pts[k] - pts[i]) for i, j, k in tris]
    assert all(n @ normal > 0 for n in normals)
    assert sum(0.5 * np.linalg.norm(n) for n in normals) == pytest.approx(area, rel=1e-12)


def _axis_angle(axis, angle):
    from body_bridge.model import Pose
    return Pose.from_axis_angle(axis, angle).rot


@pytest.mark.parametrize('direction', [(1.0, 2.0, 2.0), (0.0, 0.0, -3.0), (-2.0, 0.5, 0.1),
                                       (1.0, -2.0, 0.5)])
def test_a_straight_spine_carries_the_cross_section_turned_by_its_orientation(direction):
    """VRML97: along a straight spine the cross-section plane is turned the least way from +Y
    onto the spine; then each orientation (axis, angle) turns the cross-section in that plane's
    frame. Spine points 0, 1.5 and 4 units apart along the direction."""
    from body_bridge.geometry.generated import extrusion_mesh
    d = np.asarray(direction) / np.linalg.norm(direction)
    spine = np.outer([0.0, 1.5, 4.0], d) + (0.3, -0.2, 0.1)
    cs = [(0.5, 0.2), (-0.3, 0.4), (-0.2, -0.5)]
    orientation = [(1.0, 2.0, 3.0, 0.7), (0.0, 1.0, 0.0, -0.4), (2.0, -1.0, 0.5, 1.9)]
    mesh = extrusion_mesh(cs, spine, orientation=orientation, begin_cap=False, end_cap=False)
    plane = _axis_angle(np.cross((0.0, 1.0, 0.0), d), np.arccos(d[1]))
    for i, (ax, ay, az, angle) in enumerate(orientation):
        turn = plane @ _axis_angle((ax, ay, az), angle)
        expected = [spine[i] + turn @ (x, 0.0, z) for x, z in cs]
        np.testing.assert_allclose(mesh.vertices[3 * i:3 * i + 3], expected, atol=1e-12)


def test_no_scale_or_orientation_entries_mean_none_given():
    from body_bridge.geometry.generated import extrusion_mesh
    cs, spine = [(0.5, 0.2), (-0.3, 0.4), (-0.2, -0.5)], [(0, 0, 0), (0, 1, 0), (1, 2, 0)]
    plain = extrusion_mesh(cs, spine)
    empty = extrusion_mesh(cs, spine, scale=[], orientation=[])
    np.testing.assert_array_equal(empty.vertices, plain.vertices)
    np.testing.assert_array_equal(empty.faces, plain.faces)


def test_a_closed_spine_makes_a_ring_once_and_a_torus_by_pappus():
    """A square cross-section (side 0.2) swept round a circle of radius 1 whose last point
    repeats its first: 64 rings, not 65, closed edge by edge, and the volume of a torus
    (area x the centre's path, 0.04 x 2 pi, less the polygon's shortfall)."""
    from body_bridge.geometry.generated import extrusion_mesh
    from body_bridge.geometry.primitives import mesh_volume
    a = np.linspace(0, 2 * np.pi, 65)
    spine = np.stack([np.cos(a), np.zeros(65), np.sin(a)], axis=1)
    spine[-1] = spine[0]
    cs = [(0.1, 0.1), (0.1, -0.1), (-0.1, -0.1), (-0.1, 0.1), (0.1, 0.1)]
    mesh = extrusion_mesh(cs, spine)
    assert len(mesh.vertices) == 64 * 4
    directed = [(int(f[k]), int(f[(k + 1) % 3])) for f in mesh.faces for k in range(3)]
    assert set(directed) == {(b, a) for a, b in directed}
    assert abs(mesh_volume(mesh)) == pytest.approx(0.04 * 2 * np.pi, rel=2e-3)


def test_a_capped_prism_on_a_three_point_spine_is_closed_with_the_prism_s_volume():
    """A square cross-section (side 0.2) along a three-point straight spine 3 m long, capped:
    closed edge by edge, volume 0.04 x 3."""
    from body_bridge.geometry.generated import extrusion_mesh
    from body_bridge.geometry.primitives import mesh_volume
    cs = [(0.1, 0.1), (0.1, -0.1), (-0.1, -0.1), (-0.1, 0.1), (0.1, 0.1)]
    mesh = extrusion_mesh(cs, [(0, 0, 0), (0, 1, 0), (0, 3, 0)])
    directed = [(int(f[k]), int(f[(k + 1) % 3])) for f in mesh.faces for k in range(3)]
    assert set(directed) == {(b, a) for a, b in directed}
    assert mesh_volume(mesh) == pytest.approx(0.04 * 3.0)


def test_an_open_cross_section_sweeps_an_open_strip():
    """An L-shaped open cross-section (0.3 + 0.2 m) along a 2 m straight spine, uncapped: its
    area is the section's length times the spine's, nothing joins its ends."""
    from body_bridge.geometry.generated import extrusion_mesh
    from body_bridge.geometry.primitives import mesh_area
    mesh = extrusion_mesh([(0.3, 0.0), (0.0, 0.0), (0.0, 0.2)], [(0, 0, 0), (0, 2, 0)],
                          begin_cap=False, end_cap=False)
    assert mesh_area(mesh) == pytest.approx(0.5 * 2.0)


def test_a_two_point_cross_section_and_spine_make_one_quad():
    from body_bridge.geometry.generated import extrusion_mesh
    from body_bridge.geometry.primitives import mesh_area
    mesh = extrusion_mesh([(0.0, 0.0), (0.5, 0.0)], [(0, 0, 0), (0, 2, 0)],
                          begin_cap=False, end_cap=False)
    assert len(mesh.faces) == 2 and mesh_area(mesh) == pytest.approx(1.0)


@pytest.mark.parametrize('cs, spine', [([(0, 0)], [(0, 0, 0), (0, 1, 0)]),
                                       ([(0, 0), (1, 0)], [(0, 0, 0)]),
                                       ([(0, 0)], [(0, 0, 0)])])
def test_fewer_than_two_points_either_way_are_refused(cs, spine):
    from body_bridge.geometry.generated import extrusion_mesh
    with pytest.raises(ValueError, match='at least 2 cross-section and 2 spine points'):
        extrusion_mesh(cs, spine)


@pytest.mark.parametrize('x, z', [(1, 3), (3, 1), (1, 1)])
def test_an_elevation_grid_of_fewer_than_two_points_along_an_axis_is_refused(x, z):
    from body_bridge.geometry.generated import elevation_grid_mesh
    with pytest.raises(ValueError, match='at least 2 points along x and z'):
        elevation_grid_mesh(x, z, 1.0, 1.0, [0.0] * (x * z))
