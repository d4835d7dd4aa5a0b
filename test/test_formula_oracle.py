"""Formulas against Python's own arithmetic: every documented function and operator, the
canonical text (it parses back to the same formula), polynomials, and every error path with
its one-line message."""

from __future__ import annotations

import math
import random
import re
import textwrap

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import body_bridge.formula as formula_module
from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formula import FUNCTIONS, FormulaError, mimic_formula, parse_formula
from body_bridge.model import Mimic

#: The documented functions: name -> (Python's own function, a domain to draw points from).
ORACLE = {
    'sin': (math.sin, (-10, 10)), 'cos': (math.cos, (-10, 10)), 'tan': (math.tan, (-1.5, 1.5)),
    'asin': (math.asin, (-1, 1)), 'acos': (math.acos, (-1, 1)), 'atan': (math.atan, (-50, 50)),
    'sinh': (math.sinh, (-5, 5)), 'cosh': (math.cosh, (-5, 5)), 'tanh': (math.tanh, (-5, 5)),
    'exp': (math.exp, (-20, 20)), 'log': (math.log, (1e-3, 1e3)),
    'log10': (math.log10, (1e-3, 1e3)), 'sqrt': (math.sqrt, (0, 100)),
    'abs': (abs, (-10, 10)), 'floor': (math.floor, (-10, 10)), 'ceil': (math.ceil, (-10, 10)),
    'sign': (lambda x: (x > 0) - (x < 0), (-10, 10)),
    'atan2': (math.atan2, (-10, 10)), 'min': (min, (-10, 10)), 'max': (max, (-10, 10)),
    'pow': (math.pow, (0.1, 5)),
}


def test_the_documented_functions_are_the_ones_there_are():
    documented = re.search(r'functions: ``([^`]+)``', formula_module.__doc__).group(1).split()
    assert sorted(documented) == sorted(FUNCTIONS) == sorted(ORACLE)


@pytest.mark.parametrize('name', sorted(ORACLE))
def test_every_function_equals_pythons(name):
    function, (lo, hi) = ORACLE[name]
    arity = FUNCTIONS[name][0]
    args = ', '.join('xy'[:arity])
    formula = parse_formula(f'{name}({args})')
    assert formula.variables == tuple('xy'[:arity])
    rng = random.Random(name)
    for _ in range(20):
        values = {v: rng.uniform(lo, hi) for v in 'xy'[:arity]}
        expected = float(function(*values.values()))
        assert formula.evaluate(values) == expected, (name, values)
    for special in (0.0, 1.0, -1.0, 2.0):  # the edges of sign, floor, ceil, abs, ...
        if lo <= special <= hi:
            values = {v: special for v in 'xy'[:arity]}
            assert formula.evaluate(values) == float(function(*values.values()))


def test_sign_of_zero_is_zero():
    assert [parse_formula('sign(x)').evaluate({'x': x}) for x in (-0.5, 0.0, 1e-300)] == \
        [-1.0, 0.0, 1.0]


@pytest.mark.parametrize('text, python', [
    ('a + b', lambda a, b, c: a + b), ('a - b', lambda a, b, c: a - b),
    ('a * b', lambda a, b, c: a * b), ('a / b', lambda a, b, c: a / b),
    ('a ^ 2', lambda a, b, c: a ** 2), ('-a', lambda a, b, c: -a), ('+a', lambda a, b, c: a),
    ('a - b - c', lambda a, b, c: (a - b) - c), ('a / b / c', lambda a, b, c: (a / b) / c),
    ('a / b * c', lambda a, b, c: (a / b) * c), ('a - b + c', lambda a, b, c: (a - b) + c),
    ('a + b * c', lambda a, b, c: a + b * c), ('(a + b) * c', lambda a, b, c: (a + b) * c),
    ('a / (b * c)', lambda a, b, c: a / (b * c)), ('a - (b - c)', lambda a, b, c: a - (b - c)),
    ('2 ^ 3 ^ 0.5', lambda a, b, c: 2 ** (3 ** 0.5)), ('-a ^ 2', lambda a, b, c: -(a ** 2)),
    ('(-a) ^ 2', lambda a, b, c: (-a) ** 2), ('2 ^ -a', lambda a, b, c: 2 ** -a),
    ('a * -b', lambda a, b, c: a * -b), ('- -a', lambda a, b, c: a),
    ('1.5e-1 * a + .5 + 2. + pi + e', lambda a, b, c: 0.15 * a + 0.5 + 2 + math.pi + math.e),
])
def test_operators_and_precedence_equal_pythons(text, python):
    formula = parse_formula(text)
    again = parse_formula(formula.text)
    rng = random.Random(text)
    for _ in range(10):
        a, b, c = (rng.uniform(0.5, 3.0) * rng.choice((-1, 1)) for _ in range(3))
        values = {'a': a, 'b': b, 'c': c}
        expected = python(a, b, c)
        assert formula.evaluate(values) == pytest.approx(expected, rel=1e-15)
        assert again.evaluate(values) == formula.evaluate(values)


# --- canonical text ----------------------------------------------------------------------


def _expressions():
    """Fully parenthesised expression text, and the same in Python."""
    leaves = st.one_of(
        st.sampled_from(['x', 'y', '"arm/j1"', 'pi', 'e']).map(
            lambda n: (n, {'pi': 'math.pi', 'e': 'math.e'}.get(n, f'v[{n.strip(chr(34))!r}]'))),
        st.floats(0.0, 1e6, allow_nan=False).map(lambda f: (repr(f), repr(f))),
        st.integers(0, 99).map(lambda i: (str(i), str(i))))

    def extend(inner):
        binary = st.tuples(st.sampled_from('+-*/^'), inner, inner).map(
            lambda t: (f'({t[1][0]}{t[0]}{t[2][0]})',
                       f'({t[1][1]}{"**" if t[0] == "^" else t[0]}{t[2][1]})'))
        unary = st.tuples(st.sampled_from('+-'), inner).map(
            lambda t: (f'({t[0]}{t[1][0]})', f'({t[0]}{t[1][1]})'))
        call = st.tuples(st.sampled_from(['sin', 'atan', 'atan2', 'max', 'abs']),
                         inner, inner).map(lambda t: (
                             f'{t[0]}({t[1][0]}, {t[2][0]})' if FUNCTIONS[t[0]][0] == 2
                             else f'{t[0]}({t[1][0]})',
                             f'{_PY[t[0]]}({t[1][1]}, {t[2][1]})' if FUNCTIONS[t[0]][0] == 2
                             else f'{_PY[t[0]]}({t[1][1]})'))
        return st.one_of(binary, unary, call)
    return st.recursive(leaves, extend, max_leaves=12)


_PY = {'sin': 'math.sin', 'atan': 'math.atan', 'atan2': 'math.atan2', 'max': 'max',
       'abs': 'abs'}


# No shrinking: a failure shows the generated example as it is (mutation runs stay short).
@settings(max_examples=300, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow])
@given(_expressions(), st.floats(-3, 3), st.floats(-3, 3))
def test_canonical_text_parses_back_to_the_same_formula(expr, x, y):
    text, python = expr
    formula = parse_formula(text)
    again = parse_formula(formula.text)
    assert again._tree == formula._tree, (text, formula.text)
    assert again.text == formula.text
    values = {'x': x, 'y': y, 'arm/j1': 0.5}
    try:
        expected = eval(python, {'math': math}, {'v': values})  # noqa: S307 (test oracle)
    except (ArithmeticError, ValueError, TypeError):
        with pytest.raises(FormulaError):
            formula.evaluate(values)
        return
    if isinstance(expected, complex):  # a negative number to a fractional power
        with pytest.raises(FormulaError):
            formula.evaluate(values)
        return
    assert formula.evaluate(values) == pytest.approx(expected, rel=1e-12, nan_ok=True)


@pytest.mark.parametrize('text, canonical', [
    ('a/(b*c)', 'a/(b*c)'), ('a/b*c', 'a/b*c'), ('a-(b+c)', 'a-(b+c)'), ('(a-b)+c', 'a-b+c'),
    ('a*(b*c)', 'a*(b*c)'), ('(a^b)^c', '(a^b)^c'), ('a^b^c', 'a^b^c'), ('-(a+b)', '-(a+b)'),
    ('(-a)^2', '(-a)^2.0'), ('-a^2', '-a^2.0'), ('2^(-a)', '2.0^(-a)'), ('a*(-b)', 'a*(-b)'),
    ('(((a)))', 'a'), ('max(a, b)', 'max(a, b)'), ('"sin"+"pi"+"e"', '"sin"+"pi"+"e"'),
    ('"9lives"+"a b"', '"9lives"+"a b"'), ('1e-5', '1e-05'), ('3', '3.0'),
])
def test_canonical_text(text, canonical):
    assert parse_formula(text).text == canonical


def test_negative_numbers_of_linear_mimics_read_back():
    formula = mimic_formula(Mimic('j', multiplier=-2.0, offset=-0.5))
    assert formula.text == 'j*(-2.0)+(-0.5)'
    assert parse_formula(formula.text).evaluate({'j': 1.5}) == formula.evaluate({'j': 1.5}) \
        == -3.5
    assert parse_formula(formula.text).polynomial() == ('j', [-0.5, -2.0])
    power = formula_module.Formula(formula_module._Binary(
        '^', formula_module._Num(-2.0), formula_module._Var('x')))
    assert power.text == '(-2.0)^x'
    assert parse_formula(power.text).evaluate({'x': 2.0}) == 4.0  # (-2)^2, not -(2^2)
    assert formula_module.Formula(formula_module._Num(-1.0)).text == '-1.0'


# --- polynomials ---------------------------------------------------------------------------


@pytest.mark.parametrize('text, expected', [
    ('x', [0.0, 1.0]), ('3', None), ('x*y', None), ('2*x^3 - x + 1', [1.0, -1.0, 0.0, 2.0]),
    ('(x+1)^2', [1.0, 2.0, 1.0]), ('x/4', [0.0, 0.25]), ('-x', [0.0, -1.0]), ('+x', [0.0, 1.0]),
    ('x^0', [1.0]), ('x^8', [0.0] * 8 + [1.0]), ('x^9', None), ('x^4*x^4', [0.0] * 8 + [1.0]),
    ('x^5*x^4', None), ('(x^3)^3', None), ('x^0.5', None), ('x^2.5', None), ('x^-1', None),
    ('x^(1/2)', None), ('x^(4/2)', [0.0, 0.0, 1.0]), ('x^2^2', [0.0] * 4 + [1.0]),
    ('2^x', None), ('x^x', None), ('1/x', None), ('x/x', None), ('sin(x)', None),
    ('sin(1)*x + pow(2, 3)', [8.0, math.sin(1)]), ('2^3*x', [0.0, 8.0]),
    ('(2*x - 2*x)^0.5 + x', [0.0, 1.0]), ('x - x', [0.0]), ('max(x, 1)', None),
    ('x*1e300*1e300', None), ('x^(1e300*1e300)', None), ('0.5*x^2 - 0.2', [-0.2, 0.0, 0.5]),
    ('x/(2 + x - x)', [0.0, 0.5]), ('x^(2 + x - x)', [0.0, 0.0, 1.0]),  # a constant after all
])
def test_polynomials(text, expected):
    poly = parse_formula(text).polynomial()
    if expected is None:
        assert poly is None
    else:
        assert poly == ('x', pytest.approx(expected, rel=1e-15, abs=0))
        assert len(poly[1]) == len(expected)


def test_gradient_is_the_derivative():
    formula = parse_formula('a^3 + a*b - 2*b')
    grad = formula.gradient({'a': 1.5, 'b': -0.5})
    assert grad == {'a': pytest.approx(3 * 1.5 ** 2 - 0.5, abs=1e-7),
                    'b': pytest.approx(1.5 - 2, abs=1e-7)}
    assert parse_formula('x^2').gradient({'x': 3.0}, step=1e-3)['x'] == pytest.approx(6.0)
    # central differences of step 1e-6: exp(k x) gives k sinh(k h) / (k h) = k (1 + (k h)^2 / 6)
    steep = parse_formula('exp(10000*x)').gradient({'x': 0.0})['x']
    assert steep == pytest.approx(1e4 * (1 + 1e-4 / 6), rel=2e-6)


def test_variables_and_renaming():
    formula = parse_formula('b + a*b + sin(c) - "a b"')
    assert formula.variables == ('b', 'a', 'c', 'a b')
    renamed = formula.renamed({'b': 'arm/b', 'c': 'pi'})
    assert renamed.variables == ('arm/b', 'a', 'pi', 'a b')
    assert renamed.text == '"arm/b"+a*"arm/b"+sin("pi")-"a b"'
    assert renamed.evaluate({'arm/b': 2, 'a': 3, 'pi': 0, 'a b': 1}) == 7.0
    assert parse_formula('-x').renamed({'x': 'y'}).text == '-y'
    assert parse_formula('max(x, 2)').renamed({'x': 'y'}).evaluate({'y': 1}) == 2.0
    assert repr(formula) == f'Formula({formula.text!r})'


def test_linear_mimic_formula():
    formula = mimic_formula(Mimic('j1', multiplier=2.0, offset=0.25))
    assert formula.variables == ('j1',)
    assert formula.evaluate({'j1': 3.0}) == 6.25
    assert formula.polynomial() == ('j1', [0.25, 2.0])
    assert mimic_formula(Mimic('j1', expression='j1^2')).polynomial() == ('j1', [0.0, 0.0, 1.0])


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize('text, message', [
    ('', 'the formula is empty'), ('   ', 'the formula is empty'),
    ('x' * 10_001, 'the formula is longer than 10000 characters'),
    ('x $ 2', "unexpected character '$' in 'x $ 2'"),
    ('"', "unexpected character '\"' in '\"'"),
    ('x +', "'x +' ends too early"), ('(x', "'(x' ends too early"),
    ('sin(', "'sin(' ends too early"),
    ('(x, 1)', "expected ')' in '(x, 1)', found ','"),
    ('1 2', "unexpected '2' in '1 2'"), ('x)', "unexpected ')' in 'x)'"),
    (')', "unexpected ')' in ')'"), ('*x', "unexpected '*' in '*x'"),
    ('^2', "unexpected '^' in '^2'"), ('sin()', "unexpected ')' in 'sin()'"),
    ('foo(1)', "unknown function 'foo' in 'foo(1)'"),
    ('pi(1)', "unknown function 'pi' in 'pi(1)'"),
    ('sin(1, 2)', 'sin() takes 1 argument(s), found 2'),
    ('atan2(1)', 'atan2() takes 2 argument(s), found 1'),
    ('1e999 * x', "the number 1e999 is too large in '1e999 * x'"),
])
def test_parse_errors_are_one_line(text, message):
    with pytest.raises(FormulaError) as info:
        parse_formula(text)
    assert str(info.value) == message


def test_the_longest_formula_allowed_is_read():
    longest = 'x' * 9_998 + '+1'  # MAX_TEXT characters, one more is refused (above)
    assert parse_formula(longest).evaluate({'x' * 9_998: 2.0}) == 3.0


@pytest.mark.parametrize('text, values, message', [
    ('x + y', {'x': 1}, "no value for y in 'x+y'"),
    ('a*b', {}, "no value for a, b in 'a*b'"),
    ('sqrt(x)', {'x': -1.0}, "'sqrt(x)' is undefined at {'x': -1.0}: math domain error"),
    ('1/x', {'x': 0.0}, "'1.0/x' is undefined at {'x': 0.0}: float division by zero"),
    ('exp(x)', {'x': 1e3}, "'exp(x)' is undefined at {'x': 1000.0}: math range error"),
    ('x^0.5', {'x': -4.0}, "'x^0.5' is undefined at {'x': -4.0}: math domain error"),
    ('sqrt(-1)', {}, "'sqrt(-1.0)' is undefined at {}: math domain error"),
])
def test_evaluation_errors_are_one_line(text, values, message):
    with pytest.raises(FormulaError) as info:
        parse_formula(text).evaluate(values)
    assert str(info.value) == message


@pytest.mark.parametrize('text, message', [
    ('x + sqrt(-1)', "'x+sqrt(-1.0)' is undefined: math domain error"),
    ('x / 0', "'x/0.0' is undefined: float division by zero"),
    ('log(0) * x', "'log(0.0)*x' is undefined: math domain error"),
])
def test_undefined_constant_parts_are_one_line(text, message):
    with pytest.raises(FormulaError) as info:
        parse_formula(text).polynomial()
    assert str(info.value) == message


def test_an_undefined_mimic_formula_is_a_model_error(tmp_path):
    path = tmp_path / 'bad.kinbody.xml'
    path.write_text(textwrap.dedent("""\
        <KinBody name="k">
          <Body name="a" type="static"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
          <Body name="b"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
          <Body name="c"><Geom type="sphere"><radius>0.1</radius></Geom></Body>
          <Joint name="j" type="hinge"><Body>a</Body><Body>b</Body><axis>0 0 1</axis></Joint>
          <Joint name="m" type="hinge" enable="false" mimic_pos="j + sqrt(-1)"
            ><Body>a</Body><Body>c</Body><axis>0 0 1</axis></Joint>
        </KinBody>
        """))
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value) == (f"{path}:6: joint 'm': mimic formula: 'j+sqrt(-1.0)' is "
                               "undefined: math domain error")
