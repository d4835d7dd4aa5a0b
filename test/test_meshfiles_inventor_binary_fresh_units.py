"""The binary Open Inventor reader (meshfiles/inventor_binary.py) on small files written here:
only flag bit 2 makes a group, empty strings and values, a string's padding cut by the file's
end, the bound on nodes read, the depth of a node held in a field, stray bytes at the end,
messages without a line, texture coordinate pairs, values ending at the file's end."""

from __future__ import annotations

import struct

import numpy as np

from body_bridge.errors import ModelError
from body_bridge.meshfiles import _common

import mesh_files
from test_meshfiles_inventor_binary_units import CUBE, bounds, floats, node, refused, text, write


def test_only_flag_bit_2_makes_a_node_a_group(tmp_path):
    # A Cube whose flags have bit 1 set (not the group bit): it has no child count, and the
    # moved Cube after it is read as the next node. The first is 2 x 2 x 2 (Inventor's default
    # height and depth), the second 2 x 4 x 6 about (5, 0, 0).
    odd = text('Cube') + struct.pack('>II', 1, 1) + text('width') + floats(2.0) + \
        struct.pack('>I', 0)
    move = node('Translation', [('translation', floats(5, 0, 0))])
    moved = node('Separator', children=[move, CUBE])
    low, high = bounds(write(tmp_path, odd + moved))
    np.testing.assert_allclose(low, (-1, -2, -3), atol=1e-6)
    np.testing.assert_allclose(high, (6, 2, 3), atol=1e-6)


def test_empty_strings_and_value_lists_are_read(tmp_path):
    info = node('Info', [('string', text(''))])
    material = node('Material', [('diffuseColor', struct.pack('>I', 0))])  # no colours
    low, high = bounds(write(tmp_path, node('Separator', children=[info, material, CUBE])))
    np.testing.assert_allclose(high, (1, 2, 3), atol=1e-6)


def test_a_string_whose_padding_the_file_cuts_is_refused(tmp_path):
    # 'Group' is 5 bytes: its padding (3 bytes) is missing at the file's end.
    refused(write(tmp_path, CUBE + struct.pack('>I', 5) + b'Group'), ModelError,
            'the file ends inside a node name')


def test_the_number_of_nodes_read_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(_common, 'MAX_NODE_VISITS', 3)
    np.testing.assert_allclose(
        bounds(write(tmp_path, node('Separator', children=[CUBE, CUBE])))[1], (1, 2, 3))
    refused(write(tmp_path, node('Separator', children=[CUBE, CUBE, CUBE])), ModelError,
            'more than 3 nodes')


def shape_with_property() -> bytes:
    """A triangle as a FaceSet holding its VertexProperty node in a field."""
    prop = node('VertexProperty', [('vertex', struct.pack('>I', 3) +
                                    floats(0, 0, 0, 1, 0, 0, 0, 1, 0))])
    return node('FaceSet', [('numVertices', struct.pack('>Ii', 1, 3)),
                            ('vertexProperty', prop)])


def test_a_node_in_a_field_is_one_level_deeper(tmp_path):
    def nest(levels):
        inner = shape_with_property()
        for _ in range(levels):
            inner = node('Group', children=[inner])
        return inner

    # The shape at level 99, its VertexProperty at level 100: read; one level more: refused.
    np.testing.assert_allclose(bounds(write(tmp_path, nest(99)))[1], (1, 1, 0), atol=1e-6)
    refused(write(tmp_path, nest(100)), ModelError, 'nodes nested deeper than 100 levels')


def test_fewer_than_4_stray_bytes_after_the_last_node_are_ignored(tmp_path):
    for tail in (b'\n', b'\r\n', b'end'):
        np.testing.assert_allclose(bounds(write(tmp_path, CUBE + tail))[1], (1, 2, 3))


def test_errors_and_warnings_of_the_scene_name_no_line(tmp_path):
    # A binary file has no lines: what the scene walker says names the file alone.
    path = write(tmp_path, node('FaceSet'))
    assert mesh_files.refusal(path) == f'{path}: FaceSet without coordinates before it'
    top = node('Cylinder', [('parts', text('TOP'))])
    _, said = mesh_files.load(write(tmp_path, top))
    assert said == [f'{tmp_path / "b.iv"}: Cylinder without SIDES is not supported; sides drawn']


def test_two_dimensional_texture_coordinates_are_pairs(tmp_path):
    square = struct.pack('>I', 2) + floats(0, 0, 1, 1)  # two (s, t) pairs
    for kind, field in (('TextureCoordinate2', 'point'), ('VertexProperty', 'texCoord')):
        scene = node('Separator', children=[node(kind, [(field, square)]), CUBE])
        np.testing.assert_allclose(bounds(write(tmp_path, scene))[1], (1, 2, 3))


def test_values_that_end_exactly_at_the_file_end_are_read(tmp_path):
    # The VertexProperty's vertex list is the last value of the file: after it only its own
    # flags and those of the FaceSet's field (8 bytes, less than one more vertex).
    np.testing.assert_allclose(bounds(write(tmp_path, shape_with_property()))[1], (1, 1, 0),
                               atol=1e-6)


def test_a_light_switched_off_is_read_past(tmp_path):
    # SoSFBool: one 32-bit word.
    off = node('DirectionalLight', [('on', struct.pack('>i', 0)), ('intensity', floats(0.5))])
    np.testing.assert_allclose(bounds(write(tmp_path, node('Separator', children=[off, CUBE])))[1],
                               (1, 2, 3))
