"""Function Parser syntax: tokens, the functions a formula may call, the tree, the parser.

Precedence from low to high: ``|``, ``&``, comparisons, ``+ -``, ``* / %``, unary ``- !``,
``^``; ``name := expression;`` definitions become shared subtrees (never copies). Bounds:
parentheses nested ``MAX_NESTING`` deep, expressions ``MAX_TREE`` operations deep.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..formula import FUNCTIONS
from ..precedence import FormulaError, Parser

__all__ = ['looks_extended', 'parse_tree', 'polyroots', 'EXTRA_FUNCTIONS', 'MULTI', 'ALL',
           'MAX_VALUES', 'MAX_NESTING', 'MAX_TREE', 'IDENT', 'N', 'V', 'Op', 'Def']

#: Most values a formula holds at once (``polyroots`` give several).
MAX_VALUES = 64
#: Deepest nesting of parentheses and unary operators.
MAX_NESTING = 50
#: Deepest expression, in operations, through definitions too.
MAX_TREE = 200


def polyroots(*coeffs: float) -> list[float]:
    """The real roots, ascending, of ``c0 x^n + ... + cn`` (highest power first)."""
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
MULTI = {f'polyroots{n}': n + 1 for n in range(2, 9)}
ALL = {**FUNCTIONS, **EXTRA_FUNCTIONS}
_EXT_CALL = re.compile(r'\b(?:if|' + '|'.join(sorted(list(EXTRA_FUNCTIONS) + list(MULTI),
                                                      key=len, reverse=True)) + r')\s*\(')
_TOKEN = re.compile(r'\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|'
                    r'(?P<name>[A-Za-z_][A-Za-z0-9_.]*)|"(?P<quoted>[^"]+)"|'
                    r'(?P<op>:=|<=|>=|!=|[-+*/^(),;%<>=!&|]))')
IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_.]*')


def looks_extended(text: str) -> bool:
    """Whether a formula uses syntax only this module reads."""
    return any(c in text for c in ':;%<>=!&|') or _EXT_CALL.search(text) is not None


# --- syntax tree (immutable; definitions are shared subtrees) ----------------------------

@dataclass(frozen=True, eq=False)
class N:
    value: float


@dataclass(frozen=True, eq=False)
class V:
    name: str


@dataclass(frozen=True, eq=False)
class Op:
    op: str
    args: tuple


@dataclass(frozen=True, eq=False)
class Def:
    """A ``:=`` definition as it appears in the text (kept for the canonical text)."""

    name: str
    body: object


class _Parser(Parser):
    """Function Parser syntax, into the tree above; ``name := expression;`` definitions first."""

    TOKEN = _TOKEN
    LEVELS = (('|',), ('&',), ('=', '!=', '<', '>', '<=', '>='), ('+', '-'), ('*', '/', '%'))
    UNARY = ('-', '+', '!')

    def __init__(self, text: str):
        super().__init__(text)
        self.defs: dict[str, object] = {}
        self.order: list[Def] = []
        self.depth = 0
        self.depths: dict[int, int] = {}

    def program(self):
        while (self.pos + 1 < len(self.tokens) and self.tokens[self.pos][0] == 'name'
               and self.tokens[self.pos + 1] == ('op', ':=')):
            name = self.take()[1]
            self.take(':=')
            body = self.expr()
            self.take(';')
            self.defs[name] = body
            self.order.append(Def(name, body))
        node = self.expr()
        while self.is_op(';'):   # a trailing separator
            self.take()
        self.end()
        return node

    def make(self, op: str, args: tuple) -> Op:
        """A node, refused when the expression (through definitions) gets too deep."""
        depth = 1 + max((self.depths.get(id(a), 0) for a in args), default=0)
        if depth > MAX_TREE:
            raise FormulaError(f'{self.text[:60]!r}... is deeper than {MAX_TREE} operations')
        node = Op(op, args)
        self.depths[id(node)] = depth
        return node

    def _nested(self, inner):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise FormulaError(f'{self.text[:60]!r}... nests deeper than {MAX_NESTING} levels')
        try:
            return inner()
        finally:
            self.depth -= 1

    def expr(self):
        return self._nested(super().expr)

    def binary(self, op, left, right):
        return self.make(op, (left, right))

    def prefix(self, op, arg):
        return arg if op == '+' else self.make('neg' if op == '-' else '!', (arg,))

    def unary(self):
        if self.is_op(*self.UNARY):
            return self._nested(super().unary)
        return super().unary()

    def number(self, text):
        return N(float(text))

    def name(self, name, quoted=False):
        if quoted:
            return V(name)
        if name in self.defs:
            return self.defs[name]
        if name in ('pi', 'e'):
            return N(math.pi if name == 'pi' else math.e)
        return V(name)

    def call(self, name: str):
        arity = 3 if name == 'if' else MULTI.get(name) or (ALL[name][0] if name in ALL
                                                              else None)
        return self.make(name, self.arguments(name, arity))


def parse_tree(text: str) -> tuple[object, tuple]:
    """The tree of a formula in Function Parser syntax and the definitions it uses.

    Raises:
        FormulaError: with what is wrong, in one line.
    """
    parser = _Parser(text)
    tree = parser.program()
    used = set()
    _collect(tree, used)
    return tree, tuple(d for d in parser.order if id(d.body) in used)


def _collect(node, seen: set) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, Op):
        for a in node.args:
            _collect(a, seen)
