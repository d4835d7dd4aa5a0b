"""Mesh file features that real models use, on files written here: binary Open Inventor, the
Inventor shapes and strips, OBJ materials from their MTL library (a clone without the real
model corpus still tests them)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from body_bridge import geometry as geo
from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.meshfiles import load_mesh_file
from body_bridge.model import Mesh

from mesh_files import bounds, load, volume


# --- binary Inventor V2.1, written by the layout the format documents -------------------------


def _string(text: str) -> bytes:
    raw = text.encode('latin-1')
    return struct.pack('>I', len(raw)) + raw + b'\0' * (-len(raw) % 4)


def _floats(*values) -> bytes:
    return struct.pack(f'>{len(values)}f', *values)


def _many(fmt: str, values) -> bytes:
    """A multiple-value field: its count, then the values."""
    values = list(values)
    width = {'f': 1, 'i': 1, 'I': 1}[fmt]
    return struct.pack('>I', len(values) // width) + struct.pack(f'>{len(values)}{fmt}', *values)


def _many_vectors(vectors) -> bytes:
    flat = [c for v in vectors for c in v]
    return struct.pack('>I', len(vectors)) + struct.pack(f'>{len(flat)}f', *flat)


def _node(kind: str, fields=(), children=None, name=None) -> bytes:
    out = (_string('DEF') + _string(name) if name else b'') + _string(kind)
    out += struct.pack('>II', 2 if children is not None else 0, len(fields))
    for field, value in fields:
        out += _string(field) + value + struct.pack('>I', 0)
    if children is not None:
        out += struct.pack('>I', len(children)) + b''.join(children)
    return out


#: One scene in both forms: a red, partly transparent box moved along x, a cylinder (Inventor
#: builds it along +y) above it, a square of two triangle strips with a packed green colour
#: (a VertexProperty node), and the box again through USE, without the red.
SCENE_ASCII = '''#Inventor V2.1 ascii
Separator {
  Material { diffuseColor 1 0 0 transparency 0.25 }
  Translation { translation 1 0 0 }
  DEF C Cube { width 0.1 height 0.2 depth 0.3 }
}
Separator {
  Translation { translation 0 5 0 }
  Cylinder { radius 0.5 height 2 }
}
Separator {
  Translation { translation 10 0 0 }
  VertexProperty { vertex [ 0 0 0, 1 0 0, 0 1 0, 1 1 0 ] orderedRGBA [ 0x00ff00ff ] }
  IndexedTriangleStripSet { coordIndex [ 0, 1, 2, 3, -1 ] }
}
Separator { Translation { translation 0 0 -3 } USE C }
'''


def _scene_binary() -> bytes:
    box = _node('Separator', children=[
        _node('Material', [('diffuseColor', _many_vectors([(1, 0, 0)])),
                           ('transparency', _many('f', [0.25]))]),
        _node('Translation', [('translation', _floats(1, 0, 0))]),
        _node('Cube', [('width', _floats(0.1)), ('height', _floats(0.2)),
                       ('depth', _floats(0.3))], name='C')])
    cylinder = _node('Separator', children=[
        _node('Translation', [('translation', _floats(0, 5, 0))]),
        _node('Cylinder', [('radius', _floats(0.5)), ('height', _floats(2))])])
    prop = _node('VertexProperty', [
        ('vertex', _many_vectors([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)])),
        ('orderedRGBA', _many('I', [0x00ff00ff]))])
    strips = _node('Separator', children=[
        _node('Translation', [('translation', _floats(10, 0, 0))]), prop,
        _node('IndexedTriangleStripSet', [('coordIndex', _many('i', [0, 1, 2, 3, -1]))])])
    again = _node('Separator', children=[
        _node('Translation', [('translation', _floats(0, 0, -3))]),
        _string('USE') + _string('C')])
    return b'#Inventor V2.1 binary\n' + box + cylinder + strips + again


def _summary(parts):
    """Per part: its colour, triangle count, volume and bounds (rounded)."""
    rows = []
    for part in parts:
        low, high = part.mesh.vertices.min(axis=0), part.mesh.vertices.max(axis=0)
        colour = None if part.material is None else tuple(np.round(part.material.rgba, 4))
        rows.append((colour, len(part.mesh.faces), round(geo.mesh_volume(part.mesh), 6),
                     tuple(np.round(low, 6)), tuple(np.round(high, 6))))
    return sorted(rows, key=repr)


def test_binary_inventor_reads_as_the_same_scene_in_ascii(tmp_path):
    ascii_path, binary_path = tmp_path / 'scene.iv', tmp_path / 'scene_binary.iv'
    ascii_path.write_text(SCENE_ASCII)
    binary_path.write_bytes(_scene_binary())
    (text_parts, text_messages), (parts, messages) = load(ascii_path), load(binary_path)
    assert messages == text_messages == []
    assert _summary(parts) == _summary(text_parts)
    # What the scene is: the red box (alpha 0.75), the cylinder along y and the box again
    # without a material, the green square.
    (red,) = [p for p in parts if p.material is not None and p.material.rgba[0] == 1.0]
    assert volume([red]) == pytest.approx(0.1 * 0.2 * 0.3)
    np.testing.assert_allclose(red.material.rgba, (1, 0, 0, 0.75), atol=1e-6)
    low, high = bounds([red])
    np.testing.assert_allclose(low, (0.95, -0.1, -0.15), atol=1e-6)
    np.testing.assert_allclose(high, (1.05, 0.1, 0.15), atol=1e-6)
    (plain,) = [p for p in parts if p.material is None]
    low, high = bounds([plain])
    np.testing.assert_allclose(low, (-0.5, -0.1, -3.15), atol=1e-6)
    np.testing.assert_allclose(high, (0.5, 6.0, 0.5), atol=1e-6)  # the cylinder: y 4 to 6
    n = geo.SEGMENTS  # the cylinder is a prism on an n-gon of radius 0.5, 2 m high
    prism = n / 2 * 0.5 ** 2 * math.sin(2 * math.pi / n) * 2.0
    assert volume([plain]) == pytest.approx(prism + 0.1 * 0.2 * 0.3)
    (green,) = [p for p in parts if p.material is not None and p.material.rgba[1] == 1.0]
    assert len(green.mesh.faces) == 2 and geo.mesh_area(green.mesh) == pytest.approx(1.0)
    named, _ = load(binary_path, 'C')
    assert volume(named) == pytest.approx(0.1 * 0.2 * 0.3)


@pytest.mark.parametrize('cut', [30, 61, 100, 200])
def test_truncated_binary_inventor_is_one_line(tmp_path, cut):
    path = tmp_path / 'cut.iv'
    path.write_bytes(_scene_binary()[:cut])
    with pytest.raises(ModelError) as err:
        load_mesh_file(path)
    assert str(err.value).startswith(f'{path}: binary Inventor at byte ')
    assert '\n' not in str(err.value)


def test_binary_inventor_that_cannot_be_read_says_why(tmp_path):
    path = tmp_path / 'odd.iv'
    path.write_bytes(b'#Inventor V2.1 binary\n' + _node('Separator', children=[
        _node('NurbsSurface', [('numUControlPoints', _floats(4))])]))
    with pytest.raises(UnsupportedError, match="binary Inventor node 'NurbsSurface' is not "
                                               'supported'):
        load_mesh_file(path)
    path.write_bytes(b'#Inventor V2.1 binary\n' + _node('Cube', [('colour', _floats(1))]))
    with pytest.raises(UnsupportedError, match='binary Inventor Cube.colour is not a known '
                                               'field'):
        load_mesh_file(path)
    path.write_bytes(b'#Inventor V2.1 binary\n' + _string('USE') + _string('X'))
    with pytest.raises(ModelError, match='USE X: no node was DEFined with that name'):
        load_mesh_file(path)
    path.write_bytes(b'#Inventor V2.0 binary\n' + _node('Cube'))
    with pytest.raises(UnsupportedError, match='only Inventor V2.1 binary files are supported'):
        load_mesh_file(path)
    lying = _node('Coordinate3', [('point', struct.pack('>I', 10 ** 9))])
    path.write_bytes(b'#Inventor V2.1 binary\n' + lying)
    with pytest.raises(ModelError, match='Coordinate3.point states 1000000000 values, more '
                                         'than the file holds'):
        load_mesh_file(path)


# --- Inventor shapes -------------------------------------------------------------------------


def test_inventor_cone_sphere_strips_and_quad_mesh(tmp_path):
    path = tmp_path / 'shapes.iv'
    path.write_text('''#Inventor V2.1 ascii
Separator { Cone { bottomRadius 1 height 3 } }
Separator { Translation { translation 10 0 0 } Sphere { radius 2 } }
Separator { Translation { translation 20 0 0 }
  Coordinate3 { point [ 0 0 0, 1 0 0, 0 1 0, 1 1 0, 0 2 0, 1 2 0 ] }
  TriangleStripSet { numVertices [ 6 ] } }
Separator { Translation { translation 30 0 0 }
  Coordinate3 { point [ 0 0 0, 1 0 0, 2 0 0, 0 1 0, 1 1 0, 2 1 0 ] }
  QuadMesh { verticesPerColumn 2 verticesPerRow 3 } }
Separator { Translation { translation 40 0 0 } Cylinder { parts TOP radius 1 height 1 } }
''')
    parts, messages = load(path)
    assert messages == [f'{path}:10: Cylinder without SIDES is not supported; sides drawn']
    mesh = geo.merge_meshes([p.mesh for p in parts])
    x = mesh.vertices[:, 0]

    def piece(lo, hi):
        keep = np.all((x[mesh.faces] > lo) & (x[mesh.faces] < hi), axis=1)
        return Mesh(mesh.vertices, mesh.faces[keep])
    cone, sphere = piece(-5, 5), piece(5, 15)
    assert geo.mesh_volume(cone) == pytest.approx(math.pi * 3 / 3, rel=0.03)
    used = cone.vertices[np.unique(cone.faces)]
    low, high = used.min(axis=0), used.max(axis=0)
    np.testing.assert_allclose([low[1], high[1]], [-1.5, 1.5], atol=1e-9)  # along y
    assert geo.mesh_volume(sphere) == pytest.approx(4 / 3 * math.pi * 8, rel=0.03)
    strips, quads = piece(15, 25), piece(25, 35)
    assert len(strips.faces) == 4 and geo.mesh_area(strips) == pytest.approx(2.0)
    normals = np.cross(*(strips.vertices[strips.faces[:, k]] - strips.vertices[strips.faces[:, 0]]
                         for k in (1, 2)))
    assert np.all(normals[:, 2] > 0)  # alternate triangles turned to one winding
    assert len(quads.faces) == 4 and geo.mesh_area(quads) == pytest.approx(2.0)
    cylinder = piece(35, 45)
    y = cylinder.vertices[cylinder.faces][:, :, 1]  # (triangles, corners)
    assert np.any(np.all(y == 0.5, axis=1)) and not np.any(np.all(y == -0.5, axis=1))  # top only


# --- OBJ with its MTL library ----------------------------------------------------------------


def test_obj_materials_transparency_and_textures_come_from_the_mtl(tmp_path):
    (tmp_path / 'wood.png').write_bytes(b'\x89PNG\r\n\x1a\n')
    (tmp_path / 'parts.mtl').write_text('''# two materials
newmtl red
Kd 1 0 0
d 0.5
newmtl wood
Kd 0.8 0.6 0.4
Tr 0.25
map_Kd wood.png
newmtl glass
Kd 0 0 1
Tr 0.9
d 0.4
''')
    path = tmp_path / 'parts.obj'
    path.write_text('''mtllib parts.mtl
v 0 0 0
v 1 0 0
v 0 1 0
v 1 1 0
o top
usemtl red
f 1 2 3
usemtl wood
f 2 4 3
o bottom
usemtl glass
f 1 3 2
''')
    parts, messages = load(path)
    assert messages == []
    by_name = {p.material.name: p for p in parts}
    assert set(by_name) == {'red', 'wood', 'glass'}
    np.testing.assert_allclose(by_name['red'].material.rgba, (1, 0, 0, 0.5))
    np.testing.assert_allclose(by_name['wood'].material.rgba, (0.8, 0.6, 0.4, 0.75))
    assert by_name['wood'].material.texture == str(tmp_path / 'wood.png')
    np.testing.assert_allclose(by_name['glass'].material.rgba, (0, 0, 1, 0.4))  # d wins over Tr
    top, _ = load(path, 'top')
    assert sorted(p.material.name for p in top) == ['red', 'wood']


def test_obj_material_library_problems_are_warnings_or_one_line(tmp_path):
    path = tmp_path / 'm.obj'
    path.write_text('mtllib none.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl x\nf 1 2 3\n')
    parts, messages = load(path)
    assert len(parts) == 1 and len(parts[0].mesh.faces) == 1
    assert messages and messages[0].startswith(f"{path}:1: material library 'none.mtl': ")
    (tmp_path / 'bad.mtl').write_text('newmtl a\nKd 1 x 0\n')
    path.write_text('mtllib bad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n')
    with pytest.raises(ModelError, match=r"bad\.mtl:2: MTL Kd: '1 x 0' is not a number"):
        load_mesh_file(path)


# --- VRML: named nodes, face colours, textures -----------------------------------------------

VRML_SCENE = '''#VRML V2.0 utf8
DEF Scene Transform { translation 5 0 0 children [
  DEF ARM Transform { translation 1 2 3 rotation 0 0 1 1.5707963267948966 scale 2 1 1
    children Shape { geometry Box { size 1 1 1 } } }
  DEF PAINTED Shape {
    appearance Appearance { texture ImageTexture { url [ "paint.png" ] } }
    geometry IndexedFaceSet {
      coord Coordinate { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0, 2 0 0, 2 1 0 ] }
      coordIndex [ 0 1 2 3 -1, 1 4 5 2 -1 ]
      color Color { color [ 1 0 0, 0 0 1 ] }
      colorPerVertex FALSE colorIndex [ 1 0 ] } }
  Shape { geometry IndexedFaceSet {
      coord Coordinate { point [ 0 0 5, 1 0 5, 0 1 5 ] }
      coordIndex [ 0 1 2 -1 ]
      color Color { color [ 0 1 0, 0 1 0, 0 1 0 ] } } }
] }
'''


def test_vrml_named_node_keeps_its_rotation_and_scale_not_its_translation(tmp_path):
    path = tmp_path / 'scene.wrl'
    path.write_text(VRML_SCENE)
    parts, messages = load(path, 'ARM')
    assert messages == []  # the missing texture is outside the named node
    low, high = bounds(parts)
    # The unit box scaled 2 along x, then turned a quarter about z: 1 x 2 x 1 about the origin.
    np.testing.assert_allclose(low, (-0.5, -1.0, -0.5), atol=1e-9)
    np.testing.assert_allclose(high, (0.5, 1.0, 0.5), atol=1e-9)
    whole, _ = load(path)
    low, high = bounds(whole)
    assert low[0] == pytest.approx(5.0) and high[2] == pytest.approx(5.0)  # the whole scene
    with pytest.raises(ModelError) as err:
        load_mesh_file(path, 'NOPE')
    assert str(err.value) == (f"{path}: no node DEFined as 'NOPE' (DEF names: 'Scene', 'ARM', "
                              "'PAINTED')")


def test_vrml_face_and_vertex_colours_make_parts_and_textures_are_kept(tmp_path):
    (tmp_path / 'paint.png').write_bytes(b'\x89PNG\r\n\x1a\n')
    path = tmp_path / 'scene.wrl'
    path.write_text(VRML_SCENE)
    parts, messages = load(path, 'PAINTED')
    assert messages == []
    by_colour = {p.material.rgba: p for p in parts}
    assert set(by_colour) == {(1.0, 0.0, 0.0, 1.0), (0.0, 0.0, 1.0, 1.0)}  # one per face
    blue, red = by_colour[(0.0, 0.0, 1.0, 1.0)], by_colour[(1.0, 0.0, 0.0, 1.0)]
    assert bounds([blue])[1][0] == pytest.approx(1.0) and bounds([red])[0][0] == pytest.approx(1.0)
    assert {p.material.texture for p in parts} == {str(tmp_path / 'paint.png')}
    whole, _ = load(path)
    assert (0.0, 1.0, 0.0, 1.0) in {p.material.rgba for p in whole if p.material}  # per vertex
    path.write_text(VRML_SCENE.replace('colorIndex [ 1 0 ]', 'colorIndex [ 1 ]'))
    with pytest.raises(ModelError, match=r'scene\.wrl:7: IndexedFaceSet has 2 faces but 1 '
                                         'colours'):
        load_mesh_file(path)
