"""Mimic formulas: parsed without eval, enforced by the integrator whatever their shape."""

from __future__ import annotations

import math
import textwrap

import pytest

from body_bridge.formats import load_model
from body_bridge.formula import FormulaError, parse_formula
from body_bridge.sim.building.build import BuildOptions, build_spec
from body_bridge.sim.mechanics.mimic import TENDON_PREFIX
from body_bridge.sim.simulation import Mode, SimOptions, Simulation


@pytest.mark.parametrize('text, values, expected', [
    ('JF1/3+0.8727', {'JF1': 0.9}, 0.3 + 0.8727),
    ('-x^2', {'x': 3}, -9.0),
    ('2^3^2', {}, 512.0),
    ('a+b+atan(a)', {'a': 1, 'b': 2}, 3 + math.atan(1)),
    ('atan2(y, x) + pi', {'x': -1, 'y': 0}, 2 * math.pi),
    ('"arm/JF1"*2', {'arm/JF1': 0.25}, 0.5),
    ('min(a, 1) - max(a, 1)', {'a': 3}, -2.0),
])
def test_formulas_evaluate(text, values, expected):
    formula = parse_formula(text)
    assert formula.evaluate(values) == pytest.approx(expected)
    assert parse_formula(formula.text).evaluate(values) == pytest.approx(expected)


@pytest.mark.parametrize('text, match', [
    ('__import__("os")', "unknown function '__import__'"),
    ('open(x)', "unknown function 'open'"),
    ('a.b.__class__', None),
    ('x +', 'ends too early'),
    ('sin(x, y)', 'sin() takes 1 argument'),
    ('', 'empty'),
])
def test_formulas_refuse_what_they_do_not_know(text, match):
    if match is None:  # attribute access is just an odd variable name, never evaluated
        assert parse_formula(text).variables == ('a.b.__class__',)
        return
    with pytest.raises(FormulaError, match=match.replace('(', r'\(').replace(')', r'\)')):
        parse_formula(text)


def test_polynomials_and_gradients():
    assert parse_formula('3*(x-1)^2').polynomial() == ('x', [3.0, -6.0, 3.0])
    assert parse_formula('sin(x)').polynomial() is None
    assert parse_formula('x*y').polynomial() is None
    grad = parse_formula('a*b + sin(a)').gradient({'a': 0.5, 'b': 2.0})
    assert grad['a'] == pytest.approx(2.0 + math.cos(0.5), abs=1e-8)
    assert grad['b'] == pytest.approx(0.5, abs=1e-8)


CHAIN = """
    <Robot name="coupled"><KinBody>
      <Body name="base" type="static"><Geom type="box"><extents>0.05 0.05 0.05</extents></Geom>
      </Body>
      {links}
      <Joint name="a" type="hinge"><Body>base</Body><Body>l1</Body><axis>0 0 1</axis></Joint>
      <Joint name="b" type="hinge"><Body>base</Body><Body>l2</Body><axis>0 0 1</axis></Joint>
      <Joint name="square" type="hinge" enable="false" mimic_pos="0.5*a^2 - 0.2"
        mimic_vel="|a a"><Body>base</Body><Body>l3</Body><axis>0 0 1</axis>
        <limitsdeg>-360 360</limitsdeg></Joint>
      <Joint name="mixed" type="hinge" enable="false" mimic_pos="a + 0.5*sin(b) + 0.1"
        mimic_vel="|a 1 |b 0.5*cos(b)"><Body>base</Body><Body>l4</Body><axis>0 0 1</axis>
        <limitsdeg>-360 360</limitsdeg></Joint>
    </KinBody></Robot>"""


def _chain(tmp_path):
    links = '\n'.join(
        f'<Body name="l{i}"><Translation>{0.3 * i} 0 0</Translation>'
        f'<Geom type="box"><extents>0.1 0.02 0.02</extents><translation>0.1 0 0</translation>'
        f'</Geom><Mass type="box"><extents>0.1 0.02 0.02</extents><total>0.5</total></Mass>'
        f'</Body>' for i in range(1, 5))
    path = tmp_path / 'coupled.robot.xml'
    path.write_text(textwrap.dedent(CHAIN.format(links=links)))
    return load_model(path)


def test_polynomial_mimic_is_a_mujoco_joint_coupling(tmp_path):
    model = _chain(tmp_path)
    square = model.joint('square').mimic
    assert (square.joint, square.expression) == ('a', '0.5*a^2.0-0.2')
    mj = build_spec(model, BuildOptions(ground_plane=False)).compile()
    eq = mj.equality(0)
    assert mj.eq_data[eq.id][:3].tolist() == pytest.approx([-0.2, 0.0, 0.5])
    assert mj.ntendon == 1  # only the formula that is no polynomial needs a tendon
    assert mj.tendon(0).name == TENDON_PREFIX + 'mixed'


def test_nonlinear_mimic_joints_follow_their_formulas_in_simulation(tmp_path):
    model = _chain(tmp_path)
    assert model.joint('mixed').initial == pytest.approx(0.1)  # starts on its formula
    assert model.joint('square').initial == pytest.approx(-0.2)
    # A 2 Hz servo: the joints have no velocity limit, and the default 8 Hz servo, which
    # counts the mimicking joints' inertia, steps them at some 50 rad/s.
    sim = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False),
                                       servo_frequency=2.0))
    assert sim.actuated == ['a', 'b']
    worst = 0.0
    for target in ((0.8, -1.2), (-1.5, 2.0), (0.3, 0.4)):
        sim.command(Mode.POSITION, ['a', 'b'], list(target))
        for _ in range(400):  # 4 s, the formula checked all along the way
            sim.step_period()
            q = dict(zip(sim.joint_names, sim.joint_positions()))
            worst = max(worst, abs(q['mixed'] - (q['a'] + 0.5 * math.sin(q['b']) + 0.1)),
                        abs(q['square'] - (0.5 * q['a'] ** 2 - 0.2)))
        assert q['a'] == pytest.approx(target[0], abs=0.02)
        assert q['b'] == pytest.approx(target[1], abs=0.02)
    assert worst < 2e-3
    assert not sim.warnings()
