"""OpenRAVE XML files as a small element tree with line numbers, parsed without risk.

The parser is ``defusedxml``'s SAX reader: no entity expansion, no external entities, no DTD
fetching, so a hostile file cannot blow up memory or read other files. Bounds: a file of at
most ``MAX_BYTES``, elements nested at most ``MAX_DEPTH`` deep (the readers walk the tree
recursively). Tag and attribute names
are lower-cased (OpenRAVE matches them case-insensitively); their values are kept as written.
Every element remembers its file and line for ``path:line: message`` errors and warnings.
"""

from __future__ import annotations

import os
import xml.sax
from dataclasses import dataclass, field

import numpy as np
from defusedxml import DefusedXmlException
from defusedxml.sax import parseString as _sax_parse_string

from ...errors import ModelError, where
from ...fileaccess import read_regular

__all__ = ['Element', 'parse_file', 'parse_bytes', 'root_tag', 'MAX_BYTES', 'MAX_DEPTH']

#: Largest OpenRAVE XML file read [bytes].
MAX_BYTES = 64 * 1024 * 1024
#: Deepest nesting of elements (real files nest fewer than 10 deep).
MAX_DEPTH = 100


@dataclass(eq=False)
class Element:
    """One XML element: lower-case tag and attribute names, its own text, its children.

    ``used`` records the child tags and attributes a reader consumed, so that the rest can be
    reported as ignored.
    """

    tag: str
    attrs: dict[str, str]
    path: str
    line: int
    children: list[Element] = field(default_factory=list)
    text: str = ''
    used: set[str] = field(default_factory=set)

    # --- locations ----------------------------------------------------------------------

    def where(self) -> str:
        return where(self.path, self.line)

    def error(self, message: str) -> ModelError:
        return ModelError(self.path, self.line, message)

    # --- attributes -----------------------------------------------------------------------

    def attr(self, name: str, default: str | None = None) -> str | None:
        self.used.add('@' + name)
        return self.attrs.get(name, default)

    def flag(self, name: str, default: bool) -> bool:
        """An OpenRAVE boolean attribute: "false" or "0" is false, anything else true."""
        value = self.attr(name)
        if value is None:
            return default
        return not (value.strip().lower() == 'false' or value.strip() == '0')

    # --- text -----------------------------------------------------------------------------

    def words(self) -> list[str]:
        return self.text.split()

    def numbers(self, count: int | None = None, at_least: int | None = None) -> np.ndarray:
        """The element's text as floats; exactly ``count`` or at least ``at_least`` of them."""
        words = self.words()
        try:
            values = np.array([float(w) for w in words], dtype=float)
        except ValueError:
            raise self.error(f'<{self.tag}> must hold numbers, found {self.text.strip()!r}') \
                from None
        if not np.all(np.isfinite(values)):
            raise self.error(f'<{self.tag}> holds a number that is not finite')
        if count is not None and len(values) != count:
            raise self.error(f'<{self.tag}> must hold {count} numbers, found {len(values)}')
        if at_least is not None and len(values) < at_least:
            raise self.error(f'<{self.tag}> must hold at least {at_least} numbers, '
                             f'found {len(values)}')
        return values

    def number(self) -> float:
        return float(self.numbers(1)[0])

    def word(self) -> str:
        words = self.words()
        if len(words) != 1:
            raise self.error(f'<{self.tag}> must hold one name, found {self.text.strip()!r}')
        return words[0]


class _Builder(xml.sax.handler.ContentHandler):
    def __init__(self, path: str):
        super().__init__()
        self.path = path
        self.stack: list[Element] = []
        self.root: Element | None = None
        self._locator = None
        self._text: list[list[str]] = []

    def setDocumentLocator(self, locator):  # noqa: N802 (SAX API)
        self._locator = locator

    def _line(self) -> int:
        return self._locator.getLineNumber() if self._locator is not None else 0

    def startElement(self, name, attrs):  # noqa: N802 (SAX API)
        if len(self.stack) >= MAX_DEPTH:
            raise ModelError(self.path, self._line(), f'elements are nested deeper than '
                             f'{MAX_DEPTH} levels')
        element = Element(name.lower(), {k.lower(): v for k, v in attrs.items()},
                          self.path, self._line())
        if self.stack:
            self.stack[-1].children.append(element)
        else:
            self.root = element
        self.stack.append(element)
        self._text.append([])

    def endElement(self, name):  # noqa: N802 (SAX API)
        element = self.stack.pop()
        element.text = ''.join(self._text.pop())

    def characters(self, content):
        if self._text:
            self._text[-1].append(content)


def parse_file(path: str | os.PathLike) -> Element:
    """Parse one XML file into an :class:`Element` tree.

    Raises:
        ModelError: the file cannot be read, is not well-formed XML, or uses entities or a DTD
            with entity declarations (refused for safety).
    """
    path = os.fspath(path)
    data = read_regular(path, MAX_BYTES, 'file', 'cannot read the file: no such file')
    return parse_bytes(data, path)


def _refusal(err: DefusedXmlException) -> str:
    """What defusedxml refused, in words (its own text is a Python repr)."""
    name = getattr(err, 'name', None)
    external = getattr(err, 'sysid', None)
    if name is not None and type(err).__name__ == 'EntitiesForbidden':
        return f'the file declares the entity {name!r}' + (
            f' from {external!r}' if external else '')
    if external is not None:
        return f'the file refers to the external resource {external!r}'
    if name is not None:
        return f'the file declares the document type {name!r}'
    return 'the file uses what a safe parser does not allow'


def parse_bytes(data: bytes, path: str) -> Element:
    """Parse an XML document held in memory (``path`` names it in messages).

    Raises:
        ModelError: as :func:`parse_file`.
    """
    builder = _Builder(path)
    try:
        _sax_parse_string(data, builder, forbid_dtd=False, forbid_entities=True,
                          forbid_external=True)
    except xml.sax.SAXParseException as err:
        raise ModelError(path, err.getLineNumber(), f'not well-formed XML: {err.getMessage()}') \
            from None
    except DefusedXmlException as err:
        line = builder._line() or None
        raise ModelError(path, line, f'refused: {_refusal(err)} (entities and external '
                         'references are not allowed)') from None
    except (LookupError, UnicodeError, ValueError) as err:  # an encoding Python lacks, ...
        line = builder._line() or 1
        raise ModelError(path, line, f'not readable XML: {" ".join(str(err).split())[:200]}') \
            from None
    if builder.root is None:
        raise ModelError(path, 1, 'the file has no XML element')
    return builder.root


def root_tag(path: str | os.PathLike) -> tuple[str, int]:
    """The lower-case tag and line of a file's root element (parses the whole file)."""
    root = parse_file(path)
    return root.tag, root.line

