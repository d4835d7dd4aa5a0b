"""Mesh files in: every real mesh file, analytic shapes, named nodes, broken and hostile files."""

from __future__ import annotations

import math
import re
import struct
import time
import warnings

import numpy as np
import pytest
from conftest import CORPUS, shared_model

from body_bridge import geometry as geo
from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.meshfiles import MESH_EXTENSIONS, MeshFileWarning, _common, load_mesh_file
from body_bridge.model import Mesh

from mesh_files import bounds, load, volume, write

REAL = sorted(p for ext in ('wrl', 'iv', 'stl', 'obj', 'dae')
              for p in CORPUS.rglob(f'*.{ext}'))
# An open surface (its edges are not all shared by two faces): no inside, no volume sign.
OPEN_SURFACES = {'JACO2/parts/BASE_LOWER.stl'}


def one_line_about(err: pytest.ExceptionInfo, path) -> str:
    text = str(err.value)
    assert '\n' not in text
    assert text.startswith(str(path)), text
    return text


# --- the real files ---------------------------------------------------------------------------


@pytest.mark.corpus
def test_the_real_set_is_all_there():
    counts = {ext: sum(1 for p in REAL if p.suffix == f'.{ext}')
              for ext in ('wrl', 'iv', 'stl', 'obj', 'dae')}
    assert counts == {'wrl': 24, 'iv': 21, 'stl': 34, 'obj': 21, 'dae': 7}


@pytest.mark.corpus
@pytest.mark.parametrize('path', REAL, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_real_mesh_file_loads(path):
    parts, messages = load(path)
    assert parts
    names = [p.mesh.name for p in parts]
    assert len(set(names)) == len(names)
    for part in parts:
        mesh = part.mesh
        assert mesh.source == str(path)
        assert mesh.name.startswith(re.sub(r'[^A-Za-z0-9_.-]+', '_', path.stem))
        assert len(mesh.faces) and np.isfinite(mesh.vertices).all()
        assert mesh.faces.min() >= 0 and mesh.faces.max() < len(mesh.vertices)
        if part.material is not None:
            assert all(0.0 <= c <= 1.0 for c in part.material.rgba)
    # Faces wind counter-clockwise seen from outside: a solid has a positive signed volume.
    if not any(str(path).endswith(s) for s in OPEN_SURFACES):
        assert volume(parts) > 0
    # Only the one known quirk of a real file is reported.
    for message in messages:
        assert 'has no node type' in message, message


@pytest.mark.corpus
def test_binary_stl_triangles_are_the_ones_its_header_counts():
    path = shared_model('choreonoid/share/model/JACO2/parts/ARM.stl')
    data = path.read_bytes()
    (count,) = struct.unpack_from('<I', data, 80)
    parts, _ = load(path)
    assert len(parts) == 1 and parts[0].material is None
    assert len(parts[0].mesh.faces) == count == (len(data) - 84) // 50


@pytest.mark.corpus
def test_stl_and_obj_agree_with_trimesh():
    trimesh = pytest.importorskip('trimesh')
    for relative in ('choreonoid/share/model/JACO2/parts/HAND.stl',
                     'choreonoid/share/model/HRP4C/mesh/NECK_P.obj',
                     'choreonoid/share/model/HRP4C/mesh/WAIST.obj'):
        path = shared_model(relative)
        reference = trimesh.load(str(path), force='mesh', process=False)
        parts, _ = load(path)
        assert sum(len(p.mesh.faces) for p in parts) == len(reference.faces)
        assert sum(geo.mesh_area(p.mesh) for p in parts) == pytest.approx(reference.area, rel=1e-9)


@pytest.mark.corpus
def test_dae_triangle_counts_and_materials_are_the_files():
    path = shared_model('choreonoid/share/model/UniversalRobots/UR5/base.dae')
    text = path.read_text()
    stated = sum(int(c) for c in re.findall(r'<triangles material="[^"]+" count="(\d+)"', text))
    parts, _ = load(path)
    assert sum(len(p.mesh.faces) for p in parts) == stated == 1932
    assert [p.material.name for p in parts] == ['Rohr', 'Scheibe']
    # The file's Rohr-effect diffuse colour.
    rohr = re.search(r'<effect id="Rohr-effect">.*?<diffuse>\s*<color[^>]*>([^<]+)<', text, re.DOTALL)
    assert parts[0].material.rgba[:3] == pytest.approx(
        [float(x) for x in rohr.group(1).split()[:3]], abs=1e-6)


@pytest.mark.corpus
def test_obj_materials_and_textures_come_from_the_mtl():
    parts, _ = load(shared_model('choreonoid/share/model/HRP4C/mesh/NECK_P.obj'))
    names = [p.material.name for p in parts]
    assert names == ['MAT1', 'MAT1_000', 'MAT1_001']
    assert parts[0].material.texture is None
    assert parts[1].material.texture.endswith('HRP4C/mesh/eye.png')
    assert parts[1].material.rgba == (0.9, 0.9, 0.9, 1.0)


@pytest.mark.corpus
def test_vrml_face_colours_split_parts_and_textures_are_kept():
    parts, _ = load(shared_model('choreonoid/share/model/AizuSpider/resource/FLIPPER.wrl'))
    colours = sorted(p.material.rgba for p in parts)
    assert colours == [(0.7529, 0.0, 0.0, 1.0), (1.0, 1.0, 0.7529, 1.0)]
    house, _ = load(shared_model('choreonoid/share/model/house/house.wrl'))
    textures = {p.material.texture for p in house if p.material and p.material.texture}
    assert any(t.endswith('house/textures/z.brick.white.png') for t in textures)


@pytest.mark.corpus
def test_binary_inventor_is_read():
    parts, _ = load(shared_model('openrave/src/models/furniture/computer.iv'))
    names = {p.material.name for p in parts if p.material}
    assert {'BLACK_PLASTIC', 'GREEN_NEON', 'CREAM_PAINT,_ALR'} <= names
    green = next(p for p in parts if p.material and p.material.name == 'GREEN_NEON')
    assert green.material.rgba[:3] == pytest.approx((0.043137, 1.0, 0.043137), abs=1e-5)
    low, high = bounds(parts)
    assert (high - low) == pytest.approx([0.481, 0.488, 0.701], abs=2e-3)


@pytest.mark.corpus
def test_inventor_file_nodes_include_other_files():
    objects = 'openrave/src/models/objects/'
    whole, _ = load(shared_model(objects + 'ketchup.iv'))
    body, _ = load(shared_model(objects + 'ketchup_body.iv'))
    top, _ = load(shared_model(objects + 'ketchup_top.iv'))
    assert sum(len(p.mesh.faces) for p in whole) == \
        sum(len(p.mesh.faces) for p in body + top)
    assert volume(whole) == pytest.approx(volume(body) + volume(top), rel=1e-9)
    # The body is turned 90 degrees about Z: its long axis (x, 0..127) becomes y.
    low, high = bounds([p for p in whole if p.material.rgba[:3] == (1.0, 0.0, 0.0)])
    assert (low[1], high[1]) == pytest.approx((0.155, 127.0), abs=1e-3)


# --- named nodes ------------------------------------------------------------------------------


@pytest.mark.corpus
def test_vrml_named_node_is_placed_without_its_translation():
    path = shared_model('choreonoid/share/model/Tank/resource/tank.wrl')
    parts, messages = load(path, 'CRAWLER_L')
    assert [p.mesh.name for p in parts] == ['tank_CRAWLER_L']
    low, high = bounds(parts)
    # A unit-ish crawler mesh scaled by (2.5, 0.5, 0.8) in the file, centred on its frame.
    assert low == pytest.approx(-high, abs=1e-3)
    assert high == pytest.approx([0.343, 0.05, 0.084], abs=1e-3)
    assert not messages  # the untyped DEF lies outside the named node
    whole, _ = load(path)
    assert sum(len(p.mesh.faces) for p in whole) > sum(len(p.mesh.faces) for p in parts)


@pytest.mark.corpus
def test_obj_group_selection():
    path = shared_model('choreonoid/share/model/HRP4C/mesh/NECK_P.obj')
    parts, _ = load(path, 'EYE_R-141-FACES')
    assert [p.material.name for p in parts] == ['MAT1_000']
    assert parts[0].mesh.name == 'NECK_P_EYE_R-141-FACES'


@pytest.mark.corpus
def test_a_missing_node_is_one_line_listing_the_names():
    path = shared_model('choreonoid/share/model/Tank/resource/tank.wrl')
    with pytest.raises(ModelError, match=r"no node DEFined as 'NOPE' \(DEF names: 'Scene'") as err:
        load_mesh_file(path, 'NOPE')
    one_line_about(err, path)
    with pytest.raises(ModelError, match='no COLLADA node'):
        load_mesh_file(shared_model('choreonoid/share/model/UniversalRobots/UR5/base.dae'), 'NOPE')
    with pytest.raises(ModelError, match='no object or group'):
        load_mesh_file(shared_model('choreonoid/share/model/HRP4C/mesh/WAIST.obj'), 'NOPE')


# --- analytic shapes --------------------------------------------------------------------------


def test_vrml_box_in_a_transform(tmp_path):
    path = write(tmp_path, 'box.wrl', '''#VRML V2.0 utf8
DEF T Transform { translation 1 2 3 rotation 0 0 1 1.5707963267948966
  children Shape { appearance Appearance { material Material {
      diffuseColor 0.1 0.2 0.3 transparency 0.25 } }
    geometry Box { size 0.1 0.2 0.3 } } }''')
    parts, _ = load(path)
    assert volume(parts) == pytest.approx(0.006, rel=1e-9)
    low, high = bounds(parts)
    # Turned a quarter about z: x extent 0.2, y extent 0.1.
    assert low == pytest.approx([0.9, 1.95, 2.85]) and high == pytest.approx([1.1, 2.05, 3.15])
    assert parts[0].material.rgba == (0.1, 0.2, 0.3, 0.75)
    named, _ = load(path, 'T')
    low, high = bounds(named)
    assert low == pytest.approx([-0.1, -0.05, -0.15]) and high == pytest.approx([0.1, 0.05, 0.15])


def test_vrml_round_shapes_are_built_along_y(tmp_path):
    path = write(tmp_path, 'round.wrl', '''#VRML V2.0 utf8
Shape { geometry Cylinder { radius 0.5 height 2 } }
Transform { translation 5 0 0 children Shape { geometry Cone { bottomRadius 1 height 3 } } }
Transform { translation 0 5 0 children Shape { geometry Sphere { radius 2 } } }''')
    parts, _ = load(path)
    assert len(parts) == 1 and parts[0].material is None
    mesh = parts[0].mesh
    n = geo.SEGMENTS
    polygon = 0.5 * n * math.sin(2 * math.pi / n)  # area of the unit n-gon
    cylinder = polygon * 0.25 * 2
    cone = polygon * 1.0 * 3 / 3
    assert geo.mesh_volume(mesh) > cylinder + cone
    near = mesh.vertices[np.abs(mesh.vertices[:, 0]) < 1]
    near = near[np.abs(near[:, 1]) < 2]
    assert near[:, 1].min() == pytest.approx(-1.0) and near[:, 1].max() == pytest.approx(1.0)
    cone_v = mesh.vertices[mesh.vertices[:, 0] > 3]
    assert cone_v[:, 1].max() == pytest.approx(1.5)  # apex at +y
    assert cone_v[:, 1].min() == pytest.approx(-1.5)


def test_vrml_indexed_face_set_concave_polygon_and_ccw(tmp_path):
    # An L-shaped prism: 3 unit squares of floor, height 1, volume 3. The caps are
    # concave hexagons; a fan would cover area outside the L.
    floor = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
    points = [(x, y, 0) for x, y in floor] + [(x, y, 1) for x, y in floor]
    faces = [[5, 4, 3, 2, 1, 0], [6, 7, 8, 9, 10, 11]]
    faces += [[i, (i + 1) % 6, (i + 1) % 6 + 6, i + 6] for i in range(6)]

    def prism(ccw: bool) -> str:
        order = faces if ccw else [f[::-1] for f in faces]
        index = ', '.join(' '.join(str(i) for i in f) + ' -1' for f in order)
        coords = ', '.join(' '.join(str(c) for c in p) for p in points)
        return (f'Shape {{ geometry IndexedFaceSet {{ ccw {"TRUE" if ccw else "FALSE"} '
                f'coord Coordinate {{ point [ {coords} ] }} coordIndex [ {index} ] }} }}')

    for ccw in (True, False):
        path = write(tmp_path, f'l_{ccw}.wrl', '#VRML V2.0 utf8\n' + prism(ccw))
        parts, _ = load(path)
        assert volume(parts) == pytest.approx(3.0)
        assert geo.mesh_area(parts[0].mesh) == pytest.approx(2 * 3 + 8)


def test_vrml_def_use_and_switch(tmp_path):
    path = write(tmp_path, 'use.wrl', '''#VRML V2.0 utf8
DEF B Shape { geometry Box { size 1 1 1 } }
Transform { translation 3 0 0 children [ USE B ] }
Switch { whichChoice 1 choice [ Shape { geometry Box { size 5 5 5 } } USE B ] }
PointLight { } Viewpoint { }
IndexedLineSet { coord Coordinate { point [0 0 0, 1 1 1] } coordIndex [0 1] }''')
    parts, messages = load(path)
    assert volume(parts) == pytest.approx(3.0)
    assert not messages


def test_inventor_cube_units_and_transforms(tmp_path):
    path = write(tmp_path, 'cube.iv', '''#Inventor V2.1 ascii
Separator {
  Units { units MILLIMETERS }
  Material { diffuseColor 1 0 0 }
  Translation { translation 1000 0 0 }
  RotationXYZ { axis Z angle 1.5707963267948966 }
  DEF C Cube { width 100 height 200 depth 300 }
}
Separator { Scale { scaleFactor 2 2 2 } Cube { } }''')
    parts, _ = load(path)
    red = [p for p in parts if p.material is not None]
    assert volume(red) == pytest.approx(0.1 * 0.2 * 0.3)
    low, high = bounds(red)
    assert low == pytest.approx([0.9, -0.05, -0.15]) and high == pytest.approx([1.1, 0.05, 0.15])
    plain = [p for p in parts if p.material is None]
    assert volume(plain) == pytest.approx(64.0)
    named, _ = load(path, 'C')
    low, high = bounds(named)
    assert low == pytest.approx([-0.1, -0.05, -0.15]) and high == pytest.approx([0.1, 0.05, 0.15])


def test_inventor_face_sets_and_clockwise_ordering(tmp_path):
    cube = geo.box_mesh((1, 2, 3))
    corners = ', '.join(' '.join(str(c) for c in cube.vertices[i]) for f in cube.faces for i in f)
    for ordering, faces in (('COUNTERCLOCKWISE', cube.faces), ('CLOCKWISE', cube.faces[:, ::-1])):
        index = ', '.join(f'{a}, {b}, {c}, -1' for a, b, c in faces)
        points = ', '.join(' '.join(str(c) for c in v) for v in cube.vertices)
        path = write(tmp_path, f'{ordering}.iv', f'''#Inventor V2.1 ascii
Separator {{ ShapeHints {{ vertexOrdering {ordering} }}
  Coordinate3 {{ point [ {points} ] }} IndexedFaceSet {{ coordIndex [ {index} ] }} }}
Separator {{ Translation {{ translation 10 0 0 }} ShapeHints {{ vertexOrdering {ordering} }}
  Coordinate3 {{ point [ {corners if ordering == 'COUNTERCLOCKWISE' else
  ', '.join(' '.join(str(c) for c in cube.vertices[i]) for f in faces for i in f)} ] }}
  FaceSet {{ numVertices [ {', '.join(['3'] * 12)} ] }} }}''')
        parts, _ = load(path)
        assert volume(parts) == pytest.approx(12.0)


def test_stl_round_trip_binary_and_ascii(tmp_path):
    box = geo.box_mesh((0.1, 0.2, 0.3))
    binary = tmp_path / 'box.stl'
    geo.write_stl(box, binary)
    parts, _ = load(binary)
    assert len(parts[0].mesh.vertices) == 8 and len(parts[0].mesh.faces) == 12
    assert volume(parts) == pytest.approx(0.006, rel=1e-6)
    facets = ''.join(
        'facet normal 0 0 0\n outer loop\n' +
        ''.join(f'  vertex {x:.9g} {y:.9g} {z:.9g}\n' for x, y, z in box.vertices[f]) +
        ' endloop\nendfacet\n' for f in box.faces)
    ascii_path = write(tmp_path, 'box_ascii.stl', f'solid cube\n{facets}endsolid cube\n')
    parts, _ = load(ascii_path)
    assert volume(parts) == pytest.approx(0.006, rel=1e-9)
    assert load(ascii_path, 'cube')[0][0].mesh.name == 'box_ascii_cube'


def test_dae_unit_makes_metres_and_nodes_are_selected(tmp_path):
    box = geo.box_mesh((1000, 2000, 3000))  # millimetres
    floats = ' '.join(f'{c:g}' for c in box.vertices.ravel())
    index = ' '.join(str(i) for i in box.faces.ravel())
    path = write(tmp_path, 'box.dae', f'''<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="millimeter" meter="0.001"/><up_axis>Z_UP</up_axis></asset>
  <library_effects><effect id="red-fx"><profile_COMMON><technique sid="t"><lambert>
    <diffuse><color>1 0 0 1</color></diffuse></lambert></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials><material id="red" name="red"><instance_effect url="#red-fx"/></material>
  </library_materials>
  <library_geometries><geometry id="g"><mesh>
    <source id="p"><float_array id="pa" count="24">{floats}</float_array>
      <technique_common><accessor source="#pa" count="8" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
    <triangles material="m" count="12"><input semantic="VERTEX" source="#v" offset="0"/>
      <p>{index}</p></triangles></mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="s">
    <node id="moved" name="Moved"><translate>5000 0 0</translate>
      <instance_geometry url="#g"><bind_material><technique_common>
        <instance_material symbol="m" target="#red"/></technique_common></bind_material>
      </instance_geometry></node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>''')
    parts, _ = load(path)
    assert volume(parts) == pytest.approx(6.0, rel=1e-6)
    low, high = bounds(parts)
    assert low == pytest.approx([4.5, -1, -1.5]) and high == pytest.approx([5.5, 1, 1.5])
    assert parts[0].material.rgba == (1.0, 0.0, 0.0, 1.0) and parts[0].material.name == 'red'
    for name in ('moved', 'Moved'):
        low, high = bounds(load(path, name)[0])
        assert low == pytest.approx([-0.5, -1, -1.5]) and high == pytest.approx([0.5, 1, 1.5])


def test_gltf_and_glb_written_by_trimesh(tmp_path):
    trimesh = pytest.importorskip('trimesh')
    box = trimesh.creation.box((0.1, 0.2, 0.3))
    box.visual = trimesh.visual.TextureVisuals(material=trimesh.visual.material.PBRMaterial(
        name='green', baseColorFactor=[0, 255, 0, 255]))
    scene = trimesh.Scene()
    scene.add_geometry(box, node_name='part', transform=trimesh.transformations.compose_matrix(
        translate=[1, 2, 3], angles=[0, 0, math.pi / 2]))
    for ext in ('glb', 'gltf'):
        path = tmp_path / f'box.{ext}'
        scene.export(str(path))
        parts, _ = load(path)
        assert volume(parts) == pytest.approx(0.006, rel=1e-6)
        low, high = bounds(parts)
        assert low == pytest.approx([0.9, 1.95, 2.85]) and high == pytest.approx([1.1, 2.05, 3.15])
        assert parts[0].material.rgba == (0.0, 1.0, 0.0, 1.0)
        assert parts[0].material.name == 'green'
        low, high = bounds(load(path, 'part')[0])
        assert low == pytest.approx([-0.1, -0.05, -0.15], abs=1e-6)


# --- broken, lying and hostile files ----------------------------------------------------------


@pytest.mark.corpus
def test_truncated_real_files_fail_with_one_line(tmp_path):
    cases = {
        'choreonoid/share/model/JACO2/parts/ARM.stl': 'states 2476 triangles',
        'choreonoid/share/model/PA10/parts/J1.wrl': r'ends before|not closed',
        'openrave/src/models/WAM/wam1.iv': r'ends before|not closed',
        'openrave/src/models/furniture/computer.iv': r'ends inside|more than the file holds',
        'choreonoid/share/model/UniversalRobots/UR5/wrist3.dae': 'XML',
    }
    for relative, message in cases.items():
        source = shared_model(relative)
        data = source.read_bytes()
        path = write(tmp_path, source.name, data[:len(data) * 2 // 3])
        with pytest.raises(ModelError, match=message) as err:
            load_mesh_file(path)
        one_line_about(err, path)


@pytest.mark.corpus
def test_lying_counts_are_refused_before_allocating(tmp_path):
    stl = write(tmp_path, 'lie.stl', b'\0' * 80 + struct.pack('<I', 2**31) + b'\0' * 100)
    start = time.perf_counter()
    with pytest.raises(ModelError, match='states 2147483648 triangles') as err:
        load_mesh_file(stl)
    one_line_about(err, stl)
    glb_json = (b'{"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],'
                b'"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],'
                b'"accessors":[{"bufferView":0,"componentType":5126,"type":"VEC3",'
                b'"count":1000000000000}],"bufferViews":[{"buffer":0,"byteLength":36}],'
                b'"buffers":[{"byteLength":36}]}')
    glb_json += b' ' * (-len(glb_json) % 4)
    body = struct.pack('<II', len(glb_json), 0x4E4F534A) + glb_json + \
        struct.pack('<II', 36, 0x004E4942) + b'\0' * 36
    glb = write(tmp_path, 'lie.glb', struct.pack('<III', 0x46546C67, 2, 12 + len(body)) + body)
    with pytest.raises(ModelError, match='needs 12000000000000 bytes') as err:
        load_mesh_file(glb)
    one_line_about(err, glb)
    with open(shared_model('openrave/src/models/furniture/computer.iv'), 'rb') as f:
        data = bytearray(f.read())
    at = data.find(b'vertex\0\0') + 8  # the MFVec3f count follows the field name
    data[at:at + 4] = struct.pack('>I', 10**9)
    iv = write(tmp_path, 'lie.iv', bytes(data))
    with pytest.raises(ModelError, match='states 1000000000 values') as err:
        load_mesh_file(iv)
    one_line_about(err, iv)
    assert time.perf_counter() - start < 5.0


def test_broken_text_files_name_the_line(tmp_path):
    obj = write(tmp_path, 'bad.obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 7\n')
    with pytest.raises(ModelError, match=r'bad\.obj:5: OBJ face: vertex 7 does not exist'):
        load_mesh_file(obj)
    wrl = write(tmp_path, 'bad.wrl', '#VRML V2.0 utf8\nShape {\n geometry IndexedFaceSet {\n'
                '  coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0 ] }\n'
                '  coordIndex [ 0 1 x -1 ] } }\n')
    with pytest.raises(ModelError, match=r"bad\.wrl:5: 'x' in a list of numbers"):
        load_mesh_file(wrl)
    wrl = write(tmp_path, 'range.wrl', '#VRML V2.0 utf8\nShape { geometry IndexedFaceSet {\n'
                ' coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0 ] } coordIndex [ 0 1 9 ] } }\n')
    with pytest.raises(ModelError, match=r'range\.wrl:2: IndexedFaceSet coordIndex: index 9'):
        load_mesh_file(wrl)
    stl = write(tmp_path, 'bad.stl', 'solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n'
                'vertex 1 0 nope\n')
    with pytest.raises(ModelError, match=r"bad\.stl:5: ASCII STL: 'nope' is not a number"):
        load_mesh_file(stl)
    use = write(tmp_path, 'use.wrl', '#VRML V2.0 utf8\n\nUSE Nothing\n')
    with pytest.raises(ModelError, match=r'use\.wrl:3: USE Nothing: no node was DEFined'):
        load_mesh_file(use)
    dae = write(tmp_path, 'bad.dae', '<?xml version="1.0"?>\n<COLLADA>\n<asset>\n</COLLADA>\n')
    with pytest.raises(ModelError, match=r'bad\.dae:4: XML'):
        load_mesh_file(dae)


@pytest.mark.corpus
def test_a_file_too_big_fails_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / 'huge.stl'
    with open(path, 'wb') as f:
        f.truncate(_common.MAX_FILE_BYTES + 1)  # sparse: no disk used
    with pytest.raises(ModelError, match='more than the limit') as err:
        load_mesh_file(path)
    one_line_about(err, path)
    monkeypatch.setattr(_common, 'MAX_TRIANGLES', 100)
    with pytest.raises(ModelError, match='more than 100 triangles'):
        load_mesh_file(shared_model('choreonoid/share/model/JACO2/parts/ARM.stl'))


def test_nesting_and_instancing_are_bounded(tmp_path, monkeypatch):
    deep = write(tmp_path, 'deep.wrl', '#VRML V2.0 utf8\n' + 'Group { children [ ' * 5000 +
                 ' ] }' * 5000)
    with pytest.raises(ModelError, match='nested deeper than 100') as err:
        load_mesh_file(deep)
    one_line_about(err, deep)
    # Each level USEs the previous one twice: 2**40 boxes if expanded.
    levels = ['DEF L0 Shape { geometry Box { } }']
    levels += [f'DEF L{i} Group {{ children [ USE L{i - 1} USE L{i - 1} ] }}'
               for i in range(1, 41)]
    bomb = write(tmp_path, 'bomb.wrl', '#VRML V2.0 utf8\n' + '\n'.join(levels))
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 20000)
    start = time.perf_counter()
    with pytest.raises(ModelError, match='more than 20000 scene nodes'):
        load_mesh_file(bomb)
    assert time.perf_counter() - start < 5.0
    self_inline = write(tmp_path, 'loop.wrl', '#VRML V2.0 utf8\nInline { url "loop.wrl" }\n')
    with pytest.raises(ModelError, match=r'loop\.wrl:2: Inline .* includes itself'):
        load_mesh_file(self_inline)


def test_dae_with_a_doctype_is_refused(tmp_path):
    path = write(tmp_path, 'bomb.dae', '<?xml version="1.0"?>\n<!DOCTYPE COLLADA [\n'
                 '<!ENTITY a "aaaaaaaaaa">\n<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n'
                 '<COLLADA version="1.4.1"><asset><contributor><author>&b;</author>'
                 '</contributor></asset></COLLADA>\n')
    with pytest.raises(ModelError, match='DOCTYPE') as err:
        load_mesh_file(path)
    one_line_about(err, path)


def test_unknown_formats_and_missing_files(tmp_path):
    with pytest.raises(UnsupportedError, match=r"mesh format '\.3ds' is not supported"):
        load_mesh_file(tmp_path / 'x.3ds')
    with pytest.raises(ModelError, match='mesh file not found') as err:
        load_mesh_file(tmp_path / 'x.stl')
    one_line_about(err, tmp_path / 'x.stl')
    assert {'.stl', '.obj', '.dae', '.gltf', '.glb', '.wrl', '.iv'} <= set(MESH_EXTENSIONS)
    proto = write(tmp_path, 'p.wrl', '#VRML V2.0 utf8\nPROTO Foo [ ] { Group { } }\n')
    with pytest.raises(UnsupportedError, match=r'p\.wrl:2: PROTO'):
        load_mesh_file(proto)


def test_ignored_nodes_are_reported(tmp_path):
    path = write(tmp_path, 'text.wrl', '#VRML V2.0 utf8\nShape { geometry Box { } }\n'
                 'Shape { geometry Text { string "hello" } }\nFancyNode { }\n')
    parts, messages = load(path)
    assert len(parts) == 1
    assert messages == [f'{path}:3: Text geometry is not supported; skipped',
                        f'{path}:4: FancyNode node is not supported; skipped']
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        load_mesh_file(path)
    assert [str(w.message) for w in caught if w.category is MeshFileWarning] == messages


def test_vrml_inline_elevation_grid_and_untyped_def(tmp_path):
    geo.write_stl(geo.box_mesh((1, 1, 1)), tmp_path / 'cube.stl')
    write(tmp_path, 'inner.wrl', '#VRML V2.0 utf8\nShape { geometry Box { size 2 2 2 } }\n')
    path = write(tmp_path, 'outer.wrl', '''#VRML V2.0 utf8
Transform { translation 10 0 0 children Inline { url "cube.stl" } }
Transform { translation 20 0 0 children Inline { url [ "inner.wrl" ] } }
DEF Transform { translation 30 0 0 children Shape { geometry ElevationGrid {
  xDimension 3 zDimension 2 xSpacing 0.5 zSpacing 2 height [ 0 0 0 1 1 1 ] } } }''')
    parts, messages = load(path)
    assert messages == [(f'{path}:4: "DEF Transform {{" has no node type; read as a Transform '
                         'node (as Choreonoid does)')]
    mesh = parts[0].mesh
    solids = mesh.vertices[:, 0] < 25
    assert volume(parts) == pytest.approx(1 + 8)  # the grid is a surface: no volume
    grid = mesh.faces[~solids[mesh.faces].any(axis=1)]
    sub = Mesh(mesh.vertices, grid)
    # 2 cells of 0.5 x 2 on a slope rising 1 over 2: area = 1 * sqrt(2**2 + 1) in total.
    assert geo.mesh_area(sub) == pytest.approx(math.sqrt(5))
    normals = np.cross(*(mesh.vertices[grid[:, k]] - mesh.vertices[grid[:, 0]] for k in (1, 2)))
    assert (normals[:, 1] > 0).all()  # ccw: the grid faces +y


def test_obj_without_its_material_library_warns(tmp_path):
    path = write(tmp_path, 'm.obj', 'mtllib missing.mtl\nusemtl red\nv 0 0 0\nv 1 0 0\n'
                 'v 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n')
    parts, messages = load(path)
    assert volume(parts) == pytest.approx(1 / 6)
    assert parts[0].material is None
    assert messages == [(f"{path}:1: material library 'missing.mtl': mesh file not found; "
                         'its materials are not used'),
                        f"{path}:2: material 'red' is not defined in a material library"]


@pytest.mark.corpus
def test_dae_unit_must_be_a_positive_number(tmp_path):
    source = shared_model('choreonoid/share/model/UniversalRobots/UR5/wrist3.dae').read_text()
    line = source[:source.index('<unit ')].count('\n') + 1
    for bad in ('0', '-1', 'abc'):
        path = write(tmp_path, 'u.dae', source.replace('meter="1"', f'meter="{bad}"'))
        with pytest.raises(ModelError, match=rf'u\.dae:{line}: <unit meter="{bad}"> must be') as err:
            load_mesh_file(path)
        one_line_about(err, path)
