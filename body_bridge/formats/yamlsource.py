"""YAML documents whose mappings and sequences remember the line they start on.

Aliases stay shared objects: an alias never copies its anchor, so loading costs what the
text costs; whoever walks the result must bound the walk (an alias bomb is a small DAG
that is huge as a tree).
"""

from __future__ import annotations

import os

import yaml

from ..errors import ModelError

__all__ = ['LineDict', 'LineList', 'load_yaml', 'load_yaml_anchors', 'line_of', 'MAX_BYTES']

#: Upper bound of the size of one YAML file [bytes].
MAX_BYTES = 256 * 1024 * 1024

try:
    from yaml._yaml import CParser as _Parser  # yaml.CParser is not exported
except ImportError:  # PyYAML built without libyaml
    from yaml.parser import Parser as _Parser
    from yaml.reader import Reader as _Reader
    from yaml.scanner import Scanner as _Scanner
    from yaml.composer import Composer as _Composer
else:
    _Reader = _Scanner = _Composer = None


class LineDict(dict):
    """A dict that knows the 1-based line where it starts (``.line``)."""

    __slots__ = ('line',)


class LineList(list):
    """A list that knows the 1-based line where it starts (``.line``)."""

    __slots__ = ('line',)


def line_of(obj, default: int | None = None) -> int | None:
    """The line where a loaded mapping or sequence starts, or ``default``."""
    return getattr(obj, 'line', default)


class _Constructor(yaml.constructor.SafeConstructor):
    def construct_yaml_map(self, node):
        data = LineDict()
        data.line = node.start_mark.line + 1
        yield data
        data.update(self.construct_mapping(node))

    def construct_yaml_seq(self, node):
        data = LineList()
        data.line = node.start_mark.line + 1
        yield data
        data.extend(self.construct_sequence(node))

    def construct_mapping(self, node, deep=False):
        # Plain SafeConstructor semantics (merge keys included), but a key that is not
        # hashable is the file's fault, reported with its line.
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, 'a mapping key must be a plain value', key_node.start_mark)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


_Constructor.add_constructor('tag:yaml.org,2002:map', _Constructor.construct_yaml_map)
_Constructor.add_constructor('tag:yaml.org,2002:seq', _Constructor.construct_yaml_seq)


if _Reader is None:
    class _Loader(_Parser, _Constructor, yaml.resolver.Resolver):
        def __init__(self, stream):
            _Parser.__init__(self, stream)
            _Constructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
else:  # pragma: no cover - only without libyaml
    class _Loader(_Reader, _Scanner, _Parser, _Composer, _Constructor, yaml.resolver.Resolver):
        def __init__(self, stream):
            _Reader.__init__(self, stream)
            _Scanner.__init__(self)
            _Parser.__init__(self)
            _Composer.__init__(self)
            _Constructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)


def load_yaml(path: str | os.PathLike, text: str | None = None):
    """Load one YAML document from ``path`` (or from ``text``, reported as ``path``).

    Raises:
        ModelError: the file cannot be read or is not valid YAML (with its line).
    """
    path = os.fspath(path)
    if text is None:
        try:
            if os.path.getsize(path) > MAX_BYTES:
                raise ModelError(path, None, f'file is larger than {MAX_BYTES} bytes')
            with open(path, 'rb') as f:
                raw = f.read()
        except OSError as err:
            raise ModelError(path, None, f'cannot read file: {err.strerror or err}') from err
        try:
            text = raw.decode('utf-8-sig')
        except UnicodeDecodeError as err:
            line = raw[:err.start].count(b'\n') + 1
            raise ModelError(path, line, 'file is not UTF-8 text') from err
    loader = None
    try:
        loader = _Loader(text)
        node = loader.get_single_node()
        if node is None:
            return None
        return loader.construct_document(node)
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
        raise ModelError(path, None, f'invalid YAML: {err}') from err
    except RecursionError as err:
        raise ModelError(path, None, 'YAML nesting is too deep') from err
    finally:
        if loader is not None:
            loader.dispose()


def _anchor_marks(text: str) -> dict[tuple[int, int], str]:
    """(line, column) of every anchored node -> its anchor name, from the parse events."""
    parser = _Parser(text)
    marks = {}
    try:
        while True:
            event = parser.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return marks
            anchor = getattr(event, 'anchor', None)
            if anchor is not None and not isinstance(event, yaml.AliasEvent):
                marks[(event.start_mark.line, event.start_mark.column)] = anchor
    finally:
        if hasattr(parser, 'dispose'):
            parser.dispose()


def _nodes_at(root, marks: dict) -> dict[str, object]:
    """Anchor name -> composed node, for the nodes that start where an anchor does."""
    found, stack, seen = {}, [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        name = marks.get((node.start_mark.line, node.start_mark.column))
        if name is not None:
            found[name] = node
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
    return found


def load_yaml_anchors(path: str | os.PathLike) -> tuple[object, dict]:
    """Load a YAML document and, separately, each of its anchored values.

    Choreonoid finds a node of a YAML resource file by its anchor name.

    Returns:
        (document, anchors): ``anchors`` maps every anchor name to its value.

    Raises:
        ModelError: the file cannot be read or is not valid YAML (with its line).
    """
    path = os.fspath(path)
    load_yaml(path)  # reports an unreadable or invalid file with its line
    with open(path, 'rb') as f:
        text = f.read().decode('utf-8-sig')
    marks = _anchor_marks(text)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        anchored = _nodes_at(node, marks)
        document = loader.construct_document(node)
        return document, {name: loader.construct_document(n) for name, n in anchored.items()}
    except yaml.YAMLError as err:  # the file passed load_yaml: not expected
        raise ModelError(path, None, f'invalid YAML: {err}') from err
    finally:
        loader.dispose()
