"""The rest of the Function Parser syntax OpenRAVE's mimic formulas use, on top of
:mod:`body_bridge.formula` (which hands a formula here when it uses any of it).

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

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .formula import FUNCTIONS, Formula, FormulaError

__all__ = ['ExtendedFormula', 'parse_extended', 'looks_extended', 'EXTRA_FUNCTIONS']

_MAX_VALUES = 64
_MAX_DEPTH = 50
_MAX_TREE = 200
_LIMIT_SLACK = 1e-4


def _fmod(a: float, b: float) -> float:
    return math.fmod(a, b)


def _polyroots(*coeffs: float) -> list[float]:
    c = [float(x) for x in coeffs]
    while c and c[0] == 0.0:
        c.pop(0)
    if len(c) < 2:
        return []
    roots = np.roots(c)
    real = [float(r.real) for r in roots
            if abs(r.imag) <= 1e-8 * max(1.0, abs(r.real))]
    return sorted(real)


def _sssa(a: float, b: float, c: float) -> float:
    f = (a * a + b * b - c * c) / (2.0 * b)
    return math.atan2(math.sqrt(a * a - f * f), b - f)


#: Single-valued functions beyond the base set: name -> (arity, implementation).
EXTRA_FUNCTIONS = {
    'cot': (1, lambda x: 1.0 / math.tan(x)), 'csc': (1, lambda x: 1.0 / math.sin(x)),
    'sec': (1, lambda x: 1.0 / math.cos(x)), 'int': (1, lambda x: float(math.floor(x + 0.5))),
    'trunc': (1, lambda x: float(math.trunc(x))), 'hypot': (2, math.hypot),
    'cbrt': (1, lambda x: math.copysign(abs(x) ** (1.0 / 3.0), x)),
    'log2': (1, math.log2), 'exp2': (1, lambda x: 2.0 ** x), 'asinh': (1, math.asinh),
    'acosh': (1, math.acosh), 'atanh': (1, math.atanh), 'SSSA': (3, _sssa),
    'SASA': (3, lambda a, g, b: math.atan2(a * math.sin(g), b - a * math.cos(g))),
    'SASS': (3, lambda a, g, b: math.sqrt(a * a + b * b - 2.0 * a * b * math.cos(g))),
}
_MULTI = {f'polyroots{n}': n + 1 for n in range(2, 9)}
_ALL = {**FUNCTIONS, **EXTRA_FUNCTIONS}
_EXT_CALL = re.compile(r'\b(?:if|' + '|'.join(sorted(list(EXTRA_FUNCTIONS) + list(_MULTI),
                                                      key=len, reverse=True)) + r')\s*\(')
_TOKEN = re.compile(r'\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|'
                    r'(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|"(?P<quoted>[^"]+)"|'
                    r'(?P<op>:=|<=|>=|!=|[-+*/^(),;%<>=!&|]))')
_IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_.]*')


def looks_extended(text: str) -> bool:
    """Whether a formula uses syntax only this module reads."""
    return any(c in text for c in ':;%<>=!&|') or _EXT_CALL.search(text) is not None


# --- syntax tree (immutable; definitions are shared subtrees) ----------------------------

@dataclass(frozen=True, eq=False)
class _N:
    value: float


@dataclass(frozen=True, eq=False)
class _V:
    name: str


@dataclass(frozen=True, eq=False)
class _Op:
    op: str
    args: tuple


@dataclass(frozen=True, eq=False)
class _Def:
    """A ``:=`` definition as it appears in the text (kept for the canonical text)."""

    name: str
    body: object


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens, pos = [], 0
        while pos < len(text) and text[pos:].strip():
            m = _TOKEN.match(text, pos)
            if m is None:
                raise FormulaError(f'unexpected character {text[pos:].strip()[0]!r} in '
                                   f'{text!r}')
            self.tokens.append((m.lastgroup, m.group(m.lastgroup)))
            pos = m.end()
        self.pos = 0
        self.defs: dict[str, object] = {}
        self.order: list[_Def] = []
        self.depth = 0
        self.depths: dict[int, int] = {}

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def is_op(self, *ops) -> bool:
        token = self.peek()
        return token is not None and token[0] == 'op' and token[1] in ops

    def take(self, value=None):
        token = self.peek()
        if token is None:
            raise FormulaError(f'{self.text!r} ends too early')
        if value is not None and token[1] != value:
            raise FormulaError(f'expected {value!r} in {self.text!r}, found {token[1]!r}')
        self.pos += 1
        return token

    def program(self):
        if not self.tokens:
            raise FormulaError('the formula is empty')
        while (self.pos + 1 < len(self.tokens) and self.tokens[self.pos][0] == 'name'
               and self.tokens[self.pos + 1] == ('op', ':=')):
            name = self.take()[1]
            self.take(':=')
            body = self.expr()
            self.take(';')
            self.defs[name] = body
            self.order.append(_Def(name, body))
        node = self.expr()
        while self.is_op(';'):   # a trailing separator
            self.take()
        if self.peek() is not None:
            raise FormulaError(f'unexpected {self.peek()[1]!r} in {self.text!r}')
        return node

    def make(self, op: str, args: tuple) -> _Op:
        """A node, refused when the expression (through definitions) gets too deep."""
        depth = 1 + max((self.depths.get(id(a), 0) for a in args), default=0)
        if depth > _MAX_TREE:
            raise FormulaError(f'{self.text[:60]!r}... is deeper than {_MAX_TREE} operations')
        node = _Op(op, args)
        self.depths[id(node)] = depth
        return node

    def _level(self, ops, lower):
        node = lower()
        while self.is_op(*ops):
            op = self.take()[1]
            node = self.make(op, (node, lower()))
        return node

    def expr(self):
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise FormulaError(f'{self.text[:60]!r}... nests deeper than {_MAX_DEPTH} levels')
        try:
            return self._level(('|',), self.conj)
        finally:
            self.depth -= 1

    def conj(self):
        return self._level(('&',), self.comparison)

    def comparison(self):
        return self._level(('=', '!=', '<', '>', '<=', '>='), self.sum)

    def sum(self):
        return self._level(('+', '-'), self.product)

    def product(self):
        return self._level(('*', '/', '%'), self.unary)

    def unary(self):
        if self.is_op('-', '+', '!'):
            op = self.take()[1]
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise FormulaError(f'{self.text[:60]!r}... nests deeper than {_MAX_DEPTH}')
            try:
                arg = self.unary()
            finally:
                self.depth -= 1
            return arg if op == '+' else self.make('neg' if op == '-' else '!', (arg,))
        return self.power()

    def power(self):
        base = self.atom()
        if self.is_op('^'):
            self.take()
            return self.make('^', (base, self.unary()))
        return base

    def atom(self):
        kind, value = self.take()
        if kind == 'num':
            return _N(float(value))
        if kind == 'quoted':
            return _V(value)
        if kind == 'name':
            if self.is_op('('):
                return self.call(value)
            if value in self.defs:
                return self.defs[value]
            if value in ('pi', 'e'):
                return _N(math.pi if value == 'pi' else math.e)
            return _V(value)
        if value == '(':
            node = self.expr()
            self.take(')')
            return node
        raise FormulaError(f'unexpected {value!r} in {self.text!r}')

    def call(self, name: str):
        arity = 3 if name == 'if' else _MULTI.get(name) or (_ALL[name][0] if name in _ALL
                                                              else None)
        if arity is None:
            raise FormulaError(f'unknown function {name!r} in {self.text!r}')
        self.take('(')
        args = [self.expr()]
        while self.is_op(','):
            self.take()
            args.append(self.expr())
        self.take(')')
        if len(args) != arity:
            raise FormulaError(f'{name}() takes {arity} argument(s), found {len(args)}')
        return self.make(name, tuple(args))


# --- evaluation --------------------------------------------------------------------------

_BINARY = {
    '+': lambda a, b: a + b, '-': lambda a, b: a - b, '*': lambda a, b: a * b,
    '/': lambda a, b: a / b, '%': _fmod, '^': math.pow,
    '=': lambda a, b: float(a == b), '!=': lambda a, b: float(a != b),
    '<': lambda a, b: float(a < b), '>': lambda a, b: float(a > b),
    '<=': lambda a, b: float(a <= b), '>=': lambda a, b: float(a >= b),
    '&': lambda a, b: float(a != 0 and b != 0), '|': lambda a, b: float(a != 0 or b != 0),
}


class _Evaluator:
    def __init__(self, values: Mapping[str, float]):
        self.values = values
        self.memo: dict[int, list[float]] = {}

    def run(self, node) -> list[float]:
        key = id(node)
        if key not in self.memo:
            self.memo[key] = self._run(node)
        return self.memo[key]

    def _run(self, node) -> list[float]:
        if isinstance(node, _N):
            return [node.value]
        if isinstance(node, _V):
            return [float(self.values[node.name])]
        op, args = node.op, node.args
        if op == 'if':
            out = []
            for c in self.run(args[0]):
                out.extend(self.run(args[1] if c != 0 else args[2]))
            return _bounded(out)
        lists = [self.run(a) for a in args]
        if op == 'neg':
            return [-x for x in lists[0]]
        if op == '!':
            return [float(x == 0) for x in lists[0]]
        if op in _MULTI:
            out = []
            for combo in _product(lists):
                out.extend(_polyroots(*combo))
            return _bounded(sorted(out))
        fn = _BINARY[op] if op in _BINARY else _ALL[op][1]
        return _bounded([float(fn(*combo)) for combo in _product(lists)])


def _product(lists: list[list[float]]) -> list[tuple]:
    out = [()]
    for values in lists:
        out = [prefix + (v,) for prefix in out for v in values]
        if len(out) > _MAX_VALUES:
            raise FormulaError(f'more than {_MAX_VALUES} values at once')
    return out


def _bounded(values: list[float]) -> list[float]:
    if len(values) > _MAX_VALUES:
        raise FormulaError(f'more than {_MAX_VALUES} values at once')
    return values


# --- text, names --------------------------------------------------------------------------

_PRECEDENCE = {'|': 1, '&': 2, '=': 3, '!=': 3, '<': 3, '>': 3, '<=': 3, '>=': 3,
               '+': 4, '-': 4, '*': 5, '/': 5, '%': 5, 'neg': 6, '!': 6, '^': 7}


def _name_text(name: str) -> str:
    plain = _IDENT.fullmatch(name) and name not in ('pi', 'e') and name not in _ALL \
        and name not in _MULTI and name != 'if'
    return name if plain else f'"{name}"'


def _text(node, names: dict, parent: int = 0) -> str:
    if id(node) in names:
        return names[id(node)]
    if isinstance(node, _N):
        return repr(node.value) if node.value >= 0 else f'({node.value!r})'
    if isinstance(node, _V):
        return _name_text(node.name)
    op, args = node.op, node.args
    if op not in _PRECEDENCE:
        return f'{op}({", ".join(_text(a, names) for a in args)})'
    level = _PRECEDENCE[op]
    if op in ('neg', '!'):
        text = ('-' if op == 'neg' else '!') + _text(args[0], names, level)
    elif op == '^':
        text = f'{_text(args[0], names, level + 1)}^{_text(args[1], names, level - 1)}'
    else:
        text = f'{_text(args[0], names, level)}{op}{_text(args[1], names, level + 1)}'
    return f'({text})' if level < parent or (op in ('neg', '!') and parent >= level) \
        else text


def _rename(node, names: Mapping[str, str], memo: dict):
    key = id(node)
    if key in memo:
        return memo[key]
    if isinstance(node, _V):
        out = _V(names.get(node.name, node.name))
    elif isinstance(node, _Op):
        out = _Op(node.op, tuple(_rename(a, names, memo) for a in node.args))
    else:
        out = node
    memo[key] = out
    return out


def _variables(node, out: list[str], seen: set) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, _V):
        if node.name not in out:
            out.append(node.name)
    elif isinstance(node, _Op):
        for a in node.args:
            _variables(a, out, seen)


class ExtendedFormula(Formula):
    """A formula using Function Parser syntax; possibly several-valued (``polyroots``)."""

    def __init__(self, tree, defs: tuple = (), limits: tuple | None = None):
        self._tree = tree
        self._defs = defs
        self._limits = limits
        names: list[str] = []
        _variables(tree, names, set())
        self.variables = tuple(names)
        labels = {}
        parts = []
        for d in defs:
            parts.append(f'{d.name}:={_text(d.body, labels)}; ')
            labels[id(d.body)] = d.name
        self.text = ''.join(parts) + _text(tree, labels)

    def values(self, values: Mapping[str, float]) -> list[float]:
        """Every value at the given variable values (one unless ``polyroots`` gives more)."""
        missing = [v for v in self.variables if v not in values]
        if missing:
            raise FormulaError(f'no value for {", ".join(missing)} in {self.text!r}')
        try:
            out = _Evaluator(values).run(self._tree)
        except (ValueError, ZeroDivisionError, OverflowError) as err:
            raise FormulaError(f'{self.text!r} is undefined at {dict(values)}: {err}') from None
        return out

    def evaluate(self, values: Mapping[str, float]) -> float:
        """The value; of several, the first inside the limits (:meth:`with_limits`), else the
        first clamped to them, else the first."""
        out = self.values(values)
        if not out:
            raise FormulaError(f'{self.text!r} has no real value at {dict(values)}')
        if self._limits is None:
            return out[0]
        lo, hi = self._limits
        for value in out:
            if lo - _LIMIT_SLACK <= value <= hi + _LIMIT_SLACK:
                return min(max(value, lo), hi)
        return min(max(out[0], lo), hi)

    def with_limits(self, lower: float | None, upper: float | None) -> ExtendedFormula:
        if lower is None or upper is None:
            return self
        return ExtendedFormula(self._tree, self._defs, (float(lower), float(upper)))

    def polynomial(self):
        return None

    def renamed(self, names: Mapping[str, str]) -> ExtendedFormula:
        memo: dict = {}
        tree = _rename(self._tree, names, memo)
        defs = tuple(_Def(d.name, _rename(d.body, names, memo)) for d in self._defs)
        return ExtendedFormula(tree, defs, self._limits)


def parse_extended(text: str) -> ExtendedFormula:
    """Parse a formula in Function Parser syntax (see the module docstring).

    Raises:
        FormulaError: with what is wrong, in one line.
    """
    if len(text) > 10_000:
        raise FormulaError('the formula is longer than 10000 characters')
    parser = _Parser(text)
    tree = parser.program()
    used = set()
    _collect(tree, used)
    defs = tuple(d for d in parser.order if id(d.body) in used)
    return ExtendedFormula(tree, defs)


def _collect(node, seen: set) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, _Op):
        for a in node.args:
            _collect(a, seen)
