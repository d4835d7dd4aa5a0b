"""Shapes as triangle meshes, and mesh files in and out.

Primitive meshes follow the model's conventions (centred, built along +z). Faces are
counter-clockwise seen from outside, so the signed volume of a closed mesh is positive.
``primitives`` holds the primitive shapes, measures and STL output; ``generated`` the shapes
that VRML97-style geometry nodes generate.
"""

from .generated import elevation_grid_mesh, extrusion_mesh, face_set_mesh, triangulate_polygon
from .primitives import (SEGMENTS, bounds, box_mesh, capsule_mesh, cone_mesh, cylinder_mesh,
                         merge_meshes, mesh_area, mesh_digest, mesh_volume, principal_box,
                         sphere_mesh, to_mesh, transform_mesh, write_stl)

__all__ = [
    'box_mesh', 'sphere_mesh', 'cylinder_mesh', 'capsule_mesh', 'cone_mesh', 'to_mesh',
    'mesh_volume', 'mesh_area', 'transform_mesh', 'write_stl', 'mesh_digest',
    'triangulate_polygon', 'face_set_mesh', 'extrusion_mesh', 'elevation_grid_mesh',
    'merge_meshes', 'bounds', 'principal_box', 'SEGMENTS',
]
