"""OpenRAVE's Function Parser syntax in mimic formulas (body_bridge.fparser): definitions,
conditions, comparisons, remainders, the extra functions and OpenRAVE's several-valued
``polyroots``; parsed without eval, bounded, and enforced by the integrator."""

from __future__ import annotations

import math
import textwrap

import pytest

from body_bridge.formats import load_model
from body_bridge.formula import FormulaError
from body_bridge.fparser import parse_formula
from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.simulation import Mode, SimOptions, Simulation


@pytest.mark.parametrize('text, values, expected', [
    ('a:=j*2; b:=a+1; b*b', {'j': 1.0}, 9.0),
    ('if(j>0, j, -j)', {'j': -0.25}, 0.25),
    ('if(j<=0 | j>=1, 5, 7)', {'j': 0.5}, 7.0),
    ('(j=1) + (j!=1)*10 + !(j<2)*100', {'j': 1.0}, 1.0),
    ('7.5 % 2', {}, 1.5),
    ('-7.5 % 2', {}, -1.5),                       # the dividend's sign, as C's fmod
    ('cot(x)*tan(x) + sec(x)*cos(x) + csc(x)*sin(x)', {'x': 0.4}, 3.0),
    ('hypot(3, 4) + cbrt(-8) + log2(8) + exp2(3) + int(2.5) + trunc(-2.7)', {}, 15.0),
    ('SSSA(3, 4, 5)', {}, math.asin(3 / 5)),      # a 3-4-5 triangle's angle opposite 3
    ('SASA(1, pi/2, 1)', {}, math.pi / 4),
    ('SASS(3, pi/2, 4)', {}, 5.0),
    ('-j^2', {'j': 3.0}, -9.0),                   # unary minus below the power
    ('2 - 3 < 0 & 1', {}, 1.0),                   # comparisons below + and -
])
def test_function_parser_formulas_evaluate(text, values, expected):
    formula = parse_formula(text)
    assert formula.evaluate(values) == pytest.approx(expected)
    again = parse_formula(formula.text)              # the canonical text parses back
    assert again.text == formula.text
    assert again.evaluate(values) == pytest.approx(expected)


def test_if_takes_only_the_branch_it_needs():
    assert parse_formula('if(j>0, sqrt(j), 0)').evaluate({'j': -4.0}) == 0.0


def test_polyroots_has_every_real_root_and_the_limits_choose():
    roots = parse_formula('polyroots2(1, -3, 2)')          # x^2 - 3x + 2 = (x-1)(x-2)
    assert roots.values({}) == pytest.approx([1.0, 2.0])
    assert parse_formula('polyroots3(1, -6, 11, -6)').values({}) == pytest.approx([1, 2, 3])
    assert parse_formula('polyroots4(1, 0, 0, 0, 1)').values({}) == []   # no real root
    assert parse_formula('polyroots3(0, 1, -3, 2)').values({}) == pytest.approx([1, 2])
    assert roots.evaluate({}) == pytest.approx(1.0)         # first value without limits
    assert roots.with_limits(1.5, 3.0).evaluate({}) == pytest.approx(2.0)
    assert roots.with_limits(2.5, 3.0).evaluate({}) == pytest.approx(2.5)   # clamped
    shifted = parse_formula('polyroots2(1, 0, -j^2) + 1')   # values combine
    assert shifted.values({'j': 2.0}) == pytest.approx([-1.0, 3.0])
    with pytest.raises(FormulaError, match='no real value'):
        parse_formula('polyroots2(1, 0, 1)').evaluate({})   # none: nothing to follow


@pytest.mark.parametrize('text, match', [
    ('a := j; a +', 'ends too early'),
    ('a := j a', "expected ';'"),
    ('polyroots2(1, 2)', 'polyroots2() takes 3 argument'),
    ('if(j, 1)', 'if() takes 3 argument'),
    ('j <> 1', "unexpected '>'"),
    ('system("x") = 1', "unknown function 'system'"),
    ('a:=1; ' + '(' * 300 + 'j' + ')' * 300 + '+a', 'nests deeper than 50'),
    ('a0:=j; ' + ''.join(f'a{i}:=a{i - 1}+1; ' for i in range(1, 300)) + 'a299',
     'deeper than 200 operations'),
    ('j ; ; 1', "unexpected '1'"),
])
def test_bad_function_parser_formulas_fail_with_one_line(text, match):
    with pytest.raises(FormulaError, match=match.replace('(', r'\(').replace(')', r'\)')) \
            as info:
        parse_formula(text)
    assert '\n' not in str(info.value)


def test_definitions_are_shared_not_copied():
    # 40 definitions each squaring the last: copied, the tree would have 2^40 nodes
    text = 'a0 := j; ' + ' '.join(f'a{i} := a{i - 1}*a{i - 1};' for i in range(1, 41)) + ' a40'
    formula = parse_formula(text)
    assert formula.evaluate({'j': 1.0}) == 1.0
    assert formula.variables == ('j',)
    assert parse_formula(formula.text).evaluate({'j': 1.0}) == 1.0


def test_too_many_values_are_refused():
    text = '+'.join(['polyroots2(1, 0, -1)'] * 7)           # 2^7 = 128 combinations
    with pytest.raises(FormulaError, match='more than 64 values'):
        parse_formula(text).evaluate({})


#: A linkage whose follower angle squared is the driver angle plus 1 (in rad):
#: follower^2 - (drive + 1) = 0 has the roots -sqrt(drive + 1) and +sqrt(drive + 1); the
#: follower's limits (0..1.5 rad) choose the positive one.
LINKAGE = """
    <Robot name="linkage"><KinBody>
      <Body name="base" type="static"><Geom type="box"><extents>0.05 0.05 0.05</extents></Geom>
      </Body>
      <Body name="driver"><Translation>0.3 0 0</Translation>
        <Geom type="box"><extents>0.1 0.02 0.02</extents></Geom>
        <Mass type="box"><extents>0.1 0.02 0.02</extents><total>0.5</total></Mass></Body>
      <Body name="follower"><Translation>0.6 0 0</Translation>
        <Geom type="box"><extents>0.1 0.02 0.02</extents></Geom>
        <Mass type="box"><extents>0.1 0.02 0.02</extents><total>0.5</total></Mass></Body>
      <Joint name="drive" type="hinge"><Body>base</Body><Body>driver</Body>
        <axis>0 0 1</axis><limitsdeg>-30 60</limitsdeg></Joint>
      <Joint name="follow" type="hinge" enable="false"
        mimic_pos="b := drive + 1; polyroots2(1, 0, -b)">
        <Body>base</Body><Body>follower</Body><axis>0 0 1</axis><limits>0 1.5</limits>
      </Joint>
    </KinBody></Robot>"""


def test_a_polyroots_linkage_is_enforced_in_simulation(tmp_path):
    path = tmp_path / 'linkage.robot.xml'
    path.write_text(textwrap.dedent(LINKAGE))
    model = load_model(path)
    mimic = model.joint('follow').mimic
    assert mimic.joint == 'drive' and 'polyroots2' in mimic.expression
    assert model.joint('follow').initial == pytest.approx(1.0)   # the root of x^2 - 1 in 0..1.5
    sim = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False),
                                       servo_frequency=2.0))
    for target in (0.6, -0.3, 1.0):
        sim.command(Mode.POSITION, ['drive'], [target])
        for _ in range(400):
            sim.step_period()
        q = dict(zip(sim.joint_names, sim.joint_positions()))
        assert q['drive'] == pytest.approx(target, abs=0.02)
        assert q['follow'] == pytest.approx(math.sqrt(target + 1.0), abs=0.02)
    assert not sim.warnings()
