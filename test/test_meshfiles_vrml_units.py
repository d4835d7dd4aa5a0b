"""The VRML97 reader on small files written here: Switch and LOD choices, nesting and instancing
limits, named nodes (under a Switch, a rotated Transform, beyond the depth limit), appearance
defaults, primitive defaults, ElevationGrid, colours and the clear lines of broken files."""

from __future__ import annotations

import numpy as np
import pytest

from body_bridge import geometry as geo
from body_bridge.errors import ModelError
from body_bridge.meshfiles import _common, load_mesh_file

import mesh_files
from mesh_files import bounds, load

HEADER = '#VRML V2.0 utf8\n'


def write(tmp_path, text: str, name: str = 'm.wrl'):
    return mesh_files.write(tmp_path, name, HEADER + text)


def box(size: float, x: float = 0.0) -> str:
    return (f'Transform {{ translation {x} 0 0 children Shape {{ geometry Box {{ size {size} '
            f'{size} {size} }} }} }}')


def nest(levels: int, inner: str) -> str:
    return 'Group { children [ ' * levels + inner + ' ] }' * levels


# --- Switch, LOD ------------------------------------------------------------------------------


def test_switch_draws_only_its_chosen_child_and_lod_its_first_level(tmp_path):
    choices = f'choice [ {box(1, 10)} {box(3, 20)} ]'
    path = write(tmp_path, f'{box(1)}\nSwitch {{ {choices} }}\n')
    parts, _ = load(path)  # no whichChoice: -1, nothing drawn
    np.testing.assert_allclose(bounds(parts)[1], (0.5, 0.5, 0.5))
    path = write(tmp_path, f'Switch {{ whichChoice 0 {choices} }}\n')
    low, high = bounds(load(path)[0])
    np.testing.assert_allclose((low[0], high[0]), (9.5, 10.5))
    path = write(tmp_path, f'Switch {{ whichChoice 1 {choices} }}\n')
    low, high = bounds(load(path)[0])
    np.testing.assert_allclose((low[0], high[0]), (18.5, 21.5))
    path = write(tmp_path, f'LOD {{ range [ 10 ] level [ {box(1, 10)} {box(3, 20)} ] }}\n')
    low, high = bounds(load(path)[0])
    np.testing.assert_allclose((low[0], high[0]), (9.5, 10.5))


# --- nesting and instancing -------------------------------------------------------------------


def test_a_shape_used_at_the_depth_limit_is_drawn_and_one_used_deeper_is_refused(tmp_path):
    shape = 'DEF S Shape { geometry Box { size 1 1 1 } }\n'
    # USE S sits 100 groups deep: at the limit, not over it.
    path = write(tmp_path, shape + nest(100, 'USE S') + '\n')
    parts, _ = load(path)
    assert sum(len(p.mesh.faces) for p in parts) == 24
    # Each file nests at most 60 levels, but USE stacks them to 120 when the scene is walked.
    deep = write(tmp_path, shape + 'DEF A ' + nest(60, 'USE S') + '\n' + nest(60, 'USE A'),
                 'deep.wrl')
    with pytest.raises(ModelError, match=r'deep\.wrl:\d+: nodes nested deeper than 100$'):
        load_mesh_file(deep)


def test_instancing_is_bounded_when_searching_for_a_named_node(tmp_path, monkeypatch):
    levels = ['DEF L0 Group { }']
    levels += [f'DEF L{i} Group {{ children [ USE L{i - 1} USE L{i - 1} ] }}'
               for i in range(1, 13)]  # 2**13 groups when expanded, no shape
    path = write(tmp_path, '\n'.join(levels) + '\n')
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 1000)
    for node in (None, 'NOPE'):
        with pytest.raises(ModelError, match=r'm\.wrl:\d+: more than 1000 scene nodes to '
                                             r'expand \(instancing too deep or too wide\)$'):
            load_mesh_file(path, node)


# --- named nodes ------------------------------------------------------------------------------

QUARTER = '0 0 1 1.5707963267948966'


def test_a_named_node_under_a_switch_or_a_rotated_transform_is_found_and_turned(tmp_path):
    path = write(tmp_path, f'''Transform {{ translation 7 0 0 rotation {QUARTER} children [
  Switch {{ whichChoice -1 choice [ DEF HIDDEN Shape {{ geometry Box {{ size 1 2 3 }} }} ] }}
] }}
''')
    parts, _ = load(path, 'HIDDEN')  # a Switch's choices are searched, even one not drawn
    low, high = bounds(parts)
    # The 1 x 2 x 3 box turned a quarter about z by its ancestor, without the translation.
    np.testing.assert_allclose(low, (-1.0, -0.5, -1.5), atol=1e-9)
    np.testing.assert_allclose(high, (1.0, 0.5, 1.5), atol=1e-9)


def test_a_named_node_is_not_searched_beyond_the_depth_limit(tmp_path):
    # X is DEFined under a turned Transform; the Collision's proxy (never searched) holds a
    # 55-level nest that USEs X, and the Group's children USE that nest 50 levels deep: the
    # search, which takes the children before the Group's other nodes, reaches X there first
    # but deeper than 100 levels, so X is taken from the turned Transform.
    path = write(tmp_path, f'''Group {{
  Transform {{ rotation {QUARTER} children DEF X Shape {{ geometry Box {{ size 1 2 3 }} }} }}
  Collision {{ proxy DEF A {nest(55, 'DEF DEEP Group { children [ USE X ] }')} }}
  children [ {nest(50, 'USE A')} ]
}}
''')
    low, high = bounds(load(path, 'X')[0])
    np.testing.assert_allclose(low, (-1.0, -0.5, -1.5), atol=1e-9)
    np.testing.assert_allclose(high, (1.0, 0.5, 1.5), atol=1e-9)
    with pytest.raises(ModelError) as err:
        load_mesh_file(path, 'NOPE')
    # DEEP is only reached beyond the limit: not listed.
    assert str(err.value) == f"{path}: no node DEFined as 'NOPE' (DEF names: 'A', 'X')"


# --- shapes and appearances -------------------------------------------------------------------


def test_shape_without_geometry_and_appearance_without_material(tmp_path):
    path = write(tmp_path, 'Shape { appearance Appearance { material Material { } } }\n'
                 'Shape { appearance Appearance { } geometry Box { size 1 1 1 } }\n')
    parts, messages = load(path)
    assert messages == [] and len(parts) == 1
    assert parts[0].material is None  # no Material: the model's default colour, not white


def test_primitive_defaults_and_the_cylinder_side_warning(tmp_path):
    path = write(tmp_path, 'Shape { geometry Cone { } }\n')
    low, high = bounds(load(path)[0])  # radius 1, height 2, along y
    np.testing.assert_allclose(low, (-1, -1, -1), atol=1e-9)
    np.testing.assert_allclose(high, (1, 1, 1), atol=1e-9)
    path = write(tmp_path, 'Shape { geometry Cylinder { side FALSE } }\n')
    parts, messages = load(path)
    assert messages == [f'{path}:2: Cylinder side FALSE is not supported; the side is drawn']
    np.testing.assert_allclose(bounds(parts)[1], (1, 1, 1), atol=1e-9)


def test_more_than_sixteen_face_colours_become_one_averaged_part(tmp_path):
    n = 17
    points = ' '.join(f'{k} 0 0, {k + 1} 0 0, {k} 1 0,' for k in range(n))
    faces = ' '.join(f'{3 * k} {3 * k + 1} {3 * k + 2} -1' for k in range(n))
    colours = ', '.join(f'{k / 16:.4f} 0 1' for k in range(n))
    path = write(tmp_path, f'''Shape {{ geometry IndexedFaceSet {{
  coord Coordinate {{ point [ {points} ] }} coordIndex [ {faces} ]
  colorPerVertex FALSE color Color {{ color [ {colours} ] }} }} }}
''')
    parts, messages = load(path)
    assert messages == [f'{path}:2: 17 face colours averaged into one (at most 16 are kept '
                        'apart)']
    assert len(parts) == 1 and len(parts[0].mesh.faces) == n
    np.testing.assert_allclose(parts[0].material.rgba, (0.5, 0.0, 1.0, 1.0), atol=1e-4)  # the mean


# --- broken files -----------------------------------------------------------------------------


def test_broken_inline_face_and_texture_coordinates_get_one_line(tmp_path, monkeypatch):
    path = write(tmp_path, 'Group { children Inline { } }\n')
    with pytest.raises(ModelError, match=r'm\.wrl:2: Inline without a url$'):
        load_mesh_file(path)
    square = ('coord Coordinate { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0, 2 2 0 ] } '
              'coordIndex [ 0 1 2 3 -1 ]')
    path = write(tmp_path, f'Shape {{\n geometry IndexedFaceSet {{ {square} }} }}\n')
    assert len(load(path)[0][0].mesh.faces) == 2
    monkeypatch.setattr(_common, 'MAX_POLYGON_CORNERS', 3)
    with pytest.raises(ModelError, match=r'm\.wrl:3: a face has more than 3 corners$'):
        load_mesh_file(path)
    monkeypatch.undo()
    path = write(tmp_path, f'''Shape {{
  appearance Appearance {{ texture ImageTexture {{ url "t.png" }} }}
  geometry IndexedFaceSet {{ {square}
    texCoord TextureCoordinate {{ point [ 0 0 1 0 1 ] }} }} }}
''')
    (tmp_path / 't.png').write_bytes(b'\x89PNG\r\n\x1a\n')
    with pytest.raises(ModelError, match=r'm\.wrl:5: TextureCoordinate point: 5 numbers are '
                                         'not a whole number of pairs$'):
        load_mesh_file(path)


# --- ElevationGrid ----------------------------------------------------------------------------


def grid(nx: int, nz: int, heights, extra: str = '') -> str:
    values = ' '.join(str(h) for h in heights)
    return (f'Shape {{ geometry ElevationGrid {{ xDimension {nx} zDimension {nz} '
            f'height [ {values} ] {extra} }} }}\n')


def test_elevation_grid_covers_its_cells_with_upward_triangles(tmp_path):
    path = write(tmp_path, grid(3, 3, [0] * 8 + [2]))
    mesh = load(path)[0][0].mesh
    centres = mesh.vertices[mesh.faces].mean(axis=1)
    cells = sorted(map(tuple, np.floor(centres[:, [0, 2]]).astype(int).tolist()))
    assert cells == [(0, 0)] * 2 + [(0, 1)] * 2 + [(1, 0)] * 2 + [(1, 1)] * 2  # two in each
    low, high = bounds([load(path)[0][0]])
    np.testing.assert_allclose(low, (0, 0, 0))  # default spacing 1
    np.testing.assert_allclose(high, (2, 2, 2))  # the last height at (x, z) = (2, 2)
    flat = write(tmp_path, grid(3, 3, [0] * 9), 'flat.wrl')
    mesh = load(flat)[0][0].mesh
    assert geo.mesh_area(mesh) == pytest.approx(4.0)
    a, b, c = (mesh.vertices[mesh.faces[:, k]] for k in range(3))
    assert np.all(np.cross(b - a, c - a)[:, 1] > 0)  # ccw seen from above: normals up
    flat.write_text(HEADER + grid(3, 3, [0] * 9, 'ccw FALSE xSpacing 0.5'))
    mesh = load(flat)[0][0].mesh
    a, b, c = (mesh.vertices[mesh.faces[:, k]] for k in range(3))
    assert np.all(np.cross(b - a, c - a)[:, 1] < 0)
    assert geo.mesh_area(mesh) == pytest.approx(2.0)


def test_elevation_grid_with_too_few_heights_or_too_many_points_is_refused(tmp_path,
                                                                           monkeypatch):
    path = write(tmp_path, grid(3, 2, [0] * 5))
    with pytest.raises(ModelError, match=r'm\.wrl:2: ElevationGrid 3 x 2 needs 6 heights, '
                                         'found 5$'):
        load_mesh_file(path)
    # no height field at all: VRML97's default height is [], none
    path = write(tmp_path, 'Shape { geometry ElevationGrid { xDimension 3 zDimension 2 } }\n')
    with pytest.raises(ModelError, match=r'm\.wrl:2: ElevationGrid 3 x 2 needs 6 heights, '
                                         'found 0$'):
        load_mesh_file(path)
    path = write(tmp_path, grid(3, 2, [0] * 6))
    monkeypatch.setattr(_common, 'MAX_VERTICES', 6)
    assert len(load(path)[0][0].mesh.vertices) == 6  # exactly the limit
    monkeypatch.setattr(_common, 'MAX_VERTICES', 5)
    with pytest.raises(ModelError, match=r'm\.wrl:2: ElevationGrid 3 x 2 needs 6 heights, '
                                         'found 6$'):
        load_mesh_file(path)


# --- the fresh sample's survivors (issue 39) ---------------------------------------------------


@pytest.mark.parametrize('kind', ['Group', 'Transform'])
def test_a_named_node_is_read_as_level_one(tmp_path, kind):
    # S is USEd 99 (then 100) groups below the named node: levels 101 (102) counting the named
    # node as level 1 (the file itself nests only 100 levels, which it may).
    shape = 'DEF S Shape { geometry Box { size 1 1 1 } }\n'
    path = write(tmp_path, shape + f'DEF N {kind} {{ children [ {nest(98, "USE S")} ] }}\n')
    assert sum(len(p.mesh.faces) for p in load(path, 'N')[0]) == 12
    path = write(tmp_path, shape + f'DEF N {kind} {{ children [ {nest(99, "USE S")} ] }}\n')
    with pytest.raises(ModelError, match=r'm\.wrl:\d+: nodes nested deeper than 100$'):
        load_mesh_file(path, 'N')


def test_a_node_under_a_lod_is_found_by_name(tmp_path):
    path = write(tmp_path, f'LOD {{ range [ 10 ] level [ Group {{ }} '
                 f'Transform {{ translation 5 0 0 children DEF FAR {box(2)} }} ] }}\n')
    low, high = bounds(load(path, 'FAR')[0])  # the LOD's second level, not drawn, searched
    np.testing.assert_allclose((low, high), ((-1, -1, -1), (1, 1, 1)), atol=1e-9)


def test_a_flattening_scale_keeps_the_winding_of_shapes_and_inlines(tmp_path):
    # A triangle in the x-z plane, normal -y; a Transform's scale 1 0 1 flattens y (nothing of
    # this triangle) and mirrors nothing (determinant 0, not negative).
    triangle = ('Shape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0, 1 0 0, '
                '0 0 1 ] } coordIndex [ 0 1 2 -1 ] } }')
    write(tmp_path, triangle + '\n', 'tri.wrl')
    for inner in (triangle, 'Inline { url "tri.wrl" }'):
        path = write(tmp_path, f'Transform {{ scale 1 0 1 children {inner} }}\n')
        (part,) = load(path)[0]
        a, b, c = part.mesh.vertices[part.mesh.faces[0]]
        np.testing.assert_allclose(np.cross(b - a, c - a), (0, -1, 0))


def test_material_defaults_and_its_emissive_and_specular_colours(tmp_path):
    # VRML97's Material: diffuseColor 0.8 0.8 0.8; emissive and specular only when written.
    path = write(tmp_path, 'Shape { appearance Appearance { material Material { } } '
                 'geometry Box { } }\n')
    (part,) = load(path)[0]
    assert part.material.rgba == (0.8, 0.8, 0.8, 1.0)
    assert part.material.emission is None and part.material.specular is None
    low, high = bounds([part])  # Box's default size 2 2 2
    np.testing.assert_allclose((low, high), ((-1, -1, -1), (1, 1, 1)))
    path = write(tmp_path, 'Shape { appearance Appearance { material Material { '
                 'emissiveColor 0.1 0.2 0.3 specularColor 0.4 0.5 0.6 } } geometry Box { } }\n')
    material = load(path)[0][0].material
    assert material.emission == (0.1, 0.2, 0.3) and material.specular == (0.4, 0.5, 0.6)


def test_a_face_set_without_coordinates_draws_nothing(tmp_path):
    path = write(tmp_path, f'Shape {{ geometry IndexedFaceSet {{ coordIndex [ 0 1 2 -1 ] }} }}\n'
                 f'{box(1)}\n')
    parts, messages = load(path)
    assert messages == [] and len(parts) == 1 and len(parts[0].mesh.faces) == 12


SQUARES = ('coord Coordinate { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0, 2 0 0, 2 1 0 ] } '
           'coordIndex [ 0 1 2 3 -1 1 4 5 2 -1 ]')


@pytest.mark.parametrize('tex_index', ['0 1 2 -1', '0 1 2 3 -1 0 1 2 -1',
                                       '0 1 2 3 -1 0 1 2 3 -1 0 1 2 -1'])
def test_texture_coordinate_faces_must_match_the_faces(tmp_path, tex_index):
    (tmp_path / 't.png').write_bytes(b'\x89PNG\r\n\x1a\n')
    path = write(tmp_path, f'''Shape {{
  appearance Appearance {{ texture ImageTexture {{ url "t.png" }} }}
  geometry IndexedFaceSet {{ {SQUARES}
    texCoord TextureCoordinate {{ point [ 0 0, 1 0, 1 1, 0 1 ] }} texCoordIndex [ {tex_index} ]
  }} }}
''')
    with pytest.raises(ModelError, match=r'm\.wrl:4: IndexedFaceSet texCoordIndex does not '
                                         'match coordIndex face for face$'):
        load_mesh_file(path)


def test_colour_indices_must_give_every_corner_a_colour(tmp_path):
    path = write(tmp_path, f'''Shape {{ geometry IndexedFaceSet {{ {SQUARES}
  color Color {{ color [ 1 0 0, 0 0 1 ] }} colorIndex [ 0 0 0 0 -1 1 1 1 -1 ] }} }}
''')
    with pytest.raises(ModelError, match=r'm\.wrl:2: IndexedFaceSet colorIndex does not match '
                                         'coordIndex$'):
        load_mesh_file(path)
    path.write_text(path.read_text().replace('1 1 1 -1', '1 1 1 1 -1'))
    parts = load(path)[0]
    assert sorted(p.material.rgba for p in parts) == [(0, 0, 1, 1), (1, 0, 0, 1)]


def test_elevation_grid_edges_outline_the_grid_once(tmp_path):
    # A 4 x 3 grid, spacing 0.5 by 2: every inner edge is shared by two triangles, and the
    # edges of one triangle only are the outline, 2 * (1.5 + 4) long.
    mesh = load(write(tmp_path, grid(4, 3, [0] * 12, 'xSpacing 0.5 zSpacing 2')))[0][0].mesh
    edges = np.sort(mesh.faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    unique, count = np.unique(edges, axis=0, return_counts=True)
    assert set(count.tolist()) == {1, 2}
    outline = unique[count == 1]
    length = np.linalg.norm(mesh.vertices[outline[:, 0]] - mesh.vertices[outline[:, 1]], axis=1)
    assert length.sum() == pytest.approx(11.0)
    assert len(outline) == 2 * (3 + 2)
