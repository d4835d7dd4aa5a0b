"""Typed values of Chrono YAML mappings and their one-line errors (formats/chrono/node.py)."""

import numpy as np
import pytest

from body_bridge.errors import ModelError
from body_bridge.formats.chrono.node import Context, Node, read_function
from body_bridge.formats.yamlsource import load_yaml


def node(data, ctx=None):
    return Node(data, ctx or Context('m.yaml'), 'part', 3)


def error(call, *args, **kwargs):
    with pytest.raises(ModelError) as err:
        call(*args, **kwargs)
    text = str(err.value)
    assert text.startswith('m.yaml:3: part') and '\n' not in text
    return text.split(': ', 2)[2]


LOADED = ('name: x\ns: [1]\nc: maybe\nn: x\np: -1\nm: -2\nb: 3\nv: 4\nw: [1, 2]\nz: [0, 0, 0]\n'
          'q: [0, 0, 0, 0]\nr: [1, 2]\nt: 5\nu: [[1, 2]]\nk: {a: 1}\nl:\n  - {a: 1}\n'
          '  -\n    3\ne: [1, x]\nf: .inf\n')


@pytest.mark.parametrize('call, line, message', [
    (lambda n: n.string('s'), 2, '"s" must be a string, found a list'),
    (lambda n: n.choice('c', ('A', 'B')), 3, '"c" is \'maybe\'; expected one of A, B'),
    (lambda n: n.choice('name', ('A', 'B')), 1, '"name" is \'x\'; expected one of A, B'),
    (lambda n: n.number('n'), 4, '"n" must be numbers, found str \'x\''),
    (lambda n: n.number('p', positive=True), 5, '"p" must be positive, found -1'),
    (lambda n: n.number('m', minimum=0), 6, '"m" must be at least 0, found -2'),
    (lambda n: n.boolean('b'), 7, '"b" must be true or false, found int 3'),
    (lambda n: n.vector('v'), 8, '"v" must be a list of numbers, found int 4'),
    (lambda n: n.vector('w'), 9, '"w" must have 3 numbers, found 2'),
    (lambda n: n.direction('z'), 10, '"z" is the zero vector'),
    (lambda n: n.rotation('q'), 11, '"q" is a zero quaternion'),
    (lambda n: n.rotation('r'), 12, '"r" must have 3 numbers (Cardan angles) or 4 (a quaternion '
     'e0, e1, e2, e3), found 2'),
    (lambda n: n.table('t'), 13, '"t" must be a list of rows [[...], ...]'),
    (lambda n: n.table('u', min_rows=2), 14, '"u" needs at least 2 rows, found 1'),
    (lambda n: n.table('u', columns=3), 14, '"u": every row must have 3 numbers, found a row '
     'of 2'),
    (lambda n: n.child('b'), 7, 'part b must be a mapping, found int 3'),
    (lambda n: n.items('b', 'item'), 7, '"b" must be a list, found int 3'),
    (lambda n: n.items('l', 'item'), 19, 'item must be a mapping, found int 3'),
    (lambda n: n.vector('e', size=None), 20, '"e" must be numbers, found str \'x\''),
    (lambda n: n.number('f'), 21, '"f" must be finite, found inf'),
])
def test_an_error_about_a_value_names_the_line_of_its_key(call, line, message):
    part = Node(load_yaml('m.yaml', LOADED), Context('m.yaml'), 'part')
    with pytest.raises(ModelError) as err:
        call(part)
    assert (err.value.line, err.value.message.removeprefix('part: ')) == (line, message)
    assert part.child('k').line == 15 and part.at('l') == 16
    assert part.at('missing') == 1 and part.error('about it').line == 1


def test_keys_must_be_strings():
    assert error(node, {1: 'a'}) == 'key 1 is not a string'


def test_a_string_is_not_a_list_and_a_boolean_is_true_or_false():
    part = node({'name': [1], 'fixed': 'yes', 'ok': True})
    assert error(part.string, 'name') == '"name" must be a string, found a list'
    assert error(part.boolean, 'fixed') == "\"fixed\" must be true or false, found str 'yes'"
    assert part.boolean('ok') is True and part.boolean('missing', default=False) is False


def test_a_number_below_its_minimum_fails():
    part = node({'mass': -0.5, 'zero': 0})
    assert error(part.number, 'mass', minimum=0.0) == '"mass" must be at least 0, found -0.5'
    assert part.number('zero', minimum=0.0) == 0.0


def test_directions_are_normalised_even_when_huge_and_absent_is_none():
    part = node({'axis': [3e300, 4e300, 0]})
    np.testing.assert_allclose(part.direction('axis'), [0.6, 0.8, 0])
    assert part.direction('missing') is None


def test_quaternions_zero_tiny_and_unnormalised():
    ctx = Context('m.yaml')
    part = node({'zero': [0, 0, 0, 0], 'tiny': [1e-12, 0, 0, 0], 'long': [0, 0, 0, 2]}, ctx)
    assert error(part.rotation, 'zero') == '"zero" is a zero quaternion'
    np.testing.assert_allclose(part.rotation('tiny'), np.eye(3))
    np.testing.assert_allclose(part.rotation('long'), np.diag([-1, -1, 1]), atol=1e-15)
    assert ctx.warnings == ['m.yaml:3: part: "tiny" quaternion has length 1e-12; it was '
                            'normalised',
                            'm.yaml:3: part: "long" quaternion has length 2; it was normalised']


def test_tables_absent_short_and_of_rows():
    part = node({'curve': [[0, 1]]})
    assert part.table('missing') is None
    assert error(part.table, 'curve', min_rows=2) == '"curve" needs at least 2 rows, found 1'
    np.testing.assert_array_equal(part.table('curve'), [[0, 1]])


def function(data, ctx=None):
    return read_function(node(data, ctx))


def test_function_errors():
    assert error(function, {'type': 'CONSTANT', 'value': 1, 'repeat': {
        'start': 0, 'width': 0, 'shift': 0}}) == '"width" must be positive, found 0'
    with pytest.raises(ModelError, match='^m.yaml:3: part repeat: "width"'):
        function({'type': 'CONSTANT', 'value': 1, 'repeat': {'start': 0, 'width': -1,
                                                              'shift': 0}})
    assert error(function, {'type': 'CONSTANT', 'value': 1, 'repeat': {
        'start': 0, 'shift': 0}}) == '"width" is missing'
    assert error(function, {'type': 'POLYNOMIAL', 'coefficients': []}) == \
        '"coefficients" is empty'
    assert error(function, {'type': 'DATA'}) == '"data" is missing'


def test_function_warnings_repeat_unknown_key_and_controller():
    ctx = Context('m.yaml')
    fn = function({'type': 'CONSTANT', 'value': 1, 'repeat': {
        'start': 0, 'width': 1, 'shift': 0, 'period': 2}}, ctx)
    assert fn.repeat is not None
    assert ctx.warnings == ['m.yaml:3: part repeat: key "period" is not part of the Chrono '
                            'model format; ignored']
    ctx = Context('m.yaml')
    fn = function({'type': 'CONTROLLER', 'repeat': {'start': 0, 'width': 1, 'shift': 0}}, ctx)
    assert fn.repeat is None and fn.kind.value == 'controller'
    assert ctx.warnings == ['m.yaml:3: part: "repeat" does not apply to a CONTROLLER function; '
                            'ignored']


def test_an_unknown_enum_value_is_unsupported_not_malformed():
    from body_bridge.errors import UnsupportedError
    with pytest.raises(UnsupportedError):
        node({'c': 'maybe'}).choice('c', ('A', 'B'))
    assert node({'c': 'b'}).choice('c', ('A', 'B')) == 'B'  # any letter case


def test_an_empty_table_is_refused():
    assert error(node({'curve': []}).table, 'curve') == '"curve" needs at least 1 rows, found 0'
    assert error(function, {'type': 'DATA', 'data': []}) == \
        '"data" needs at least 1 rows, found 0'


def test_angles_are_in_degrees_unless_the_model_says_radians():
    # the spec: angle_degrees defaults to true
    assert Context('m.yaml').angle_scale == pytest.approx(np.pi / 180)
    assert Context('m.yaml', degrees=False).angle_scale == 1.0
    rot = node({'o': [90, 0, 0]}).rotation('o')  # yaw 90: x onto y
    np.testing.assert_allclose(rot, [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12)


def test_function_parameters_take_the_specs_defaults():
    # SINE phase and shift default to 0, RAMP intercept to 0 (the spec's schema)
    assert function({'type': 'SINE', 'amplitude': 2, 'frequency': 3}).params == (2, 3, 0, 0)
    assert function({'type': 'RAMP', 'slope': 2}).params == (0, 2)
    assert function({'type': 'RAMP', 'slope': 2, 'intercept': 1}).params == (1, 2)
    assert function({'type': 'POLYNOMIAL', 'coefficients': [1, 2, 3]}).params == (1, 2, 3)
    fn = function({'type': 'CONSTANT', 'value': 4, 'repeat': {'start': 1, 'width': 2,
                                                              'shift': 3}})
    assert fn.params == (4,)
    assert (fn.repeat.start, fn.repeat.width, fn.repeat.shift) == (1, 2, 3)


@pytest.mark.parametrize('data, missing', [
    ({'type': 'CONSTANT'}, 'value'), ({'type': 'SINE', 'frequency': 1}, 'amplitude'),
    ({'type': 'SINE', 'amplitude': 1}, 'frequency'), ({'type': 'RAMP'}, 'slope'),
    ({'value': 1}, 'type'),
    ({'type': 'CONSTANT', 'value': 1, 'repeat': {'width': 1, 'shift': 0}}, 'start'),
    ({'type': 'CONSTANT', 'value': 1, 'repeat': {'start': 0, 'width': 1}}, 'shift')])
def test_a_functions_required_parameters_are_required(data, missing):
    assert error(function, data) == f'"{missing}" is missing'
