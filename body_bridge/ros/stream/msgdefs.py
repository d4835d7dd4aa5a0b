"""Complete message definitions (``ros2msg``), as rosbag2 stores them in a bag's schemas.

A complete definition is the type's ``.msg`` text, followed by the text of every message type
its fields use, recursively, each once and after a two-line delimiter: 80 ``=`` and
``MSG: <type>`` (rosbag2's ``docs/message_definition_encoding.md``), the type named as the
field names it (``std_msgs/Header``; a type of the same package, which the field names
without one, gets its package), as rosbag2's recorder writes it and Foxglove's parser
expects. The ``.msg`` files are those the installed interface packages ship in
``<prefix>/share/<pkg>/msg/``, the same files rosbag2 reads; the prefix is the one the package's Python module is installed under
(``<prefix>/lib/pythonX.Y/site-packages/<pkg>``: a ROS installation, a workspace, or the wheel
environment, which sets no ament index path).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re

__all__ = ['definition', 'dependencies', 'service_definitions', 'DefinitionError',
           'DELIMITER']

#: Precedes each dependency's definition (then ``MSG: pkg/msg/Type``).
DELIMITER = '=' * 80

_PRIMITIVES = {'bool', 'byte', 'char', 'float32', 'float64', 'int8', 'uint8', 'int16',
               'uint16', 'int32', 'uint32', 'int64', 'uint64', 'string', 'wstring'}
_BOUND = re.compile(r'(\[[^\]]*\]|<=\d+)+$')


class DefinitionError(LookupError):
    """A message type whose ``.msg`` file is not installed."""


@functools.lru_cache(maxsize=None)
def _text(type_name: str) -> str:
    """The text of ``pkg/msg/Type`` (a ``.msg`` file), or of the request or response part of
    ``pkg/srv/Type_Request`` / ``_Response`` (of the ``.srv`` file)."""
    parts = type_name.split('/')
    package, kind, name = (parts[0], 'msg', parts[1]) if len(parts) == 2 else parts
    if kind == 'srv':
        base, _, part = name.rpartition('_')
        lines = _file(package, 'srv', base).splitlines(keepends=True)
        cut = next((i for i, line in enumerate(lines) if line.strip() == '---'), len(lines))
        return ''.join(lines[:cut] if part == 'Request' else lines[cut + 1:])
    return _file(package, 'msg', name)


def _file(package: str, kind: str, name: str) -> str:
    """The text of ``<prefix>/share/<package>/<kind>/<name>.<kind>``."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise DefinitionError(f'{package}/{kind}/{name}: package {package} is not installed')
    module_dir = list(spec.submodule_search_locations)[0]
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(module_dir))))
    path = os.path.join(prefix, 'share', package, kind, f'{name}.{kind}')
    try:
        with open(path, encoding='utf-8') as f:
            return f.read()
    except OSError as err:
        raise DefinitionError(f'{package}/{kind}/{name}: {path} cannot be read '
                              f'({err.strerror})') from err


def _field_types(type_name: str) -> list[str]:
    """The message types of a type's fields as the fields name them (``pkg/Type``, or
    ``pkg/msg/Type`` where a field says so), in order, each once."""
    package = type_name.split('/')[0]
    out = []
    for line in _text(type_name).splitlines():
        words = line.split('#', 1)[0].split()
        if len(words) < 2:
            continue
        base = _BOUND.sub('', words[0])
        if base in _PRIMITIVES or '=' in words[1] or (len(words) > 2 and words[2] == '='):
            continue  # a primitive field, or a constant
        full = base if '/' in base else f'{package}/{base}'
        if full not in out:
            out.append(full)
    return out


def _canonical(name: str) -> str:
    parts = name.split('/')
    return f'{parts[0]}/msg/{parts[1]}' if len(parts) == 2 else name


def dependencies(type_name: str) -> list[str]:
    """Every message type a type uses, recursively, depth first, each once (a type named
    both ``pkg/Type`` and ``pkg/msg/Type`` once, as it was named first)."""
    seen: list[str] = []
    known: set[str] = set()

    def visit(name: str) -> None:
        for dep in _field_types(name):
            if _canonical(dep) not in known:
                known.add(_canonical(dep))
                seen.append(dep)
                visit(dep)
    visit(type_name)
    return seen


def definition(type_name: str) -> str:
    """The complete ``ros2msg`` definition of ``pkg/msg/Type``.

    Raises:
        DefinitionError: the type or one it uses is not installed.
    """
    parts = [_text(type_name).rstrip('\n')]
    for dep in dependencies(type_name):
        parts.append(f'{DELIMITER}\nMSG: {dep}\n{_text(dep).rstrip(chr(10))}')
    return '\n'.join(parts) + '\n'


def service_definitions(type_name: str) -> tuple[str, str]:
    """The complete ``ros2msg`` definitions of the request and the response of
    ``pkg/srv/Type``.

    Raises:
        DefinitionError: the type or one it uses is not installed.
    """
    return definition(f'{type_name}_Request'), definition(f'{type_name}_Response')
