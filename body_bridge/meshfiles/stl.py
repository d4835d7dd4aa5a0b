"""STL, binary and ASCII.

Binary: an 80-byte header, a little-endian uint32 triangle count and 50 bytes per triangle;
the count must agree with the file length. ASCII: ``solid name`` blocks of facets. STL has
no unit and no colour (the caller scales and colours); identical corners are welded.
"""

from __future__ import annotations

import re
import struct

import numpy as np

from ..errors import ModelError
from . import _common
from ._common import Budget, LineIndex, Parts, Warnings
from ._polygons import triangulate

_RECORD = np.dtype([('normal', '<f4', 3), ('v', '<f4', (3, 3)), ('attr', '<u2')])


def load(path: str, data: bytes, node: str | None, warn: Warnings) -> list[_common.MeshPart]:
    """Read an STL file (``node`` names an ASCII ``solid``)."""
    budget = Budget(path)
    parts = Parts(path, node, budget)
    if len(data) >= 84:
        count = struct.unpack_from('<I', data, 80)[0]
        expected = 84 + 50 * count
        if len(data) == expected or not _looks_ascii(data):
            _binary(path, data, count, expected, node, parts, warn)
            return parts.result()
    if not _looks_ascii(data):
        raise ModelError(path, None,
                         f'binary STL shorter than its 84-byte header ({len(data)} bytes)')
    _ascii(path, _common.decode_text(data, path), node, parts)
    return parts.result()


#: An ASCII file's first word, after any blank space.
_SOLID = re.compile(rb'\s*solid', re.IGNORECASE)


def _looks_ascii(data: bytes) -> bool:
    """Whether the file starts (after blank space) with ``solid``, has no NUL byte in its
    first 512 and a ``facet`` or ``endsolid`` in its first 4096 after that word."""
    start = _SOLID.match(data)
    if start is None:
        return False
    first = start.end() - 5
    return b'\x00' not in data[:512] and \
        (b'facet' in data[first:first + 4096] or b'endsolid' in data[first:first + 4096])


def _binary(path: str, data: bytes, count: int, expected: int, node: str | None,
            parts: Parts, warn: Warnings) -> None:
    if node is not None:
        raise ModelError(path, None, f'node {node!r}: a binary STL file has no named parts')
    available = (len(data) - 84) // 50
    if count > available:
        raise ModelError(path, None, f'binary STL header states {count} triangles '
                         f'({expected} bytes) but the file has {len(data)} bytes')
    if len(data) > expected:
        warn(path, None, f'{len(data) - expected} bytes after the last of the {count} '
             'triangles the header states were ignored')
    records = np.frombuffer(data, dtype=_RECORD, count=count, offset=84)
    corners = records['v'].astype(float).reshape(-1, 3)
    _add_soup(path, corners, parts, None)


def _add_soup(path: str, corners: np.ndarray, parts: Parts, line: int | None) -> None:
    """Add a triangle soup (3 corners per triangle), welding identical corners."""
    _common.check_finite(path, line, 'vertex coordinates', corners)
    vertices, inverse = np.unique(corners, axis=0, return_inverse=True)
    faces = inverse.reshape(-1, 3)
    parts.add(vertices, faces, None, line)


_TOKEN = re.compile(r'\S+')


class _Tokens:
    """Whitespace-separated words of a text, read one at a time with one word of look-ahead."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.lines = LineIndex(text)
        self._it = _TOKEN.finditer(text)
        self.pos = len(text)
        self.word: str | None = None
        self._next()

    def _next(self) -> None:
        m = next(self._it, None)
        self.word, self.pos = (m.group(), m.start()) if m else (None, len(self.text))

    def peek(self) -> str | None:
        return None if self.word is None else self.word.lower()

    def take(self) -> str:
        if self.word is None:
            raise self.error('the file ends early')
        word = self.word
        self._next()
        return word

    def expect(self, word: str) -> None:
        if self.peek() != word:
            found = 'the end of the file' if self.word is None else repr(self.word[:40])
            raise self.error(f'expected {word!r}, found {found}')
        self._next()

    def number(self) -> float:
        pos = self.pos
        word = self.take()
        try:
            return float(word)
        except ValueError:
            raise ModelError(self.path, self.lines.line(pos),
                             f'ASCII STL: {word[:40]!r} is not a number') from None

    def error(self, message: str) -> ModelError:
        return ModelError(self.path, self.lines.line(self.pos), f'ASCII STL: {message}')


def _ascii(path: str, text: str, node: str | None, parts: Parts) -> None:
    tok = _Tokens(path, text)
    found: list[str] = []
    while tok.peek() is not None:
        tok.expect('solid')
        start_line = tok.lines.line(tok.pos)
        name_words = []
        while tok.peek() not in (None, 'facet', 'endsolid'):
            name_words.append(tok.take())
        name = ' '.join(name_words)
        found.append(name)
        corners: list[float] = []
        counts: list[int] = []
        while tok.peek() == 'facet':
            tok.take()
            tok.expect('normal')
            for _ in range(3):
                tok.number()
            tok.expect('outer')
            tok.expect('loop')
            k = 0
            while tok.peek() == 'vertex':
                tok.take()
                corners.extend((tok.number(), tok.number(), tok.number()))
                k += 1
            tok.expect('endloop')
            tok.expect('endfacet')
            counts.append(k)
            if len(corners) > 3 * _common.MAX_VERTICES:
                raise tok.error(f'more than {_common.MAX_VERTICES} vertices')
        tok.expect('endsolid')
        while tok.peek() not in (None, 'solid'):
            tok.take()  # the name repeated after endsolid
        if node is not None and name != node:
            continue
        _add_solid(path, np.array(corners).reshape(-1, 3), np.array(counts, dtype=np.int64),
                   parts, start_line)
    if node is not None and not parts:
        raise ModelError(path, None, f'no solid named {node!r} (solids: '
                         f'{", ".join(repr(s) for s in found[:10])})')


def _add_solid(path: str, corners: np.ndarray, counts: np.ndarray, parts: Parts,
               line: int) -> None:
    if not len(counts):
        return
    if (counts == 3).all():
        _add_soup(path, corners, parts, line)
        return
    faces, _ = triangulate(corners, np.arange(len(corners)), counts)
    parts.add(corners, faces, None, line)
