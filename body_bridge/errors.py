"""The project's errors: each names the file, the line and what is wrong."""

from __future__ import annotations

import os

__all__ = ['BodyBridgeError', 'ModelError', 'UnsupportedError', 'CommandError', 'ParameterError',
           'where']


def where(path: str | os.PathLike | None, line: int | None = None) -> str:
    """Format a source location as ``path:line`` (or just ``path``)."""
    if path is None:
        return '<model>'
    if line is None:
        return str(path)
    return f'{path}:{line}'


def _printable(text: str) -> str:
    """Control characters (a NUL or an escape sequence in a hostile file name) escaped, so
    that the message stays one harmless line."""
    if text.isprintable():
        return text
    return ''.join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


class BodyBridgeError(Exception):
    """Base class of every error the project raises on purpose."""


class ModelError(BodyBridgeError):
    """A model file that cannot be loaded or converted.

    Attributes:
        path: the file at fault (None when the fault is not in a file).
        line: 1-based line in that file, or None.
        message: what is wrong, in one line.
    """

    def __init__(self, path: str | os.PathLike | None, line: int | None, message: str):
        self.path = None if path is None else str(path)
        self.line = line
        self.message = _printable(' '.join(str(message).split()))
        super().__init__(f'{_printable(where(self.path, self.line))}: {self.message}')


class UnsupportedError(ModelError):
    """A file that is well formed but uses something the project does not support."""


class CommandError(BodyBridgeError):
    """A command (topic message or service request) that was rejected."""


class ParameterError(BodyBridgeError):
    """A node parameter with a value the bridge cannot use.

    Attributes:
        name: the parameter's full name (for example ``controllers.arm.joints``).
        message: what is wrong, in one line.
    """

    def __init__(self, name: str, message: str):
        self.name = name
        self.message = ' '.join(str(message).split())
        super().__init__(f'parameter {name}: {self.message}')
