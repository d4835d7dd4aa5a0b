"""The ASCII Open Inventor reader on small files written here: the property nodes (transforms,
units, colours and their binding, textures), the grouping nodes and what state they keep, the
nesting limits, File includes and the clear lines of broken files."""

from __future__ import annotations

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.meshfiles import _common, load_mesh_file

import mesh_files
from mesh_files import bounds, load

HEADER = '#Inventor V2.1 ascii\n'
QUARTER = '0 0 1 1.5707963267948966'
TWO_TRIANGLES = ('Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0, 5 0 0, 6 0 0, 5 1 0 ] }\n'
                 'FaceSet { numVertices [ 3, 3 ] }\n')


def write(tmp_path, text: str, name: str = 'm.iv'):
    return mesh_files.write(tmp_path, name, HEADER + text)


def cube_at(tmp_path, text: str):
    """The low and high corners of everything in ``text`` (a scene with one Cube, 2 m)."""
    parts, messages = load(write(tmp_path, text))
    assert messages == []
    return bounds(parts)


# --- transforms and units ---------------------------------------------------------------------


@pytest.mark.parametrize('unit, metres', [
    ('METERS', 1.0), ('CENTIMETERS', 0.01), ('MILLIMETERS', 0.001), ('MICROMETERS', 1e-6),
    ('MICRONS', 1e-6), ('NANOMETERS', 1e-9), ('ANGSTROMS', 1e-10), ('KILOMETERS', 1000.0),
    ('FEET', 0.3048), ('INCHES', 0.0254), ('POINTS', 0.0254 / 72), ('YARDS', 0.9144),
    ('MILES', 1609.344), ('NAUTICAL_MILES', 1852.0)])
def test_units_scale_the_geometry_after_them_to_metres(tmp_path, unit, metres):
    low, high = cube_at(tmp_path, f'Separator {{ Units {{ units {unit} }} Cube {{ }} }}\n')
    np.testing.assert_allclose(high, (metres, metres, metres), rtol=1e-12)


def test_unknown_units_and_rotation_axes_get_one_line(tmp_path):
    path = write(tmp_path, 'Separator {\n Units { units FATHOMS } Cube { } }\n')
    with pytest.raises(ModelError, match=r"m\.iv:3: Units 'FATHOMS' is not a known unit$"):
        load_mesh_file(path)
    path = write(tmp_path, 'Separator {\n RotationXYZ { axis W angle 1 } Cube { } }\n')
    with pytest.raises(ModelError, match=r'm\.iv:3: RotationXYZ axis must be X, Y or Z, '
                                         'found W$'):
        load_mesh_file(path)


def test_transform_nodes_and_their_defaults(tmp_path):
    cube = 'Cube { width 2 height 4 depth 6 }'
    low, high = cube_at(tmp_path, f'Translation {{ }} Rotation {{ }} RotationXYZ {{ axis Z }} '
                                  f'Scale {{ }} {cube}\n')
    np.testing.assert_allclose((low, high), ((-1, -2, -3), (1, 2, 3)), atol=1e-12)
    low, high = cube_at(tmp_path, f'Rotation {{ rotation {QUARTER} }} {cube}\n')
    np.testing.assert_allclose((low, high), ((-2, -1, -3), (2, 1, 3)), atol=1e-12)
    # A Scale after a Translation scales the shapes, not the translation before it.
    low, high = cube_at(tmp_path, 'Translation { translation 10 0 0 } '
                                  'Scale { scaleFactor 1 1 1 } '
                                  f'Translation {{ translation 1 0 0 }} {cube}\n')
    np.testing.assert_allclose((low, high), ((10, -2, -3), (12, 2, 3)), atol=1e-12)
    # Inventor's matrices act on row vectors: the translation is the last row.
    low, high = cube_at(tmp_path, 'MatrixTransform { matrix 0 1 0 0  -1 0 0 0  0 0 1 0  '
                                  f'7 8 9 1 }} {cube}\n')
    np.testing.assert_allclose((low, high), ((5, 7, 6), (9, 9, 12)), atol=1e-12)
    # A MatrixTransform without a matrix is the identity.
    low, high = cube_at(tmp_path, f'MatrixTransform {{ }} {cube}\n')
    np.testing.assert_allclose((low, high), ((-1, -2, -3), (1, 2, 3)), atol=1e-12)


def test_units_keep_the_translation_given_before_them(tmp_path):
    # Metres before Units, centimetres after: the cube (2 cm) stays where it was put.
    low, high = cube_at(tmp_path, 'Translation { translation 1 0 0 } '
                                  'Units { units CENTIMETERS } Translation { translation 0 100 0 }'
                                  ' Cube { }\n')
    np.testing.assert_allclose((low, high), ((0.99, 0.99, -0.01), (1.01, 1.01, 0.01)),
                               atol=1e-12)


# --- grouping ---------------------------------------------------------------------------------


def test_grouping_nodes_keep_or_pass_on_the_state(tmp_path):
    moved = 'Translation { translation 10 0 0 } BaseColor { rgb 1 0 0 }'
    # TransformSeparator keeps its transform inside but passes the colour on.
    parts, messages = load(write(tmp_path, f'TransformSeparator {{ {moved} }} Cube {{ }}\n'))
    assert messages == [] and parts[0].material.rgba == (1.0, 0.0, 0.0, 1.0)
    np.testing.assert_allclose(bounds(parts)[1], (1, 1, 1))
    # LOD draws its first child and, as a separator, keeps nothing of it.
    parts, messages = load(write(tmp_path, f'LOD {{ range [ 5 ] Separator {{ {moved} Cube {{ }} }}'
                                           ' Sphere { } }\nCube { width 1 height 1 depth 1 }\n'))
    assert messages == [] and len(parts) == 2
    low, high = bounds(parts)
    np.testing.assert_allclose((low, high), ((-0.5, -1, -1), (11, 1, 1)))
    assert {p.material.rgba if p.material else None for p in parts} == {
        (1.0, 0.0, 0.0, 1.0), None}


def test_switch_draws_its_chosen_child_or_all_of_them(tmp_path):
    children = ('Cube { } Translation { translation 10 0 0 } '
                'Cube { width 1 height 1 depth 1 }')
    expected = {'0': (1, 1, 1), '-3': (10.5, 1, 1), '2': (0.5, 0.5, 0.5)}
    for which, high in expected.items():
        low, top = cube_at(tmp_path, f'Switch {{ whichChild {which} {children} }}\n')
        np.testing.assert_allclose(top, high)
    path = write(tmp_path, f'Switch {{ {children} }}\nSphere {{ radius 0.25 }}\n')
    np.testing.assert_allclose(bounds(load(path)[0])[1], (0.25, 0.25, 0.25), atol=1e-9)


@pytest.mark.parametrize('group', ['Group', 'LOD', 'Switch { whichChild 0', 'Separator',
                                   'TransformSeparator', 'Switch { whichChild -3'])
def test_nodes_used_deeper_than_the_limit_are_refused(tmp_path, group):
    opening = group + ('' if '{' in group else ' {') + ' '

    def nest(levels, inner):
        return opening * levels + inner + ' }' * levels

    # Each nest is 60 levels deep in the file; A used at the bottom of another makes 120.
    path = write(tmp_path, f'DEF S Cube {{ }}\nDEF A {nest(60, "USE S")}\n{nest(60, "USE A")}\n')
    with pytest.raises(ModelError, match=r'm\.iv:\d+: nodes nested deeper than 100$'):
        load_mesh_file(path)


# --- colours and textures ---------------------------------------------------------------------


def test_per_face_colours_make_one_part_per_colour(tmp_path):
    colours = {'BaseColor { rgb [ 1 0 0, 0 0 1 ] }': [(1, 0, 0), (0, 0, 1)],
               'Material { diffuseColor [ 1 0 0, 0 0 1 ] }': [(1, 0, 0), (0, 0, 1)],
               'Material { diffuseColor [ 1 0 0, 0 0 1 ] }\n'
               'MaterialBinding { value PER_FACE_INDEXED }\n'
               'Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0, 5 0 0, 6 0 0, 5 1 0 ] }\n'
               'IndexedFaceSet { coordIndex [ 0 1 2 -1, 3 4 5 -1 ] materialIndex [ 1 0 ] }\n':
               [(0, 0, 1), (1, 0, 0)]}
    for colour, (first, second) in colours.items():
        text = colour if 'IndexedFaceSet' in colour else (
            f'{colour}\nMaterialBinding {{ value PER_FACE }}\n{TWO_TRIANGLES}')
        parts, _ = load(write(tmp_path, text))
        by_colour = {p.material.rgba[:3]: bounds([p]) for p in parts}
        assert set(by_colour) == {first, second}
        assert by_colour[first][1][0] == 1.0 and by_colour[second][0][0] == 5.0


def test_colours_equal_to_four_decimals_share_a_part_and_one_colour_keeps_its_name(tmp_path):
    path = write(tmp_path, 'Material { diffuseColor [ 0.50001 0 0, 0.50002 0 0 ] }\n'
                 f'MaterialBinding {{ value PER_FACE }}\n{TWO_TRIANGLES}')
    parts, _ = load(path)
    assert len(parts) == 1 and parts[0].material.rgba == (0.5, 0.0, 0.0, 1.0)
    path = write(tmp_path, 'DEF Red Material { diffuseColor 1 0 0 }\n'
                 f'MaterialBinding {{ value PER_FACE }}\n{TWO_TRIANGLES}')
    parts, _ = load(path)
    assert [(p.material.name, p.material.rgba) for p in parts] == [('Red', (1, 0, 0, 1))]


def test_texture2_names_the_texture_of_the_shapes_after_it(tmp_path):
    (tmp_path / 't.png').write_bytes(b'\x89PNG\r\n\x1a\n')
    path = write(tmp_path, 'Separator { Texture2 { filename "t.png" } Cube { } }\n'
                 'Separator { Texture2 { filename "gone.png" } Texture2 { } Sphere { } }\n'
                 'Texture2 {\n filename "lost.png" } Cone { }\n')
    parts, messages = load(path)
    textures = [p.material.texture if p.material else None for p in parts]
    assert textures == [str(tmp_path / 't.png'), None, str(tmp_path / 'lost.png')]
    assert messages == [f"{path}:3: texture 'gone.png' not found",
                        f"{path}:4: texture 'lost.png' not found"]


# --- named nodes and included files -----------------------------------------------------------


def test_a_missing_named_node_lists_the_names(tmp_path):
    path = write(tmp_path, 'DEF B Separator { DEF A Cube { } }\n')
    with pytest.raises(ModelError) as err:
        load_mesh_file(path, 'C')
    assert str(err.value) == f"{path}: no node DEFined as 'C' (DEF names: 'A', 'B')"
    # At most 12 names are listed, in order.
    names = [f'N{k:02d}' for k in range(14)]
    path = write(tmp_path, ''.join(f'DEF {n} Cube {{ }}\n' for n in names))
    with pytest.raises(ModelError) as err:
        load_mesh_file(path, 'C')
    listed = ', '.join(repr(n) for n in names[:12])
    assert str(err.value) == f"{path}: no node DEFined as 'C' (DEF names: {listed})"


def test_file_without_a_name_and_files_included_too_deep_are_refused(tmp_path, monkeypatch):
    path = write(tmp_path, 'Separator {\n File { } }\n')
    with pytest.raises(ModelError, match=r'm\.iv:3: File without a file name$'):
        load_mesh_file(path)
    path = write(tmp_path, 'Separator {\n File { name 5 } }\n')  # a number, not a name
    with pytest.raises(ModelError, match=r'm\.iv:3: File without a file name$'):
        load_mesh_file(path)
    write(tmp_path, 'Cube { }\n', 'c.iv')
    write(tmp_path, 'File { name "c.iv" }\n', 'b.iv')
    top = write(tmp_path, 'File { name "b.iv" }\n', 'a.iv')
    assert len(load(top)[0]) == 1
    monkeypatch.setattr(_common, 'MAX_INCLUDE_DEPTH', 1)
    with pytest.raises(ModelError, match=r'b\.iv:2: included files nested deeper than 1$'):
        load_mesh_file(top)
