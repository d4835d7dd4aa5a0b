"""The text syntax VRML97, VRML 1.0 and Open Inventor ASCII share, parsed without a schema.

A file is a list of nodes. A node is ``[DEF name] Type { ... }``, ``USE name`` or ``NULL``.
Inside the braces, a word followed by ``{`` (or ``DEF``/``USE``) is a child node (Inventor
and VRML 1.0 style); any other word is a field name followed by its value: numbers (as many
as follow), a quoted string, a word (``TRUE``, an enum), a bit mask ``( A | B )``, a node,
or a bracketed list of numbers, strings or nodes. Number lists are parsed in one go with
numpy. Nesting depth and node count are bounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import ModelError, UnsupportedError
from . import _common
from ._common import LineIndex

__all__ = ['Node', 'Word', 'parse']


class Word(str):
    """A bare word value (``TRUE``, ``PER_VERTEX``, a bit mask ``A|B``)."""


@dataclass(eq=False)
class Node:
    """A parsed node.

    Attributes:
        type: the node type name.
        fields: field name to value (numpy float array, list of str, Word, Node, list of
            Node, or None for NULL).
        children: child nodes written directly inside the braces (Inventor, VRML 1.0).
        name: the DEF name, if any.
        line: where the node starts (None in a binary Inventor file, which has no lines).
    """

    type: str
    line: int | None
    name: str | None = None
    fields: dict = field(default_factory=dict)
    children: list = field(default_factory=list)


_SPACE = re.compile(r'(?:[\s,]+|#[^\n]*)+')
_NUMBER = re.compile(r'[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)')
_WORD = re.compile(r'[^\x00-\x20"\'#,.\[\]\\{}()|0-9+\-][^\x00-\x20"\'#,.\[\]\\{}()|]*')
_NAME = re.compile(r'[^\x00-\x20"\'#,\[\]\\{}]+')
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"', re.DOTALL)
_NUMERIC_START = re.compile(r'[-+.0-9]')
_COMMENT = re.compile(r'#[^\n]*')


class _Parser:
    def __init__(self, path: str, text: str, pos: int):
        self.path = path
        self.text = text
        self.pos = pos
        self.lines = LineIndex(text)
        self.defs: dict[str, Node] = {}
        self.count = 0

    # --- scanning ---------------------------------------------------------------------

    def skip(self) -> None:
        m = _SPACE.match(self.text, self.pos)
        if m:
            self.pos = m.end()

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos:self.pos + 1]

    def error(self, message: str, pos: int | None = None) -> ModelError:
        return ModelError(self.path, self.lines.line(self.pos if pos is None else pos), message)

    def expect(self, char: str) -> None:
        if self.peek() != char:
            found = repr(self.text[self.pos:self.pos + 20]) if self.pos < len(self.text) \
                else 'the end of the file'
            raise self.error(f'expected {char!r}, found {found}')
        self.pos += 1

    def word(self, what: str = 'a name') -> str:
        self.skip()
        m = _WORD.match(self.text, self.pos)
        if not m:
            found = repr(self.text[self.pos:self.pos + 20]) if self.pos < len(self.text) \
                else 'the end of the file'
            raise self.error(f'expected {what}, found {found}')
        self.pos = m.end()
        return m.group()

    def name(self) -> str:
        self.skip()
        m = _NAME.match(self.text, self.pos)
        if not m:
            raise self.error('expected a DEF/USE name')
        self.pos = m.end()
        return m.group()

    def peek_word(self) -> str | None:
        self.skip()
        m = _WORD.match(self.text, self.pos)
        return m.group() if m else None

    def after_word(self) -> str:
        """The character after the next word (to tell a child node from a field)."""
        m = _WORD.match(self.text, self.pos)
        end = m.end() if m else self.pos
        s = _SPACE.match(self.text, end)
        end = s.end() if s else end
        return self.text[end:end + 1]

    # --- nodes ------------------------------------------------------------------------

    def nodes_until(self, closing: str, depth: int) -> list[Node | None]:
        out = []
        while True:
            c = self.peek()
            if c == closing:
                return out
            if not c:
                if closing:
                    raise self.error(f'the file ends before {closing!r}')
                return out
            node = self.node(depth)
            if node is not _SKIP:
                out.append(node)

    def node(self, depth: int) -> Node | None:
        if depth > _common.MAX_DEPTH:
            raise self.error(f'nodes nested deeper than {_common.MAX_DEPTH} levels')
        start = self.pos
        kind = self.word('a node')
        if kind == 'USE':
            name = self.name()
            if name not in self.defs:
                raise self.error(f'USE {name}: no node was DEFined with that name', start)
            return self.defs[name]
        if kind == 'NULL':
            return None
        if kind in ('PROTO', 'EXTERNPROTO'):
            raise UnsupportedError(self.path, self.lines.line(start),
                                   f'{kind} (prototypes) are not supported')
        if kind == 'ROUTE':
            self.name()
            if self.word('TO') != 'TO':
                raise self.error('ROUTE without TO', start)
            self.name()
            return _SKIP
        name = None
        untyped = False
        if kind == 'DEF':
            name = self.name()
            untyped = self.peek() == '{'
            # Choreonoid reads "DEF Transform {" (no type) as a node of the DEF name's type.
            kind = name if untyped else self.word('a node type')
        self.count += 1
        if self.count > _common.MAX_NODE_VISITS:
            raise self.error(f'more than {_common.MAX_NODE_VISITS} nodes')
        node = Node(kind, self.lines.line(start), name)
        if untyped:
            node.fields['#untyped'] = True
        self.expect('{')
        if kind == 'Script':
            self.skip_body()
        else:
            self.body(node, depth)
        self.expect('}')
        if name is not None:
            self.defs[name] = node
        return node

    def skip_body(self) -> None:
        level = 1
        while level:
            c = self.peek()
            if not c:
                raise self.error("the file ends before '}'")
            if c == '"':
                self.string()
                continue
            if c == '{':
                level += 1
            elif c == '}':
                level -= 1
                if not level:
                    return
            self.pos += 1

    def body(self, node: Node, depth: int) -> None:
        while True:
            c = self.peek()
            if c == '}' or not c:
                return
            word = self.peek_word()
            if word is None:
                found = self.text[self.pos:self.pos + 20]
                raise self.error(f'expected a field name, found {found!r}')
            if word in ('DEF', 'USE') or self.after_word() == '{':
                child = self.node(depth + 1)
                if child is not _SKIP:
                    node.children.append(child)
                continue
            if word in ('ROUTE', 'IS'):
                raise UnsupportedError(self.path, self.lines.line(self.pos),
                                       f'{word} inside a node is not supported')
            self.pos += len(word)
            node.fields[word] = self.value(depth)

    # --- values -----------------------------------------------------------------------

    def value(self, depth: int):
        c = self.peek()
        if c == '[':
            self.pos += 1
            return self.bracket(depth)
        if c == '"':
            return [self.string()]
        if c == '(':
            return self.mask()
        if c and _NUMERIC_START.match(c):
            return self.numbers_inline()
        word = self.peek_word()
        if word is None:
            raise self.error(f'expected a value, found {self.text[self.pos:self.pos + 20]!r}')
        if word in ('DEF', 'USE', 'NULL') or self.after_word() == '{':
            node = self.node(depth + 1)
            return None if node is _SKIP else node
        self.pos += len(word)
        return Word(word)

    def string(self) -> str:
        m = _STRING.match(self.text, self.pos)
        if not m:
            raise self.error('a string is not closed')
        self.pos = m.end()
        return re.sub(r'\\(.)', r'\1', m.group(1))

    def mask(self) -> Word:
        end = self.text.find(')', self.pos)
        if end < 0:
            raise self.error("a bit mask '(' is not closed")
        inner = self.text[self.pos + 1:end]
        self.pos = end + 1
        return Word('|'.join(w.strip() for w in inner.split('|') if w.strip()))

    def numbers_inline(self) -> np.ndarray:
        values = []
        while True:
            self.skip()
            m = _NUMBER.match(self.text, self.pos)
            if not m:
                break
            values.append(_to_float(m.group()))
            self.pos = m.end()
        return np.array(values, dtype=float)

    def bracket(self, depth: int):
        c = self.peek()
        if c == ']':
            self.pos += 1
            return np.zeros(0)
        if _NUMERIC_START.match(c):
            return self.number_list()
        if c == '"':
            out = []
            while self.peek() == '"':
                out.append(self.string())
            self.expect(']')
            return out
        word = self.peek_word()
        if word is not None and (word in ('DEF', 'USE', 'NULL') or self.after_word() == '{'):
            nodes = [n for n in self.nodes_until(']', depth + 1) if n is not None]
            self.expect(']')
            return nodes
        words = []
        while self.peek() != ']':
            if not self.peek():
                raise self.error("the file ends before ']'")
            words.append(Word(self.word('a word')))
        self.pos += 1
        return words

    def number_list(self) -> np.ndarray:
        start = self.pos
        end = self.text.find(']', start)
        if end < 0:
            raise self.error("a list '[' is not closed")
        chunk = self.text[start:end]
        if '#' in chunk:
            chunk = _COMMENT.sub(' ', chunk)
        words = chunk.replace(',', ' ').split()
        try:
            values = np.array(words, dtype=float)
        except ValueError:
            values = self._slow_numbers(words, start)
        self.pos = end + 1
        return values

    def _slow_numbers(self, words: list[str], start: int) -> np.ndarray:
        out = []
        for w in words:
            try:
                out.append(_to_float(w))
            except ValueError:
                pos = self.text.find(w, start)
                raise self.error(f'{w[:40]!r} in a list of numbers is not a number',
                                 pos if pos >= 0 else start) from None
        return np.array(out, dtype=float)


_SKIP = Node('#skip', 0)


def _to_float(text: str) -> float:
    if 'x' in text or 'X' in text:
        return float(int(text, 16))
    return float(text)


def parse(path: str, text: str, start: int = 0) -> list[Node]:
    """Parse a whole file (from ``start``, after its header line) into its top-level nodes.

    Raises:
        ModelError: a syntax error, with its line.
        UnsupportedError: PROTO, EXTERNPROTO, IS.
    """
    # nodes_until('') returns only at the end of the text: anything else is read as a node.
    return [n for n in _Parser(path, text, start).nodes_until('', 0) if n is not None]
