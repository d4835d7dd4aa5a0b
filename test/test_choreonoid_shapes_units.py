"""Choreonoid geometry and appearance nodes: bounds, defaults, variants, scaling, materials."""

import math
import textwrap

import numpy as np
import pytest

from body_bridge import geometry as geo
from body_bridge.errors import ModelError
from body_bridge.formats import choreonoid
from body_bridge.model import Box, Capsule, Cone, Cylinder, Material, Mesh, Sphere


def write(tmp_path, shape_text, name='g.body'):
    """A one-link body with one Shape node (its keys as YAML text at the node's indentation)."""
    path = tmp_path / name
    path.write_text('format: ChoreonoidBody\nformat_version: 1.0\nangle_unit: degree\n'
                    'links:\n  - name: a\n    elements:\n      - type: Shape\n' +
                    textwrap.indent(textwrap.dedent(shape_text).strip('\n'), ' ' * 8) + '\n')
    return path


def shape(tmp_path, shape_text):
    """The Shape's model shape and the warnings (without their place)."""
    model = choreonoid.load(write(tmp_path, shape_text))
    (visual,) = model.link('a').visuals
    return visual, [w.split(': ', 1)[1] for w in model.warnings]


def geometry(tmp_path, text):
    return shape(tmp_path, f'geometry: {text}')[0].geometry


def refused(tmp_path, shape_text) -> ModelError:
    path = write(tmp_path, shape_text, 'bad.body')
    with pytest.raises(ModelError) as caught:
        choreonoid.load(path)
    assert caught.value.path == str(path) and '\n' not in str(caught.value)
    return caught.value


def extent(mesh: Mesh) -> list:
    return (mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0)).tolist()


def test_a_small_radius_is_positive_and_zero_is_not(tmp_path):
    assert geometry(tmp_path, '{ type: Sphere, radius: 0.5 }') == Sphere(0.5)
    err = refused(tmp_path, 'geometry: { type: Sphere, radius: 0 }')
    assert (err.line, err.message) == (8, 'Sphere radius must be a positive number')
    err = refused(tmp_path, 'geometry: { type: Cylinder, radius: 1 }')
    assert err.message == 'Cylinder height must be a positive number'


def test_capsule_and_closed_cylinder_are_primitives(tmp_path):
    assert geometry(tmp_path, '{ type: Capsule, radius: 0.1, height: 0.4 }') == \
        Capsule(0.1, 0.4)
    assert geometry(tmp_path, '{ type: Cylinder, radius: 0.1, height: 0.4, top: true }') == \
        Cylinder(0.1, 0.4)


@pytest.mark.parametrize('caps, faces', [('top: false', 2), ('bottom: false', 2),
                                         ('top: false, bottom: false', 1)])
def test_a_cylinder_without_a_cap_is_a_mesh(tmp_path, caps, faces):
    visual, _ = shape(tmp_path, f'geometry: {{ type: Cylinder, radius: 1, height: 2, {caps} }}')
    mesh = visual.geometry
    assert isinstance(mesh, Mesh) and mesh.name == 'a_cylinder_cylinder'
    placed = geo.transform_mesh(mesh, visual.pose.rot, visual.pose.pos)
    assert extent(placed) == pytest.approx([2, 2, 2])
    # the side's faces and those of the caps kept: caps lie in the planes y = +-1
    normals = np.cross(placed.vertices[placed.faces[:, 1]] - placed.vertices[placed.faces[:, 0]],
                       placed.vertices[placed.faces[:, 2]] - placed.vertices[placed.faces[:, 0]])
    along_y = np.abs(normals[:, 1]) > 0.999 * np.linalg.norm(normals, axis=1)
    caps = {round(float(y)) for y in placed.vertices[placed.faces[along_y]][:, :, 1].ravel()}
    assert len(caps) == faces - 1


def test_shapes_without_a_side_are_refused(tmp_path):
    err = refused(tmp_path, 'geometry: { type: Cylinder, radius: 1, height: 2, side: false }')
    assert err.message == 'a Cylinder without its side has no volume; use Extrusion or faces'
    err = refused(tmp_path, 'geometry: { type: Cone, radius: 1, height: 2, side: false }')
    assert err.message == 'a Cone without its side has no volume'


def test_cone_with_and_without_bottom(tmp_path):
    assert geometry(tmp_path, '{ type: Cone, radius: 1, height: 2, side: true }') == Cone(1, 2)
    mesh = geometry(tmp_path, '{ type: Cone, radius: 1, height: 2, bottom: false }')
    assert isinstance(mesh, Mesh) and mesh.name == 'a_cone_cone'


def test_extrusion_defaults_are_vrml_s_unit_square_along_y(tmp_path):
    mesh = geometry(tmp_path, '{ type: Extrusion }')
    assert mesh.vertices.min(axis=0).tolist() == [-1, 0, -1]
    assert mesh.vertices.max(axis=0).tolist() == [1, 1, 1]
    assert geo.mesh_volume(mesh) == pytest.approx(4.0)


def test_extrusion_of_three_spine_points_scaled_and_oriented(tmp_path):
    mesh = geometry(tmp_path, '{ type: Extrusion, cross_section: [1, 1, 1, -1, -1, -1, -1, 1, '
                    '1, 1], spine: [0, 0, 0, 0, 1, 0, 0, 2, 0], scale: [0.5, 0.5], '
                    'orientation: [0, 1, 0, 45] }')
    assert extent(mesh)[1] == pytest.approx(2)
    # half the square turned 45 degrees about the spine: its corners reach 0.5 * sqrt(2)
    assert extent(mesh)[0] == pytest.approx(math.sqrt(2) / 2 * 2)
    assert geo.mesh_volume(mesh) == pytest.approx(2.0)
    err = refused(tmp_path, 'geometry: { type: Extrusion, spine: [0, 0, 0, 0, 0, 0] }')
    assert err.message.startswith('Extrusion: ') and err.line == 8


def test_an_extrusion_of_two_cross_section_points_is_a_ribbon(tmp_path):
    """Two points (four numbers) are the least cross-section: the segment from x = -1 to 1
    swept 2 m up the spine is a flat 2 m x 2 m ribbon, two triangles of 4 m^2 in all; one
    point (two numbers) is refused on its line."""
    mesh = geometry(tmp_path, '{ type: Extrusion, cross_section: [-1, 0, 1, 0], '
                    'spine: [0, 0, 0, 0, 2, 0] }')
    assert extent(mesh) == [2, 2, 0]
    corners = mesh.vertices[mesh.faces]
    areas = np.linalg.norm(np.cross(corners[:, 1] - corners[:, 0],
                                    corners[:, 2] - corners[:, 0]), axis=1) / 2
    assert len(mesh.faces) == 2 and areas.sum() == pytest.approx(4.0)
    err = refused(tmp_path, 'geometry: { type: Extrusion, cross_section: [1, 0], '
                  'spine: [0, 0, 0, 0, 2, 0] }')
    assert err.message == 'cross_section must have at least 4 numbers, found 2'
    assert err.line == 8


def test_elevation_grid_bounds(tmp_path):
    mesh = geometry(tmp_path, '{ type: ElevationGrid, x_dimension: 2, z_dimension: 3, '
                    'z_spacing: 0.5, height: [0, 0, 1, 1, 2, 2] }')
    assert extent(mesh) == pytest.approx([1, 2, 1])
    for keys in ('x_spacing: 0', 'z_spacing: -1', 'x_spacing: 1, z_spacing: 0'):
        err = refused(tmp_path, 'geometry: { type: ElevationGrid, x_dimension: 2, '
                      f'z_dimension: 2, height: [0, 0, 0, 0], {keys} }}')
        assert err.message == 'ElevationGrid x_spacing and z_spacing must be positive'
    err = refused(tmp_path, 'geometry: { type: ElevationGrid, z_dimension: 2, height: [] }')
    assert err.message.startswith('ElevationGrid: ')


SQUARE = 'vertices: [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1]'


def test_face_set_polygons_are_closed_by_minus_one(tmp_path):
    mesh = geometry(tmp_path, f'{{ type: IndexedFaceSet, {SQUARE}, '
                    'faces: [0, 1, 2, -1, 0, 2, 3, -1, 0, 1, -1, 0, 4, 1] }')
    assert len(mesh.faces) == 3  # two triangles, a two-corner polygon dropped, the open last
    assert sorted(map(sorted, mesh.faces.tolist())) == [[0, 1, 2], [0, 1, 4], [0, 2, 3]]


@pytest.mark.parametrize('keys, message', [
    ('faces: [0, 1, 2.5, -1]', 'IndexedFaceSet face index 2.5 is not an integer'),
    ('faces: [0, 1, true, -1]', 'IndexedFaceSet face index True is not an integer'),
    ('faces: 3', 'IndexedFaceSet faces must be a list of vertex indices closed by -1'),
    ('faces: [0, 1, -1]', 'IndexedFaceSet has no face of three or more vertices'),
    ('faces: [0, 1, 2], tex_coord: [0, 0, 1, 0, 1, 1], tex_coord_index: [0, 1, x]',
     "IndexedFaceSet texture coordinate index 'x' is not an integer"),
])
def test_bad_face_sets_are_one_line(tmp_path, keys, message):
    err = refused(tmp_path, f'geometry: {{ type: IndexedFaceSet, {SQUARE}, {keys} }}')
    assert (err.line, err.message) == (8, message)
    err = refused(tmp_path, 'geometry: { type: IndexedFaceSet, faces: [0, 1, 2] }')
    assert err.message == 'IndexedFaceSet has no vertices'


def test_face_set_texture_coordinates(tmp_path):
    mesh = geometry(tmp_path, f'{{ type: IndexedFaceSet, {SQUARE}, faces: [0, 1, 2, -1], '
                    'tex_coord: [0, 0, 1, 0, 1, 1], tex_coord_index: [0, 1, 2, -1] }')
    assert mesh.texcoords is not None
    corners = mesh.texcoords[mesh.faces[0]].tolist()
    assert sorted(corners) == [[0, 0], [1, 0], [1, 1]]


TRI = 'vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]'


def test_triangle_mesh(tmp_path):
    mesh = geometry(tmp_path, f'{{ type: TriangleMesh, {TRI}, triangles: [0, 1, 2, 0, 3, 1] }}')
    assert mesh.name == 'a_trianglemesh_triangles'
    assert mesh.vertices.shape == (4, 3) and mesh.faces.tolist() == [[0, 1, 2], [0, 3, 1]]
    mesh = geometry(tmp_path, '{ type: TriangleMesh, vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0], '
                    'triangles: [0, 1, 2] }')
    assert mesh.vertices.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]


@pytest.mark.parametrize('keys', [f'{TRI}, triangles: [0, 1, 4]', f'{TRI}, triangles: [0, 1, -1]',
                                  f'{TRI}, triangles: [0, 1, 0.5]'])
def test_triangle_indices_must_name_vertices(tmp_path, keys):
    err = refused(tmp_path, f'geometry: {{ type: TriangleMesh, {keys} }}')
    assert (err.line, err.message) == (8, 'TriangleMesh triangles must be vertex indices')


def test_triangle_mesh_needs_both_lists(tmp_path):
    err = refused(tmp_path, f'geometry: {{ type: TriangleMesh, {TRI} }}')
    assert err.message == 'TriangleMesh needs vertices and triangles'


def test_a_resource_without_triangles_is_refused(tmp_path):
    (tmp_path / 'empty.obj').write_text('v 0 0 0\nv 1 0 0\nv 0 1 0\n')
    err = refused(tmp_path, 'geometry: { type: Resource, uri: empty.obj }')
    assert err.line == 8 and err.message.endswith('holds no surface geometry (no triangles)')


def test_a_resource_geometry_is_one_mesh_named_after_its_file(tmp_path):
    (tmp_path / 'tri.obj').write_text('v 0 0 0\nv 1 0 0\nv 0 2 0\nf 1 2 3\n')
    visual, _ = shape(tmp_path, 'geometry: { type: Resource, uri: tri.obj }')
    assert visual.geometry.name == 'a_resource_tri'
    assert extent(visual.geometry) == [1, 2, 0]
    assert visual.pose.rot.tolist() == np.eye(3).tolist()


def scaled(tmp_path, scale, geometry_text, rotation='[0, 0, 1, 0]'):
    path = tmp_path / 's.body'
    path.write_text(textwrap.dedent(f"""\
        format: ChoreonoidBody
        format_version: 1.0
        links:
          - name: a
            elements:
              - type: Transform
                scale: {scale}
                elements:
                  - type: Shape
                    rotation: {rotation}
                    geometry: {geometry_text}
        """))
    (visual,) = choreonoid.load(path).link('a').visuals
    return visual


def test_a_uniform_scale_keeps_primitives_and_scales_them(tmp_path):
    assert scaled(tmp_path, '[2, 2, 2]', '{ type: Cylinder, radius: 1, height: 3 }').geometry == \
        Cylinder(2, 6)
    assert scaled(tmp_path, '[2, 2, 2]', '{ type: Capsule, radius: 1, height: 3 }').geometry == \
        Capsule(2, 6)
    assert scaled(tmp_path, '[0.5, 0.5, 0.5]', '{ type: Sphere, radius: 1 }').geometry == \
        Sphere(0.5)
    box = scaled(tmp_path, '[2, 2, 2]', '{ type: Box, size: [1, 2, 3] }', '[0, 0, 1, 30]')
    assert isinstance(box.geometry, Box) and box.geometry.size == pytest.approx((2, 4, 6))


def test_a_box_turned_in_a_non_uniform_scale_becomes_a_mesh(tmp_path):
    visual = scaled(tmp_path, '[1, 2, 1]', '{ type: Box, size: [1, 1, 1] }', '[0, 0, 1, 45]')
    assert isinstance(visual.geometry, Mesh)
    visual = scaled(tmp_path, '[1, 2, 3]', '{ type: Box, size: [1, 1, 1] }', '[0, 0, 1, 90]')
    assert isinstance(visual.geometry, Box)  # its x along the frame's y, scaled twice
    assert visual.geometry.size == pytest.approx((2, 1, 3))


def test_a_mesh_keeps_its_name_under_a_unit_scale(tmp_path):
    visual = scaled(tmp_path, '[1, 1, 1]', f'{{ type: TriangleMesh, {TRI}, triangles: [0, 1, 2] }}')
    assert visual.geometry.name == 'a_trianglemesh_triangles'
    visual = scaled(tmp_path, '[1, 1, 2]', f'{{ type: TriangleMesh, {TRI}, triangles: [0, 1, 3] }}')
    assert extent(visual.geometry) == [1, 1, 2]


BOXG = 'geometry: { type: Box, size: [1, 1, 1] }\n'


def test_material_defaults_and_transparency(tmp_path):
    visual, said = shape(tmp_path, BOXG + 'appearance: { material: { transparency: 0.25 } }')
    assert visual.material.rgba == (0.8, 0.8, 0.8, 0.75)
    assert said == []
    visual, _ = shape(tmp_path, BOXG + 'appearance: { material: { diffuse_color: [2, 0.5, -1] } }')
    assert visual.material.rgba == (1.0, 0.5, 0.0, 1.0)
    visual, _ = shape(tmp_path, BOXG + 'appearance: { material: { transparency: -0.5 } }')
    assert visual.material.rgba[3] == 1.0  # no more opaque than opaque
    visual, _ = shape(tmp_path, BOXG + 'appearance: {}')
    assert visual.material is None


def test_lighting_values_are_clipped_and_bad_ones_skipped(tmp_path):
    visual, said = shape(tmp_path, BOXG + 'appearance: { material: { emissive: [2, 0.5, -1], '
                         'specular_color: [0.1, 0.2, 0.3], specular_exponent: 64, '
                         'ambient_intensity: 3 } }')
    m = visual.material
    assert (m.emission, m.specular) == ((1.0, 0.5, 0.0), (0.1, 0.2, 0.3))
    assert (m.shininess, m.ambient) == (0.5, 1.0)
    assert said == []
    visual, said = shape(tmp_path, BOXG + 'appearance: { material: { shininess: 0.3, '
                         'emissive: red } }')
    assert visual.material.shininess == 0.3 and visual.material.emission is None
    assert len(said) == 1 and said[0].endswith('; ignored') and 'emissive' in said[0]


def test_a_texture_alone_and_a_missing_one(tmp_path):
    (tmp_path / 'skin.png').write_bytes(b'not checked here')
    visual, said = shape(tmp_path, BOXG + 'appearance: { texture: { url: skin.png, '
                         'repeat_s: true } }')
    assert visual.material == Material(texture=str(tmp_path / 'skin.png'))
    assert said == []
    visual, said = shape(tmp_path, BOXG + 'appearance: { texture: { uri: none.png, '
                         'blend: 2 } }')
    assert visual.material.texture == str(tmp_path / 'none.png')
    assert said == [f"texture 'none.png' does not exist ({tmp_path / 'none.png'})",
                    "texture: key 'blend' is not supported and was ignored"]


def test_a_zero_box_edge_is_made_a_micrometre_thick_and_said(tmp_path):
    visual, said = shape(tmp_path, 'geometry: { type: Box, size: [1, 0, 2] }\n')
    assert visual.geometry.size == (1.0, 1e-6, 2.0)  # the other edges as given
    assert said == ['Box size [1.0, 0.0, 2.0] has a zero edge; it was made 1e-06 m thick so '
                    'that physics engines accept it']


def test_a_scale_just_past_rounding_is_applied(tmp_path):
    """Within 1e-5 of 1 (np.allclose's tolerance) a factor is 1; 1.00002 is not."""
    visual = scaled(tmp_path, '[1, 1, 1.00002]',
                    f'{{ type: TriangleMesh, {TRI}, triangles: [0, 1, 3] }}')
    assert extent(visual.geometry)[2] == pytest.approx(1.00002, abs=1e-12)
    visual = scaled(tmp_path, '[1, 1, 1.000005]',
                    f'{{ type: TriangleMesh, {TRI}, triangles: [0, 1, 3] }}')
    assert visual.geometry.name == 'a_trianglemesh_triangles'  # unscaled, as given
    assert extent(visual.geometry)[2] == 1.0


def test_elevation_grid_spacing_defaults_to_one_metre(tmp_path):
    """VRML97's and Choreonoid's default spacing is 1: three rows along z span 2 m."""
    mesh = geometry(tmp_path, '{ type: ElevationGrid, x_dimension: 3, z_dimension: 3, '
                    'x_spacing: 0.5, height: [0, 0, 0, 0, 0, 0, 0, 0, 1] }')
    assert extent(mesh) == pytest.approx([1, 1, 2])


def test_a_cylinder_in_a_non_uniform_scale_is_baked_along_its_own_axis(tmp_path):
    """Choreonoid's cylinder lies along y: radius 1, height 2 under scale [1, 2, 3] spans
    x 2 m, y 2 x 2 = 4 m and z 2 x 3 = 6 m."""
    visual = scaled(tmp_path, '[1, 2, 3]', '{ type: Cylinder, radius: 1, height: 2 }')
    assert isinstance(visual.geometry, Mesh)
    assert extent(visual.geometry) == pytest.approx([2, 4, 6])


def test_a_mesh_in_a_uniform_scale_is_scaled(tmp_path):
    visual = scaled(tmp_path, '[2, 2, 2]', '{ type: TriangleMesh, vertices: [0, 0, 0, 1, 0, 0, '
                    '0, 1, 0.5], triangles: [0, 1, 2] }')
    assert isinstance(visual.geometry, Mesh)
    assert extent(visual.geometry) == pytest.approx([2, 2, 1])
