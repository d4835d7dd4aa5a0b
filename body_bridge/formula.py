"""Arithmetic formulas over joint positions, parsed and evaluated without ``eval``.

Mimic joints whose relation is not linear keep it as a formula (``Mimic.expression``). This
module is the one syntax every loader translates to and every consumer reads:

* numbers (``1``, ``0.5``, ``1e-3``), the constants ``pi`` and ``e``;
* variables: joint names. A name that is not a plain identifier (letters, digits, ``_``, ``.``,
  not starting with a digit) is written in double quotes: ``"arm/JF1"``;
* ``+ - * /``, ``^`` (power, right-associative), unary ``+``/``-``, parentheses;
* functions: ``sin cos tan asin acos atan atan2 sinh cosh tanh exp log log10 sqrt abs min max
  pow floor ceil sign``;
* the rest of the Function Parser syntax OpenRAVE uses (``:=`` definitions, comparisons,
  ``if``, ``%``, ``polyroots2``..``8``, ...) is read by :mod:`body_bridge.fparser`, whose
  ``parse_formula`` and ``mimic_formula`` read both.

A :class:`Formula` evaluates at given variable values, differentiates numerically, and reports
whether it is a polynomial of one variable (a MuJoCo joint coupling takes up to a quartic).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .precedence import FormulaError, Parser

__all__ = ['Formula', 'FormulaError', 'parse_formula', 'mimic_formula', 'FUNCTIONS']


def _sign(x: float) -> float:
    return float((x > 0) - (x < 0))


#: Functions a formula may call: name -> (arity, implementation).
FUNCTIONS: dict[str, tuple[int, Callable]] = {
    'sin': (1, math.sin), 'cos': (1, math.cos), 'tan': (1, math.tan),
    'asin': (1, math.asin), 'acos': (1, math.acos), 'atan': (1, math.atan),
    'atan2': (2, math.atan2), 'sinh': (1, math.sinh), 'cosh': (1, math.cosh),
    'tanh': (1, math.tanh), 'exp': (1, math.exp), 'log': (1, math.log),
    'log10': (1, math.log10), 'sqrt': (1, math.sqrt), 'abs': (1, abs),
    'min': (2, min), 'max': (2, max), 'pow': (2, math.pow), 'floor': (1, math.floor),
    'ceil': (1, math.ceil), 'sign': (1, _sign),
}
_CONSTANTS = {'pi': math.pi, 'e': math.e}
_IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_.]*')
_TOKEN = re.compile(r'\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|'
                    r'(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|"(?P<quoted>[^"]+)"|(?P<op>[-+*/^(),]))')


# --- syntax tree --------------------------------------------------------------------------

@dataclass(frozen=True)
class _Num:
    value: float


@dataclass(frozen=True)
class _Var:
    name: str


@dataclass(frozen=True)
class _Unary:
    op: str
    arg: object


@dataclass(frozen=True)
class _Binary:
    op: str
    left: object
    right: object


@dataclass(frozen=True)
class _Call:
    name: str
    args: tuple


class _Parser(Parser):
    """This module's syntax, into the tree above."""

    TOKEN = _TOKEN

    def parse(self):
        node = self.expr()
        self.end()
        return node

    def binary(self, op, left, right):
        return _Binary(op, left, right)

    def prefix(self, op, arg):
        return _Unary(op, arg)

    def number(self, text):
        number = float(text)
        if math.isinf(number):
            raise FormulaError(f'the number {text} is too large in {self.text!r}')
        return _Num(number)

    def name(self, name, quoted=False):
        if not quoted and name in _CONSTANTS:
            return _Num(_CONSTANTS[name])
        return _Var(name)

    def call(self, name):
        arity = FUNCTIONS[name][0] if name in FUNCTIONS else None
        return _Call(name, self.arguments(name, arity))


def _evaluate(node, values: Mapping[str, float]) -> float:
    if isinstance(node, _Num):
        return node.value
    if isinstance(node, _Var):
        return float(values[node.name])
    if isinstance(node, _Unary):
        arg = _evaluate(node.arg, values)
        return -arg if node.op == '-' else arg
    if isinstance(node, _Binary):
        a, b = _evaluate(node.left, values), _evaluate(node.right, values)
        if node.op == '+':
            return a + b
        if node.op == '-':
            return a - b
        if node.op == '*':
            return a * b
        if node.op == '/':
            return a / b
        return math.pow(a, b)
    return float(FUNCTIONS[node.name][1](*(_evaluate(a, values) for a in node.args)))


# --- polynomials of one variable (lists of coefficients, lowest degree first) -------------

_MAX_DEGREE = 8


def _poly_add(a, b, sign: float):
    out = [0.0] * max(len(a), len(b))
    for i, c in enumerate(a):
        out[i] += c
    for i, c in enumerate(b):
        out[i] += sign * c
    return out


def _poly_mul(a, b):
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _polynomial(node, var: str):
    """Coefficients of ``node`` as a polynomial in ``var``, or None if it is not one."""
    if isinstance(node, _Num):
        return [node.value]
    if isinstance(node, _Var):
        return [0.0, 1.0] if node.name == var else None
    if isinstance(node, _Unary):
        p = _polynomial(node.arg, var)
        return None if p is None else [(-c if node.op == '-' else c) for c in p]
    if isinstance(node, _Call):
        args = [_polynomial(a, var) for a in node.args]
        if any(a is None or len(_trim(a)) > 1 for a in args):
            return None
        return [float(FUNCTIONS[node.name][1](*(a[0] for a in args)))]
    a, b = _polynomial(node.left, var), _polynomial(node.right, var)
    if a is None or b is None:
        return None
    if node.op in '+-':
        return _poly_add(a, b, 1.0 if node.op == '+' else -1.0)
    if node.op == '*':
        p = _poly_mul(a, b)
        return p if len(_trim(p)) <= _MAX_DEGREE + 1 else None
    b = _trim(b)
    if node.op == '/':
        return [c / b[0] for c in a] if len(b) == 1 else None
    # power: a constant exponent that is a small non-negative integer
    if len(b) != 1 or not math.isfinite(b[0]) or b[0] != int(b[0]) or not 0 <= b[0] <= _MAX_DEGREE:
        return None if len(_trim(a)) > 1 or len(b) > 1 else [math.pow(a[0], b[0])]
    p = [1.0]
    for _ in range(int(b[0])):
        p = _poly_mul(p, a)
    return p if len(_trim(p)) <= _MAX_DEGREE + 1 else None


def _trim(p):
    p = list(p)
    while len(p) > 1 and p[-1] == 0.0:
        p.pop()
    return p


def _to_text(node, parent: int = 0) -> str:
    precedence = {'+': 1, '-': 1, '*': 2, '/': 2, '^': 4}
    if isinstance(node, _Num):
        if math.copysign(1.0, node.value) < 0:  # reads back as a unary minus
            return f'(-{-node.value!r})' if parent else f'-{-node.value!r}'
        return repr(node.value)
    if isinstance(node, _Var):
        return node.name if _IDENT.fullmatch(node.name) and node.name not in _CONSTANTS \
            and node.name not in FUNCTIONS else f'"{node.name}"'
    if isinstance(node, _Call):
        return f'{node.name}({", ".join(_to_text(a) for a in node.args)})'
    if isinstance(node, _Unary):
        text = f'{node.op}{_to_text(node.arg, 3)}'
        return f'({text})' if parent >= 3 else text
    level = precedence[node.op]
    if node.op == '^':
        text = f'{_to_text(node.left, 5)}^{_to_text(node.right, 3)}'
    else:
        text = f'{_to_text(node.left, level)}{node.op}{_to_text(node.right, level + 1)}'
    return f'({text})' if level < parent else text


def _rename(node, names: Mapping[str, str]):
    if isinstance(node, _Var):
        return _Var(names.get(node.name, node.name))
    if isinstance(node, _Unary):
        return _Unary(node.op, _rename(node.arg, names))
    if isinstance(node, _Binary):
        return _Binary(node.op, _rename(node.left, names), _rename(node.right, names))
    if isinstance(node, _Call):
        return _Call(node.name, tuple(_rename(a, names) for a in node.args))
    return node


def _variables(node, out: list[str]) -> None:
    if isinstance(node, _Var):
        if node.name not in out:
            out.append(node.name)
    elif isinstance(node, _Unary):
        _variables(node.arg, out)
    elif isinstance(node, _Binary):
        _variables(node.left, out)
        _variables(node.right, out)
    elif isinstance(node, _Call):
        for a in node.args:
            _variables(a, out)


class Formula:
    """A parsed formula. ``text`` is its canonical form (parses back to the same formula)."""

    def __init__(self, tree):
        self._tree = tree
        names: list[str] = []
        _variables(tree, names)
        self.variables: tuple[str, ...] = tuple(names)
        self.text = _to_text(tree)

    def __repr__(self) -> str:
        return f'Formula({self.text!r})'

    def evaluate(self, values: Mapping[str, float]) -> float:
        """The value at the given variable values.

        Raises:
            FormulaError: a variable has no value, or the formula is undefined there.
        """
        missing = [v for v in self.variables if v not in values]
        if missing:
            raise FormulaError(f'no value for {", ".join(missing)} in {self.text!r}')
        try:
            return _evaluate(self._tree, values)
        except (ValueError, ZeroDivisionError, OverflowError) as err:
            raise FormulaError(f'{self.text!r} is undefined at {dict(values)}: {err}') from None

    def gradient(self, values: Mapping[str, float], step: float = 1e-6) -> dict[str, float]:
        """Partial derivatives by central differences, one per variable."""
        out = {}
        for name in self.variables:
            hi, lo = dict(values), dict(values)
            hi[name] = values[name] + step
            lo[name] = values[name] - step
            out[name] = (self.evaluate(hi) - self.evaluate(lo)) / (2.0 * step)
        return out

    def polynomial(self) -> tuple[str, list[float]] | None:
        """(variable, coefficients lowest degree first) if this is a polynomial of one variable.

        Raises:
            FormulaError: a part without variables is undefined (``sqrt(-1)``, ``1/0``).
        """
        if len(self.variables) != 1:
            return None
        try:
            coeffs = _polynomial(self._tree, self.variables[0])
        except (ValueError, ZeroDivisionError, OverflowError) as err:
            raise FormulaError(f'{self.text!r} is undefined: {err}') from None
        if coeffs is None or not all(math.isfinite(c) for c in coeffs):
            return None
        return self.variables[0], _trim(coeffs)

    def renamed(self, names: Mapping[str, str]) -> Formula:
        """The same formula with variables renamed (names missing from the map stay)."""
        return Formula(_rename(self._tree, names))

    def with_limits(self, lower: float | None, upper: float | None) -> Formula:
        """The formula choosing among several values by the limits [rad or m] of the joint it
        drives (see ``body_bridge.fparser``); a formula of one value is itself."""
        return self


def parse_formula(text: str) -> Formula:
    """Parse a formula in this module's syntax.

    Raises:
        FormulaError: with what is wrong, in one line.
    """
    return Formula(_Parser(text).parse())


def mimic_formula(mimic) -> Formula:
    """The relation of a :class:`body_bridge.model.Mimic` as a formula (linear ones too)."""
    if mimic.expression is not None:
        return parse_formula(mimic.expression)
    return Formula(_Binary('+', _Binary('*', _Var(mimic.joint), _Num(float(mimic.multiplier))),
                           _Num(float(mimic.offset))))
