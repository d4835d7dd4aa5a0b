"""Textures reach the cameras: images drawn by their texture coordinates, the right way up."""

import base64
import json
import math
import textwrap

import cv2
import numpy as np
import pytest
from PIL import Image

from body_bridge.device_overlay import apply_overlay, load_overlay
from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.geometry import face_set_mesh
from body_bridge.sim.simulation import Simulation
from body_bridge.sim.sensing.snapshot import device_view

from conftest import shared_model

VICTIM = 'choreonoid/sample/WRS2018/model/VictimQRC.body'
QR_TEXTURE = 'choreonoid/sample/WRS2018/model/resource/QR-VCenter.png'


def camera_view(model, tmp_path, link, xyz, rpy, fov=0.6, size=320):
    """The colour image of a camera added to ``link`` (looking along its +x, +z up)."""
    overlay = tmp_path / 'camera.yaml'
    overlay.write_text(textwrap.dedent(f"""
        devices:
          look:
            kind: camera
            link: {link}
            xyz: {list(xyz)}
            rpy: {list(rpy)}
            width: {size}
            height: {size}
            field_of_view: {fov}
    """))
    model = apply_overlay(model, load_overlay(overlay, model))
    rgb, _ = device_view(Simulation(model), 'look')
    return rgb


def decode_qr(rgb: np.ndarray) -> str:
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(np.ascontiguousarray(rgb[:, :, ::-1]))
    return text


@pytest.mark.corpus
def test_a_camera_facing_the_victims_plate_reads_its_qr_code(tmp_path):
    expected = decode_qr(np.asarray(Image.open(shared_model(QR_TEXTURE)).convert('RGB')))
    assert expected  # the texture file itself holds a readable code
    model = load_model(shared_model(VICTIM))
    # The plate is a quad at z = 0.011 m of link QR-BASE-C, facing +z: the camera 8 cm in
    # front of it, looking down the link's -z (pitch +90 degrees turns x onto -z).
    rgb = camera_view(model, tmp_path, 'QR-BASE-C', (0.0, 0.0, 0.09), (0.0, np.pi / 2, 0.0))
    assert decode_qr(rgb) == expected


def quad_scene(tmp_path, tex_index='[ 0, 1, 2, 3, -1 ]', texture='quadrants.png'):
    """A 1 m quad facing +x at x = 2 with a four-colour texture (red top left, green top
    right, blue bottom left, white bottom right in the image file)."""
    pixels = np.zeros((64, 64, 3), np.uint8)
    pixels[:32, :32] = (255, 0, 0)
    pixels[:32, 32:] = (0, 255, 0)
    pixels[32:, :32] = (0, 0, 255)
    pixels[32:, 32:] = (255, 255, 255)
    Image.fromarray(pixels).save(tmp_path / 'quadrants.png')
    path = tmp_path / 'quad.body'
    # Seen from the camera at the origin looking along +x: +y is left, +z up.
    path.write_text(textwrap.dedent(f"""
        format: ChoreonoidBody
        format_version: 2.0
        name: quad
        links:
          - name: base
            joint_type: fixed
            mass: 1.0
            inertia: [ 0.1, 0, 0, 0.1, 0, 0.1 ]
            elements:
              - type: Visual
                elements:
                  - type: Shape
                    geometry:
                      type: IndexedFaceSet
                      coordinate: [ 2, 0.5, -0.5,  2, -0.5, -0.5,  2, -0.5, 0.5,  2, 0.5, 0.5 ]
                      coord_index: [ 0, 1, 2, 3, -1 ]
                      tex_coord: [ 0, 0,  1, 0,  1, 1,  0, 1 ]
                      tex_coord_index: {tex_index}
                    appearance:
                      material: {{ diffuse: [ 0.2, 0.2, 0.2 ] }}
                      texture: {{ url: {texture} }}
    """))
    return path


def quadrant_colours(rgb):
    """The dominant channel of each quadrant's centre: top left, top right, bottom left,
    bottom right."""
    h, w, _ = rgb.shape
    samples = [rgb[h * 3 // 8, w * 3 // 8], rgb[h * 3 // 8, w * 5 // 8],
               rgb[h * 5 // 8, w * 3 // 8], rgb[h * 5 // 8, w * 5 // 8]]
    names = []
    for pixel in samples:
        pixel = pixel.astype(int)
        if pixel.min() > 0.6 * pixel.max():
            names.append('white')
        else:
            names.append(('red', 'green', 'blue')[int(np.argmax(pixel))])
    return names


def test_texture_is_drawn_the_right_way_up_and_replaces_the_diffuse_colour(tmp_path):
    model = load_model(quad_scene(tmp_path))
    rgb = camera_view(model, tmp_path, 'base', (0, 0, 0), (0, 0, 0), fov=0.4)
    assert quadrant_colours(rgb) == ['red', 'green', 'blue', 'white']


def test_texture_coordinate_indices_choose_the_corners(tmp_path):
    # Each corner takes the next one's coordinates: the image turns a quarter.
    model = load_model(quad_scene(tmp_path, tex_index='[ 1, 2, 3, 0, -1 ]'))
    rgb = camera_view(model, tmp_path, 'base', (0, 0, 0), (0, 0, 0), fov=0.4)
    assert quadrant_colours(rgb) == ['blue', 'red', 'white', 'green']


@pytest.mark.parametrize('content, message', [
    (b'not an image at all', 'not an image'),
    (None, 'not found'),
])
def test_a_texture_that_cannot_be_drawn_is_dropped_with_one_warning(tmp_path, content,
                                                                      message):
    path = quad_scene(tmp_path, texture='broken.png')
    if content is not None:
        (tmp_path / 'broken.png').write_bytes(content)
    model = load_model(path)
    hits = [w for w in model.warnings if 'broken.png' in w]
    assert hits and message in ' '.join(hits)
    shape = model.link('base').visuals[0]
    assert shape.material.texture is None
    rgb = camera_view(model, tmp_path, 'base', (0, 0, 0), (0, 0, 0), fov=0.4)
    assert len(set(quadrant_colours(rgb))) == 1  # one colour: no texture drawn


def test_an_image_of_too_many_pixels_is_refused_before_decoding(tmp_path, monkeypatch):
    from body_bridge import textures
    monkeypatch.setattr(textures, 'MAX_TEXTURE_PIXELS', 32 * 32)
    model = load_model(quad_scene(tmp_path))
    assert any('64 x 64 pixels' in w for w in model.warnings)
    assert model.link('base').visuals[0].material.texture is None


def test_face_set_with_texture_indices_splits_shared_vertices():
    # Two triangles share an edge but not its texture coordinates.
    mesh = face_set_mesh([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], [[0, 1, 2], [0, 2, 3]],
                         texcoords=[(0, 0), (1, 0), (1, 1), (0, 1), (0.5, 0.5)],
                         tex_polygons=[[0, 1, 2], [4, 2, 3]])
    assert len(mesh.vertices) == 5  # vertex 0 is used with (0, 0) and with (0.5, 0.5)
    corners = mesh.texcoords[mesh.faces]
    np.testing.assert_allclose(corners[1][0], (0.5, 0.5))
    np.testing.assert_allclose(mesh.vertices[mesh.faces[1][0]], (0, 0, 0))
    with pytest.raises(ValueError, match='corner for corner'):
        face_set_mesh([(0, 0, 0), (1, 0, 0), (1, 1, 0)], [[0, 1, 2]], texcoords=[(0, 0)],
                      tex_polygons=[[0, 0]])


# --- textured mesh files: OBJ, VRML, COLLADA -------------------------------------------------

# A 1 m quad facing -x at x = 2 (the camera at the origin looks along +x: +y left, +z up),
# corners from the lower left counter-clockwise as the camera sees them, with the texture
# coordinates of the image's lower left, lower right, upper right and upper left corners.
QUAD = ((2, 0.5, -0.5), (2, -0.5, -0.5), (2, -0.5, 0.5), (2, 0.5, 0.5))
UV = ((0, 0), (1, 0), (1, 1), (0, 1))


def obj_quad(tmp_path):
    (tmp_path / 'quad.mtl').write_text('newmtl picture\nKd 1 1 1\nmap_Kd quadrants.png\n')
    lines = ['mtllib quad.mtl'] + [f'v {x} {y} {z}' for x, y, z in QUAD]
    lines += [f'vt {u} {v}' for u, v in UV] + ['usemtl picture', 'f 1/1 2/2 3/3 4/4']
    (tmp_path / 'quad.obj').write_text('\n'.join(lines) + '\n')
    return 'quad.obj'


def vrml_quad(tmp_path, transform: str = ''):
    """The quad as a VRML Shape; ``transform``: a ``textureTransform`` field of its
    appearance, if any."""
    points = ', '.join(' '.join(str(c) for c in p) for p in QUAD)
    uv = ', '.join(f'{u} {v}' for u, v in UV)
    # The texture coordinates listed from the upper right: texCoordIndex puts them back.
    uv_shifted = ', '.join(f'{u} {v}' for u, v in UV[2:] + UV[:2])
    assert uv_shifted != uv
    (tmp_path / 'quad.wrl').write_text(f"""#VRML V2.0 utf8
Shape {{
  appearance Appearance {{
    material Material {{ }} texture ImageTexture {{ url "quadrants.png" }}
    {transform}
  }}
  geometry IndexedFaceSet {{
    coord Coordinate {{ point [ {points} ] }}
    coordIndex [ 0 1 2 3 -1 ]
    texCoord TextureCoordinate {{ point [ {uv_shifted} ] }}
    texCoordIndex [ 2 3 0 1 -1 ]
  }}
}}
""")
    return 'quad.wrl'


def collada_quad(tmp_path):
    points = ' '.join(str(c) for p in QUAD for c in p)
    uv = ' '.join(str(c) for p in UV for c in p)
    (tmp_path / 'quad.dae').write_text(f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_images><image id="img"><init_from>quadrants.png</init_from></image></library_images>
  <library_effects><effect id="fx"><profile_COMMON>
    <newparam sid="surf"><surface type="2D"><init_from>img</init_from></surface></newparam>
    <newparam sid="samp"><sampler2D><source>surf</source></sampler2D></newparam>
    <technique sid="common"><lambert>
      <diffuse><texture texture="samp" texcoord="UVMap"/></diffuse>
    </lambert></technique>
  </profile_COMMON></effect></library_effects>
  <library_materials><material id="mat"><instance_effect url="#fx"/></material>
  </library_materials>
  <library_geometries><geometry id="quad"><mesh>
    <source id="pos"><float_array id="pos-a" count="12">{points}</float_array>
      <technique_common><accessor source="#pos-a" count="4" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <source id="uv"><float_array id="uv-a" count="8">{uv}</float_array>
      <technique_common><accessor source="#uv-a" count="4" stride="2">
        <param name="S" type="float"/><param name="T" type="float"/>
      </accessor></technique_common></source>
    <vertices id="verts"><input semantic="POSITION" source="#pos"/></vertices>
    <polylist material="m" count="1">
      <input semantic="VERTEX" source="#verts" offset="0"/>
      <input semantic="TEXCOORD" source="#uv" offset="1" set="0"/>
      <vcount>4</vcount><p>0 0 1 1 2 2 3 3</p>
    </polylist>
  </mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="scene"><node id="n">
    <instance_geometry url="#quad"><bind_material><technique_common>
      <instance_material symbol="m" target="#mat"/>
    </technique_common></bind_material></instance_geometry>
  </node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
""")
    return 'quad.dae'


def gltf_quad(tmp_path):
    positions = np.array(QUAD, dtype='<f4')
    uv = np.array(UV, dtype='<f4')
    uv[:, 1] = 1.0 - uv[:, 1]  # glTF's v runs down the image
    indices = np.array([0, 1, 2, 0, 2, 3], dtype='<u2')
    blob = positions.tobytes() + uv.tobytes() + indices.tobytes()
    document = {
        'asset': {'version': '2.0'}, 'scene': 0, 'scenes': [{'nodes': [0]}],
        'nodes': [{'mesh': 0}],
        'meshes': [{'primitives': [{'attributes': {'POSITION': 0, 'TEXCOORD_0': 1},
                                    'indices': 2, 'material': 0}]}],
        'materials': [{'pbrMetallicRoughness': {'baseColorTexture': {'index': 0}}}],
        'textures': [{'source': 0}], 'images': [{'uri': 'quadrants.png'}],
        'buffers': [{'byteLength': len(blob), 'uri': 'data:application/octet-stream;base64,'
                     + base64.b64encode(blob).decode()}],
        'bufferViews': [{'buffer': 0, 'byteOffset': 0, 'byteLength': 48},
                        {'buffer': 0, 'byteOffset': 48, 'byteLength': 32},
                        {'buffer': 0, 'byteOffset': 80, 'byteLength': 12}],
        'accessors': [{'bufferView': 0, 'componentType': 5126, 'count': 4, 'type': 'VEC3'},
                      {'bufferView': 1, 'componentType': 5126, 'count': 4, 'type': 'VEC2'},
                      {'bufferView': 2, 'componentType': 5123, 'count': 6, 'type': 'SCALAR'}],
    }
    (tmp_path / 'quad.gltf').write_text(json.dumps(document))
    return 'quad.gltf'


def resource_body(tmp_path, mesh_file: str):
    """A body whose one link shows the mesh file (beside it) as its visual."""
    path = tmp_path / 'resource.body'
    path.write_text(textwrap.dedent(f"""
        format: ChoreonoidBody
        format_version: 2.0
        name: quad
        links:
          - name: base
            joint_type: fixed
            mass: 1.0
            inertia: [ 0.1, 0, 0, 0.1, 0, 0.1 ]
            elements:
              - type: Visual
                elements: [ {{ type: Resource, uri: {mesh_file} }} ]
    """))
    return load_model(path)


@pytest.mark.parametrize('write', [obj_quad, vrml_quad, collada_quad, gltf_quad])
def test_textured_mesh_files_are_drawn_by_their_texture_coordinates(tmp_path, write):
    quad_scene(tmp_path)  # writes the image
    model = resource_body(tmp_path, write(tmp_path))
    assert model.link('base').visuals[0].material.texture.endswith('quadrants.png')
    rgb = camera_view(model, tmp_path, 'base', (0, 0, 0), (0, 0, 0), fov=0.4)
    assert quadrant_colours(rgb) == ['red', 'green', 'blue', 'white']


def test_a_damaged_image_is_dropped_with_one_warning(tmp_path):
    path = quad_scene(tmp_path)
    good = (tmp_path / 'quadrants.png').read_bytes()
    (tmp_path / 'quadrants.png').write_bytes(good[:len(good) // 2])  # cut short
    model = load_model(path)
    assert any('quadrants.png' in w and 'damaged' in w for w in model.warnings)
    assert model.link('base').visuals[0].material.texture is None


def test_texture_coordinates_that_are_not_numbers_are_refused(tmp_path):
    path = quad_scene(tmp_path)
    path.write_text(path.read_text().replace('tex_coord: [ 0, 0,', 'tex_coord: [ .nan, 0,'))
    with pytest.raises(ModelError, match=r'quad.body:\d+: tex_coord must be finite'):
        load_model(path)


def colour_grid(rgb):
    """The dominant colour (R, G, B or W) at 4 x 4 points of the image, row by row."""
    h, w, _ = rgb.shape
    rows = []
    for fy in (1 / 8, 3 / 8, 5 / 8, 7 / 8):
        row = ''
        for fx in (1 / 8, 3 / 8, 5 / 8, 7 / 8):
            pixel = rgb[int(h * fy), int(w * fx)].astype(int)
            row += 'W' if pixel.min() > 0.6 * pixel.max() else 'RGB'[int(np.argmax(pixel))]
        rows.append(row)
    return rows


def test_a_vrml_texture_transform_tiles_the_texture(tmp_path):
    quad_scene(tmp_path)  # writes the image
    plain = resource_body(tmp_path, vrml_quad(tmp_path))
    rgb = camera_view(plain, tmp_path, 'base', (0, 0, 0), (0, 0, 0), fov=0.5)
    assert colour_grid(rgb) == ['RRGG', 'RRGG', 'BBWW', 'BBWW']
    tiled = resource_body(tmp_path, vrml_quad(
        tmp_path, 'textureTransform TextureTransform { scale 2 2 }'))
    rgb = camera_view(tiled, tmp_path, 'base', (0, 0, 0), (0, 0, 0), fov=0.5)
    assert colour_grid(rgb) == ['RGRG', 'BWBW', 'RGRG', 'BWBW']


def test_texture_transform_follows_vrml97_order():
    """Tc' = -C S R C T Tc: translate, move by the centre, rotate, scale, move back."""
    from body_bridge.meshfiles._scenetext import parse
    from body_bridge.meshfiles._fields import texture_transform
    node = parse('x.wrl', 'TextureTransform { translation 0.1 0.2 center 0.5 0.5 '
                 'rotation 1.5708 scale 2 3 }')[0]
    uv = np.array([[0.0, 0.0], [1.0, 0.5]])
    c, s = math.cos(1.5708), math.sin(1.5708)
    moved = uv + [0.1, 0.2] + [0.5, 0.5]
    expected = np.stack([c * moved[:, 0] - s * moved[:, 1],
                         s * moved[:, 0] + c * moved[:, 1]], axis=1) * [2, 3] - [0.5, 0.5]
    np.testing.assert_allclose(texture_transform('x.wrl', node, uv), expected)
