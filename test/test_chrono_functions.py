"""Chrono functions of time: every kind and ``repeat`` against its closed form."""

import math

import numpy as np
import pytest

from body_bridge import functions
from body_bridge.errors import ModelError
from body_bridge.formats.chrono.node import Context, Node, read_function
from body_bridge.model import Function, FunctionKind, Repeat

TIMES = np.linspace(-1.3, 7.7, 37)


def read(data: dict, degrees: bool = True, version=(10, 0)) -> Function:
    return read_function(Node(data, Context('f.yaml', version, degrees), 'function', 1))


CASES = [
    ({'type': 'CONSTANT', 'value': 0.7}, lambda t: 0.7, lambda t: 0.0),
    ({'type': 'polynomial', 'coefficients': [1.0, -2.0, 0.5, 0.25]},
     lambda t: 1 - 2 * t + 0.5 * t ** 2 + 0.25 * t ** 3, lambda t: -2 + t + 0.75 * t ** 2),
    ({'type': 'Sine', 'amplitude': 2.0, 'frequency': 0.3, 'phase': 45, 'shift': -0.5},
     lambda t: 2 * math.sin(0.6 * math.pi * t + math.pi / 4) - 0.5,
     lambda t: 2 * 0.6 * math.pi * math.cos(0.6 * math.pi * t + math.pi / 4)),
    ({'type': 'RAMP', 'slope': -1.5, 'intercept': 0.25}, lambda t: 0.25 - 1.5 * t,
     lambda t: -1.5),
]


@pytest.mark.parametrize('data, closed, slope', CASES, ids=[c[0]['type'] for c in CASES])
def test_function_values_and_derivatives(data, closed, slope):
    fn = read(data)
    for t in TIMES:
        assert functions.value(fn, t) == pytest.approx(closed(t), abs=1e-12)
        assert functions.derivative(fn, t) == pytest.approx(slope(t), abs=1e-12)


def data_closed(t: float) -> float:
    """The piecewise-linear function through (0, 0), (1, 5), (2, 2.5), constant beyond."""
    if t <= 0:
        return 0.0
    if t <= 1:
        return 5 * t
    if t <= 2:
        return 5 - 2.5 * (t - 1)
    return 2.5


def test_data_interpolates_linearly_and_holds_its_ends():
    fn = read({'type': 'DATA', 'data': [[1.0, 5.0], [0.0, 0.0], [2.0, 2.5]]})  # any order
    for t in TIMES:
        assert functions.value(fn, t) == pytest.approx(data_closed(t), abs=1e-12)
    assert functions.derivative(fn, 0.5) == 5.0
    assert functions.derivative(fn, 1.5) == -2.5
    assert functions.derivative(fn, 3.0) == 0.0 and functions.derivative(fn, -1.0) == 0.0


@pytest.mark.parametrize('start, width, shift', [(0.0, 2.0, 0.0), (0.5, 1.5, 0.25),
                                                 (1.0, 1.0, 3.0)])
def test_repeat_is_a_periodic_slice(start, width, shift):
    fn = read({'type': 'DATA', 'data': [[0, 0], [1, 5], [2, 2.5]],
               'repeat': {'start': start, 'width': width, 'shift': shift}})
    for t in TIMES:
        x = start + math.fmod(t + shift, width)  # C fmod: the sign of t + shift
        assert functions.value(fn, t) == pytest.approx(data_closed(x), abs=1e-12)
    # Periodic where t + shift stays positive.
    assert functions.value(fn, 2.3) == pytest.approx(functions.value(fn, 2.3 + width))


def test_repeat_applies_to_every_kind():
    fn = read({'type': 'RAMP', 'slope': 2.0, 'repeat': {'start': 0, 'width': 1, 'shift': 0}})
    assert [functions.value(fn, t) for t in (0.25, 1.25, 2.75)] == \
        pytest.approx([0.5, 0.5, 1.5])  # a sawtooth
    fn = read({'type': 'SINE', 'amplitude': 1, 'frequency': 1,
               'repeat': {'start': 0, 'width': 0.25, 'shift': 0}})
    assert functions.value(fn, 1.125) == pytest.approx(math.sin(2 * math.pi * 0.125))


def test_sine_phase_follows_the_model_angle_unit_from_10_on():
    def phase(degrees, version):
        return read({'type': 'SINE', 'amplitude': 1, 'frequency': 1, 'phase': 30},
                    degrees, version).params[2]
    assert phase(True, (10, 0)) == pytest.approx(math.radians(30))
    assert phase(False, (10, 0)) == 30.0
    assert phase(True, (9, 0)) == 30.0  # Chrono 9.x read the phase in radians


def test_integral_of_a_speed_profile():
    fn = read({'type': 'DATA', 'data': [[0, 0], [1, 1], [2, 1], [3, 0]],
               'repeat': {'start': 0, 'width': 4, 'shift': 0}})
    assert functions.integral(fn, 0.0, 4.0, steps=400) == pytest.approx(2.0, abs=1e-9)
    assert functions.integral(fn, 0.0, 10.0, steps=1000) == pytest.approx(2 * 2 + 1.5, abs=1e-9)


def test_controller_functions_have_no_value_of_their_own():
    fn = read({'type': 'CONTROLLER'})
    assert fn.kind == FunctionKind.CONTROLLER
    with pytest.raises(ValueError, match='no value of its own'):
        functions.value(fn, 0.0)


@pytest.mark.parametrize('data, message', [
    ({'type': 'SAWTOOTH'}, 'expected one of CONSTANT'),
    ({'type': 'CONSTANT'}, '"value" is missing'),
    ({'type': 'SINE', 'amplitude': 1}, '"frequency" is missing'),
    ({'type': 'DATA', 'data': [[0, 1], [0, 2]]}, 'same x'),
    ({'type': 'DATA', 'data': [[0, 1, 2]]}, 'every row must have 2 numbers'),
    ({'type': 'RAMP', 'slope': 'steep'}, 'must be numbers'),
    ({'type': 'RAMP', 'slope': 1, 'repeat': {'start': 0, 'width': 0, 'shift': 0}},
     '"width" must be positive'),
])
def test_bad_functions_are_refused_with_their_line(data, message):
    with pytest.raises(ModelError, match=message) as err:
        read(data)
    assert str(err.value).startswith('f.yaml:1: ')


def test_unknown_function_keys_are_reported():
    ctx = Context('f.yaml')
    read_function(Node({'type': 'CONSTANT', 'value': 1, 'amplitude': 3}, ctx, 'function', 4))
    assert ctx.warnings == ['f.yaml:4: function: key "amplitude" is not part of the Chrono '
                            'model format; ignored']


def test_model_function_validates_its_points():
    fn = Function('data', (), [[0, 1], [1, 3]], Repeat(0, 1, 0))
    assert fn.points.shape == (2, 2) and not fn.points.flags.writeable
