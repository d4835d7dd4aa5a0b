"""Arithmetic formulas over joint positions, parsed and evaluated without ``eval``.

Mimic joints whose relation is not linear keep it as a formula (``Mimic.expression``). This
module is the one syntax every loader translates to and every consumer reads:

* numbers (``1``, ``0.5``, ``1e-3``), the constants ``pi`` and ``e``;
* variables: joint names. A name that is not a plain identifier (letters, digits, ``_``, ``.``,
  not starting with a digit) is written in double quotes: ``"arm/JF1"``;
* ``+ - * /``, ``^`` (power, right-associative), unary ``+``/``-``, parentheses;
* functions: ``sin cos tan asin acos atan atan2 sinh cosh tanh exp log log10 sqrt abs min max
  pow floor ceil sign``.

A :class:`Formula` evaluates at given variable values, differentiates numerically, and reports
whether it is a polynomial of one variable (a MuJoCo joint coupling takes up to a quartic).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ['Formula', 'FormulaError', 'parse_formula', 'mimic_formula', 'FUNCTIONS']


class FormulaError(ValueError):
    """A formula that cannot be parsed or evaluated."""


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


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = self._tokenize(text)
        self.pos = 0

    @staticmethod
    def _tokenize(text: str) -> list[tuple[str, str]]:
        tokens, pos = [], 0
        while pos < len(text):
            if text[pos:].strip() == '':
                break
            m = _TOKEN.match(text, pos)
            if m is None:
                raise FormulaError(f'unexpected character {text[pos:].strip()[0]!r} in {text!r}')
            kind = m.lastgroup
            tokens.append((kind, m.group(kind)))
            pos = m.end()
        return tokens

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise FormulaError(f'{self.text!r} ends too early')
        if value is not None and token[1] != value:
            raise FormulaError(f'expected {value!r} in {self.text!r}, found {token[1]!r}')
        self.pos += 1
        return token

    def parse(self):
        if not self.tokens:
            raise FormulaError('the formula is empty')
        node = self.sum()
        if self.peek() is not None:
            raise FormulaError(f'unexpected {self.peek()[1]!r} in {self.text!r}')
        return node

    def sum(self):
        node = self.product()
        while self.peek() is not None and self.peek()[1] in '+-' and self.peek()[0] == 'op':
            op = self.take()[1]
            node = _Binary(op, node, self.product())
        return node

    def product(self):
        node = self.unary()
        while self.peek() is not None and self.peek()[0] == 'op' and self.peek()[1] in '*/':
            op = self.take()[1]
            node = _Binary(op, node, self.unary())
        return node

    def unary(self):
        token = self.peek()
        if token is not None and token[0] == 'op' and token[1] in '+-':
            self.take()
            return _Unary(token[1], self.unary())
        return self.power()

    def power(self):
        base = self.atom()
        token = self.peek()
        if token is not None and token == ('op', '^'):
            self.take()
            return _Binary('^', base, self.unary())
        return base

    def atom(self):
        kind, value = self.take()
        if kind == 'num':
            number = float(value)
            if math.isinf(number):
                raise FormulaError(f'the number {value} is too large in {self.text!r}')
            return _Num(number)
        if kind == 'quoted':
            return _Var(value)
        if kind == 'name':
            if self.peek() == ('op', '('):
                return self.call(value)
            if value in _CONSTANTS:
                return _Num(_CONSTANTS[value])
            return _Var(value)
        if value == '(':
            node = self.sum()
            self.take(')')
            return node
        raise FormulaError(f'unexpected {value!r} in {self.text!r}')

    def call(self, name: str):
        if name not in FUNCTIONS:
            raise FormulaError(f'unknown function {name!r} in {self.text!r}')
        self.take('(')
        args = [self.sum()]
        while self.peek() == ('op', ','):
            self.take()
            args.append(self.sum())
        self.take(')')
        arity = FUNCTIONS[name][0]
        if len(args) != arity:
            raise FormulaError(f'{name}() takes {arity} argument(s), found {len(args)}')
        return _Call(name, tuple(args))


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


def parse_formula(text: str) -> Formula:
    """Parse a formula in this module's syntax.

    Raises:
        FormulaError: with what is wrong, in one line.
    """
    if len(text) > 10_000:
        raise FormulaError('the formula is longer than 10000 characters')
    return Formula(_Parser(text).parse())


def mimic_formula(mimic) -> Formula:
    """The relation of a :class:`body_bridge.model.Mimic` as a formula (linear ones too)."""
    if mimic.expression is not None:
        return parse_formula(mimic.expression)
    return Formula(_Binary('+', _Binary('*', _Var(mimic.joint), _Num(float(mimic.multiplier))),
                           _Num(float(mimic.offset))))
