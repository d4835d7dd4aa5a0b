"""Typed fields of VRML and Inventor nodes (meshfiles/_fields.py): values, errors, transforms."""

import math

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.meshfiles import _fields
from body_bridge.meshfiles._scenetext import Node, Word


def node(**fields):
    return Node('Thing', 4, fields={k: np.asarray(v, dtype=float) if isinstance(v, (list, tuple))
                                    else v for k, v in fields.items()})


def error(call, *args):
    with pytest.raises(ModelError) as err:
        call('m.wrl', *args)
    assert str(err.value).startswith('m.wrl:4: Thing ')
    return str(err.value)[len('m.wrl:4: Thing '):]


def test_arrays_must_be_numbers_and_points_triples():
    assert error(_fields.array, node(point=Word('TRUE')), 'point') == 'point must be numbers'
    assert error(_fields.points, node(point=[1, 2, 3, 4]), 'point') == \
        'point: 4 numbers are not a whole number of triples'
    np.testing.assert_array_equal(_fields.points('m.wrl', node(point=[1, 2, 3, 4, 5, 6]),
                                                 'point'), [[1, 2, 3], [4, 5, 6]])


def test_indices_must_be_whole_finite_and_not_too_large():
    assert error(_fields.indices, node(coordIndex=[0, 1.5]), 'coordIndex') == \
        'coordIndex must be whole numbers'
    assert error(_fields.indices, node(coordIndex=[0, float('inf')]), 'coordIndex') == \
        'coordIndex must be whole numbers'
    assert error(_fields.indices, node(coordIndex=[0, 2.0 ** 54]), 'coordIndex') == \
        'coordIndex: an index is too large'
    big = 2 ** 53
    assert _fields.indices('m.wrl', node(coordIndex=[0, -1, big]), 'coordIndex').tolist() == \
        [0, -1, big]


def test_vectors_have_their_size_and_numbers_are_positive_where_asked():
    assert error(_fields.vector, node(scale=[1, 2]), 'scale', (1, 1, 1), 3) == \
        'scale must be 3 numbers'
    assert error(_fields.vector, node(scale=[1, 2, float('nan')]), 'scale', (1, 1, 1), 3) == \
        'scale must be 3 numbers'
    assert error(_fields.positive, node(radius=[0.0]), 'radius', 1.0) == \
        'radius must be positive, found 0.0'
    assert _fields.positive('m.wrl', node(radius=[1e-9]), 'radius', 1.0) == 1e-9
    assert _fields.positive('m.wrl', node(), 'radius', 2.0) == 2.0


def test_a_rotation_without_angle_or_axis_is_the_identity():
    np.testing.assert_array_equal(_fields.rotation('m.wrl', node(), 'rotation'), np.eye(3))
    np.testing.assert_array_equal(
        _fields.rotation('m.wrl', node(rotation=[0, 0, 0, 1]), 'rotation'), np.eye(3))
    np.testing.assert_array_equal(
        _fields.rotation('m.wrl', node(rotation=[0, 1, 0, 0]), 'rotation'), np.eye(3))
    one = _fields.rotation('m.wrl', node(rotation=[1, 0, 0, 1.0]), 'rotation')  # 1 rad
    np.testing.assert_allclose(one @ [0, 1, 0], [0, math.cos(1), math.sin(1)], atol=1e-12)
    turned = _fields.rotation('m.wrl', node(rotation=[0, 0, 2, math.pi / 2]), 'rotation')
    np.testing.assert_allclose(turned @ [1, 0, 0], [0, 1, 0], atol=1e-12)


def test_a_transform_scales_and_turns_about_its_center():
    m = _fields.transform('m.wrl', node(translation=[1, 0, 0], center=[0, 1, 0],
                                        rotation=[0, 0, 1, math.pi / 2], scale=[2, 1, 1]),
                          'scale')
    # the point (1, 1, 0) is 1 from the center along x: scaled to 2, turned to +y, moved
    np.testing.assert_allclose(m @ [1, 1, 0, 1], [1, 3, 0, 1], atol=1e-12)
    np.testing.assert_allclose(m @ [0, 1, 0, 1], [1, 1, 0, 1], atol=1e-12)  # the center


def test_a_texture_transform_is_minus_c_s_r_c_t():
    uv = np.array([[0.0, 0.0], [1.0, 0.5]])
    np.testing.assert_array_equal(_fields.texture_transform('m.wrl', node(), uv), uv)
    out = _fields.texture_transform('m.wrl', node(translation=[0.25, 0.5], center=[0.5, 0.5],
                                                  scale=[2, 3], rotation=[math.pi / 2]), uv)
    scaled = _fields.texture_transform('m.wrl', node(scale=[2, 3]), uv)  # about (0, 0)
    np.testing.assert_array_equal(scaled, [[0, 0], [2, 1.5]])
    # (0, 0): + T (0.25, 0.5), + C (0.75, 1), turned (-1, 0.75), scaled (-2, 2.25), - C
    np.testing.assert_allclose(out[0], [-2.5, 1.75], atol=1e-12)
    # (1, 0.5): (1.25, 1) + C (1.75, 1.5), turned (-1.5, 1.75), scaled (-3, 5.25), - C
    np.testing.assert_allclose(out[1], [-3.5, 4.75], atol=1e-12)


def test_flags_and_node_lists():
    assert _fields.flag(node(solid=Word('true')), 'solid', False) is True
    assert _fields.flag(node(solid=Word('FALSE')), 'solid', True) is False
    assert _fields.flag(node(), 'solid', True) is True
    child = Node('Shape', 5)
    assert _fields.nodes(Node('Group', 4, fields={'children': [child, Word('x')]}),
                         'children') == [child]
    assert _fields.nodes(node(geometry=child), 'geometry') == [child]
    assert _fields.nodes(node(), 'children') == []
