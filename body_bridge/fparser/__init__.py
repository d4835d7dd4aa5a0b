"""Mimic formulas in the base syntax of :mod:`body_bridge.formula` and in the rest of the
Function Parser syntax OpenRAVE's mimic formulas use: :func:`parse_formula` reads both (a
formula using any of the following goes to :mod:`.syntax` and :mod:`.values`).

Function Parser (``fparser``, which OpenRAVE evaluates mimic joints with) adds to the base
syntax:

* definitions: ``name := expression;`` before the final expression (``;`` separates); a
  defined name stands for its expression in what follows;
* ``%`` (remainder, the sign of the dividend), comparisons ``= != < > <= >=`` (1 or 0),
  ``&`` and ``|`` (logical, on nonzero), ``!`` (not), ``if(c, a, b)`` (only the branch taken);
  precedence from low to high: ``|``, ``&``, comparisons, ``+ -``, ``* / %``, unary ``- !``,
  ``^``;
* functions ``cot csc sec int trunc hypot cbrt log2 exp2 asinh acosh atanh``, and OpenRAVE's
  own ``polyroots2`` .. ``polyroots8`` (the real roots of ``c0 x^n + c1 x^(n-1) + ... + cn``,
  highest power first, a zero leading coefficient lowering the degree), ``SSSA(a, b, c)`` (the
  angle opposite side ``a`` of a triangle of sides a, b, c), ``SASA(a, gamma, b)`` and
  ``SASS(a, gamma, b)`` (the angle and the side a triangle's two sides and their angle leave).

A formula with ``polyroots`` has several values (OpenRAVE's ``EvalMulti``): they are kept in
ascending order, combined across operations, and a mimic joint takes the first inside its
limits (within 1e-4 of them), or the first clamped to them, as OpenRAVE's ``SetDOFValues``
does. Everything is bounded: 10 000 characters, parentheses nested 50 deep, expressions 200
operations deep (through definitions too), 64 values at a time; definitions are shared (never
copied), so evaluation time is linear in the text.
"""

from __future__ import annotations

from .. import formula as _base
from .syntax import EXTRA_FUNCTIONS, looks_extended, parse_tree
from .values import ExtendedFormula

__all__ = ['parse_formula', 'mimic_formula', 'mimic_order', 'parse_extended', 'looks_extended',
           'ExtendedFormula', 'EXTRA_FUNCTIONS']


def parse_extended(text: str) -> ExtendedFormula:
    """Parse a formula in Function Parser syntax.

    Raises:
        FormulaError: with what is wrong, in one line.
    """
    tree, defs = parse_tree(text)
    return ExtendedFormula(tree, defs)


def parse_formula(text: str) -> _base.Formula:
    """A formula in the base syntax (:func:`body_bridge.formula.parse_formula`), or in Function
    Parser syntax when it uses any of it.

    Raises:
        FormulaError: with what is wrong, in one line.
    """
    if looks_extended(text):
        return parse_extended(text)
    return _base.parse_formula(text)


def mimic_formula(mimic) -> _base.Formula:
    """The relation of a :class:`body_bridge.model.Mimic` as a formula, whatever its syntax."""
    if mimic.expression is not None:
        return parse_formula(mimic.expression)
    return _base.mimic_formula(mimic)


def mimic_order(joints) -> list:
    """The mimic joints among ``joints`` (records with ``name`` and ``mimic``), each after
    every mimic joint its formula names, whatever their order in ``joints``: the order to
    evaluate their formulas in. Joints keep their relative order where no formula decides.

    Raises:
        FormulaError: the formulas form a cycle; the message names its joints in order
            (``a -> b -> a``).
    """
    mimics = {j.name: j for j in joints if j.mimic is not None}
    needs = {name: [v for v in mimic_formula(j.mimic).variables if v in mimics]
             for name, j in mimics.items()}
    out: list = []
    state: dict[str, int] = {}  # 1: being visited, 2: placed
    for start in mimics:
        if state.get(start):
            continue
        path, stack = [start], [iter(needs[start])]
        state[start] = 1
        while stack:
            lead = next(stack[-1], None)
            if lead is None:
                stack.pop()
                done = path.pop()
                state[done] = 2
                out.append(mimics[done])
            elif state.get(lead) == 1:
                cycle = path[path.index(lead):] + [lead]
                raise _base.FormulaError('mimic formulas form a cycle: ' + ' -> '.join(cycle))
            elif not state.get(lead):
                state[lead] = 1
                path.append(lead)
                stack.append(iter(needs[lead]))
    return out
