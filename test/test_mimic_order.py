"""Mimic formulas that name other mimic joints, in any file order: evaluated in dependency
order at load and in the integrator; a cycle refused with one line naming its joints; a
formula naming a joint that closes a loop leaves its joint free, with a warning.

The linkage (test/data/openrave/linkage.robot.xml) is ours, built as OpenRAVE's bucket-linkage
test robot is: every formula names joints defined after it, one through ``polyroots``."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import pytest

from body_bridge.cli import main
from body_bridge.errors import ModelError
from body_bridge.formats import load_model
from body_bridge.formula import FormulaError
from body_bridge.fparser import mimic_order
from body_bridge.model import Mimic
from body_bridge.sim.building.build import BuildOptions
from body_bridge.sim.simulation import Mode, SimOptions, Simulation

from conftest import REPO

LINKAGE = REPO / 'test' / 'data' / 'openrave' / 'linkage.robot.xml'


def _formulas(a: float) -> dict[str, float]:
    """The linkage's mimic joints at slider position ``a``, by hand (P2: the root of
    x^2 - (1 + 4a) within the joint's limits, minus 1)."""
    p3 = 2 * a - 0.1
    p2 = math.sqrt(1 + 4 * a) - 1
    p1 = -p2 + 0.3 * math.sin(p3)
    return {'P3': p3, 'P2': p2, 'P1': p1, 'P0': p1 + 0.5 * p2}


def _joint(name, expression=None):
    mimic = None if expression is None else Mimic('', expression=expression)
    return SimpleNamespace(name=name, mimic=mimic)


def test_mimic_order_puts_leaders_first_whatever_the_order():
    joints = [_joint('d', 'c + b'), _joint('c', 'b*2'), _joint('a'), _joint('b', 'sin(a)'),
              _joint('e', 'a')]
    assert [j.name for j in mimic_order(joints)] == ['b', 'c', 'd', 'e']
    assert [j.name for j in mimic_order(joints[::-1])] == ['e', 'b', 'c', 'd']
    assert mimic_order([_joint('a'), _joint('b')]) == []


@pytest.mark.parametrize('joints, cycle', [
    ([_joint('a', 'b'), _joint('b', 'a')], 'a -> b -> a'),
    ([_joint('x', 'y + 1'), _joint('a', 'b'), _joint('b', 'c*2'), _joint('c', 'sin(a)'),
      _joint('y')], 'a -> b -> c -> a'),
    ([_joint('s', 's + 1')], 's -> s'),
    ([_joint('s', 't'), _joint('t', 'u'), _joint('u', '2*t')], 't -> u -> t'),  # not via s
])
def test_a_cycle_is_named(joints, cycle):
    with pytest.raises(FormulaError, match='^mimic formulas form a cycle: ' + re.escape(cycle)
                       + '$'):
        mimic_order(joints)


def _reordered(tmp_path, reverse: bool):
    """The linkage with its joints in the file's order or reversed."""
    text = LINKAGE.read_text()
    joints = re.findall(r'    <Joint .*?</Joint>\n', text, flags=re.S)
    assert len(joints) == 5
    body = ''.join(joints[::-1] if reverse else joints)
    path = tmp_path / f'linkage_{reverse}.robot.xml'
    path.write_text(text.replace(''.join(joints), body))
    return load_model(path)


@pytest.mark.parametrize('reverse', [False, True])
def test_the_linkage_starts_on_its_formulas_in_any_file_order(tmp_path, reverse):
    model = _reordered(tmp_path, reverse)
    assert not model.warnings
    for name, value in _formulas(0.0).items():
        assert model.joint(name).initial == pytest.approx(value, abs=1e-12), name
    assert model.joint('P1').initial != 0.0  # not a stale value of P2 or P3


def test_the_linkage_follows_its_formulas_in_simulation():
    sim = Simulation(load_model(LINKAGE), SimOptions(build=BuildOptions(ground_plane=False)))
    assert sim.actuated == ['A']
    worst = 0.0
    for target in (0.2, 0.05, 0.28):
        sim.command(Mode.POSITION, ['A'], [target])
        for _ in range(150):
            sim.step_period()
            q = dict(zip(sim.joint_names, sim.joint_positions()))
            worst = max(worst, *(abs(q[n] - v) for n, v in _formulas(q['A']).items()))
        assert q['A'] == pytest.approx(target, abs=1e-3)
    assert worst < 2e-3
    assert not sim.warnings()


CYCLE = """<Robot name="cycle"><KinBody>
  <Body name="base" type="static"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Body name="l1"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Body name="l2"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Body name="l3"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Joint name="a" type="hinge"><Body>base</Body><Body>l1</Body></Joint>
  <Joint name="b" type="hinge" mimic_pos="2*c"><Body>l1</Body><Body>l2</Body></Joint>
  <Joint name="c" type="hinge" mimic_pos="a + b"><Body>l2</Body><Body>l3</Body></Joint>
</KinBody></Robot>
"""


def test_a_cycle_in_a_file_is_one_line(tmp_path, capsys):
    path = tmp_path / 'cycle.robot.xml'
    path.write_text(CYCLE)
    with pytest.raises(ModelError, match='mimic formulas form a cycle: b -> c -> b'):
        load_model(path)
    assert main(['info', str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(str(path)) and 'b -> c -> b' in err[0]


FOUR_BAR = """<Robot name="fourbar"><KinBody>
  <Body name="base" type="static"><Geom type="box"><extents>0.3 0.05 0.02</extents></Geom></Body>
  <Body name="crank"><Translation>-0.2 0 0</Translation>
    <Geom type="box"><extents>0.02 0.02 0.1</extents><translation>0 0 0.1</translation></Geom>
  </Body>
  <Body name="rocker"><Translation>0.2 0 0</Translation>
    <Geom type="box"><extents>0.02 0.02 0.1</extents><translation>0 0 0.1</translation></Geom>
  </Body>
  <Body name="coupler"><Translation>-0.2 0 0.2</Translation>
    <Geom type="box"><extents>0.2 0.02 0.02</extents><translation>0.2 0 0</translation></Geom>
  </Body>
  <Joint name="R" type="hinge" enable="true" mimic_pos="C + 0*K" mimic_vel="|C 1 |K 0">
    <Body>base</Body><Body>rocker</Body><anchor>0.2 0 0</anchor><axis>0 1 0</axis></Joint>
  <Joint name="C" type="hinge"><Body>base</Body><Body>crank</Body><anchor>-0.2 0 0</anchor>
    <axis>0 1 0</axis><limitsdeg>-45 45</limitsdeg></Joint>
  <Joint name="K" type="hinge" enable="false" mimic_pos="-C"><Body>crank</Body>
    <Body>coupler</Body><anchor>-0.2 0 0.2</anchor><axis>0 1 0</axis></Joint>
  <Joint name="E" type="hinge" enable="false" mimic_pos="C"><Body>coupler</Body>
    <Body>rocker</Body><anchor>0.2 0 0.2</anchor><axis>0 1 0</axis></Joint>
</KinBody></Robot>
"""


def test_a_formula_naming_a_loop_closing_joint_leaves_its_joint_free(tmp_path):
    """A parallelogram: the tree goes base-rocker-coupler, base-crank; K closes the loop, and
    R's formula names K: R cannot follow it (K is no coordinate of the tree), so the loop
    moves R, freely, and the rocker turns with the crank."""
    path = tmp_path / 'fourbar.robot.xml'
    path.write_text(FOUR_BAR)
    model = load_model(path)
    assert [c.name for c in model.closures] == ['K']
    assert model.joint('R').mimic is None and model.passive_joints == ('R',)
    assert any("joint 'R': its mimic formula names 'K', which closes a loop" in w
               for w in model.warnings)
    assert model.joint('E').mimic is not None  # E names C, a tree joint: followed
    sim = Simulation(model, SimOptions(build=BuildOptions(ground_plane=False)))
    sim.command(Mode.POSITION, ['C'], [0.3])
    for _ in range(200):
        sim.step_period()
    q = dict(zip(sim.joint_names, sim.joint_positions()))
    assert q['C'] == pytest.approx(0.3, abs=2e-3)
    assert q['R'] == pytest.approx(q['C'], abs=2e-3)  # a parallelogram
    assert q['E'] == pytest.approx(q['C'], abs=2e-3)
