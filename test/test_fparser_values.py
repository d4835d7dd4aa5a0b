"""Function Parser formulas evaluated and written back (body_bridge.fparser.values): the
canonical text keeps the meaning, comparisons and logic are exact at their edges, renaming
and evaluation stay linear in chained definitions, and limits choose or clamp a value."""

from __future__ import annotations

import contextlib
import math
import signal

import pytest

from body_bridge.formula import FormulaError
from body_bridge.fparser import parse_extended, parse_formula
from body_bridge.fparser.values import LIMIT_SLACK


@contextlib.contextmanager
def _deadline(seconds: float):
    """Fails the test when the block takes longer (interrupting it, not waiting for it)."""
    def expired(*_):
        raise TimeoutError(f'took more than {seconds} s')
    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _chain(n: int) -> str:
    """n definitions each the square of the last: copied, the tree would have 2^n nodes."""
    return 'a0 := j; ' + ' '.join(f'a{i} := a{i - 1}*a{i - 1};' for i in range(1, n + 1)) + \
        f' a{n} + a{n - 1}'


def test_chained_definitions_stay_linear_parsed_evaluated_renamed_and_written():
    with _deadline(5.0):        # linear: milliseconds; copied per use: minutes
        formula = parse_extended(_chain(22))
        assert formula.variables == ('j',)
        assert formula.evaluate({'j': 1.0}) == 2.0
        renamed = formula.renamed({'j': 'arm/j'})
        assert renamed.variables == ('arm/j',)
        assert renamed.evaluate({'arm/j': -1.0}) == 2.0      # a0 = -1, every square 1
        text = renamed.text
    assert text.startswith('a0:="arm/j"; a1:=a0*a0; ') and text.endswith('a22+a21')
    assert formula.variables == ('j',)                    # the original is unchanged
    with _deadline(5.0):
        assert parse_extended(text).evaluate({'arm/j': 1.0}) == 2.0


@pytest.mark.parametrize('text, values, expected', [
    ('(1+a)*2%7', {'a': 1.5}, 5.0),          # not 1+a*2%7 = 4
    ('(a+1)%(a+2)', {'a': 5.0}, 6.0),        # not a+1%a+2 = 8
    ('a-(a-1)', {'a': 3.0}, 1.0),             # not a-a-1 = -1
    ('a/(a*2)', {'a': 3.0}, 0.5),             # not a/a*2 = 2
    ('2^(a^2)', {'a': 2.0}, 16.0),            # not (2^a)^2 = 16 either: see the next
    ('(2^a)^3', {'a': 2.0}, 64.0),            # not 2^(a^3) = 256
    ('-(a+1)', {'a': 1.0}, -2.0),             # not -a+1 = 0
    ('-(-a)', {'a': 1.0}, 1.0),
    ('!(a&0)', {'a': 1.0}, 1.0),              # not !a&0 = 0
    ('(a|0)&0', {'a': 1.0}, 0.0),             # not a|0&0 = 1
    ('(a<2)=1', {'a': 1.0}, 1.0),
    ('(-2)^2', {}, 4.0),                      # a negative number keeps its parentheses
    ('2^-a', {'a': 1.0}, 0.5),
    ('(a>0)*(a+1)', {'a': 2.0}, 3.0),
    ('a/(b/c)', {'a': 8.0, 'b': 4.0, 'c': 2.0}, 4.0),        # not a/b/c = 1
    ('a%(b/c)', {'a': 7.0, 'b': 8.0, 'c': 2.0}, 3.0),        # not a%b/c = 3.5
    ('a%(b*c)', {'a': 7.0, 'b': 2.0, 'c': 3.0}, 1.0),        # not a%b*c = 3
    ('a*(b%c)', {'a': 2.0, 'b': 7.0, 'c': 4.0}, 6.0),        # not a*b%c = 2
    ('a-(b%c)', {'a': 2.0, 'b': 7.0, 'c': 4.0}, -1.0),
    ('!(a*b)', {'a': 0.0, 'b': 3.0}, 1.0),                   # not !a*b = 3
    ('!(a/b)', {'a': 0.0, 'b': 3.0}, 1.0),
    ('!(a%b)', {'a': 0.0, 'b': 3.0}, 1.0),
    ('!(a^b)', {'a': 0.0, 'b': 3.0}, 1.0),
    ('(a-b)*c', {'a': 1.0, 'b': 2.0, 'c': 3.0}, -3.0),       # not a-b*c = -5
    ('(a-b)%c', {'a': 9.0, 'b': 2.0, 'c': 4.0}, 3.0),        # not a-b%c = 7
    ('c/(a-b)', {'a': 3.0, 'b': 2.0, 'c': 4.0}, 4.0),        # not c/a-b
    # a comparison as the operand of + (every comparison sits below + and -)
    ('(a>1)+b', {'a': 2.0, 'b': 3.0}, 4.0),                  # not a>1+b = 0
    ('(a<1)+b', {'a': 2.0, 'b': 3.0}, 3.0),                  # not a<1+b = 1
    ('(a>=1)+b', {'a': 2.0, 'b': 3.0}, 4.0),
    ('(a<=1)+b', {'a': 2.0, 'b': 3.0}, 3.0),
    ('(a=2)+b', {'a': 2.0, 'b': 3.0}, 4.0),                  # not a=2+b = 0
    ('(a!=1)+b', {'a': 2.0, 'b': 3.0}, 4.0),                 # not a!=1+b = 1
])
def test_the_canonical_text_means_what_the_formula_means(text, values, expected):
    formula = parse_extended(text)
    assert formula.evaluate(values) == pytest.approx(expected)
    again = parse_extended(formula.text)
    assert again.evaluate(values) == pytest.approx(expected), formula.text
    assert again.text == formula.text


@pytest.mark.parametrize('text, canonical', [
    ('a + b*c', 'a+b*c'),                     # no parentheses it does not need
    ('(a*b) + c', 'a*b+c'),
    ('a - b - c', 'a-b-c'),
    ('(a - b) - c', 'a-b-c'),
    ('a - (b - c)', 'a-(b-c)'),
    ('(1+a)*2%7', '(1.0+a)*2.0%7.0'),
    ('a ^ b ^ c', 'a^b^c'),                   # right-associative
    ('(a ^ b) ^ c', '(a^b)^c'),
    ('-a^2', '-a^2.0'),
    ('-(-a)', '-(-a)'),
    ('!(!a)', '!(!a)'),
    ('2^-a', '2.0^(-a)'),
    ('a + 0', 'a+0.0'),
    ('a + -3', 'a+-3.0'),
    ('a<=b | a>=b & a<b', 'a<=b|a>=b&a<b'),
    ('if(a, sqrt(b), 0)', 'if(a, sqrt(b), 0.0)'),
    ('d := a*2; d + d', 'd:=a*2.0; d+d'),
    ('"e" + e', '"e"+2.718281828459045'),   # a variable named as a constant stays quoted
    ('"sin" * 2 + "if" + "pi"', '"sin"*2.0+"if"+"pi"'),
    ('"polyroots2" + "arm/j1"', '"polyroots2"+"arm/j1"'),
])
def test_the_canonical_text_is_short_and_exact(text, canonical):
    assert parse_extended(text).text == canonical


@pytest.mark.parametrize('text, at_edge, below, above', [
    ('a<=1', 1.0, 1.0, 0.0), ('a<1', 0.0, 1.0, 0.0),
    ('a>=1', 1.0, 0.0, 1.0), ('a>1', 0.0, 0.0, 1.0),
    ('a=1', 1.0, 0.0, 0.0), ('a!=1', 0.0, 1.0, 1.0),
])
def test_comparisons_are_exact_at_their_edge(text, at_edge, below, above):
    formula = parse_extended(text)
    assert formula.evaluate({'a': 1.0}) == at_edge
    assert formula.evaluate({'a': 0.5}) == below
    assert formula.evaluate({'a': 1.5}) == above


@pytest.mark.parametrize('a, b, either, both', [
    (0.0, 0.0, 0.0, 0.0), (2.0, 0.0, 1.0, 0.0), (0.0, -3.0, 1.0, 0.0), (2.0, -3.0, 1.0, 1.0)])
def test_or_and_and_are_logical_on_nonzero(a, b, either, both):
    values = {'a': a, 'b': b}
    assert parse_extended('a|b').evaluate(values) == either
    assert parse_extended('a&b').evaluate(values) == both
    assert parse_extended('!a').evaluate(values) == float(a == 0)


def test_every_operator_computes_its_own_operation():
    values = {'a': 7.0, 'b': 2.0}
    for text, expected in [('a+b', 9.0), ('a-b', 5.0), ('a*b', 14.0), ('a/b', 3.5),
                           ('a%b', 1.0), ('a^b', 49.0), ('-a', -7.0), ('hypot(a-4, b+2)', 5.0),
                           ('if(a-7, 1, 2)', 2.0), ('if(a, 1, 2)', 1.0)]:
        assert parse_extended(text).evaluate(values) == pytest.approx(expected), text


def test_renaming_renames_every_use_and_keeps_the_limits():
    formula = parse_extended('d := a + b; if(d > 1, d, a) * c').with_limits(-1.0, 1.0)
    renamed = formula.renamed({'a': 'x', 'c': 'z'})
    assert set(renamed.variables) == {'x', 'b', 'z'}
    assert renamed.evaluate({'x': 1.0, 'b': 0.5, 'z': 0.5}) == pytest.approx(0.75)
    assert renamed.evaluate({'x': 1.0, 'b': 0.5, 'z': 4.0}) == 1.0   # clamped to the limits
    assert renamed.text == 'd:=x+b; if(d>1.0, d, x)*z'


def test_variables_are_listed_once_in_order_of_first_use():
    assert parse_extended('b := y + x; x*b + y + z%2').variables == ('x', 'y', 'z')


@pytest.mark.parametrize('text, values, lower, upper, expected', [
    ('polyroots2(0, 1, -3)', {}, 0.0, 1.0, 1.0),        # its one root 3, clamped
    ('polyroots2(0, 1, 3)', {}, 0.0, 1.0, 0.0),         # -3, clamped up
    ('a*2 + (a<0)', {'a': 2.0}, -1.0, 1.0, 1.0),        # a single value, clamped
    ('polyroots2(1, -3, 2)', {}, 1.5, 3.0, 2.0),        # of 1 and 2, the one inside
    ('polyroots2(1, -3, 2)', {}, 0.0, 3.0, 1.0),        # both inside: the first
    ('polyroots2(1, -3, 2)', {}, 2.5, 3.0, 2.5),        # none inside: the first, clamped
    ('polyroots2(1, -3, 2)', {}, 1.0 + LIMIT_SLACK / 2, 3.0, 1.0 + LIMIT_SLACK / 2),
    ('polyroots2(1, -3, 2)', {}, 1.0 + LIMIT_SLACK * 2, 3.0, 2.0),
    ('polyroots2(1, -3, 2)', {}, -1.0, 2.0 - LIMIT_SLACK / 2, 1.0),
    ('polyroots2(1, -3, 2)', {}, 1.0 + LIMIT_SLACK * 2, 2.0 - LIMIT_SLACK / 2,
     2.0 - LIMIT_SLACK / 2),                           # 2 within the slack, clamped
    # roots 0 and 0.5: 0 lies exactly LIMIT_SLACK below the lower limit, still inside
    ('polyroots2(1, -0.5, 0)', {}, LIMIT_SLACK, 1.0, LIMIT_SLACK),
])
def test_limits_choose_a_value_or_clamp_it(text, values, lower, upper, expected):
    formula = parse_extended(text).with_limits(lower, upper)
    assert formula.evaluate(values) == pytest.approx(expected, abs=1e-12)


def test_a_joint_without_limits_keeps_the_first_value():
    roots = parse_extended('polyroots2(1, -3, 2)')
    assert roots.with_limits(None, 3.0).evaluate({}) == pytest.approx(1.0)
    assert roots.with_limits(1.5, None).evaluate({}) == pytest.approx(1.0)
    assert parse_extended('a%5').with_limits(None, None).evaluate({'a': 12.0}) == 2.0
    assert roots.polynomial() is None


@pytest.mark.parametrize('text, values, match', [
    ('sqrt(a) + b%1', {'a': -1.0, 'b': 1.0}, 'is undefined at'),
    ('1/(a-a) + b%1', {'a': 1.0, 'b': 1.0}, 'is undefined at'),
    ('exp(a) %2', {'a': 1000.0}, 'is undefined at'),
    ('a % b', {'a': 1.0}, "no value for b in 'a%b'"),
    ('polyroots2(1, 0, a)', {'a': 1.0}, 'has no real value'),
])
def test_values_a_formula_cannot_take_are_one_line_errors(text, values, match):
    with pytest.raises(FormulaError, match=match) as info:
        parse_extended(text).evaluate(values)
    assert '\n' not in str(info.value)


def test_exactly_the_most_values_at_once_are_allowed():
    six = '+'.join(['polyroots2(1, 0, -1)'] * 6)        # 2^6 = 64 combinations
    assert len(parse_extended(six).values({})) == 64
    # 32 combinations, each with two roots: 64 values from one polyroots
    inner = '+'.join(['polyroots2(1, 0, -1)'] * 5)
    assert len(parse_extended(f'polyroots2(1, 0, -(({inner})^2+1))').values({})) == 64
    assert len(parse_extended(f'if(1, {six}, 0)').values({})) == 64
    with pytest.raises(FormulaError, match='more than 64 values'):
        parse_extended(f'polyroots2(1, 0, -(({six})^2+1))').values({})
    with pytest.raises(FormulaError, match='more than 64 values'):
        parse_extended(f'if(polyroots2(1, 0, -1), {six}, 0)').values({})


def test_too_many_combinations_are_refused_before_they_are_computed():
    # 8 x 8 x 8 combinations of polyroots2's coefficients, none with a real root: refused
    # for the work, though no value would come out
    text = ('a := polyroots2(1, 0, -1) + polyroots2(1, 0, -4) + polyroots2(1, 0, -9); '
            'polyroots2(a^2 + 100, a, a^2 + 100)')
    with pytest.raises(FormulaError, match='more than 64 values'):
        parse_extended(text).values({})


def test_if_evaluates_the_branch_each_condition_value_picks():
    formula = parse_extended('if(polyroots2(1, -1, 0), 10, 20)')   # roots 0 and 1
    assert formula.values({}) == [20.0, 10.0]
    assert parse_formula('if(a > 0, a, -a)').evaluate({'a': -2.0}) == 2.0
    assert math.isnan(parse_extended('if(1, a, 0) + 0%1').evaluate({'a': math.nan}))


def test_only_formulas_using_function_parser_syntax_leave_the_base_syntax():
    from body_bridge.fparser import looks_extended
    assert not looks_extended('2*j + sin(j) - atan2(j, 1)')
    for text in ('j%2', 'a:=j; a', 'j<1', 'j|1', '!j', 'hypot(j, 1)', 'if (j, 1, 2)',
                 'polyroots3(1, 0, 0, j)'):
        assert looks_extended(text), text
    base = parse_formula('2*j + 1')
    assert base.polynomial() is not None                  # the base syntax's own formula
    assert parse_formula('2*j % 7').polynomial() is None


def test_the_extra_functions_take_their_arguments():
    values = {'x': 0.5}
    for text, expected in [('acosh(x + 1.5)', math.acosh(2.0)), ('asinh(x)', math.asinh(0.5)),
                           ('atanh(x)', math.atanh(0.5)), ('trunc(x + 2)', 2.0),
                           ('cbrt(x * 54)', 3.0), ('SASS(3, pi/3, 4)', math.sqrt(13.0)),
                           ('SASA(3, pi/3, 4)', math.atan2(3 * math.sin(math.pi / 3),
                                                           4 - 3 * math.cos(math.pi / 3))),
                           ('int(x + 1)', 2.0), ('exp2(x * 2)', 2.0), ('log2(x)', -1.0)]:
        assert parse_extended(text).evaluate(values) == pytest.approx(expected), text


@pytest.mark.parametrize('a, b, c', [(4.0, 5.0, 6.0), (2.0, 3.0, 4.0), (5.0, 3.0, 7.0),
                                     (7.0, 3.0, 5.0), (1.0, 1.0, 1.0)])
def test_sssa_is_the_angle_opposite_its_first_side(a, b, c):
    """SSSA(a, b, c): of a triangle with sides a, b, c, the angle opposite a (the law of
    cosines), acute and obtuse."""
    expected = math.acos((b * b + c * c - a * a) / (2 * b * c))
    assert parse_extended(f'SSSA({a}, {b}, {c})').evaluate({}) == pytest.approx(expected,
                                                                               rel=1e-12)


def test_an_expression_exactly_max_tree_operations_deep_is_read():
    """MAX_TREE (200) operations deep is allowed; one more is refused in one line."""
    formula = parse_extended('x' + '+1' * 200)
    assert formula.evaluate({'x': 0.5}) == 200.5
    with pytest.raises(FormulaError, match='deeper than 200 operations'):
        parse_extended('x' + '+1' * 201)


def test_polyroots_go_from_2_to_8():
    """docs/formats.md: ``polyroots2``..``polyroots8``; polyroots9 is no function."""
    assert parse_extended('polyroots8(1, 0, 0, 0, 0, 0, 0, 0, -1)').values({}) == \
        pytest.approx([-1.0, 1.0])
    with pytest.raises(FormulaError, match="unknown function 'polyroots9'"):
        parse_extended('polyroots9(1, 0, 0, 0, 0, 0, 0, 0, 0, -1)')
