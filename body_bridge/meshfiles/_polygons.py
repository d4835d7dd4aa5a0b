"""Polygons to triangles, keeping each polygon's winding.

Triangles pass through; quads are split along the diagonal that keeps both halves facing
the way the quad faces (right for concave quads too); larger polygons are fanned when convex
and ear-clipped in their own plane otherwise.
"""

from __future__ import annotations

import numpy as np

__all__ = ['split_polygons', 'triangulate']

#: Larger polygons are fanned (ear clipping costs O(n^2)).
EAR_CLIP_MAX = 1000


def split_polygons(stream: np.ndarray, separator: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """A VRML-style index stream (polygons ended by ``separator``) as indices and counts.

    Returns:
        (indices, counts): the indices without separators, and the corner count of each
        polygon (a missing final separator is allowed; empty polygons are dropped).
    """
    stream = np.asarray(stream, dtype=np.int64).reshape(-1)
    ends = np.flatnonzero(stream == separator)
    if not len(ends) or ends[-1] != len(stream) - 1:
        ends = np.append(ends, len(stream))
    starts = np.concatenate([[0], ends[:-1] + 1])
    counts = ends - starts
    keep = stream != separator
    return stream[keep], counts[counts > 0]


def triangulate(vertices: np.ndarray, indices: np.ndarray, counts: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """Triangulate polygons given as a flat index list and corner counts.

    Args:
        vertices: (N, 3) positions the indices refer to (already range-checked).
        indices: all polygons' corner indices, one after another.
        counts: corners of each polygon; polygons with fewer than 3 are skipped.

    Returns:
        (faces, polygon): (M, 3) triangles, and for each the index of its polygon.
    """
    indices = np.asarray(indices, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    faces: list[np.ndarray] = []
    owners: list[np.ndarray] = []
    tri = np.flatnonzero(counts == 3)
    if len(tri):
        faces.append(indices[starts[tri, None] + np.arange(3)])
        owners.append(tri)
    quad = np.flatnonzero(counts == 4)
    if len(quad):
        f, o = _quads(vertices, indices[starts[quad, None] + np.arange(4)])
        faces.append(f)
        owners.append(quad[o])
    for p in np.flatnonzero(counts > 4):
        corners = indices[starts[p]:starts[p] + counts[p]]
        f = _polygon(vertices, corners)
        if len(f):
            faces.append(f)
            owners.append(np.full(len(f), p))
    if not faces:
        return np.zeros((0, 3), np.int64), np.zeros(0, np.int64)
    order_faces = np.concatenate(faces)
    order_owner = np.concatenate(owners)
    order = np.argsort(order_owner, kind='stable')
    return order_faces[order], order_owner[order]


def _quads(vertices: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split quads (K, 4): along a-c unless that folds the quad, else along b-d."""
    p = vertices[q]
    normal = np.cross(p[:, 2] - p[:, 0], p[:, 3] - p[:, 1])  # Newell normal of a quad
    s1 = np.einsum('ij,ij->i', np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), normal)
    s2 = np.einsum('ij,ij->i', np.cross(p[:, 2] - p[:, 0], p[:, 3] - p[:, 0]), normal)
    use_ac = (s1 >= 0) & (s2 >= 0)
    ac = np.stack([q[:, [0, 1, 2]], q[:, [0, 2, 3]]], axis=1)
    bd = np.stack([q[:, [1, 2, 3]], q[:, [1, 3, 0]]], axis=1)
    out = np.where(use_ac[:, None, None], ac, bd).reshape(-1, 3)
    return out, np.repeat(np.arange(len(q)), 2)


def _polygon(vertices: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Triangles of one polygon (fan when convex, ear clipping otherwise)."""
    # Drop repeated consecutive corners (closed loops repeat the first one at the end).
    keep = np.ones(len(corners), bool)
    keep[1:] = corners[1:] != corners[:-1]
    if len(corners) > 1 and corners[-1] == corners[0]:
        keep[-1] = False
    corners = corners[keep]
    n = len(corners)
    if n < 3:
        return np.zeros((0, 3), np.int64)
    p = vertices[corners]
    normal = _newell(p)
    length = float(np.linalg.norm(normal))
    if length == 0.0 or not np.isfinite(length):
        return _fan(corners)
    normal /= length
    u = p[1] - p[0]
    u -= normal * (u @ normal)
    if np.linalg.norm(u) == 0.0:
        u = np.cross(normal, [1.0, 0.0, 0.0])
        if np.linalg.norm(u) < 1e-6:
            u = np.cross(normal, [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    v = np.cross(normal, u)
    xy = np.stack([p @ u, p @ v], axis=1)  # the polygon, counter-clockwise in (u, v)
    if n > EAR_CLIP_MAX or _convex(xy):
        return _fan(corners)
    return corners[_ear_clip(xy)]


def _newell(p: np.ndarray) -> np.ndarray:
    q = np.roll(p, -1, axis=0)
    return np.array([
        np.sum((p[:, 1] - q[:, 1]) * (p[:, 2] + q[:, 2])),
        np.sum((p[:, 2] - q[:, 2]) * (p[:, 0] + q[:, 0])),
        np.sum((p[:, 0] - q[:, 0]) * (p[:, 1] + q[:, 1])),
    ])


def _fan(corners: np.ndarray) -> np.ndarray:
    n = len(corners)
    return np.stack([np.full(n - 2, corners[0]), corners[1:-1], corners[2:]], axis=1)


def _cross2(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a[..., 0] - o[..., 0]) * (b[..., 1] - o[..., 1]) - \
        (a[..., 1] - o[..., 1]) * (b[..., 0] - o[..., 0])


def _convex(xy: np.ndarray) -> bool:
    """Whether no corner turns back, beyond rounding: the bound is a fraction of the
    polygon's own size squared (what a turn, a product of two edges, scales with), so that
    neither its size nor its place makes a corner reflex or not."""
    turn = _cross2(np.roll(xy, 1, axis=0), xy, np.roll(xy, -1, axis=0))
    size = float(np.ptp(xy, axis=0).max())
    return bool((turn >= -1e-12 * size ** 2).all())


def _ear_clip(xy: np.ndarray) -> np.ndarray:
    """Ear clipping of a simple polygon, counter-clockwise in ``xy``: (n-2, 3) local indices.

    If no ear is found (self-intersecting or degenerate input), the rest is fanned.
    """
    remaining = list(range(len(xy)))
    out = []
    guard = 0
    i = 0
    while len(remaining) > 3 and guard < 2 * len(remaining) + 2:
        m = len(remaining)
        a, b, c = remaining[(i - 1) % m], remaining[i % m], remaining[(i + 1) % m]
        if _is_ear(xy, remaining, a, b, c):
            out.append((a, b, c))
            del remaining[i % m]
            guard = 0
            i = i % max(len(remaining), 1)
        else:
            i += 1
            guard += 1
    if len(remaining) > 3:
        out.extend((remaining[0], remaining[k], remaining[k + 1])
                   for k in range(1, len(remaining) - 1))
    else:
        out.append(tuple(remaining))
    return np.array(out, dtype=np.int64)


def _is_ear(xy: np.ndarray, remaining: list[int], a: int, b: int, c: int) -> bool:
    pa, pb, pc = xy[a], xy[b], xy[c]
    if _cross2(pa, pb, pc) <= 0.0:
        return False
    others = [k for k in remaining if k not in (a, b, c)]
    if not others:
        return True
    q = xy[others]
    d1 = _cross2(pa, pb, q)
    d2 = _cross2(pb, pc, q)
    d3 = _cross2(pc, pa, q)
    inside = (d1 >= 0) & (d2 >= 0) & (d3 >= 0)
    return not bool(inside.any())
