"""Generated shapes as triangle meshes: VRML97-style face sets, extrusions, elevation grids.

Lengths [m], angles [rad]. Faces are counter-clockwise seen from outside.
"""

from __future__ import annotations

import math

import numpy as np

from ..model import Mesh
from .primitives import mesh_volume

__all__ = ['triangulate_polygon', 'face_set_mesh', 'extrusion_mesh', 'elevation_grid_mesh']


def _newell_normal(points: np.ndarray) -> np.ndarray:
    """The (unnormalised) normal of a polygon by Newell's method; ccw gives +normal."""
    nxt = np.roll(points, -1, axis=0)
    return np.array([
        np.sum((points[:, 1] - nxt[:, 1]) * (points[:, 2] + nxt[:, 2])),
        np.sum((points[:, 2] - nxt[:, 2]) * (points[:, 0] + nxt[:, 0])),
        np.sum((points[:, 0] - nxt[:, 0]) * (points[:, 1] + nxt[:, 1])),
    ])


def triangulate_polygon(points) -> list[tuple[int, int, int]]:
    """Split a simple planar polygon into triangles keeping its winding (ear clipping).

    Args:
        points: (N, 3) vertices in order; the polygon may be concave.

    Returns:
        Triples of indices into ``points``, each wound as the polygon is.
    """
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    n = len(pts)
    if n < 3:
        return []
    if n == 3:
        return [(0, 1, 2)]
    normal = _newell_normal(pts)
    norm = float(np.linalg.norm(normal))
    if norm <= 1e-300:
        return [(0, i, i + 1) for i in range(1, n - 1)]
    normal /= norm
    # 2-D coordinates in the polygon's plane, oriented so that the polygon is ccw there.
    helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(normal, helper)
    u /= np.linalg.norm(u)
    v = np.cross(normal, u)
    xy = np.stack([pts @ u, pts @ v], axis=1)
    remaining = list(range(n))
    triangles = []
    guard = 0
    while len(remaining) > 3 and guard < 4 * n * n:
        guard += 1
        m = len(remaining)
        for k in range(m):
            i, j, n_ = remaining[k - 1], remaining[k], remaining[(k + 1) % m]
            if _is_ear(xy, remaining, i, j, n_):
                triangles.append((i, j, n_))
                remaining.pop(k)
                break
        else:
            break  # no ear found (self-intersecting polygon): fan the rest
    triangles.extend((remaining[0], remaining[k], remaining[k + 1])
                     for k in range(1, len(remaining) - 1))
    return triangles


def _cross2(o, a, b) -> float:
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def _is_ear(xy: np.ndarray, remaining: list[int], i: int, j: int, k_: int) -> bool:
    a, b, c = xy[i], xy[j], xy[k_]
    if _cross2(a, b, c) <= 1e-15:
        return False  # reflex or degenerate corner
    for k in remaining:
        if k in (i, j, k_):
            continue
        p = xy[k]
        if _cross2(a, b, p) >= 0 and _cross2(b, c, p) >= 0 and _cross2(c, a, p) >= 0:
            return False
    return True


def face_set_mesh(vertices, polygons, name: str = 'faces', texcoords=None,
                  tex_polygons=None) -> Mesh:
    """A mesh from polygons given as lists of vertex indices (each triangulated).

    Args:
        vertices: (N, 3) coordinates [m].
        polygons: index lists, each a polygon wound counter-clockwise seen from its front.
        texcoords: (K, 2) texture coordinates, or None.
        tex_polygons: per polygon, the index into ``texcoords`` of each corner (VRML's
            ``texCoordIndex``); None: the vertex indices themselves. A vertex used with two
            texture coordinates becomes two vertices.

    Raises:
        ValueError: an index out of range, or texture polygons that do not match.
    """
    v = np.asarray(vertices, dtype=float).reshape(-1, 3)
    polygons = [[int(i) for i in poly] for poly in polygons]
    for idx in polygons:
        if any(i < 0 or i >= len(v) for i in idx):
            raise ValueError(f'face index out of range 0..{len(v) - 1}: {idx}')
    uv = None
    if texcoords is not None:
        v, polygons, uv = _unweld(v, polygons, texcoords, tex_polygons)
    faces = []
    for idx in polygons:
        faces.extend((idx[a], idx[b], idx[c]) for a, b, c in triangulate_polygon(v[idx]))
    return Mesh(v, np.array(faces, dtype=np.int64).reshape(-1, 3), name, texcoords=uv)


def _unweld(v: np.ndarray, polygons: list[list[int]], texcoords, tex_polygons):
    """One vertex per (vertex, texture coordinate) pair the polygons use."""
    uv = np.asarray(texcoords, dtype=float).reshape(-1, 2)
    tex = polygons if tex_polygons is None else [[int(i) for i in p] for p in tex_polygons]
    if len(tex) != len(polygons) or any(len(a) != len(b) for a, b in zip(polygons, tex)):
        raise ValueError('the texture coordinate indices do not match the faces corner for '
                         'corner')
    if any(i < 0 or i >= len(uv) for p in tex for i in p):
        raise ValueError(f'texture coordinate index out of range 0..{len(uv) - 1}')
    pairs: dict[tuple[int, int], int] = {}
    out = []
    for poly, tpoly in zip(polygons, tex):
        out.append([pairs.setdefault((a, b), len(pairs)) for a, b in zip(poly, tpoly)])
    keys = np.array(list(pairs), dtype=np.int64).reshape(-1, 2)
    return v[keys[:, 0]], out, uv[keys[:, 1]]


def _rotation(axis, angle: float) -> np.ndarray:
    a = np.asarray(axis, dtype=float)
    norm = float(np.linalg.norm(a))
    if norm == 0.0 or angle == 0.0:
        return np.eye(3)
    x, y, z = a / norm
    c, s = math.cos(angle), math.sin(angle)
    t = 1.0 - c
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


def _spine_frames(spine: np.ndarray, closed: bool) -> list[np.ndarray]:
    """The spine-aligned cross-section planes (columns x, y, z) of VRML97's Extrusion."""
    n = len(spine)
    ys, zs = [], []
    for i in range(n):
        if closed:
            prev, cur, nxt = spine[i - 1], spine[i], spine[(i + 1) % n]
            y = nxt - prev
        elif i == 0:
            prev, cur, nxt = spine[0], spine[1], spine[2] if n > 2 else spine[1]
            y = spine[1] - spine[0]
        elif i == n - 1:
            prev, cur, nxt = spine[n - 3] if n > 2 else spine[0], spine[n - 2], spine[n - 1]
            y = spine[n - 1] - spine[n - 2]
        else:
            prev, cur, nxt = spine[i - 1], spine[i], spine[i + 1]
            y = nxt - prev
        z = np.cross(nxt - cur, prev - cur) if n > 2 else np.zeros(3)
        ys.append(y)
        zs.append(z)
    defined = [i for i, z in enumerate(zs) if np.linalg.norm(z) > 1e-12]
    frames = []
    previous_z = None
    for i in range(n):
        y = ys[i]
        ny = float(np.linalg.norm(y))
        if ny <= 1e-12:
            raise ValueError('the spine has two equal consecutive points or turns straight back')
        y = y / ny
        if not defined:
            # Collinear spine: the plane turns +Y onto the spine direction.
            axis = np.array([y[2], 0.0, -y[0]])
            angle = math.acos(max(-1.0, min(1.0, y[1])))
            if np.linalg.norm(axis) < 1e-12 and y[1] < 0:
                axis = np.array([1.0, 0.0, 0.0])
            frames.append(_rotation(axis, angle))
            continue
        z = zs[i]
        if np.linalg.norm(z) <= 1e-12:
            z = zs[defined[0]] if previous_z is None else previous_z
        if previous_z is not None and float(z @ previous_z) < 0:
            z = -z
        previous_z = z
        z = z / np.linalg.norm(z)
        x = np.cross(y, z)
        x /= np.linalg.norm(x)
        frames.append(np.column_stack([x, np.cross(z, x), z]))
    return frames


def extrusion_mesh(cross_section, spine, scale=None, orientation=None,
                   begin_cap: bool = True, end_cap: bool = True,
                   name: str = 'extrusion') -> Mesh:
    """VRML97 Extrusion: a 2-D cross-section swept along a spine.

    Args:
        cross_section: (M, 2) points (x, z) of the cross-section [m].
        spine: (N, 3) spine points [m]; closed when the first equals the last.
        scale: (K, 2) cross-section scale per spine point; one entry applies to all,
            missing entries are 0 (the cross-section collapses to a point); None or no
            entries: 1.
        orientation: (K, 4) axis-angle [rad] rotation of the cross-section per spine point;
            one entry applies to all, missing entries (and None or no entries, and an axis
            of length 0) are no rotation.
        begin_cap, end_cap: close the ends (ignored for a closed spine).

    Returns:
        A mesh; when it is closed its faces wind outwards (positive volume).

    Raises:
        ValueError: fewer than 2 cross-section or spine points, or a spine whose first two or
            last two points are equal or that turns straight back (a point's neighbours equal).
    """
    cs = np.asarray(cross_section, dtype=float).reshape(-1, 2)
    sp = np.asarray(spine, dtype=float).reshape(-1, 3)
    if len(cs) < 2 or len(sp) < 2:
        raise ValueError('an extrusion needs at least 2 cross-section and 2 spine points')
    spine_closed = len(sp) > 2 and np.allclose(sp[0], sp[-1])
    if spine_closed:
        sp = sp[:-1]
    cs_closed = len(cs) > 2 and np.allclose(cs[0], cs[-1])
    if cs_closed:
        cs = cs[:-1]
    scales = _per_spine(scale, len(sp), 2, fill=(0.0, 0.0), default=(1.0, 1.0))
    orients = _per_spine(orientation, len(sp), 4, fill=(0.0, 0.0, 1.0, 0.0),
                         default=(0.0, 0.0, 1.0, 0.0))
    frames = _spine_frames(sp, spine_closed)
    rings = []
    for i, frame in enumerate(frames):
        local = np.column_stack([cs[:, 0] * scales[i][0], np.zeros(len(cs)),
                                 cs[:, 1] * scales[i][1]])
        rot = frame @ _rotation(orients[i][:3], orients[i][3])
        rings.append(local @ rot.T + sp[i])
    vertices = np.concatenate(rings)
    m, n = len(cs), len(sp)
    faces = []
    for i in range(n if spine_closed else n - 1):
        lo, hi = i * m, ((i + 1) % n) * m
        for j in range(m if cs_closed else m - 1):
            jj = (j + 1) % m
            faces.append((lo + j, hi + j, hi + jj))
            faces.append((lo + j, hi + jj, lo + jj))
    closed = spine_closed or (begin_cap and end_cap)
    if not spine_closed:
        if begin_cap:
            faces.extend(triangulate_polygon(vertices[:m]))
        if end_cap:
            offset = (n - 1) * m
            faces.extend((offset + a, offset + c, offset + b)
                         for a, b, c in triangulate_polygon(vertices[offset:offset + m]))
    mesh = Mesh(vertices, np.array(faces, dtype=np.int64).reshape(-1, 3), name)
    if closed and cs_closed and mesh_volume(mesh) < 0:
        mesh = Mesh(mesh.vertices, mesh.faces[:, ::-1], name)
    return mesh


def _per_spine(values, count: int, width: int, fill, default) -> list[tuple]:
    if values is None:
        return [tuple(default)] * count
    rows = [tuple(float(x) for x in row) for row in np.asarray(values, float).reshape(-1, width)]
    if not rows:
        return [tuple(default)] * count
    if len(rows) == 1:
        return rows * count
    return (rows + [tuple(fill)] * count)[:count]


def elevation_grid_mesh(x_dimension: int, z_dimension: int, x_spacing: float,
                        z_spacing: float, heights, ccw: bool = True,
                        name: str = 'elevation_grid') -> Mesh:
    """VRML97 ElevationGrid: heights along +y over a grid in the x-z plane.

    Vertex (i, j) is at (i * x_spacing, heights[i + j * x_dimension], j * z_spacing) [m].
    With ``ccw`` the faces are counter-clockwise seen from +y.

    Raises:
        ValueError: fewer than 2 points along an axis, or the wrong number of heights.
    """
    if x_dimension < 2 or z_dimension < 2:
        raise ValueError('an elevation grid needs at least 2 points along x and z')
    h = np.asarray(heights, dtype=float).reshape(-1)
    if len(h) != x_dimension * z_dimension:
        raise ValueError(f'an elevation grid of {x_dimension} x {z_dimension} points needs '
                         f'{x_dimension * z_dimension} heights, found {len(h)}')
    xs, zs = np.meshgrid(np.arange(x_dimension) * x_spacing, np.arange(z_dimension) * z_spacing)
    vertices = np.stack([xs.ravel(), h, zs.ravel()], axis=1)
    faces = []
    for j in range(z_dimension - 1):
        row, nxt = j * x_dimension, (j + 1) * x_dimension
        for i in range(x_dimension - 1):
            a, b, c, d = row + i, nxt + i, nxt + i + 1, row + i + 1
            faces.append((a, b, c) if ccw else (a, c, b))
            faces.append((a, c, d) if ccw else (a, d, c))
    return Mesh(vertices, np.array(faces, dtype=np.int64), name)
