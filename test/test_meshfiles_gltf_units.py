"""glTF and GLB files written here, byte by byte: accessors, node transforms, modes, bad files."""

from __future__ import annotations

import base64
import json
import struct

import numpy as np
import pytest

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.meshfiles import _common, load_mesh_file

import mesh_files

TRIANGLE = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], '<f4')


def document(positions=TRIANGLE, indices=None, mode=None, nodes=None, component=5126,
             normalized=False, index_type=5125, material=None, count=None, **extra):
    """A one-mesh glTF document with its buffer as a data: URI."""
    data = np.ascontiguousarray(positions).tobytes()
    accessors = [{'bufferView': 0, 'componentType': component, 'type': 'VEC3',
                  'count': len(positions) if count is None else count}]
    views = [{'buffer': 0, 'byteLength': len(data)}]
    prim = {'attributes': {'POSITION': 0}}
    if normalized:
        accessors[0]['normalized'] = True
    if indices is not None:
        raw = np.asarray(indices, {5121: 'u1', 5123: '<u2', 5125: '<u4'}[index_type]).tobytes()
        pad = (-len(data)) % 4
        views.append({'buffer': 0, 'byteOffset': len(data) + pad, 'byteLength': len(raw)})
        data += b'\0' * pad + raw
        accessors.append({'bufferView': 1, 'componentType': index_type, 'type': 'SCALAR',
                          'count': len(indices)})
        prim['indices'] = 1
    if mode is not None:
        prim['mode'] = mode
    if material is not None:
        prim['material'] = material
    doc = {'asset': {'version': '2.0'}, 'accessors': accessors, 'bufferViews': views,
           'buffers': [{'byteLength': len(data), 'uri': 'data:application/octet-stream;base64,'
                        + base64.b64encode(data).decode()}],
           'meshes': [{'primitives': [prim]}],
           'nodes': nodes if nodes is not None else [{'mesh': 0}]}
    doc.update(extra)
    return doc


def load(tmp_path, doc, node=None, name='m.gltf'):
    data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
    return mesh_files.load(mesh_files.write(tmp_path, name, data), node)


def refused(tmp_path, doc, node=None, kind=ModelError):
    with pytest.raises(kind) as err:
        load(tmp_path, doc, node)
    return str(err.value)


def faces(parts):
    """Each triangle as a tuple of vertex tuples, in its winding."""
    mesh = parts[0].mesh
    return [tuple(tuple(mesh.vertices[i]) for i in face) for face in mesh.faces]


def glb(json_bytes, *chunks, version=2):
    body = b''
    for kind, payload in ((0x4E4F534A, json_bytes),) + chunks:
        payload += b' ' * ((-len(payload)) % 4)
        body += struct.pack('<II', len(payload), kind) + payload
    return b'glTF' + struct.pack('<II', version, 12 + len(body)) + body


@pytest.mark.parametrize('component, dtype, scale', [(5120, 'i1', 127), (5121, 'u1', 255),
                                                     (5122, '<i2', 32767),
                                                     (5123, '<u2', 65535)])
def test_normalized_integer_positions_become_unit_values(tmp_path, component, dtype, scale):
    positions = (TRIANGLE * scale).astype(dtype)
    parts, _ = load(tmp_path, document(positions, component=component, normalized=True))
    assert sorted(map(tuple, parts[0].mesh.vertices)) == sorted(map(tuple, TRIANGLE))
    positions = (TRIANGLE * 3).astype(dtype)  # not normalized: the integers as they are
    parts, _ = load(tmp_path, document(positions, component=component))
    assert parts[0].mesh.vertices.max() == 3.0


@pytest.mark.parametrize('index_type', [5121, 5123, 5125])
def test_indices_of_every_unsigned_type(tmp_path, index_type):
    parts, _ = load(tmp_path, document(indices=[2, 1, 0], index_type=index_type))
    assert faces(parts) == [((0, 1, 0), (1, 0, 0), (0, 0, 0))]


def test_strip_and_fan_keep_one_winding(tmp_path):
    square = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], '<f4')
    parts, _ = load(tmp_path, document(square, mode=5))  # 0 1 2, then 2 1 3 (1 2 3 turned)
    assert faces(parts) == [((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((0, 1, 0), (1, 0, 0), (1, 1, 0))]
    fan = np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0], [1, 2, 0], [0, 1, 0]], '<f4')
    parts, _ = load(tmp_path, document(fan, mode=6))
    assert faces(parts) == [((0, 0, 0), (1, 0, 0), (2, 1, 0)), ((0, 0, 0), (2, 1, 0), (1, 2, 0)),
                            ((0, 0, 0), (1, 2, 0), (0, 1, 0))]


def test_a_strip_of_two_indices_adds_no_triangle(tmp_path):
    doc = document(indices=[0, 1, 2])
    doc['meshes'][0]['primitives'].append({'attributes': {'POSITION': 0}, 'indices': 2,
                                           'mode': 5})
    doc['accessors'].append(dict(doc['accessors'][1], count=2))
    parts, _ = load(tmp_path, doc)
    assert len(parts[0].mesh.faces) == 1


def test_node_transforms_and_a_named_node(tmp_path):
    nodes = [{'name': 'base', 'translation': [0, 0, 5], 'children': [1]},
             {'name': 'part', 'mesh': 0, 'translation': [1, 2, 3],
              'rotation': [0, 0, 0.7071067811865476, 0.7071067811865476], 'scale': [2, 2, 2]}]
    parts, _ = load(tmp_path, document(nodes=nodes))
    assert sorted(map(tuple, np.round(parts[0].mesh.vertices, 9))) == [
        (-1, 2, 8), (1, 2, 8), (1, 4, 8)]
    parts, _ = load(tmp_path, document(nodes=nodes), 'part')  # its rotation, not its place
    assert sorted(map(tuple, np.round(parts[0].mesh.vertices, 9) + 0.0)) == [
        (-2, 0, 0), (0, 0, 0), (0, 2, 0)]
    nodes[1]['scale'] = [-1, 1, 1]  # a mirror keeps the faces' outside
    parts, _ = load(tmp_path, document(nodes=nodes), 'part')
    assert np.cross(*np.diff(faces(parts)[0], axis=0))[2] > 0
    assert 'no glTF node named' in refused(tmp_path, document(nodes=nodes), 'elbow')


def test_shared_material_read_once(tmp_path):
    doc = document(material=0, materials=[{'pbrMetallicRoughness': {
        'baseColorFactor': [1, 0, 0, 0.5], 'baseColorTexture': {'index': 0}},
        'alphaMode': 'BLEND'}], textures=[{'source': 0}], images=[{'uri': 'data:image/png,'}])
    doc['meshes'][0]['primitives'].append(dict(doc['meshes'][0]['primitives'][0]))
    parts, messages = load(tmp_path, doc)
    assert len(messages) == 1 and 'embedded texture' in messages[0]
    assert parts[0].material.rgba == pytest.approx((1, 0, 0, 0.5))


def test_node_visits_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 50)
    nodes = [{'children': [i + 1, i + 1]} for i in range(20)] + [{'mesh': 0}]
    doc = document(nodes=nodes, scenes=[{'nodes': [0]}])
    assert 'scene nodes to expand' in refused(tmp_path, doc)
    assert 'scene nodes to expand' in refused(tmp_path, doc, 'nowhere')


def test_an_accessor_count_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, 'MAX_VERTICES', 5)
    positions = np.zeros((12, 3), '<f4')
    positions[:3] = TRIANGLE
    parts, _ = load(tmp_path, document(positions, indices=[0, 1, 2]))  # 12 <= 3 * 5
    assert len(parts[0].mesh.vertices) == 3
    assert 'accessors[0] count' in refused(tmp_path, document(np.zeros((16, 3), '<f4'),
                                                              indices=[0, 1, 2]))


@pytest.mark.parametrize('change, message', [
    (lambda d: d['nodes'].append({'mesh': 4}), 'meshes[4] does not exist'),
    (lambda d: d['nodes'].append({'mesh': 0, 'matrix': [1e400] + [0] * 15}),
     'a transform is not finite'),
    (lambda d: d['meshes'][0]['primitives'][0].update(mode=7), 'mode 7 is not a glTF mode'),
    (lambda d: d['accessors'][0].update(componentType=9999), 'bad componentType'),
    (lambda d: d['accessors'][0].update(count=-1), 'bad componentType'),
    (lambda d: d['bufferViews'][0].update(byteLength=400), 'lies outside its buffer'),
])
def test_bad_documents_named(tmp_path, change, message):
    doc = document()
    change(doc)
    assert message in refused(tmp_path, doc)


def test_triangles_need_a_multiple_of_three_indices(tmp_path):
    assert 'has 4 indices' in refused(tmp_path, document(indices=[0, 1, 2, 0]))


def test_glb_chunks(tmp_path):
    doc = document()
    data = base64.b64decode(doc['buffers'][0].pop('uri').split(',')[1])
    text = json.dumps(doc).encode()
    path = tmp_path / 'm.glb'
    # a second JSON chunk, an unknown chunk and a second binary chunk are skipped
    path.write_bytes(glb(text, (0x4E4F534A, b'{oops'), (0x12345678, b'junk' * 9),
                         (0x004E4942, data), (0x004E4942, b'\xff' * len(data))))
    assert len(load_mesh_file(path)[0].mesh.faces) == 1
    for raw, kind, message in [
            (glb(text, version=1), UnsupportedError, 'GLB version 1'),
            (glb(text)[:12] + struct.pack('<II', 0, 0x4E4F534A), ModelError, 'glTF JSON'),
            (glb(text)[:8] + struct.pack('<I', 20) + struct.pack('<II', 400, 0x4E4F534A)
             + b'    ', ModelError, 'states 400 bytes')]:
        path.write_bytes(raw[:8] + struct.pack('<I', len(raw)) + raw[12:])
        with pytest.raises(kind, match=message):
            load_mesh_file(path)


# --- the fresh sample's survivors (issue 39) ---------------------------------------------------


def test_a_glb_file_shorter_than_its_header_or_without_json_is_one_line(tmp_path):
    path = tmp_path / 'm.glb'
    for raw, message in [
            (b'glTF' + struct.pack('<I', 2), 'GLB file of 8 bytes is shorter than its header'),
            (b'glTF' + struct.pack('<II', 2, 19) + b'\0' * 7,
             'GLB file of 19 bytes is shorter than its header'),
            (b'glTF' + struct.pack('<IIII', 2, 24, 4, 0x004E4942) + b'\0' * 4,
             'GLB file without a JSON chunk')]:
        path.write_bytes(raw)
        with pytest.raises(ModelError) as err:
            load_mesh_file(path)
        assert str(err.value) == f'{path}: {message}'


def test_a_primitive_that_is_no_object_is_one_line(tmp_path):
    doc = document()
    doc['meshes'][0]['primitives'].append(3)
    assert refused(tmp_path, doc).endswith(': glTF: a mesh primitive is not an object')


def test_a_shrinking_scale_keeps_the_winding(tmp_path):
    # scale 0.5 (determinant 0.125): no mirror, the triangle still faces +z
    parts, _ = load(tmp_path, document(nodes=[{'mesh': 0, 'scale': [0.5, 0.5, 0.5]}]))
    assert np.cross(*np.diff(faces(parts)[0], axis=0))[2] == pytest.approx(0.25)


def test_a_textured_primitive_without_texture_coordinates_keeps_its_texture(tmp_path):
    doc = document(material=0, materials=[{'pbrMetallicRoughness': {
        'baseColorTexture': {'index': 0}}}], textures=[{'source': 0}], images=[{'uri': 't.png'}])
    (part,), _ = load(tmp_path, doc)
    assert part.material.texture == str(tmp_path / 't.png') and part.mesh.texcoords is None


def test_an_accessor_of_the_wrong_type_or_a_value_not_finite_is_one_line(tmp_path):
    doc = document()
    doc['accessors'][0]['type'] = 'VEC2'
    assert refused(tmp_path, doc).endswith(': glTF: accessors[0] is VEC2, 3 components expected')
    bad = TRIANGLE.copy()
    bad[1, 2] = np.nan
    assert refused(tmp_path, document(bad)).endswith(': accessors[0]: a value is not finite')


def test_buffers_without_bytes_or_with_a_data_uri_in_lines(tmp_path):
    doc = document()
    del doc['buffers'][0]['uri']
    assert refused(tmp_path, doc).endswith(
        ': glTF: buffers[0] has no uri and there is no GLB binary chunk')
    doc = document()
    doc['buffers'][0]['uri'] = 'data:application/octet-stream;base64'  # no comma, no data
    assert refused(tmp_path, doc).endswith(': glTF: buffers[0] data URI cannot be decoded')
    doc = document()
    head, data = doc['buffers'][0]['uri'].split(',')
    # base64 broken into lines (as some writers do): the line breaks are not data
    doc['buffers'][0]['uri'] = head + ',' + '\n'.join(data[i:i + 8] for i in range(0, len(data), 8))
    assert len(load(tmp_path, doc)[0][0].mesh.faces) == 1


@pytest.mark.parametrize('mode', [5, 6])
def test_a_strip_or_fan_of_three_indices_is_one_triangle(tmp_path, mode):
    parts, _ = load(tmp_path, document(mode=mode))
    assert faces(parts) == [((0, 0, 0), (1, 0, 0), (0, 1, 0))]


def test_a_long_strip_faces_one_way(tmp_path):
    # six vertices zigzagging along x: four triangles of area 1/2, each facing -z as the
    # first (0 0, 0 1, 1 0) does, every other one turned
    strip = np.array([[k // 2, k % 2, 0] for k in range(6)], '<f4')
    parts, _ = load(tmp_path, document(strip, mode=5))
    assert [np.cross(*np.diff(f, axis=0))[2] for f in faces(parts)] == [-1.0] * 4


def test_json_that_is_not_utf8_or_nested_too_deep_is_one_line(tmp_path):
    assert refused(tmp_path, b'\xff\xfe{"asset": 1}').endswith(
        ': glTF JSON cannot be read: UnicodeDecodeError')
    assert refused(tmp_path, b'[' * 200000 + b']' * 200000).endswith(
        ': glTF JSON cannot be read: RecursionError')


def chain(length):
    """``length`` nodes, each the only child of the one before; the last holds the mesh."""
    return [{'name': f'n{i}', 'children': [i + 1]} for i in range(length - 1)] + [
        {'name': f'n{length - 1}', 'mesh': 0}]


def test_nodes_nest_at_most_one_hundred_levels_and_a_cycle_is_named(tmp_path):
    assert len(load(tmp_path, document(nodes=chain(101)))[0]) == 1  # levels 0 to 100
    assert refused(tmp_path, document(nodes=chain(102))).endswith(
        ': glTF: nodes nested deeper than 100 (or a cycle)')
    # searched for by name: the same bound
    assert len(load(tmp_path, document(nodes=chain(101)), 'n100')[0]) == 1
    assert refused(tmp_path, document(nodes=chain(102)), 'n101').endswith(
        ': glTF: nodes nested deeper than 100')
    cycle = [{'mesh': 0, 'children': [1]}, {'children': [0]}]
    assert refused(tmp_path, document(nodes=cycle, scenes=[{'nodes': [0]}])).endswith(
        ': glTF: nodes nested deeper than 100 (or a cycle)')


def test_indices_that_are_not_whole_numbers_are_one_line(tmp_path):
    doc = document(indices=[0, 1, 2])
    doc['accessors'][1]['componentType'] = 5126  # the same 12 bytes read as floats: tiny
    assert refused(tmp_path, doc).endswith(': glTF: indices are not whole numbers')


def test_an_empty_primitive_draws_nothing_and_looks_up_nothing(tmp_path):
    doc = document(indices=[0, 1, 2])
    doc['accessors'].append(dict(doc['accessors'][0], count=0))  # no positions at all
    doc['accessors'].append(dict(doc['accessors'][1], count=1))  # a fan of one index
    doc['meshes'][0]['primitives'] += [{'attributes': {'POSITION': 2}, 'material': 9},
                                       {'attributes': {'POSITION': 0}, 'indices': 3, 'mode': 6,
                                        'material': 9}]
    parts, messages = load(tmp_path, doc)
    assert messages == [] and len(parts) == 1 and len(parts[0].mesh.faces) == 1


def test_a_buffer_view_without_its_length_and_a_material_without_its_colour(tmp_path):
    doc = document()
    del doc['bufferViews'][0]['byteLength']  # required by glTF
    assert refused(tmp_path, doc).endswith(': glTF: bufferViews[0] lies outside its buffer')
    (part,), _ = load(tmp_path, document(material=0, materials=[{}]))
    assert part.material.rgba == (1.0, 1.0, 1.0, 1.0)  # glTF's default baseColorFactor


def test_a_flattening_scale_keeps_the_winding(tmp_path):
    # scale 1 1 0 (determinant 0): flattened, not mirrored; the triangle lies in z = 0 already
    parts, _ = load(tmp_path, document(nodes=[{'mesh': 0, 'scale': [1, 1, 0]}]))
    assert np.cross(*np.diff(faces(parts)[0], axis=0))[2] == pytest.approx(1.0)


def test_an_accessor_without_a_buffer_view_is_zeros(tmp_path):
    # glTF: an accessor without bufferView reads as zeros (a sparse accessor's base)
    doc = document()
    del doc['accessors'][0]['bufferView']  # three positions at the origin
    parts, _ = load(tmp_path, doc)
    assert [p.mesh.vertices.tolist() for p in parts] == [[[0.0, 0.0, 0.0]] * 3]


def test_an_offset_that_is_not_an_integer_is_one_line(tmp_path):
    doc = document()
    doc['bufferViews'][0]['byteOffset'] = '0'
    assert refused(tmp_path, doc).endswith(": glTF byteOffset must be an integer, found '0'")
