"""Polygons to triangles (meshfiles/_polygons.py): every triangle inside, facing the polygon's way.

A triangulation is right when it has n - 2 triangles, each facing the way the polygon faces
(by its Newell normal, computed here independently) and their areas add up to the polygon's:
a triangle outside the polygon, or one folded back, breaks the sum or the sign.
"""

import math
import warnings

import numpy as np
import pytest

from body_bridge.meshfiles._polygons import EAR_CLIP_MAX, split_polygons, triangulate


def polygon_normal(p):
    """Twice the vector area of a closed polygon (sum of cross products about its centroid)."""
    c = p.mean(axis=0)
    return sum(np.cross(p[i] - c, p[(i + 1) % len(p)] - c) for i in range(len(p)))


def check(points, order=None, flat=0):
    """Triangulate one polygon (its corners in ``order``) and check the triangles (``flat``
    of them may have no area: a polygon with a straight corner or two corners at one place
    has one)."""
    points = np.asarray(points, dtype=float)
    corners = np.arange(len(points)) if order is None else np.asarray(order)
    faces, owner = triangulate(points, corners, [len(corners)])
    unique = [c for i, c in enumerate(corners) if c != corners[i - 1]]
    assert len(faces) == len(unique) - 2 and (owner == 0).all()
    normal = polygon_normal(points[unique])
    unit = normal / np.linalg.norm(normal)
    areas = [np.cross(points[b] - points[a], points[c] - points[a]) @ unit for a, b, c in faces]
    tiny = 1e-12 * sum(areas)  # a straight corner bent by rounding, at any size
    assert min(areas) > -tiny and sum(a < tiny for a in areas) <= flat, areas
    assert sum(areas) == pytest.approx(np.linalg.norm(normal))
    return faces


def in_plane(xy, origin=(0.3, -0.2, 0.5), u=(1, 0, 0), v=(0, 1, 0)):
    return [np.add(origin, np.multiply(x, u) + np.multiply(y, v)) for x, y in xy]


#: A concave "comb" (the teeth point up), counter-clockwise.
COMB = [(0, 0), (6, 0), (6, 2), (5, 2), (5, 1), (4, 1), (4, 2), (3, 2), (3, 1), (2, 1), (2, 2),
        (1, 2), (1, 1), (0, 1)]
#: A star of 8 points: every other corner is reflex.
STAR = [(math.cos(k * math.pi / 8) * (1.0 if k % 2 == 0 else 0.3),
         math.sin(k * math.pi / 8) * (1.0 if k % 2 == 0 else 0.3)) for k in range(16)]
SQ = 1 / math.sqrt(2)
#: Long combs and stars: many corners are tried before each ear.
BIG_COMB = [(0, 0), (40, 0), (40, 2)] + [p for k in range(19, -1, -1) for p in (
    (2 * k + 1.5, 2), (2 * k + 1.5, 1), (2 * k + 0.5, 1), (2 * k + 0.5, 2))] + [(0, 2)]
BIG_STAR = [(math.cos(k * math.pi / 60) * (1.0 if k % 2 == 0 else 0.5),
             math.sin(k * math.pi / 60) * (1.0 if k % 2 == 0 else 0.5)) for k in range(120)]


def test_nothing_to_triangulate():
    faces, owner = triangulate(np.zeros((0, 3)), [], [])
    assert faces.shape == (0, 3) and owner.shape == (0,)


@pytest.mark.parametrize('xy', [
    [(1, 0.3), (2, 0), (1, 2), (0, 0)],   # reflex at the first corner: split along b-d
    [(0, 0), (1, 0.3), (2, 0), (1, 2)],   # reflex at the second corner: along a-c
    [(0, 0), (1, 2), (2, 0), (1, 0.3)][::-1],  # reflex at the first corner, reversed
    [(1, 2), (0, 0), (1, 0.3), (2, 0)],   # reflex at the third corner
    [(2, 0), (1, 2), (0, 0), (1, 0.3)],   # reflex at the fourth corner
    [(0, 0), (2, 0), (2, 1), (0, 1)],     # convex
], ids=['reflex_a', 'reflex_b', 'reflex_a2', 'reflex_c', 'reflex_d', 'convex'])
def test_quads_split_along_the_diagonal_that_keeps_them_flat(xy):
    check(in_plane(xy))
    check(in_plane(xy, u=(0, 0, 1), v=(1, 0, 0)))


@pytest.mark.parametrize('u, v', [((1, 0, 0), (0, 1, 0)), ((0, 1, 0), (0, 0, 1)),
                                  ((0, 0, 1), (1, 0, 0)), ((SQ, SQ, 0), (0, 0, 1)),
                                  ((0, 1, 0), (1, 0, 0))],
                         ids=['xy', 'yz', 'zx', 'tilted', 'flipped'])
@pytest.mark.parametrize('shape', [COMB, STAR, BIG_COMB, BIG_STAR],
                         ids=['comb', 'star', 'big_comb', 'big_star'])
def test_concave_polygons_are_ear_clipped_in_their_own_plane(shape, u, v):
    check(in_plane(shape, u=u, v=v))


@pytest.mark.parametrize('shape', [COMB, STAR], ids=['comb', 'star'])
def test_concave_polygons_a_tenth_of_a_millimetre_wide_are_ear_clipped_too(shape):
    # the plane's axes are unit whatever the polygon's size: a reflex corner of a polygon
    # 1e-4 wide turns by about 1e-8, far beyond rounding, and is no corner of a fan
    small = [(1e-4 * x, 1e-4 * y) for x, y in shape]
    check(in_plane(small))
    check(in_plane(small, u=(0, 0, 1), v=(1, 0, 0)))


#: An L, counter-clockwise: its corner (1, 1) is reflex, and a fan from its first corner
#: folds its first triangle back.
ELL = [(2, 1), (1, 1), (1, 2), (0, 2), (0, 0), (2, 0)]


@pytest.mark.parametrize('width, origin', [(1e-6, (0.0, 0.0, 0.0)), (1e-3, (1e3, -1e3, 5e2)),
                                           (1e-9, (1e-3, 0.0, 0.0))],
                         ids=['micrometre', 'millimetre_a_kilometre_out', 'nanometre'])
def test_a_concave_polygon_is_ear_clipped_at_any_size_and_place(width, origin):
    # the convexity test's bound follows the polygon's own extent, not its distance from
    # the origin nor a unit: a reflex corner turning by a quarter of its edges' product is
    # reflex at every scale
    small = [(width * x, width * y) for x, y in ELL]
    check(in_plane(small, origin=origin))
    check(in_plane(small, origin=origin, u=(0, 0, 1), v=(0, 1, 0)))


def test_a_concave_polygon_in_a_plane_tilted_every_way_is_ear_clipped():
    # the plane's normal has three parts: each part of the polygon's Newell normal counts
    # (the comb's teeth, on lines of the plane, can leave two triangles without area: three
    # corners on one line whose turn rounds to just above 0)
    u, v = np.array([1, 2, 2]) / 3, np.array([2, 1, -2]) / 3
    for shape in (COMB, STAR):
        check(in_plane(shape, origin=(5.0, -3.0, 2.0), u=u, v=v), flat=2)
        check(in_plane(shape, origin=(5.0, -3.0, 2.0), u=v, v=u), flat=2)
    # a plane whose normal leans mostly along y, a part a wrong Newell sum can turn around
    u = np.array([-0.526, 0.322, 0.787])
    u /= np.linalg.norm(u)
    v = np.array([0.779, -0.189, 0.598])
    v -= u * (u @ v)
    check(in_plane(COMB, u=u, v=v / np.linalg.norm(v)), flat=2)


def test_stars_up_to_the_ear_clipping_limit_are_clipped_and_larger_ones_fanned():
    # EAR_CLIP_MAX corners are clipped into triangles facing the star's way; one more
    # corner, and the star is fanned from its first corner (ear clipping costs O(n^2))
    def star(n):
        return [(math.cos(k * 2 * math.pi / n) * (1.0 if k % 2 == 0 else 0.9),
                 math.sin(k * 2 * math.pi / n) * (1.0 if k % 2 == 0 else 0.9))
                for k in range(n)]
    check(in_plane(star(EAR_CLIP_MAX)))
    n = EAR_CLIP_MAX + 2
    faces, _ = triangulate(np.asarray(in_plane(star(n)), float), np.arange(n), [n])
    assert faces.tolist() == [[0, k, k + 1] for k in range(1, n - 1)]


@pytest.mark.parametrize('size', [1e-3, 1.0, 1e4])
def test_a_corner_turning_back_by_a_billionth_of_the_size_squared_is_reflex(size):
    # a square with its top edge dented by 1e-9 of its size: the dent turns back by 1e-9 of
    # the size squared, a thousand times the rounding bound; a fan from the first corner
    # would fold its first triangle back
    dented = [(1, 1), (0.5, 1 - 1e-9), (0, 1), (0, 0), (1, 0)]
    check(in_plane([(size * x, size * y) for x, y in dented], origin=(0, 0, 0)))
    check(in_plane([(size * x, size * y) for x, y in dented], origin=(7.0, -3.0, 2.0)))


@pytest.mark.parametrize('radius, origin', [(0.01, (5.0, -3.0, 2.0)), (300.0, (0, 0, 0))])
def test_a_convex_polygon_is_fanned_from_its_first_corner(radius, origin):
    octagon = [(radius * math.cos(k * math.pi / 4), radius * math.sin(k * math.pi / 4))
               for k in range(8)]
    faces = check(in_plane(octagon, origin=origin, u=(0, SQ, SQ), v=(1, 0, 0)))
    assert faces.tolist() == [[0, k, k + 1] for k in range(1, 7)]


@pytest.mark.parametrize('xy', [
    [(3, 0), (2, 2), (2, 3), (1, 2), (0, 2)],
    [(0, 0), (2, 1), (2, 2), (2, 3), (1, 3), (1, 2), (0, 2)],
    [(0, 0), (2, 1), (3, 1), (3, 2), (3, 3), (2, 2), (1, 3)],
    [(1, 2), (0, 0), (3, 0), (3, 4), (2, 3), (1, 3), (0, 3)]],
    ids=['kite', 'notch', 'step', 'chair'])
def test_a_corner_on_an_ears_edge_keeps_that_ear_whole(xy):
    # a corner lying exactly on the edge of a candidate ear is inside it: cutting that ear
    # off would leave the corner on the cut, and the rest folded
    check(in_plane([(float(x), float(y)) for x, y in xy], origin=(0, 0, 0)), flat=1)


def test_a_straight_corner_of_a_concave_polygon_is_no_ear():
    # the comb with its first corner in the middle of its bottom edge: cutting that corner
    # off as an ear would give a triangle without area, and there is a triangulation without
    comb = [(3, 0)] + COMB[1:] + [(0, 0)]
    check(in_plane(comb, origin=(0, 0, 0)))


def test_a_polygon_of_one_corner_keeps_the_next_polygons_corners_their_own():
    indices, counts = split_polygons([5, -1, 0, 1, 2, -1, 3, 4, -1])
    assert indices.tolist() == [5, 0, 1, 2, 3, 4] and counts.tolist() == [1, 3, 2]
    points = in_plane([(0, 0), (1, 0), (0, 1), (2, 2), (3, 3), (1, 1)])
    faces, owner = triangulate(np.asarray(points, float), indices, counts)
    assert faces.tolist() == [[0, 1, 2]] and owner.tolist() == [1]


@pytest.mark.parametrize('order, flat', [([2, 2, 2, 2, 2], 0), ([0, 1, 0, 1, 0], 2),
                                         ([0, 1, 2, 3, 4, 5], 4)],
                         ids=['one_point', 'two_points', 'on_a_line'])
def test_a_polygon_without_area_gives_flat_triangles_and_says_nothing(order, flat):
    # n corners (repeats next to each other and the closing one left out) give n - 2
    # triangles, here all without area: nothing to draw, nothing said
    points = np.asarray(in_plane([(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)]), float)
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # no numpy warning of a division by zero on the console
        faces, owner = triangulate(points, np.array(order), [len(order)])
    assert len(faces) == flat and (owner == 0).all()
    assert set(faces.ravel().tolist()) <= set(order)


def test_a_triangle_given_as_a_closed_loop_with_a_repeat_is_one_triangle():
    points = np.asarray(in_plane([(0, 0), (1, 0), (0, 1)]), float)
    faces, owner = triangulate(points, np.array([0, 1, 1, 2, 0]), [5])
    assert faces.tolist() == [[0, 1, 2]] and owner.tolist() == [0]


def test_a_closed_loop_repeating_its_first_corner_and_repeated_corners():
    points = in_plane(COMB)
    order = list(range(len(COMB))) + [0]
    assert len(check(points, order)) == len(COMB) - 2
    check(points, [0, 0, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])


@pytest.mark.parametrize('u, v', [((0, 1, 0), (0, 0, 1)), ((0, 0, 1), (1, 0, 0)),
                                  ((1, 0, 0), (0, 1, 0))], ids=['normal_x', 'normal_y',
                                                                'normal_z'])
def test_two_corners_at_one_place_still_give_the_plane(u, v):
    xy = [(0, 0)] + COMB  # corner 0 and corner 1 are the same point
    check(in_plane(xy, u=u, v=v), flat=1)


@pytest.mark.parametrize('origin', [(0.3, -0.2, 0.5), (0.0, 0.0, 0.0)])  # bent, exact
def test_a_convex_polygon_with_a_straight_corner_is_fanned_from_its_first_corner(origin):
    xy = [(0, 0), (1, 0), (2, 0), (2, 1), (1, 2), (0, 1)]  # (1, 0) is on a straight edge
    faces = check(in_plane(xy, origin=origin), flat=1)
    assert faces.tolist() == [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5]]


def test_polygons_keep_their_order_and_owners():
    points = np.array(in_plane([(0, 0), (1, 0), (1, 1), (0, 1), (0.5, 0.5)]))
    indices, counts = split_polygons([0, 1, 2, 3, -1, 0, 1, 4, -1, -1, 1, 2])
    assert counts.tolist() == [4, 3, 2]
    faces, owner = triangulate(points, indices, counts)
    assert owner.tolist() == [0, 0, 1] and faces[2].tolist() == [0, 1, 4]


def test_a_large_convex_polygon_bent_by_rounding_is_still_fanned():
    xy = [(0, 0), (1000, 0), (2000, -1e-10), (2000, 1000), (0, 1000)]  # (1000, 0): a turn
    faces = check(in_plane(xy, origin=(0, 0, 0)), flat=1)              # of -1e-7
    assert faces.tolist() == [[0, 1, 2], [0, 2, 3], [0, 3, 4]]
