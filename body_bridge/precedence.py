"""Reading a formula's text: tokens and precedence climbing, shared by the base syntax of
:mod:`body_bridge.formula` and the Function Parser syntax of :mod:`body_bridge.fparser`, each a
subclass of :class:`Parser` with its own tokens, operator levels and tree.
"""

from __future__ import annotations

import re

__all__ = ['FormulaError', 'Parser', 'MAX_TEXT']

#: Longest formula text [characters].
MAX_TEXT = 10_000


class FormulaError(ValueError):
    """A formula that cannot be parsed or evaluated."""


class Parser:
    """Tokens and precedence climbing, shared by this module's syntax and the Function Parser
    syntax of :mod:`body_bridge.fparser` (a subclass). ``LEVELS`` are the binary operators'
    levels from low to high precedence, then come the prefix operators ``UNARY`` and ``^``
    (right-associative, binding tighter than a prefix on its left); the node-making hooks
    ``binary(op, left, right)``, ``prefix(op, arg)``, ``number(text)``, ``name(name,
    quoted=False)`` and ``call(name)`` that a subclass defines build its tree.

    Raises:
        FormulaError: the text is too long, or holds a character no token starts with.
    """

    TOKEN: re.Pattern
    LEVELS: tuple[tuple[str, ...], ...] = (('+', '-'), ('*', '/'))
    UNARY: tuple[str, ...] = ('+', '-')

    def __init__(self, text: str):
        if len(text) > MAX_TEXT:
            raise FormulaError(f'the formula is longer than {MAX_TEXT} characters')
        self.text = text
        self.tokens, pos = [], 0
        while pos < len(text) and text[pos:].strip():
            m = self.TOKEN.match(text, pos)
            if m is None:
                raise FormulaError(f'unexpected character {text[pos:].strip()[0]!r} in '
                                   f'{text!r}')
            self.tokens.append((m.lastgroup, m.group(m.lastgroup)))
            pos = m.end()
        if not self.tokens:
            raise FormulaError('the formula is empty')
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def is_op(self, *ops: str) -> bool:
        token = self.peek()
        return token is not None and token[0] == 'op' and token[1] in ops

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise FormulaError(f'{self.text!r} ends too early')
        if value is not None and token[1] != value:
            raise FormulaError(f'expected {value!r} in {self.text!r}, found {token[1]!r}')
        self.pos += 1
        return token

    def end(self) -> None:
        """Refuses tokens left after the formula."""
        if self.peek() is not None:
            raise FormulaError(f'unexpected {self.peek()[1]!r} in {self.text!r}')

    def expr(self):
        return self._climb(0)

    def _climb(self, level: int):
        if level == len(self.LEVELS):
            return self.unary()
        node = self._climb(level + 1)
        while self.is_op(*self.LEVELS[level]):
            op = self.take()[1]
            node = self.binary(op, node, self._climb(level + 1))
        return node

    def unary(self):
        if self.is_op(*self.UNARY):
            op = self.take()[1]
            return self.prefix(op, self.unary())
        base = self.atom()
        if self.is_op('^'):
            self.take()
            return self.binary('^', base, self.unary())
        return base

    def atom(self):
        kind, value = self.take()
        if kind == 'num':
            return self.number(value)
        if kind == 'quoted':
            return self.name(value, quoted=True)
        if kind == 'name':
            return self.call(value) if self.is_op('(') else self.name(value)
        if value == '(':
            node = self.expr()
            self.take(')')
            return node
        raise FormulaError(f'unexpected {value!r} in {self.text!r}')

    def arguments(self, name: str, arity: int | None) -> tuple:
        """The parenthesised arguments of a call of ``name``, ``arity`` of them (None: the
        function is unknown)."""
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
        return tuple(args)
