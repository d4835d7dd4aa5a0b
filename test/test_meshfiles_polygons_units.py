"""Polygons to triangles (meshfiles/_polygons.py): every triangle inside, facing the polygon's way.

A triangulation is right when it has n - 2 triangles, each facing the way the polygon faces
(by its Newell normal, computed here independently) and their areas add up to the polygon's:
a triangle outside the polygon, or one folded back, breaks the sum or the sign.
"""

import math

import numpy as np
import pytest

from body_bridge.meshfiles._polygons import split_polygons, triangulate


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
    tiny = 1e-12 * max(1.0, sum(areas))  # a straight corner bent by rounding
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


def test_a_convex_polygon_with_a_straight_corner_is_fanned_from_its_first_corner():
    xy = [(0, 0), (1, 0), (2, 0), (2, 1), (1, 2), (0, 1)]  # (1, 0) is on a straight edge
    faces = check(in_plane(xy), flat=1)
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
