"""The binary Open Inventor reader on small files written here by the layout the format
documents: header lines, single-value fields of each type, NULL children, nesting limits and
the counts a broken file states (each refused with one line)."""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

from body_bridge.errors import ModelError, UnsupportedError
from body_bridge.meshfiles import load_mesh_file

import mesh_files

HEADER = b'#Inventor V2.1 binary\n'


def text(value: str) -> bytes:
    raw = value.encode('latin-1')
    return struct.pack('>I', len(raw)) + raw + b'\0' * (-len(raw) % 4)


def node(kind: str, fields=(), children=None, word: int | None = None) -> bytes:
    out = text(kind) + struct.pack('>II', 2 if children is not None else 0,
                                   len(fields) if word is None else word)
    for field, value in fields:
        out += text(field) + value + struct.pack('>I', 0)
    if children is not None:
        out += struct.pack('>I', len(children)) + b''.join(children)
    return out


def floats(*values) -> bytes:
    return struct.pack(f'>{len(values)}f', *values)


CUBE = node('Cube', [('width', floats(2.0)), ('height', floats(4.0)), ('depth', floats(6.0))])


def write(tmp_path, data: bytes, header: bytes = HEADER):
    return mesh_files.write(tmp_path, 'b.iv', header + data)


def bounds(path):
    return mesh_files.bounds(load_mesh_file(path))


def refused(path, error, message: str):
    """One line: the file, where (line 1, a byte or nothing) and ``message``."""
    where = r'(:1|: binary Inventor at byte \d+)?'
    assert re.fullmatch(re.escape(str(path)) + where + ': ' + re.escape(message),
                        mesh_files.refusal(path, error))


def test_header_lines(tmp_path):
    refused(write(tmp_path, b'', b'#Inventor V2.1 binary'), ModelError,
            'binary Inventor file without a header line')
    refused(write(tmp_path, CUBE, b'#Inventor V2.0 binary\n'), UnsupportedError,
            "'#Inventor V2.0 binary': only Inventor V2.1 binary files are supported")


def test_single_values_of_each_type(tmp_path):
    quarter = floats(0, 0, 1, np.pi / 2)
    matrix = floats(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 7, 8, 9, 1)  # row vectors: a move
    scene = node('Separator', children=[
        node('Rotation', [('rotation', quarter)]),
        node('MatrixTransform', [('matrix', matrix)]),
        node('Switch', [('whichChild', struct.pack('>i', 1))],
             children=[node('Sphere'), CUBE])])
    low, high = bounds(write(tmp_path, scene))
    # The cube (2 x 4 x 6) moved by (7, 8, 9), then turned a quarter about z.
    np.testing.assert_allclose(low, (-10, 6, 6), atol=1e-5)
    np.testing.assert_allclose(high, (-6, 8, 12), atol=1e-5)


def test_null_children_and_nesting_limits(tmp_path):
    null = text('NULL')
    path = write(tmp_path, CUBE + node('Group', children=[null, null]))  # exactly the bytes left
    np.testing.assert_allclose(bounds(path)[1], (1, 2, 3))

    def nest(levels):
        inner = CUBE
        for _ in range(levels):
            inner = node('Group', children=[inner])
        return inner

    np.testing.assert_allclose(bounds(write(tmp_path, nest(100)))[1], (1, 2, 3))
    refused(write(tmp_path, nest(101)), ModelError, 'nodes nested deeper than 100 levels')


def test_counts_beyond_the_file_and_field_descriptions_are_refused(tmp_path):
    many = len(CUBE) // 8 + 1  # one more than the bytes left could hold (each at least 8)
    group = text('Group') + struct.pack('>III', 2, 0, many) + CUBE
    refused(write(tmp_path, group), ModelError, f'Group states {many} children, more than the '
            'file holds')
    points = text('Coordinate3') + struct.pack('>II', 0, 1) + text('point') + \
        struct.pack('>I', 3) + floats(*range(6)) + struct.pack('>I', 0)
    refused(write(tmp_path, points), ModelError, 'Coordinate3.point states 3 values, more than '
            'the file holds')
    cut = CUBE[:len(CUBE) - 6]  # inside the depth's float (its flags and 2 bytes cut)
    with pytest.raises(ModelError, match=r'b\.iv: binary Inventor at byte \d+: the file ends '
                                         r'inside Cube\.depth '):
        load_mesh_file(write(tmp_path, cut))
    moved = node('Translation', [('translation', floats(1, 2, 3))])
    cut = moved[:len(moved) - 10]  # 6 of the vector's 12 bytes, no flags
    with pytest.raises(ModelError, match=r'b\.iv: binary Inventor at byte \d+: the file ends '
                                         r'inside Translation\.translation '):
        load_mesh_file(write(tmp_path, cut))
    # Cut after the length word of the next node's name: its last 4 bytes.
    refused(write(tmp_path, CUBE + struct.pack('>I', 4)), ModelError,
            'the file ends inside a node name (4 bytes needed, 0 left)')
    refused(write(tmp_path, node('Cube', word=0x100)), UnsupportedError,
            'binary Inventor Cube with field descriptions is not supported')
