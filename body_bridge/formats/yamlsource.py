"""YAML documents whose mappings and sequences remember the line they start on, and the line
of each of their values (``line_at``): errors about a scalar name its line too.

The document is built straight from the parser's events (libyaml's when PyYAML has it), with
PyYAML's safe scalar types and merge keys (``<<``), without PyYAML's intermediate node graph:
that graph costs several hundred bytes per value, so a 50 MB file of numbers took gigabytes.
Bounds: a file of at most ``MAX_BYTES``, at most ``MAX_VALUES`` values (scalars, mappings,
sequences and aliases), nested at most ``MAX_DEPTH`` deep; beyond them one ``path:line``
error. Reading costs about 2 us and 60 bytes per value: a file at the limits is read or
refused within about 5 s and 0.5 GB.

Aliases stay shared objects: an alias never copies its anchor, so loading costs what the
text costs; whoever walks the result must bound the walk (an alias bomb is a small DAG
that is huge as a tree).
"""

from __future__ import annotations

import bisect
import os
import re
from array import array

import yaml

from ..errors import ModelError
from ..fileaccess import read_regular

__all__ = ['LineDict', 'LineList', 'load_yaml', 'load_yaml_anchors', 'line_of', 'line_at',
           'kind_of', 'MAX_BYTES', 'MAX_VALUES', 'MAX_DEPTH']

#: Upper bound of the size of one YAML file [bytes].
MAX_BYTES = 64 * 1024 * 1024
#: Most values (scalars, mappings, sequences, aliases) in one YAML file. Real model files hold
#: a few thousand; an inline mesh of 200,000 vertices and faces about 1.4 million.
MAX_VALUES = 2_000_000
#: Deepest nesting of mappings and sequences.
MAX_DEPTH = 1000

try:
    from yaml._yaml import CParser as _Parser  # yaml.CParser is not exported
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml.parser import Parser as _PyParser
    from yaml.reader import Reader as _Reader
    from yaml.scanner import Scanner as _Scanner

    class _Parser(_Reader, _Scanner, _PyParser):
        def __init__(self, stream):
            _Reader.__init__(self, stream)
            _Scanner.__init__(self)
            _PyParser.__init__(self)

_MAP = 'tag:yaml.org,2002:map'
_SEQ = 'tag:yaml.org,2002:seq'
_MERGE = 'tag:yaml.org,2002:merge'
_VALUE = 'tag:yaml.org,2002:value'
_STR = 'tag:yaml.org,2002:str'
_NO_KEY = object()
#: Plain scalars that are certainly YAML 1.1 decimal integers or floats (the common case in
#: model files), converted without the resolver; anything else goes through PyYAML's rules.
_FAST_NUMBER = re.compile(r'[-+]?(?:(?P<int>0|[1-9][0-9]*)|[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?)')
_MISSING = 'cannot read file: no such file'


class LineDict(dict):
    """A dict that knows the 1-based line where it starts (``.line``) and the line of each
    key (``.lines``: key -> line)."""

    __slots__ = ('line', 'lines')


class LineList(list):
    """A list that knows the 1-based line where it starts (``.line``) and where its scalar
    items move to another line (``.marks``: two arrays, the index of each such item and its
    line, in order; None when there is none). Numbers before the list's first mapping or
    list item are left out: a list of numbers (a mesh) costs nothing more, and an error
    about one of its numbers names the list's key."""

    __slots__ = ('line', 'marks')


def line_of(obj, default: int | None = None) -> int | None:
    """The line where a loaded mapping or sequence starts, or ``default``."""
    return getattr(obj, 'line', default)


def line_at(container, key, default: int | None = None) -> int | None:
    """The line of ``container[key]`` (a key of a mapping, an index of a list): where a
    mapping's key is written, where a list's item starts; else the container's line, else
    ``default``."""
    lines = getattr(container, 'lines', None)
    if lines is not None and key in lines:
        return lines[key]
    if isinstance(container, list) and 0 <= key < len(container):
        item = line_of(container[key])
        if item is not None:
            return item
        marks = getattr(container, 'marks', None)
        if marks is not None:
            at = bisect.bisect_right(marks[0], key) - 1
            if at >= 0:
                return marks[1][at]
    return line_of(container, default)


def kind_of(value) -> str:
    """A short description of a loaded YAML value for error messages."""
    if isinstance(value, dict):
        return 'a mapping'
    if isinstance(value, list):
        return 'a list'
    if value is None:
        return 'nothing'
    return f'{type(value).__name__} {value!r}'


class _Open:
    """A mapping or sequence whose end event has not come yet."""

    __slots__ = ('value', 'is_list', 'pairs', 'merges', 'key', 'key_tag', 'key_line', 'last',
                 'mixed')

    def __init__(self, value):
        self.value = value
        self.is_list = isinstance(value, list)
        self.last = value.line  # a list: the line of its last item marked
        self.mixed = False  # a list: whether a mapping or list item came yet
        self.pairs: list = []
        self.merges: list = []
        self.key = _NO_KEY
        self.key_tag = None
        self.key_line = None


class _Builder:
    """Builds one document from parser events; knows the anchors it met."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.parser = _Parser(text)
        self.resolver = yaml.resolver.Resolver()
        self.scalars = yaml.constructor.SafeConstructor()
        self.anchors: dict[str, object] = {}
        self.count = 0
        self.value = None

    def error(self, event, message: str) -> ModelError:
        return ModelError(self.path, event.start_mark.line + 1, message)

    def document(self):
        """The single document of the stream, or None for an empty stream."""
        parser = self.parser
        parser.get_event()  # StreamStart
        if parser.check_event(yaml.StreamEndEvent):
            return None
        parser.get_event()  # DocumentStart
        value = self._node()
        parser.get_event()  # DocumentEnd
        if not parser.check_event(yaml.StreamEndEvent):
            event = parser.get_event()
            raise self.error(event, 'invalid YAML: expected a single document in the stream, '
                             'found another document')
        return value

    def _node(self):
        stack: list[_Open] = []
        get_event = self.parser.get_event
        scalar_event, end_events = yaml.ScalarEvent, (yaml.SequenceEndEvent, yaml.MappingEndEvent)
        fast = _FAST_NUMBER.fullmatch
        plain_tags: dict[str, str] = {}  # plain scalar -> resolved tag
        count = self.count
        while True:
            event = get_event()
            if isinstance(event, end_events):
                done = stack.pop()
                if isinstance(event, yaml.MappingEndEvent):
                    self._finish_mapping(done)
                value, tag, scalar = done.value, None, False
            else:
                count += 1
                if count > MAX_VALUES:
                    raise self.error(event, f'more than {MAX_VALUES} values (numbers, strings, '
                                     'lists, mappings); refused: a mesh this large belongs in '
                                     'a mesh file')
                match = tag = None
                if (event.__class__ is scalar_event and event.tag is None and event.anchor is None
                        and event.implicit[0]):
                    text = event.value
                    match = fast(text)
                    if match is None:
                        tag = plain_tags.get(text)
                        if tag is None and len(text) <= 64:  # names and keys: few, repeated
                            tag = plain_tags[text] = self.resolver.resolve(
                                yaml.ScalarNode, text, (True, False))
                if match is not None:
                    value, tag = (int(event.value) if match.group('int') is not None
                                  else float(event.value)), None
                elif tag == _STR:
                    value = event.value
                else:
                    value, tag, opened = self._value(event)
                    if opened is not None:
                        if len(stack) >= MAX_DEPTH:
                            raise self.error(event, f'YAML nesting deeper than {MAX_DEPTH} '
                                             'levels')
                        stack.append(opened)
                        continue
                scalar = True
            if not stack:
                self.count = count
                return value
            top = stack[-1]
            if top.is_list:
                items = top.value
                if not scalar:  # a collection item knows its own line
                    top.mixed = True
                elif match is None or top.mixed:  # numbers of a list of numbers: no marks
                    line = event.start_mark.line + 1
                    if line != top.last:  # on another line than the last item marked
                        top.last = line
                        marks = items.marks
                        if marks is None:
                            marks = items.marks = (array('q'), array('q'))
                        marks[0].append(len(items))
                        marks[1].append(line)
                items.append(value)
            else:
                self._attach(top, value, tag, event)

    def _value(self, event):
        """(value, resolved tag, _Open or None) of a scalar, alias or collection start."""
        if isinstance(event, yaml.AliasEvent):
            if event.anchor not in self.anchors:
                raise self.error(event, f'invalid YAML: found undefined alias {event.anchor!r}')
            return self.anchors[event.anchor], None, None
        if isinstance(event, yaml.ScalarEvent):
            tag = event.tag
            if tag is None or tag == '!':
                tag = self.resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
            value = self._scalar(event, tag)
            if event.anchor is not None:
                self.anchors[event.anchor] = value
            return value, tag, None
        is_map = isinstance(event, yaml.MappingStartEvent)
        expected = _MAP if is_map else _SEQ
        if event.tag not in (None, '!', expected):
            raise self.error(event, f'YAML tag {event.tag!r} is not supported here')
        value = LineDict() if is_map else LineList()
        value.line = event.start_mark.line + 1
        if not is_map:
            value.marks = None
        if event.anchor is not None:
            self.anchors[event.anchor] = value
        return value, expected, _Open(value)

    def _scalar(self, event, tag: str):
        if tag == _MERGE or tag == _VALUE:
            return event.value
        construct = self.scalars.yaml_constructors.get(tag)
        if construct is None or tag in (_MAP, _SEQ) or tag.endswith((':set', ':omap', ':pairs')):
            raise self.error(event, f'invalid YAML: could not determine a constructor for the '
                             f'tag {tag!r}')
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        try:
            return construct(self.scalars, node)
        except (ValueError, OverflowError) as err:
            raise self.error(event, f'invalid YAML: {tag.rsplit(":", 1)[-1]} value '
                             f'{event.value[:40]!r}: {err}') from None

    def _attach(self, top: _Open, value, tag, event) -> None:
        """A value of an open mapping: its next key, or the value of the key before."""
        if top.key is _NO_KEY:
            try:
                hash(value)
            except TypeError:
                raise self.error(event, 'invalid YAML: a mapping key must be a plain value') \
                    from None
            top.key, top.key_tag, top.key_line = value, tag, event.start_mark.line + 1
            return
        if top.key_tag == _MERGE:
            top.merges.append((value, top.key_line))
        else:
            top.pairs.append((top.key, value, top.key_line))
        top.key = _NO_KEY

    def _finish_mapping(self, done: _Open) -> None:
        """Merge keys first (the first merged mapping wins), then the mapping's own keys; each
        key keeps the line where it is written."""
        merged = []
        lines: dict = {}
        for value, line in done.merges:
            items = value if isinstance(value, list) else [value]
            for item in items:
                if not isinstance(item, dict):
                    raise ModelError(self.path, line, 'invalid YAML: expected a mapping or '
                                     'list of mappings for merging')
            for item in reversed(items):
                merged.extend(item.items())
                lines.update(getattr(item, 'lines', ()))
        target = done.value
        for key, value in merged:
            target[key] = value
        for key, value, line in done.pairs:
            target[key] = value
            lines[key] = line
        target.lines = lines


def _decode(path: str, raw: bytes) -> str:
    try:
        return raw.decode('utf-8-sig')
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b'\n') + 1
        raise ModelError(path, line, 'file is not UTF-8 text') from err


def _build(path: str, text: str) -> _Builder:
    builder = _Builder(path, text)
    try:
        builder.value = builder.document()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = err.problem or err.context or 'invalid YAML'
        raise ModelError(path, line, f'invalid YAML: {problem}') from err
    except yaml.reader.ReaderError as err:
        line = text.count('\n', 0, err.position) + 1 if err.position is not None else None
        raise ModelError(path, line, f'not YAML text: {err.reason} '
                         f'(character {err.character!r})') from err
    except yaml.YAMLError as err:
        raise ModelError(path, None, f'invalid YAML: {" ".join(str(err).split())}') from err
    finally:
        if hasattr(builder.parser, 'dispose'):
            builder.parser.dispose()
    return builder


def load_yaml(path: str | os.PathLike, text: str | None = None):
    """Load one YAML document from ``path`` (or from ``text``, reported as ``path``).

    Raises:
        ModelError: the file cannot be read, is not a regular file, is too large, or is not
            valid YAML (with its line).
    """
    path = os.fspath(path)
    if text is None:
        text = _decode(path, read_regular(path, MAX_BYTES, 'file', _MISSING))
    return _build(path, text).value


def load_yaml_anchors(path: str | os.PathLike) -> tuple[object, dict]:
    """Load a YAML document and, separately, each of its anchored values.

    Choreonoid finds a node of a YAML resource file by its anchor name.

    Returns:
        (document, anchors): ``anchors`` maps every anchor name to its value (the last
        value of that name when the file defines it twice).

    Raises:
        ModelError: the file cannot be read or is not valid YAML (with its line).
    """
    path = os.fspath(path)
    builder = _build(path, _decode(path, read_regular(path, MAX_BYTES, 'file', _MISSING)))
    return builder.value, dict(builder.anchors)
