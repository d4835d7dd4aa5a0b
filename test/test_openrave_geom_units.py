"""OpenRAVE ``<geom>`` and transform tags on small files written here
(body_bridge.formats.openrave.geom and raw): each shape's size, frame and material against
numbers worked by hand, and one ``path:line: message`` line for a geometry that cannot be."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formats.openrave.geom import rough_points
from body_bridge.formats.openrave.raw import TransformTags, inverse, scaled
from body_bridge.formats.openrave.xmlfile import parse_bytes
from body_bridge.model import Box, Mesh


def load(folder, geoms: str, name: str = 'g.kinbody.xml', body_extra: str = ''):
    path = folder / name
    path.write_text(textwrap.dedent(f"""\
        <KinBody name="k">
          <Body name="a" type="static">{body_extra}
            {geoms}
          </Body>
        </KinBody>
        """))
    return load_model(path), path


def refused(folder, geoms: str, match: str, line: int):
    with pytest.raises(ModelError) as info:
        load(folder, geoms)
    message = str(info.value)
    assert '\n' not in message and match in message, message
    assert message.startswith(f'{folder / "g.kinbody.xml"}:{line}: '), message


# --- transform tags ---------------------------------------------------------------------------

def tags_of(xml: str) -> np.ndarray:
    tags = TransformTags()
    for child in parse_bytes(f'<body>{xml}</body>'.encode(), 'm.xml').children:
        assert tags.read(child)
    return tags.matrix()


def test_transform_tags_turn_from_the_left_and_never_the_translation():
    m = tags_of('<translation>1 2 3</translation><rotationaxis>0 0 2 90</rotationaxis>'
                '<rotationaxis>1 0 0 90</rotationaxis>')
    np.testing.assert_allclose(m[:3, 3], [1, 2, 3])
    # Rx(90) @ Rz(90): x -> y -> z
    np.testing.assert_allclose(m[:3, :3] @ [1, 0, 0], [0, 0, 1], atol=1e-12)
    np.testing.assert_allclose(m[3], [0, 0, 0, 1])
    h = math.sqrt(0.5)
    q = tags_of(f'<quat>{2 * h} 0 0 {2 * h}</quat>')   # not unit: scaled first
    np.testing.assert_allclose(q[:3, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    r = tags_of('<rotationmat>0 -1 0 1 0 0 0 0 1.0001</rotationmat>')   # rounded in the file
    np.testing.assert_allclose(r[:3, :3] @ [1, 0, 0], [0, 1, 0], atol=1e-4)
    np.testing.assert_allclose(r[:3, :3] @ r[:3, :3].T, np.eye(3), atol=1e-12)


def test_transform_tags_start_from_a_given_frame_and_scale_translations():
    start = np.eye(4)
    start[:3, 3] = [1, 0, 0]
    tags = TransformTags(start)
    element = parse_bytes(b'<translation>1 2 3</translation>', 'm.xml')
    assert tags.read(element, scale=np.array([2.0, 2.0, 0.5]))
    np.testing.assert_allclose(tags.matrix()[:3, 3], [3, 4, 1.5])
    assert start[0, 3] == 1.0   # the start frame is not changed
    assert not tags.read(parse_bytes(b'<geom/>', 'm.xml'))


@pytest.mark.parametrize('xml, message', [
    ('<rotationaxis>0 0 0 90</rotationaxis>', '<rotationaxis> has a zero axis'),
    ('<quat>0 0 0 0</quat>', '<quat> is the zero quaternion'),
    ('<rotationmat>1 0 0 0 1 0 0 0 -1</rotationmat>', '<rotationmat> is not a rotation matrix'),
    ('<rotationmat>2 0 0 0 1 0 0 0 1</rotationmat>', '<rotationmat> is not a rotation matrix'),
])
def test_transform_tags_refuse_what_is_no_rotation(xml, message):
    with pytest.raises(ModelError) as info:
        tags_of(xml)
    assert str(info.value) == f'm.xml:1: {message}'


def test_scaled_and_inverse():
    np.testing.assert_allclose(scaled([0, -4, 2]), [0, -1, 0.5])
    assert scaled([0, 1e-13, 0]) is None and scaled([]) is None
    np.testing.assert_allclose(scaled([1e-12, 0, 0]), [1, 0, 0])
    m = tags_of('<translation>1 2 3</translation><rotationaxis>1 1 0 40</rotationaxis>')
    np.testing.assert_allclose(inverse(m) @ m, np.eye(4), atol=1e-12)


# --- geometries -------------------------------------------------------------------------------

def test_a_box_without_extents_is_one_line(tmp_path):
    refused(tmp_path, '<Geom type="box"><translation>0 0 1</translation></Geom>',
            'a box geometry needs <extents>', 3)


def test_inline_triangles_collide_and_are_drawn(tmp_path):
    model, _ = load(tmp_path, '<Geom type="trimesh"><vertices>0 0 0 1 0 0 0 1 0\n'
                              '0 0 0 0 1 0 0 0 1</vertices></Geom>')
    [collision] = model.link('a').collisions
    assert isinstance(collision.geometry, Mesh)
    np.testing.assert_array_equal(collision.geometry.faces, [[0, 1, 2], [3, 4, 5]])
    np.testing.assert_array_equal(collision.geometry.vertices[4], [0, 1, 0])
    assert [v.geometry for v in model.link('a').visuals] == [collision.geometry]


def test_half_extents_make_the_box(tmp_path):
    model, _ = load(tmp_path, '<Geom type="box"><extents>0.1 0.2 0.3</extents></Geom>')
    [collision] = model.link('a').collisions
    assert collision.geometry == Box((0.2, 0.4, 0.6))


def test_a_sphere_of_radius_0_is_refused_and_a_flat_box_is_made_thin(tmp_path):
    refused(tmp_path, '<Geom type="sphere"><radius>0</radius></Geom>',
            'a sphere geometry needs a positive <radius>', 3)
    model, path = load(tmp_path, '<Geom type="box"><extents>0.1 0 0.1</extents></Geom>')
    [collision] = model.link('a').collisions
    assert collision.geometry == Box((0.2, 0.0001, 0.2))
    assert model.warnings == (f'{path}:3: box extents [0.1, 0.0, 0.1] have a zero; that side '
                              'is made 0.1 mm thick',)


def test_a_scale_after_the_file_name_must_be_numbers(tmp_path):
    (tmp_path / 'm.obj').write_text(OBJ_TETRA)
    refused(tmp_path, '<Geom type="trimesh"><render>m.obj two</render></Geom>',
            "<render>: the scale after the file name must be numbers, found 'two'", 3)


OBJ_TETRA = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n'
MTL = 'newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\n'


def mesh_files(folder):
    (folder / 'parts.mtl').write_text(MTL)
    # a tetrahedron in red and a lone blue triangle (3 vertices, too few for a mesh)
    (folder / 'parts.obj').write_text(
        'mtllib parts.mtl\n' + OBJ_TETRA.replace('f 1 2 3', 'usemtl red\nf 1 2 3', 1) +
        'v 5 5 5\nv 6 5 5\nv 5 6 5\nusemtl blue\nf 5 6 7\n')
    # two lone triangles only: they make one mesh together
    (folder / 'two.obj').write_text('mtllib parts.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 2\n'
                                    'v 1 0 2\nv 0 1 3\nusemtl red\nf 1 2 3\nusemtl blue\n'
                                    'f 4 5 6\n')
    (folder / 'one.obj').write_text('v 0 0 0\nv 2 0 0\nv 0 1 0.5\nf 1 2 3\n')
    (folder / 'flat.obj').write_text('v 0 0 0\nv 2 0 0\nv 2 1 0\nv 0 1 0\nf 1 2 3 4\n')
    (folder / 'broken.obj').write_text('v -1 0 0\nv 1 2 0\nv 0 0 4\nf 1 2 9\n')
    (folder / 'broken.wrl').write_text('#VRML V2.0 utf8\nShape { geometry IndexedFaceSet { '
                                       'coord Coordinate { point [ 0 0 0, 1 2 3 ] }\n')


def test_small_mesh_parts_join_the_largest_and_keep_its_colour(tmp_path):
    mesh_files(tmp_path)
    model, path = load(tmp_path, '<Geom type="trimesh"><render>parts.obj</render>'
                                 '<transparency>0.5</transparency></Geom>\n'
                                 '<Geom type="trimesh"><collision>two.obj 2</collision></Geom>')
    first, second = model.link('a').collisions
    assert len(first.geometry.vertices) == 7 and len(first.geometry.faces) == 5
    assert first.material.rgba == (1.0, 0.0, 0.0, 0.5) and first.material.name == 'red'
    assert len(second.geometry.vertices) == 6 and len(second.geometry.faces) == 2
    assert second.material.rgba == (1.0, 0.0, 0.0, 1.0)
    assert float(second.geometry.vertices[:, 2].max()) == 6.0     # scaled by 2
    assert model.warnings == ()


def test_unreadable_meshes_get_a_box_over_their_coordinates(tmp_path):
    mesh_files(tmp_path)
    model, path = load(tmp_path, '<Geom type="trimesh"><data>one.obj</data></Geom>\n'
                                 '<Geom type="trimesh"><collision>broken.obj</collision></Geom>\n'
                                 '<Geom type="trimesh"><collision>broken.wrl 0.5 1 2</collision>'
                                 '</Geom>')
    boxes = [(c.geometry, tuple(c.pose.pos)) for c in model.link('a').collisions]
    assert boxes == [(Box((2.0, 1.0, 0.5)), (1.0, 0.5, 0.25)),
                     (Box((2.0, 2.0, 4.0)), (0.0, 1.0, 2.0)),
                     (Box((0.5, 2.0, 6.0)), (0.25, 1.0, 3.0))]
    assert model.warnings[:2] == (
        f'{path}:3: mesh one.obj has no triangles',
        f'{path}:3: one.obj: a bounding box of its coordinates (2 x 1 x 0.5 m) stands in for it')
    assert model.warnings[5] == (f'{path}:5: broken.wrl: a bounding box of its coordinates '
                                 '(0.5 x 2 x 6 m) stands in for it')


def test_a_flat_mesh_collides_as_a_thin_box_and_is_drawn_as_it_is(tmp_path):
    mesh_files(tmp_path)
    model, path = load(tmp_path, '<Geom type="trimesh"><collision>flat.obj</collision></Geom>')
    [collision] = model.link('a').collisions
    [visual] = model.link('a').visuals
    assert collision.geometry == Box((2.0, 1.0, 0.0001))
    np.testing.assert_allclose(collision.pose.pos, [1, 0.5, 0], atol=1e-12)
    assert isinstance(visual.geometry, Mesh) and len(visual.geometry.vertices) == 4
    assert model.warnings == (f"{path}:3: mesh part 'a_0_0' is flat; it collides as a "
                              '2 x 1 x 0.0001 m box',)


def test_transparency_without_a_colour_is_grey_and_one_inline_triangle_collides(tmp_path):
    model, _ = load(tmp_path, '<Geom type="sphere"><radius>0.1</radius>'
                              '<transparency>0.25</transparency></Geom>\n'
                              '<Geom type="trimesh"><vertices>0 0 0 1 0 0 0 2 0</vertices></Geom>')
    sphere, triangle = model.link('a').collisions
    assert sphere.material.rgba == (0.7, 0.7, 0.7, 0.75)
    # a triangle is flat: it collides as a thin box over it (its principal axes)
    assert isinstance(triangle.geometry, Box) and triangle.geometry.size[2] == 0.0001


def test_a_thin_mesh_counts_as_flat_and_a_flat_stand_in_is_0_1_mm_thick(tmp_path):
    # 100 m by 50 m, 10 um out of its plane: below a millionth of its length, flat
    (tmp_path / 'thin.obj').write_text('v 0 0 0\nv 100 0 0\nv 100 50 0\nv 0 50 1e-5\n'
                                       'f 1 2 3 4\n')
    (tmp_path / 'plane.obj').write_text('v 0 0 0\nv 2 0 0\nv 0 3 0\nf 1 2 5\n')
    model, path = load(tmp_path, '<Geom type="trimesh"><collision>thin.obj</collision></Geom>\n'
                                 '<Geom type="trimesh"><collision>plane.obj</collision></Geom>')
    thin, plane = (c.geometry for c in model.link('a').collisions)
    assert isinstance(thin, Box) and thin.size[2] == 0.0001
    assert plane == Box((2.0, 3.0, 0.0001))


def test_parts_of_two_vertices_make_a_mesh_when_they_have_four(tmp_path):
    # each part's only face repeats a vertex: 2 + 2 vertices, a mesh's 4 together
    (tmp_path / 'parts.mtl').write_text(MTL)
    (tmp_path / 'pairs.obj').write_text('mtllib parts.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n'
                                        'v 0 0 1\nusemtl red\nf 1 1 2\nusemtl blue\nf 3 4 4\n')
    model, path = load(tmp_path, '<Geom type="trimesh"><render>pairs.obj</render></Geom>')
    # the mesh covers no area (not drawn) and collides as the box around it, in its red
    [collision] = model.link('a').collisions
    assert collision.geometry == Box((1.0, 1.0, 1.0)) and collision.material.name == 'red'
    assert not any('no triangles' in w or 'stands in' in w for w in model.warnings)


def test_a_sphere_or_cylinder_without_its_sizes_is_one_line(tmp_path):
    refused(tmp_path, '<Geom type="sphere"/>', 'a sphere geometry needs a positive <radius>', 3)
    refused(tmp_path, '<Geom type="cylinder"><height>1</height></Geom>',
            'a cylinder geometry needs a positive <radius> and <height>', 3)


def test_a_rotationmat_rounded_to_three_digits_is_taken_one_stretched_by_a_thousandth_not(
        tmp_path):
    c = round(math.cos(math.radians(30)), 3)          # 0.866, 0.5: m m^T within 1e-3 of I
    model, _ = load(tmp_path, f'<Geom type="box"><extents>1 1 1</extents>'
                              f'<rotationmat>{c} -0.5 0 0.5 {c} 0 0 0 1</rotationmat></Geom>')
    rot = model.link('a').collisions[0].pose.rot
    np.testing.assert_allclose(rot @ [1, 0, 0], [math.cos(math.pi / 6), 0.5, 0], atol=1e-3)
    # x stretched by 0.08 %: m m^T is 1.0016 along x, beyond rounding
    refused(tmp_path, '<Geom type="box"><extents>1 1 1</extents>'
                      '<rotationmat>1.0008 0 0 0 1 0 0 0 1</rotationmat></Geom>',
            '<rotationmat> is not a rotation matrix', 3)


def test_an_empty_render_a_stray_attribute_and_a_bad_triangle_count(tmp_path):
    # an empty <render/> names no file: the box is drawn as itself, nothing refused
    model, path = load(tmp_path, '<Geom type="box" colour="red"><extents>1 1 1</extents>'
                                 '<render/></Geom>')
    [visual] = model.link('a').visuals
    assert visual.geometry == Box((2.0, 2.0, 2.0))
    assert model.warnings == (f"{path}:3: <geom> attribute 'colour' is not known and was "
                              'ignored',)
    refused(tmp_path, '<Geom type="trimesh"><vertices>0 0 0 1 0 0 0 1 0 1</vertices></Geom>',
            '<vertices> must hold 9 numbers per triangle, found 10', 3)


def test_a_mesh_is_flat_by_its_thickness_against_its_length_not_its_width(tmp_path):
    # a strip 10 m long, 1 cm wide and 5 um thick: 5 um is below 1e-6 of its length
    # (flat: a thin box) though not below 1e-6 of its width
    corners = [(x, y, z) for x in (0, 10) for y in (0, 0.01) for z in (0, 5e-6)]
    faces = [(1, 2, 4, 3), (5, 6, 8, 7), (1, 2, 6, 5), (3, 4, 8, 7), (1, 3, 7, 5), (2, 4, 8, 6)]
    (tmp_path / 'strip.obj').write_text(
        ''.join(f'v {x} {y} {z}\n' for x, y, z in corners) +
        ''.join('f ' + ' '.join(map(str, f)) + '\n' for f in faces))
    model, path = load(tmp_path, '<Geom type="trimesh"><collision>strip.obj</collision></Geom>')
    [collision] = model.link('a').collisions
    assert collision.geometry == Box((10.0, 0.01, 0.0001))    # a flat part: 0.1 mm thick
    assert model.warnings == (f"{path}:3: mesh part 'a_0_0' is flat; it collides as a "
                              '10 x 0.01 x 0.0001 m box',)


def test_a_stand_in_box_leaves_out_coordinates_that_are_not_finite(tmp_path):
    (tmp_path / 'odd.obj').write_text('v 0 0 0\nv 2 0 0\nv 0 1 0.5\nv nan 0 0\nv 0 inf 0\n')
    model, _ = load(tmp_path, '<Geom type="trimesh"><data>odd.obj</data></Geom>')
    [collision] = model.link('a').collisions
    assert collision.geometry == Box((2.0, 1.0, 0.5))
    np.testing.assert_allclose(collision.pose.pos, [1.0, 0.5, 0.25])


def test_a_stand_in_uses_whole_coordinates_and_nothing_at_all_is_a_warning(tmp_path):
    # a stray seventh number is not a point: the box is over (0 0 0) and (2 1 0.5)
    (tmp_path / 'seven.wrl').write_text('#VRML V2.0 utf8\nShape { geometry IndexedFaceSet { '
                                        'coord Coordinate { point [ 0 0 0, 2 1 0.5, 9 ] }\n')
    (tmp_path / 'empty.obj').write_text('# nothing\n')
    model, path = load(tmp_path, '<Geom type="trimesh"><collision>seven.wrl</collision></Geom>'
                                 '\n<Geom type="trimesh"><collision>empty.obj</collision></Geom>'
                                 '\n<Geom type="cylinder"><radius>1</radius><height>1</height>'
                                 '</Geom>')
    box = model.link('a').collisions[0]
    assert box.geometry == Box((2.0, 1.0, 0.5))
    assert f'{path}:4: no geometry for empty.obj: nothing in it could be read, not even its ' \
           'coordinates' in model.warnings


@pytest.mark.parametrize('sizes', ['<radius>0</radius><height>1</height>',
                                   '<radius>1</radius><height>0</height>'])
def test_a_cylinder_of_zero_radius_or_height_is_refused(tmp_path, sizes):
    refused(tmp_path, f'<Geom type="cylinder">{sizes}</Geom>',
            'a cylinder geometry needs a positive <radius> and <height>', 3)


def test_scales_colours_and_extents_at_their_bounds(tmp_path):
    (tmp_path / 'm.obj').write_text(OBJ_TETRA)
    for scale in ('0', 'inf', '1 0 1'):
        refused(tmp_path, f'<Geom type="trimesh"><render>m.obj {scale}</render></Geom>',
                '<render>: the scale must be finite and not zero', 3)
    refused(tmp_path, '<Geom type="box"><extents>0 0 0</extents></Geom>',
            'a box geometry needs <extents>', 3)
    # colour components are fractions: 1.5 is full, -1 none
    model, _ = load(tmp_path, '<Geom type="sphere"><radius>0.1</radius>'
                              '<diffusecolor>1.5 0.2 -1</diffusecolor></Geom>')
    assert model.link('a').visuals[0].material.rgba == (1.0, 0.2, 0.0, 1.0)


def test_a_flat_part_becomes_a_box_beside_a_solid_part_that_stays(tmp_path):
    (tmp_path / 'parts.mtl').write_text(MTL)
    (tmp_path / 'two.obj').write_text(
        'mtllib parts.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n'
        'v 3 0 0\nv 5 0 0\nv 5 1 0\nv 3 1 0\n'
        'usemtl red\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\nusemtl blue\nf 5 6 7 8\n')
    model, _ = load(tmp_path, '<Geom type="trimesh"><collision>two.obj</collision></Geom>')
    kinds = sorted(type(c.geometry).__name__ for c in model.link('a').collisions)
    assert kinds == ['Box', 'Mesh']
    [box] = [c.geometry for c in model.link('a').collisions if isinstance(c.geometry, Box)]
    assert box == Box((2.0, 1.0, 0.0001))


def test_a_scale_takes_three_numbers_and_a_colour_three_components(tmp_path):
    (tmp_path / 'm.obj').write_text(OBJ_TETRA)
    model, _ = load(tmp_path, '<Geom type="trimesh"><render>m.obj 1 2 3 4</render>'
                              '<diffusecolor>1 0 0 0.5</diffusecolor></Geom>')
    [visual] = model.link('a').visuals
    assert float(visual.geometry.vertices[:, 2].max()) == 3.0      # z scaled by 3
    assert visual.material.rgba == (1.0, 0.0, 0.0, 1.0)            # alpha: <transparency>


def test_vertices_belong_to_a_trimesh_only(tmp_path):
    model, path = load(tmp_path, '<Geom type="box"><extents>1 1 1</extents>'
                                 '<vertices>0 0 0 1 0 0 0 1 0</vertices></Geom>\n'
                                 '<Geom type="trimesh"><vertices>0 0 0 1 0 0 0 1 0</vertices>'
                                 '<tint>red</tint></Geom>')
    assert model.warnings[:2] == (
        f'{path}:3: <vertices> is not used by a box geometry and was ignored',
        f'{path}:4: <tint> is not used by a trimesh geometry and was ignored')


def box_obj(size) -> str:
    """A closed box mesh from the origin to ``size`` (six quads), as OBJ text."""
    corners = [(x, y, z) for x in (0, size[0]) for y in (0, size[1]) for z in (0, size[2])]
    faces = [(1, 2, 4, 3), (5, 6, 8, 7), (1, 2, 6, 5), (3, 4, 8, 7), (1, 3, 7, 5), (2, 4, 8, 6)]
    return ''.join(f'v {x!r} {y!r} {z!r}\n' for x, y, z in corners) + \
        ''.join('f ' + ' '.join(map(str, f)) + '\n' for f in faces)


def test_a_mesh_exactly_a_millionth_of_its_length_thick_is_flat(tmp_path):
    # 2 m long and 2 um thick: the bound itself (2 um = 1e-6 x 2 m, exact in binary); twice
    # as thick it is a solid mesh
    (tmp_path / 'edge.obj').write_text(box_obj((2.0, 1.0, 2e-6)))
    (tmp_path / 'twice.obj').write_text(box_obj((2.0, 1.0, 4e-6)))
    model, path = load(tmp_path, '<Geom type="trimesh"><collision>edge.obj</collision></Geom>\n'
                                 '<Geom type="trimesh"><collision>twice.obj</collision></Geom>')
    edge, twice = (c.geometry for c in model.link('a').collisions)
    assert edge == Box((2.0, 1.0, 0.0001))
    assert isinstance(twice, Mesh) and len(twice.vertices) == 8
    assert model.warnings == (f"{path}:3: mesh part 'a_0_0' is flat; it collides as a "
                              '2 x 1 x 0.0001 m box',)


def test_a_stand_in_needs_two_points_and_a_file_over_50_MB_is_not_scanned(tmp_path):
    # one finite point (the other is not a number) spans no box
    (tmp_path / 'lone.obj').write_text('v 1 2 3\nv nan 0 0\nf 1 2 3\n')
    model, path = load(tmp_path, '<Geom type="trimesh"><collision>lone.obj</collision></Geom>')
    assert model.link('a').collisions == ()
    assert f'{path}:3: no geometry for lone.obj: nothing in it could be read, not even its ' \
           'coordinates' in model.warnings
    # two points in the first bytes of a file of 50 MB and one byte (sparse: nothing written
    # after them): not scanned; the same two points in a small file are
    start = b'v 0 0 0\nv 1 2 3\n'
    (tmp_path / 'small.obj').write_bytes(start)
    np.testing.assert_array_equal(rough_points(str(tmp_path / 'small.obj')),
                                  [[0, 0, 0], [1, 2, 3]])
    with open(tmp_path / 'big.obj', 'wb') as out:
        out.write(start)
        out.truncate(50_000_001)
    assert rough_points(str(tmp_path / 'big.obj')) is None


def test_a_transparency_beyond_1_a_height_on_a_box_and_a_short_ambient_colour(tmp_path):
    # transparency is a fraction: 1.5 is fully clear (alpha 0), not a negative alpha
    model, path = load(tmp_path, '<Geom type="sphere"><radius>0.1</radius>'
                                 '<transparency>1.5</transparency></Geom>\n'
                                 '<Geom type="box"><extents>1 1 1</extents><height>2</height>'
                                 '</Geom>')
    sphere, box = model.link('a').visuals
    assert sphere.material.rgba == (0.7, 0.7, 0.7, 0.0)
    assert box.geometry == Box((2.0, 2.0, 2.0))
    assert model.warnings == (f'{path}:4: <height> is not used by a box geometry and was '
                              'ignored',)
    # an ambient colour is not kept, but one of two components is refused like any colour
    refused(tmp_path, '<Geom type="box"><extents>1 1 1</extents>'
                      '<ambientcolor>1 0</ambientcolor></Geom>',
            '<ambientcolor> must hold at least 3 numbers', 3)
