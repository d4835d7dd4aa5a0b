"""Primitive shapes as triangle meshes; mesh measures, transforms and STL output.

Primitive meshes follow the model's conventions (centred, built along +z). Faces are
counter-clockwise seen from outside, so the signed volume of a closed mesh is positive.
"""

from __future__ import annotations

import hashlib
import math
import os
import struct

import numpy as np

from ..model import Box, Capsule, Cone, Cylinder, Geometry, Mesh, Pose, Sphere

__all__ = [
    'box_mesh', 'sphere_mesh', 'cylinder_mesh', 'capsule_mesh', 'cone_mesh', 'to_mesh',
    'mesh_volume', 'mesh_area', 'transform_mesh', 'write_stl', 'mesh_digest',
    'merge_meshes', 'bounds', 'principal_box',
]

#: Segments around a circle when a round primitive becomes a mesh.
SEGMENTS = 32


def box_mesh(size) -> Mesh:
    """A box of full edge lengths ``size`` [m]."""
    hx, hy, hz = (0.5 * float(s) for s in size)
    v = np.array([[sx * hx, sy * hy, sz * hz]
                  for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    # Vertex index = 4*ix + 2*iy + iz with i* in {0, 1}.
    f = [
        (0, 1, 3), (0, 3, 2),  # -x
        (4, 6, 7), (4, 7, 5),  # +x
        (0, 4, 5), (0, 5, 1),  # -y
        (2, 3, 7), (2, 7, 6),  # +y
        (0, 2, 6), (0, 6, 4),  # -z
        (1, 5, 7), (1, 7, 3),  # +z
    ]
    return Mesh(v, f, 'box')


def _ring(radius: float, z: float, n: int) -> np.ndarray:
    a = np.arange(n) * (2 * math.pi / n)
    return np.stack([radius * np.cos(a), radius * np.sin(a), np.full(n, z)], axis=1)


def _lathe(profile: list[tuple[float, float]], n: int) -> Mesh:
    """Revolve a profile of (radius, z) points, from bottom to top, about +z.

    A point with radius 0 becomes a single pole vertex.
    """
    verts: list[np.ndarray] = []
    rings: list[list[int] | int] = []
    count = 0
    for r, z in profile:
        if r <= 0.0:
            verts.append(np.array([[0.0, 0.0, z]]))
            rings.append(count)
            count += 1
        else:
            verts.append(_ring(r, z, n))
            rings.append(list(range(count, count + n)))
            count += n
    faces = []
    for lo, hi in zip(rings[:-1], rings[1:]):
        for i in range(n):
            j = (i + 1) % n
            if isinstance(lo, int) and isinstance(hi, int):
                continue
            if isinstance(lo, int):
                faces.append((lo, hi[j], hi[i]))
            elif isinstance(hi, int):
                faces.append((lo[i], lo[j], hi))
            else:
                faces.append((lo[i], lo[j], hi[j]))
                faces.append((lo[i], hi[j], hi[i]))
    return Mesh(np.concatenate(verts), np.array(faces), 'lathe')


def sphere_mesh(radius: float, n: int = SEGMENTS) -> Mesh:
    rows = max(4, n // 2)
    profile = [(radius * math.sin(math.pi * k / rows), -radius * math.cos(math.pi * k / rows))
               for k in range(rows + 1)]
    profile[0] = (0.0, -radius)
    profile[-1] = (0.0, radius)
    return _named(_lathe(profile, n), 'sphere')


def cylinder_mesh(radius: float, length: float, n: int = SEGMENTS,
                  bottom: bool = True, top: bool = True) -> Mesh:
    h = 0.5 * length
    profile = ([(0.0, -h)] if bottom else []) + [(radius, -h), (radius, h)] + \
        ([(0.0, h)] if top else [])
    return _named(_lathe(profile, n), 'cylinder')


def cone_mesh(radius: float, length: float, n: int = SEGMENTS, bottom: bool = True) -> Mesh:
    h = 0.5 * length
    profile = ([(0.0, -h)] if bottom else []) + [(radius, -h), (0.0, h)]
    return _named(_lathe(profile, n), 'cone')


def capsule_mesh(radius: float, length: float, n: int = SEGMENTS) -> Mesh:
    rows = max(2, n // 4)
    h = 0.5 * length
    low = [(radius * math.sin(0.5 * math.pi * k / rows),
            -h - radius * math.cos(0.5 * math.pi * k / rows))
           for k in range(rows + 1)]
    high = [(r, -z) for r, z in reversed(low)]
    low[0] = (0.0, -h - radius)
    high[-1] = (0.0, h + radius)
    return _named(_lathe(low + high, n), 'capsule')


def _named(mesh: Mesh, name: str) -> Mesh:
    return Mesh(mesh.vertices, mesh.faces, name, texcoords=mesh.texcoords)


def to_mesh(geometry: Geometry) -> Mesh:
    """Any geometry of the model as a triangle mesh."""
    if isinstance(geometry, Mesh):
        return geometry
    if isinstance(geometry, Box):
        return box_mesh(geometry.size)
    if isinstance(geometry, Sphere):
        return sphere_mesh(geometry.radius)
    if isinstance(geometry, Cylinder):
        return cylinder_mesh(geometry.radius, geometry.length)
    if isinstance(geometry, Capsule):
        return capsule_mesh(geometry.radius, geometry.length)
    if isinstance(geometry, Cone):
        return cone_mesh(geometry.radius, geometry.length)
    raise TypeError(f'not a geometry: {geometry!r}')


def transform_mesh(mesh: Mesh, linear, translation=(0, 0, 0), name: str | None = None) -> Mesh:
    """Apply ``v -> linear @ v + translation``; faces flip if ``linear`` mirrors."""
    lin = np.asarray(linear, dtype=float).reshape(3, 3)
    v = mesh.vertices @ lin.T + np.asarray(translation, dtype=float)
    f = mesh.faces if np.linalg.det(lin) >= 0 else mesh.faces[:, ::-1]
    return Mesh(v, f, name or mesh.name, mesh.source, mesh.texcoords)


def bounds(points) -> tuple[np.ndarray, np.ndarray]:
    """Per-axis minimum and maximum of (N, 3) points, N >= 1.

    Reduced over a contiguous copy of the columns: numpy's reductions along the first axis of
    an (N, 3) array are more than ten times slower.
    """
    columns = np.ascontiguousarray(np.asarray(points, dtype=float).reshape(-1, 3).T)
    return columns.min(axis=1), columns.max(axis=1)


def principal_box(points) -> tuple[Pose, np.ndarray]:
    """The box around (N, 3) points (N >= 1) along their principal axes.

    Returns:
        (pose, extents): the box's centre and axes (columns, largest spread first, a
        right-handed frame) and its size along each axis. The axes are the eigenvectors of
        the points' 3x3 scatter matrix, exact enough to find a flat or straight direction.
    """
    columns = np.ascontiguousarray(np.asarray(points, dtype=float).reshape(-1, 3).T)
    centre = 0.5 * (columns.min(axis=1) + columns.max(axis=1))
    offsets = columns - centre[:, None]
    _, vectors = np.linalg.eigh(offsets @ offsets.T)
    rot = np.ascontiguousarray(vectors[:, ::-1])
    if np.linalg.det(rot) < 0:
        rot[:, 2] *= -1.0
    local = rot.T @ offsets
    lo, hi = local.min(axis=1), local.max(axis=1)
    return Pose(centre + rot @ (0.5 * (lo + hi)), rot), hi - lo


def mesh_volume(mesh: Mesh) -> float:
    """Signed volume [m^3] of a closed mesh (positive when faces wind outwards)."""
    v = mesh.vertices[mesh.faces]
    return float(np.einsum('ij,ij->i', v[:, 0], np.cross(v[:, 1], v[:, 2])).sum() / 6.0)


def mesh_area(mesh: Mesh) -> float:
    """Total surface area [m^2]."""
    v = mesh.vertices[mesh.faces]
    normals = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    return float(0.5 * np.linalg.norm(normals, axis=1).sum())


def mesh_digest(mesh: Mesh) -> str:
    """A short content hash, stable across runs (names files written for a mesh)."""
    h = hashlib.sha1()
    h.update(np.ascontiguousarray(mesh.vertices, dtype='<f8').tobytes())
    h.update(np.ascontiguousarray(mesh.faces, dtype='<i8').tobytes())
    return h.hexdigest()[:12]


def write_stl(mesh: Mesh, path: str | os.PathLike) -> None:
    """Write a binary STL file (metres, as URDF and MuJoCo read them)."""
    v = mesh.vertices[mesh.faces].astype('<f4')
    n = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    norm = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, norm, out=np.zeros_like(n), where=norm > 0).astype('<f4')
    record = np.zeros(len(v), dtype=[('n', '<f4', 3), ('v', '<f4', (3, 3)), ('attr', '<u2')])
    record['n'] = n
    record['v'] = v
    tmp = f'{os.fspath(path)}.tmp{os.getpid()}'
    with open(tmp, 'wb') as f:
        f.write(b'body_bridge'.ljust(80, b' '))
        f.write(struct.pack('<I', len(v)))
        f.write(record.tobytes())
    os.replace(tmp, path)


def merge_meshes(meshes, name: str = 'mesh') -> Mesh:
    """One mesh holding all the given meshes' triangles (texture coordinates kept when any
    mesh has them; the others' vertices get (0, 0))."""
    meshes = list(meshes)
    if not meshes:
        return Mesh(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64), name)
    offsets = np.cumsum([0] + [len(m.vertices) for m in meshes[:-1]])
    vertices = np.concatenate([m.vertices for m in meshes])
    faces = np.concatenate([m.faces + o for m, o in zip(meshes, offsets)])
    texcoords = None
    if any(m.texcoords is not None for m in meshes):
        texcoords = np.concatenate([np.zeros((len(m.vertices), 2)) if m.texcoords is None
                                    else m.texcoords for m in meshes])
    return Mesh(vertices, faces, name, meshes[0].source, texcoords)
