"""Function Parser formulas evaluated: several values at once (``polyroots``), the canonical
text, renaming, and :class:`ExtendedFormula`, which behaves as a
:class:`body_bridge.formula.Formula`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..formula import Formula, FormulaError
from .syntax import ALL, IDENT, MAX_VALUES, MULTI, Def, N, Op, V, polyroots

__all__ = ['ExtendedFormula', 'LIMIT_SLACK']

#: How far outside its limits a value still counts as inside (OpenRAVE: 1000 epsilon).
LIMIT_SLACK = 1e-4

# --- evaluation --------------------------------------------------------------------------

_BINARY = {
    '+': lambda a, b: a + b, '-': lambda a, b: a - b, '*': lambda a, b: a * b,
    '/': lambda a, b: a / b, '%': math.fmod, '^': math.pow,
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
        if isinstance(node, N):
            return [node.value]
        if isinstance(node, V):
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
        if op in MULTI:
            out = []
            for combo in _product(lists):
                out.extend(polyroots(*combo))
            return _bounded(sorted(out))
        fn = _BINARY[op] if op in _BINARY else ALL[op][1]
        return _bounded([float(fn(*combo)) for combo in _product(lists)])


def _product(lists: list[list[float]]) -> list[tuple]:
    out = [()]
    for values in lists:
        out = [prefix + (v,) for prefix in out for v in values]
        if len(out) > MAX_VALUES:
            raise FormulaError(f'more than {MAX_VALUES} values at once')
    return out


def _bounded(values: list[float]) -> list[float]:
    if len(values) > MAX_VALUES:
        raise FormulaError(f'more than {MAX_VALUES} values at once')
    return values


# --- text, names --------------------------------------------------------------------------

_PRECEDENCE = {'|': 1, '&': 2, '=': 3, '!=': 3, '<': 3, '>': 3, '<=': 3, '>=': 3,
               '+': 4, '-': 4, '*': 5, '/': 5, '%': 5, 'neg': 6, '!': 6, '^': 7}


def _name_text(name: str) -> str:
    plain = IDENT.fullmatch(name) and name not in ('pi', 'e') and name not in ALL \
        and name not in MULTI and name != 'if'
    return name if plain else f'"{name}"'


def _text(node, names: dict, parent: int = 0) -> str:
    if id(node) in names:
        return names[id(node)]
    if isinstance(node, N):
        return repr(node.value) if node.value >= 0 else f'({node.value!r})'
    if isinstance(node, V):
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
    if isinstance(node, V):
        out = V(names.get(node.name, node.name))
    elif isinstance(node, Op):
        out = Op(node.op, tuple(_rename(a, names, memo) for a in node.args))
    else:
        out = node
    memo[key] = out
    return out


def _variables(node, out: list[str], seen: set) -> None:
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, V):
        if node.name not in out:
            out.append(node.name)
    elif isinstance(node, Op):
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
            if lo - LIMIT_SLACK <= value <= hi + LIMIT_SLACK:
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
        defs = tuple(Def(d.name, _rename(d.body, names, memo)) for d in self._defs)
        return ExtendedFormula(tree, defs, self._limits)
