"""geometry/generated.py against values computed apart: a polygon's Newell normal is twice its
area along its normal; concave polygons lying in the coordinate planes and the diagonal ones,
either way round and at any size, are covered with their winding; face sets enclose the volume
of the solid they describe and keep each corner's texture coordinate; extrusions scale and turn
their cross-section as VRML97 says and close outwards whichever way the cross-section runs;
elevation grids put each height at its grid point, facing +y."""

import numpy as np
import pytest

from body_bridge.geometry.generated import (_newell_normal, elevation_grid_mesh, extrusion_mesh,
                                            face_set_mesh, triangulate_polygon)
from body_bridge.geometry.primitives import mesh_area, mesh_volume
from test_generated_geometry import CONCAVE, _turned


def _shoelace(flat):
    x, y = np.asarray(flat, float).T
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


@pytest.mark.parametrize('name', sorted(CONCAVE))
@pytest.mark.parametrize('seed', [5, 6])
@pytest.mark.parametrize('reverse', [False, True])
def test_the_newell_normal_is_twice_the_area_along_the_polygon_s_normal(name, seed, reverse):
    flat = np.asarray(CONCAVE[name], float)[::-1 if reverse else 1]
    pts, normal = _turned(flat, seed)
    np.testing.assert_allclose(_newell_normal(pts), 2 * _shoelace(flat) * normal, atol=1e-12)


# Planes spanned by integer vectors u, v (points x u + y v lie exactly in them); u x v is the
# normal about which (x, y) counter-clockwise runs: the coordinate planes both ways round and
# the three diagonal ones.
PLANES = {
    '+x': ((0, 1, 0), (0, 0, 1)), '-x': ((0, 0, 1), (0, 1, 0)),
    '+y': ((0, 0, 1), (1, 0, 0)), '-y': ((1, 0, 0), (0, 0, 1)),
    '+z': ((1, 0, 0), (0, 1, 0)), '-z': ((0, 1, 0), (1, 0, 0)),
    'xy': ((0, 0, 1), (1, -1, 0)), 'xz': ((1, 0, -1), (0, 1, 0)), 'yz': ((1, 0, 0), (0, 1, -1)),
}


def _check_cover(pts, tris, normal, area):
    assert len(tris) == len(pts) - 2
    normals = [np.cross(pts[j] - pts[i], pts[k] - pts[i]) for i, j, k in tris]
    assert all(n @ normal > 0 for n in normals)
    assert sum(0.5 * np.linalg.norm(n) for n in normals) == pytest.approx(area, rel=1e-9)


@pytest.mark.parametrize('plane', sorted(PLANES))
@pytest.mark.parametrize('name', sorted(CONCAVE))
def test_a_concave_polygon_in_a_coordinate_or_diagonal_plane_is_covered(plane, name):
    u, v = (np.array(a, float) for a in PLANES[plane])
    normal = np.cross(u, v)
    for start in range(0, len(CONCAVE[name]), 2):
        flat = np.roll(np.asarray(CONCAVE[name], float), start, axis=0)
        pts = flat[:, :1] * u + flat[:, 1:] * v + (0.5, -1.0, 2.0)
        _check_cover(pts, triangulate_polygon(pts), normal,
                     np.linalg.norm(normal) * _shoelace(flat))


@pytest.mark.parametrize('size', [1e-5, 1e3])
def test_a_polygon_s_size_does_not_matter(size):
    """The comb 50 micrometres across and 5 km across is covered as one 5 m across."""
    flat = np.asarray(CONCAVE['comb'], float) * size
    for seed in (1, 2):
        pts, normal = _turned(flat, seed)
        pts = pts - pts[0]  # the turn's offset would swamp the small one
        _check_cover(pts, triangulate_polygon(pts), normal, _shoelace(flat))


@pytest.mark.parametrize('pts', [[(0, 0, 0), (1, 0, 0), (0, 1, 0)], [(0, 0, 0), (0, 1, 0),
                                                                     (1, 0, 0)]])
def test_a_triangle_is_itself_either_way_round(pts):
    assert triangulate_polygon(pts) == [(0, 1, 2)]


@pytest.mark.parametrize('pts', [[(k, 0, 0) for k in range(6)], [(1, 2, 3)] * 5])
def test_a_polygon_without_area_still_makes_n_minus_2_triangles_of_its_own_corners(pts):
    tris = triangulate_polygon(pts)
    assert len(tris) == len(pts) - 2
    assert all(len(set(t)) == 3 and all(0 <= i < len(pts) for i in t) for t in tris)


CUBE = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
# Outward (counter-clockwise seen from outside), as tuples: bottom, top, front, right, back, left.
CUBE_FACES = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]


def _closed(mesh):
    directed = [(int(f[k]), int(f[(k + 1) % 3])) for f in mesh.faces for k in range(3)]
    return set(directed) == {(b, a) for a, b in directed}


def test_a_face_set_of_a_cube_encloses_its_volume():
    size = np.array([2.0, 0.5, 0.25])
    mesh = face_set_mesh(np.array(CUBE) * size, CUBE_FACES)
    assert mesh.texcoords is None and len(mesh.faces) == 12 and _closed(mesh)
    assert mesh_volume(mesh) == pytest.approx(0.25)
    assert mesh_area(mesh) == pytest.approx(2 * (1.0 + 0.5 + 0.125))


@pytest.mark.parametrize('bad', [8, -1])
def test_a_face_index_out_of_range_is_refused(bad):
    with pytest.raises(ValueError, match=r'face index out of range 0\.\.7: \[0, 1, 2, ' +
                       str(bad) + r'\]'):
        face_set_mesh(CUBE, [(0, 3, 2, 1), (0, 1, 2, bad)])


def test_each_corner_keeps_the_texture_coordinate_its_face_gives():
    """Every face maps the whole square (0..1)^2, so a cube corner is used with up to three
    coordinates: one vertex per (corner, coordinate) pair the faces use (20 of the 24 corners
    of the faces differ), each at its corner with its coordinate, still enclosing 1 m^3."""
    uv = [(0, 0), (1, 0), (1, 1), (0, 1)]
    mesh = face_set_mesh(CUBE, CUBE_FACES, texcoords=uv, tex_polygons=[(0, 1, 2, 3)] * 6)
    expected = {(CUBE[c], uv[t]) for face in CUBE_FACES for c, t in zip(face, range(4))}
    got = {(tuple(p), tuple(q)) for p, q in zip(mesh.vertices, mesh.texcoords)}
    assert len(mesh.vertices) == len(expected) == 20 and got == expected
    assert mesh_volume(mesh) == pytest.approx(1.0)
    assert mesh_area(mesh) == pytest.approx(6.0)


def test_without_texture_indices_the_vertex_indices_pick_the_coordinates():
    uv = [(k / 8, 1 - k / 8) for k in range(8)]
    mesh = face_set_mesh(CUBE, CUBE_FACES, texcoords=uv)
    got = {(tuple(p), tuple(q)) for p, q in zip(mesh.vertices, mesh.texcoords)}
    assert got == set(zip(CUBE, uv)) and mesh_volume(mesh) == pytest.approx(1.0)


SQUARE = [(0.1, 0.1), (0.1, -0.1), (-0.1, -0.1), (-0.1, 0.1), (0.1, 0.1)]


def test_scale_stretches_the_cross_section_and_missing_entries_collapse_it():
    """Along +y the cross-section's x and z are the world's. Scale (2, 0.5) at the first two of
    three points 1 m apart and none at the third: a 0.4 x 0.1 box 1 m long, then a pyramid
    1 m high to the point."""
    mesh = extrusion_mesh(SQUARE, [(0, 0, 0), (0, 1, 0), (0, 2, 0)],
                          scale=[(2.0, 0.5), (2.0, 0.5)])
    np.testing.assert_allclose(mesh.vertices[:4], [(x * 2, 0, z * 0.5) for x, z in SQUARE[:4]],
                               atol=1e-15)
    np.testing.assert_allclose(mesh.vertices[8:], np.tile((0, 2.0, 0), (4, 1)), atol=1e-15)
    assert mesh_volume(mesh) == pytest.approx(0.04 + 0.04 / 3)


def test_one_scale_entry_applies_to_every_point():
    mesh = extrusion_mesh(SQUARE, [(0, 0, 0), (0, 1, 0), (0, 3, 0)], scale=[(2.0, 0.5)])
    assert mesh_volume(mesh) == pytest.approx(0.04 * 3)
    np.testing.assert_allclose(np.ptp(mesh.vertices, axis=0), (0.4, 3.0, 0.1))


def _about_y(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def test_one_orientation_entry_turns_every_point_and_missing_ones_none():
    """On a spine along +y an orientation about +y by 1 rad turns the cross-section by that
    angle about the spine; given for the first two of three points, the third is not turned."""
    spine = [(0, 0, 0), (0, 1, 0), (0, 3, 0)]
    cs = np.array([(0.3, 0.0, 0.1), (-0.1, 0.0, 0.2), (0.0, 0.0, -0.2)])
    turned = cs @ _about_y(1.0).T
    one = extrusion_mesh(cs[:, ::2], spine, orientation=[(0.0, 1.0, 0.0, 1.0)])
    two = extrusion_mesh(cs[:, ::2], spine, orientation=[(0.0, 2.0, 0.0, 1.0)] * 2)
    for i, y in enumerate((0.0, 1.0, 3.0)):
        np.testing.assert_allclose(one.vertices[3 * i:3 * i + 3], turned + (0, y, 0), atol=1e-12)
        np.testing.assert_allclose(two.vertices[3 * i:3 * i + 3],
                                   (turned if i < 2 else cs) + (0, y, 0), atol=1e-12)


def test_an_orientation_about_no_axis_is_no_rotation():
    spine = [(0, 0, 0), (0, 1, 0), (1, 2, 0)]
    plain = extrusion_mesh(SQUARE, spine)
    np.testing.assert_array_equal(
        extrusion_mesh(SQUARE, spine, orientation=[(0.0, 0.0, 0.0, 0.5)]).vertices, plain.vertices)


@pytest.mark.parametrize('reverse', [False, True])
@pytest.mark.parametrize('spine', [[(0, 0, 0), (0, 1, 0), (0, 3, 0)],
                                   [(4, 5, 6), (5, 5, 6), (5, 7, 6.5), (6, 8, 6)]])
def test_a_capped_extrusion_winds_outwards_whichever_way_its_section_runs(reverse, spine):
    cs = SQUARE[::-1] if reverse else SQUARE
    mesh = extrusion_mesh(cs, spine)
    assert _closed(mesh) and mesh_volume(mesh) > 0
    if len(spine) == 3:
        assert mesh_volume(mesh) == pytest.approx(0.04 * 3)


@pytest.mark.parametrize('begin', [False, True])
def test_one_cap_leaves_the_sides_wound_as_without_caps(begin):
    """Far from the origin (where an open surface's signed volume is negative) one cap adds
    its two triangles, wound as the sides it closes, and turns nothing round."""
    spine = [(0, 5, 0), (0, 6, 0)]
    bare = extrusion_mesh(SQUARE, spine, begin_cap=False, end_cap=False)
    one = extrusion_mesh(SQUARE, spine, begin_cap=begin, end_cap=not begin)
    np.testing.assert_array_equal(one.faces[:len(bare.faces)], bare.faces)
    assert len(one.faces) == len(bare.faces) + 2
    sides = {(int(f[k]), int(f[(k + 1) % 3])) for f in bare.faces for k in range(3)}
    cap = {(int(f[k]), int(f[(k + 1) % 3])) for f in one.faces[len(bare.faces):] for k in range(3)}
    assert not cap & sides and len({(b, a) for a, b in cap} & sides) == 4


@pytest.mark.parametrize('spine', [[(0, 0, 0), (0, 0, 0), (0, 1, 0)],
                                   [(0, 0, 0), (0, 1, 0), (0, 1, 0)],
                                   [(1, 1, 1), (1, 1, 1)],
                                   [(0, 0, 0), (0, 1, 0), (0, 0, 0), (1, 0, 0)]])
def test_a_spine_with_equal_consecutive_ends_or_turning_straight_back_is_refused(spine):
    with pytest.raises(ValueError, match='the spine has two equal consecutive points or turns '
                       'straight back'):
        extrusion_mesh(SQUARE, spine)


def test_an_elevation_grid_puts_each_height_at_its_point_facing_up():
    """4 x 3 points, 0.5 m apart along x and 0.25 m along z: vertex i + 4 j at (0.5 i,
    h[i + 4 j], 0.25 j); 12 triangles covering the 1.5 x 0.5 m rectangle seen from +y."""
    rng = np.random.default_rng(3)
    heights = rng.uniform(-0.2, 0.2, size=(3, 4))
    for ccw in (True, False):
        mesh = elevation_grid_mesh(4, 3, 0.5, 0.25, heights, ccw=ccw)
        expected = [(0.5 * i, heights[j, i], 0.25 * j) for j in range(3) for i in range(4)]
        np.testing.assert_allclose(mesh.vertices, expected, atol=1e-15)
        assert len(mesh.faces) == 12
        tri = mesh.vertices[mesh.faces]
        up = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])[:, 1]
        assert np.all(up > 0 if ccw else up < 0)
        assert 0.5 * np.abs(up).sum() == pytest.approx(1.5 * 0.5)
    assert np.array_equal(elevation_grid_mesh(4, 3, 0.5, 0.25, heights).faces,
                          elevation_grid_mesh(4, 3, 0.5, 0.25, heights, ccw=True).faces)


def test_a_tilted_elevation_grid_has_the_plane_s_area():
    """Heights 0.3 x - 0.2 z on a 5 x 4 grid (1 m, 2 m apart): a plane over 4 x 6 m^2."""
    x, z = np.meshgrid(np.arange(5) * 1.0, np.arange(4) * 2.0)
    mesh = elevation_grid_mesh(5, 4, 1.0, 2.0, (0.3 * x - 0.2 * z).ravel())
    assert mesh_area(mesh) == pytest.approx(24.0 * np.sqrt(1 + 0.09 + 0.04))


@pytest.mark.parametrize('x, z', [(2, 2), (2, 3), (3, 2)])
def test_the_smallest_elevation_grids_are_quads(x, z):
    mesh = elevation_grid_mesh(x, z, 0.5, 2.0, [1.0] * (x * z))
    assert len(mesh.faces) == 2 * (x - 1) * (z - 1)
    assert mesh_area(mesh) == pytest.approx((x - 1) * 0.5 * (z - 1) * 2.0)


@pytest.mark.parametrize('count', [11, 13])
def test_an_elevation_grid_with_the_wrong_number_of_heights_is_refused(count):
    with pytest.raises(ValueError, match=f'4 x 3 points needs 12 heights, found {count}'):
        elevation_grid_mesh(4, 3, 1.0, 1.0, [0.0] * count)
