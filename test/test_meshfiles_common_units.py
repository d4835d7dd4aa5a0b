"""The mesh readers' shared pieces (meshfiles/_common.py): limits, checks, colours, warnings."""

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.meshfiles import _common
from body_bridge.meshfiles._common import (Budget, LineIndex, Parts, Warnings, check_count,
                                           colour, decode_text, rgba, shininess_of_exponent)


def test_the_limits_are_the_documented_ones():
    # docs/bad-input.md: 256 MiB; 20 million vertices and triangles; 100 levels, 2 million
    # node visits, 8 levels of includes
    assert _common.MAX_FILE_BYTES == 256 * 2 ** 20
    assert _common.MAX_VERTICES == _common.MAX_TRIANGLES == 20_000_000
    assert (_common.MAX_DEPTH, _common.MAX_NODE_VISITS, _common.MAX_INCLUDE_DEPTH) == (
        100, 2_000_000, 8)


def test_the_budget_refuses_one_vertex_or_triangle_too_many():
    budget = Budget('m.wrl')
    budget.add(_common.MAX_VERTICES, _common.MAX_TRIANGLES)
    with pytest.raises(ModelError, match=r'^m\.wrl:7: more than 20000000 vertices$'):
        budget.add(1, 0, 7)
    budget = Budget('m.wrl')
    with pytest.raises(ModelError, match=r'^m\.wrl:3: more than 20000000 triangles$'):
        budget.add(3, _common.MAX_TRIANGLES + 1, 3)


def test_binary_data_is_not_text():
    with pytest.raises(ModelError, match=r'^m\.obj: binary data where a text file was expected$'):
        decode_text(b'v 0 0 0\n\x00\x01', 'm.obj')
    assert decode_text('v 0 0 0 # é\n'.encode('latin-1'), 'm.obj') == 'v 0 0 0 # é\n'


def test_line_numbers_in_a_text_with_and_without_non_ascii_characters():
    for text in ('a\nbb\nccc\n', 'äa\nbb\nccc\n'):
        index = LineIndex(text)
        assert [index.line(text.index(c)) for c in 'abc'] == [1, 2, 3]


def test_stated_counts_are_checked():
    check_count('m.ply', 2, 'vertices', 0, 5)
    with pytest.raises(ModelError, match=r'^m\.ply:2: vertices: negative count -1$'):
        check_count('m.ply', 2, 'vertices', -1, 5)
    with pytest.raises(ModelError, match='vertices: the file states 6 but holds at most 5'):
        check_count('m.ply', 2, 'vertices', 6, 5)


def test_texture_coordinates_are_kept_and_must_be_finite():
    parts = Parts('m.obj', None, Budget('m.obj'))
    parts.add([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [0, 1, 2], None, 4, [0, 0, 1, 0, 0, 1])
    (part,) = parts.result()
    np.testing.assert_array_equal(part.mesh.texcoords, [[0, 0], [1, 0], [0, 1]])
    with pytest.raises(ModelError, match=r'^m\.obj:5: texture coordinates: a value is not'):
        parts.add([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [0, 1, 2], None, 5,
                  [0, 0, 1, 0, 0, float('nan')])


def test_colours_are_clipped_rounded_and_grey_when_unreadable():
    assert rgba((2.0, 0.5, -1.0), 0.25) == (1.0, 0.5, 0.0, 0.75)
    assert rgba((1 / 3, 2 / 3, 1 / 7), 1 / 3) == (0.333333, 0.666667, 0.142857, 0.666667)
    assert rgba((float('nan'), 0, 0)) == (0.8, 0.8, 0.8, 1.0)
    assert rgba((0.1, 0.2)) == (0.8, 0.8, 0.8, 1.0)
    assert colour(['-inf', 'nan', 'inf']) == (0.0, 0.0, 1.0)
    assert colour(['0.3333333', '2', '0.1428571', '9']) == (0.333333, 1.0, 0.142857)
    assert colour([0.5, 2 / 3, 0.25]) == (0.5, 0.666667, 0.25)


def test_shininess_is_the_exponent_over_128():
    assert shininess_of_exponent(64) == 0.5
    assert shininess_of_exponent(500) == 1.0
    assert shininess_of_exponent(1) == 0.007812


def test_each_warning_is_said_once():
    said = []
    warn = Warnings(said.append)
    warn('m.dae', 3, 'no unit')
    warn('m.dae', 9, 'no unit')
    warn('m.dae', None, 'another')
    assert said == ['m.dae:3: no unit', 'm.dae: another']
