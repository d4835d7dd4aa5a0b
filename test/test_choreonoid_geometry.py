"""Every Choreonoid geometry node: the generated mesh against analytic volume or area.

Round primitives become polygonal meshes (``geometry.SEGMENTS`` around); their volumes are
compared with the analytic value within the polygonal approximation error, and with a fine
mesh to 0.2 %. Flat-faced shapes (boxes, extrusions, face sets, grids) must match exactly.
"""

import math
import os
import struct
import textwrap

import numpy as np
import pytest
from PIL import Image

from body_bridge import geometry as geo
from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.model import Box, Capsule, Cone, Cylinder, Mesh, Sphere

from conftest import shared_model


def shape_of(tmp_path, geometry: str, shape_extra: str = '', unit: str = 'degree'):
    """The single shape of a one-link body whose Shape has the given geometry (YAML flow)."""
    text = textwrap.dedent(f"""\
        format: ChoreonoidBody
        format_version: 1.0
        angle_unit: {unit}
        links:
          - name: a
            elements:
              - type: Shape
                geometry: {geometry}
        """) + textwrap.indent(textwrap.dedent(shape_extra), ' ' * 8)
    path = tmp_path / 'g.body'
    path.write_text(text)
    model = load_model(path)
    (shape,) = model.link('a').visuals
    (collision,) = model.link('a').collisions
    # A flat mesh collides as the thinnest box around it (formats/checks.py), with a warning.
    assert collision is shape or (isinstance(collision.geometry, Box) and
                                  any('is flat' in w for w in model.warnings))
    return shape, model


def placed(shape) -> Mesh:
    """The shape's mesh in the link frame."""
    mesh = geo.to_mesh(shape.geometry)
    return geo.transform_mesh(mesh, shape.pose.rot, shape.pose.pos)


def extent(mesh: Mesh) -> np.ndarray:
    return mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0)


def test_box(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: Box, size: [ 0.1, 0.2, 0.3 ] }')
    assert shape.geometry == Box((0.1, 0.2, 0.3))
    mesh = placed(shape)
    assert geo.mesh_volume(mesh) == pytest.approx(0.006, rel=1e-12)
    assert geo.mesh_area(mesh) == pytest.approx(2 * (0.02 + 0.03 + 0.06), rel=1e-12)


def test_sphere(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: Sphere, radius: 0.2 }')
    assert shape.geometry == Sphere(0.2)
    exact = 4 / 3 * math.pi * 0.2 ** 3
    assert geo.mesh_volume(placed(shape)) == pytest.approx(exact, rel=0.02)
    assert geo.mesh_volume(geo.sphere_mesh(0.2, n=128)) == pytest.approx(exact, rel=0.002)


def test_cylinder_runs_along_y(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: Cylinder, radius: 0.1, height: 0.4 }')
    assert shape.geometry == Cylinder(0.1, 0.4)
    mesh = placed(shape)
    np.testing.assert_allclose(extent(mesh), (0.2, 0.4, 0.2), atol=1e-12)
    assert geo.mesh_volume(mesh) == pytest.approx(math.pi * 0.01 * 0.4, rel=0.01)


def test_open_cylinder_is_a_surface(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: Cylinder, radius: 0.1, height: 0.4, top: false }')
    assert isinstance(shape.geometry, Mesh)
    mesh = placed(shape)
    # Side and bottom disc, nothing at +y.
    assert geo.mesh_area(mesh) == pytest.approx(2 * math.pi * 0.1 * 0.4 + math.pi * 0.01,
                                                rel=0.01)
    top = mesh.vertices[mesh.faces].mean(axis=1)[:, 1]
    assert top.max() < 0.2 - 1e-6


def test_capsule_height_is_the_cylinder_part(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: Capsule, radius: 0.05, height: 0.2 }')
    assert shape.geometry == Capsule(0.05, 0.2)
    mesh = placed(shape)
    np.testing.assert_allclose(extent(mesh)[1], 0.3, atol=1e-12)
    exact = math.pi * 0.05 ** 2 * 0.2 + 4 / 3 * math.pi * 0.05 ** 3
    assert geo.mesh_volume(mesh) == pytest.approx(exact, rel=0.02)


def test_cone_apex_points_to_plus_y(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: Cone, radius: 0.1, height: 0.3 }')
    assert shape.geometry == Cone(0.1, 0.3)
    mesh = placed(shape)
    apex = mesh.vertices[np.argmax(mesh.vertices[:, 1])]
    np.testing.assert_allclose(apex, (0, 0.15, 0), atol=1e-12)
    assert geo.mesh_volume(mesh) == pytest.approx(math.pi * 0.01 * 0.3 / 3, rel=0.01)


def test_cone_without_bottom(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: Cone, radius: 0.1, height: 0.3, bottom: false }')
    lateral = math.pi * 0.1 * math.hypot(0.1, 0.3)
    assert geo.mesh_area(placed(shape)) == pytest.approx(lateral, rel=0.01)


SQUARE = '[ 0.1, 0.1, 0.1, -0.1, -0.1, -0.1, -0.1, 0.1, 0.1, 0.1 ]'


@pytest.mark.parametrize('extra, volume', [
    ('', 0.2 * 0.2 * 1.0),
    ('scale: [ 2, 0.5 ]', 0.2 * 0.2 * 1.0),
    ('scale: [ 2, 1 ]', 0.4 * 0.2 * 1.0),
    ('orientation: [ 0, 1, 0, 30 ]', 0.2 * 0.2 * 1.0),
])
def test_extrusion_along_a_straight_spine(tmp_path, extra, volume):
    more = f', {extra}' if extra else ''
    shape, _ = shape_of(tmp_path, f'{{ type: Extrusion, cross_section: {SQUARE}, '
                                  f'spine: [ 0, 0, 0, 0, 1, 0 ]{more} }}')
    mesh = placed(shape)
    assert geo.mesh_volume(mesh) == pytest.approx(volume, rel=1e-12)
    np.testing.assert_allclose(extent(mesh)[1], 1.0, atol=1e-12)


def test_extrusion_rotates_its_cross_section(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: Extrusion, cross_section: [ 0.3, 0, 0.3, 0.1, '
                                  '-0.3, 0.1, -0.3, 0, 0.3, 0 ], spine: [ 0, 0, 0, 0, 1, 0 ], '
                                  'orientation: [ 0, 1, 0, 90 ] }')
    # The 0.6 x 0.1 section turned 90 degrees about the spine: long along z, not x.
    np.testing.assert_allclose(extent(placed(shape)), (0.1, 1.0, 0.6), atol=1e-12)


def test_extrusion_without_caps_is_its_side(tmp_path):
    shape, _ = shape_of(tmp_path, f'{{ type: Extrusion, cross_section: {SQUARE}, '
                                  'spine: [ 0, 0, 0, 0, 2, 0 ], begin_cap: false, '
                                  'endCap: false }')
    assert geo.mesh_area(placed(shape)) == pytest.approx(4 * 0.2 * 2.0, rel=1e-12)


def test_extrusion_around_a_closed_spine_is_a_torus(tmp_path):
    # Pappus: a square of side a swept around a circle of radius R: V = a^2 2 pi R. The spine
    # is a 64-gon; the swept volume is exact for it, so compare with the polygon's length.
    n, radius = 64, 1.0
    t = np.linspace(0, 2 * math.pi, n + 1)
    spine = np.stack([radius * np.cos(t), np.zeros_like(t), radius * np.sin(t)], 1)
    spine[-1] = spine[0]
    flat = ', '.join(f'{v:.17g}' for v in spine.ravel())
    shape, _ = shape_of(tmp_path, f'{{ type: Extrusion, cross_section: {SQUARE}, '
                                  f'spine: [ {flat} ] }}')
    polygon_length = n * 2 * radius * math.sin(math.pi / n)
    assert geo.mesh_volume(placed(shape)) == pytest.approx(0.04 * polygon_length, rel=2e-3)


@pytest.mark.corpus
def test_extrusion_of_a_real_slope():
    model = load_model(shared_model('choreonoid/share/model/misc/slope.body'))
    slope = next(s for s in model.link('WAIST').visuals if isinstance(s.geometry, Mesh))
    xz = np.array([-0.25, 0.1, 6.0, 0.1, 3.7, 1.5, 3.2, 1.5, 2.2, 0.5, 1.5, 0.5, 1.0, 0.8,
                   0.75, 0.8]).reshape(-1, 2)
    area = 0.5 * abs(np.sum(xz[:, 0] * np.roll(xz[:, 1], -1) - np.roll(xz[:, 0], -1) * xz[:, 1]))
    assert geo.mesh_volume(slope.geometry) == pytest.approx(area * 4.0, rel=1e-12)


def test_elevation_grid(tmp_path):
    # Heights on the plane y = 0.5 x over a 2 x 3 m grid: area = 6 sqrt(1 + 0.25).
    heights = [0.5 * x for z in range(4) for x in (0.0, 1.0, 2.0)]
    shape, _ = shape_of(tmp_path, '{ type: ElevationGrid, x_dimension: 3, z_dimension: 4, '
                                  f'x_spacing: 1.0, z_spacing: 1.0, height: {heights} }}')
    mesh = placed(shape)
    assert geo.mesh_area(mesh) == pytest.approx(6 * math.sqrt(1.25), rel=1e-12)
    v = mesh.vertices[mesh.faces]
    normals = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    assert np.all(normals[:, 1] > 0)  # counter-clockwise seen from +y


def test_elevation_grid_counts_its_heights(tmp_path):
    with pytest.raises(ModelError, match='needs 6 heights, found 5'):
        shape_of(tmp_path, '{ type: ElevationGrid, xDimension: 3, zDimension: 2, '
                           'height: [ 0, 0, 0, 0, 0 ] }')


@pytest.mark.corpus
def test_indexed_face_set_of_a_real_terrain():
    model = load_model(shared_model('choreonoid/sample/WRS2018/model/TerrainA.body'))
    bumps = model.link('1').visuals
    assert len(bumps) == 4
    for bump in bumps:  # a wedge 1.2 x 1.2 m, 0.34 m high
        assert geo.mesh_volume(bump.geometry) == pytest.approx(1.2 * 1.2 * 0.34 / 2, rel=1e-9)


@pytest.mark.corpus
def test_indexed_face_set_box_of_a_real_cassette():
    model = load_model(shared_model('choreonoid/share/model/house/cassette.body'))
    (shape,) = model.link('WAIST').visuals
    assert geo.mesh_volume(shape.geometry) == pytest.approx(0.17 * 0.02 * 0.12, rel=1e-6)
    assert shape.material.texture.endswith('textures/tape1.front.png')


def test_indexed_face_set_with_a_concave_face(tmp_path):
    # An L-shaped prism: the L (area 3) is concave; extruded 1 along z.
    ell = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
    vertices = [(x, y, z) for z in (0, 1) for x, y in ell]
    bottom = [5, 4, 3, 2, 1, 0]
    top = [6, 7, 8, 9, 10, 11]
    sides = [[i, (i + 1) % 6, (i + 1) % 6 + 6, i + 6] for i in range(6)]
    faces = [i for poly in [bottom, top, *sides] for i in (*poly, -1)]
    flat = ', '.join(str(float(c)) for v in vertices for c in v)
    shape, _ = shape_of(tmp_path, f'{{ type: IndexedFaceSet, vertices: [ {flat} ], '
                                  f'faces: {faces} }}')
    assert geo.mesh_volume(placed(shape)) == pytest.approx(3.0, rel=1e-12)
    assert geo.mesh_area(placed(shape)) == pytest.approx(2 * 3 + 8, rel=1e-12)


def test_triangle_mesh(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: TriangleMesh, vertices: [ 0, 0, 0, 1, 0, 0, 0, 1, 0, '
                                  '0, 0, 1 ], triangles: [ 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3 ] }')
    assert geo.mesh_volume(placed(shape)) == pytest.approx(1 / 6, rel=1e-12)


def test_non_uniform_scale_turns_a_sphere_into_an_ellipsoid(tmp_path):
    shape, _ = shape_of(tmp_path, '{ type: Sphere, radius: 1.0 }', 'scale: [ 1, 2, 3 ]\n')
    assert isinstance(shape.geometry, Mesh)
    mesh = placed(shape)
    np.testing.assert_allclose(extent(mesh), (2, 4, 6), atol=1e-9)
    assert geo.mesh_volume(mesh) == pytest.approx(4 / 3 * math.pi * 6, rel=0.02)


def _read_binary_stl(path) -> np.ndarray:
    data = path.read_bytes()
    (count,) = struct.unpack_from('<I', data, 80)
    records = np.frombuffer(data, dtype=[('n', '<f4', 3), ('v', '<f4', (3, 3)), ('a', '<u2')],
                            count=count, offset=84)
    return records['v'].astype(float)


@pytest.mark.corpus
def test_stl_resource_is_the_file_placed_in_the_link():
    path = shared_model('choreonoid/share/model/GR001/parts/WAIST.stl')
    triangles = _read_binary_stl(path)
    model = load_model(shared_model('choreonoid/share/model/GR001/GR001.body'))
    (shape,) = model.link('WAIST').visuals
    mesh = placed(shape)
    assert len(mesh.faces) == len(triangles)
    expected = np.einsum('ij,ij->i', triangles[:, 0],
                         np.cross(triangles[:, 1], triangles[:, 2])).sum() / 6
    assert geo.mesh_volume(mesh) == pytest.approx(expected, rel=1e-5)
    assert shape.material.rgba[:3] == pytest.approx((0.3, 0.3, 0.8))  # the *BLUE alias


def test_mesh_resources_of_our_own_are_placed_scaled_and_coloured(tmp_path):
    """Resource geometry from an STL file and from a named node of a VRML file, placed by
    the Transform above it, with the appearance of its Shape (a clone without the real
    model corpus tests what GR001's and the Tank's meshes test with it)."""
    geo.write_stl(geo.box_mesh((0.1, 0.2, 0.3)), tmp_path / 'part.stl')
    Image.new('RGB', (4, 4), (150, 100, 50)).save(tmp_path / 'wood.png')  # a real image
    (tmp_path / 'parts.wrl').write_text(
        '#VRML V2.0 utf8\nDEF WHEEL Transform { translation 5 0 0 scale 2 2 2 children\n'
        '  Shape { geometry Box { size 0.1 0.1 0.1 } } }\n')
    path = tmp_path / 'meshes.body'
    path.write_text(textwrap.dedent("""\
        format: ChoreonoidBody
        format_version: 2.0
        links:
          - name: a
            elements:
              - type: Transform
                translation: [ 1, 0, 0 ]
                scale: [ 2, 1, 1 ]
                elements:
                  - type: Shape
                    geometry: { type: Resource, uri: part.stl }
                    appearance:
                      material: { diffuse: [ 0.3, 0.3, 0.8 ], transparency: 0.5 }
                      texture: { url: wood.png }
              - type: Shape
                geometry: { type: Resource, uri: parts.wrl, node: WHEEL }
        """))
    model = load_model(path)
    stl, wheel = model.link('a').visuals
    mesh = placed(stl)
    assert geo.mesh_volume(mesh) == pytest.approx(2 * 0.1 * 0.2 * 0.3)
    np.testing.assert_allclose(mesh.vertices.min(axis=0), (0.9, -0.1, -0.15), atol=1e-9)
    np.testing.assert_allclose(mesh.vertices.max(axis=0), (1.1, 0.1, 0.15), atol=1e-9)
    assert stl.material.rgba == pytest.approx((0.3, 0.3, 0.8, 0.5))
    assert stl.material.texture == str(tmp_path / 'wood.png')
    # A named node keeps its scale and drops its translation.
    mesh = placed(wheel)
    np.testing.assert_allclose(mesh.vertices.min(axis=0), (-0.1, -0.1, -0.1), atol=1e-9)
    np.testing.assert_allclose(mesh.vertices.max(axis=0), (0.1, 0.1, 0.1), atol=1e-9)
    assert [len(model.link('a').collisions)] == [2]  # plain shapes are both


def test_shapes_urdf_lacks_become_mesh_files_for_urdf_and_mujoco(tmp_path):
    import re

    from body_bridge.sim.building.build import build_spec
    from body_bridge.urdf import to_urdf
    path = tmp_path / 'shapes.body'
    path.write_text(textwrap.dedent(f"""\
        format: ChoreonoidBody
        format_version: 2.0
        links:
          - name: a
            elements:
              - {{ type: Shape, geometry: {{ type: Capsule, radius: 0.1, height: 0.2 }} }}
              - {{ type: Shape, geometry: {{ type: Cone, radius: 0.1, height: 0.2 }} }}
              - {{ type: Shape, geometry: {{ type: Extrusion, cross_section: {SQUARE} }} }}
              - type: Shape
                geometry: {{ type: ElevationGrid, x_dimension: 2, z_dimension: 2,
                            height: [ 0, 0.1, 0.2, 0.5 ] }}
              - {{ type: Shape, geometry: {{ type: TriangleMesh, vertices: [ 0, 0, 0, 1, 0, 0,
                  0, 1, 0, 0, 0, 1 ], triangles: [ 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3 ] }} }}
        """))
    model = load_model(path)
    text = to_urdf(model, mesh_dir=tmp_path / 'meshes')
    files = re.findall(r'filename="file://([^"]+)"', text)
    assert len(files) == 2 * 5  # each shape is visual and collision
    assert all(f.startswith(str(tmp_path / 'meshes')) and os.path.isfile(f) for f in files)
    mj = build_spec(model).compile()
    assert mj.nmesh == 4  # the capsule stays a MuJoCo capsule; the others are meshes
