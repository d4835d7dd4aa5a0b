"""One OpenRAVE load's state: warnings, the include chain, and OpenRAVE's file search."""

from __future__ import annotations

import os

from ...errors import where
from ...fileaccess import file_problem
from .xmlfile import Element, parse_file

__all__ = ['Context', 'COLLADA']

#: File endings of COLLADA robots and bodies.
COLLADA = ('.zae', '.dae')
#: Deepest chain of ``file=`` includes.
_MAX_DEPTH = 32


def _ancestors(folder: str) -> list[str]:
    out = []
    folder = os.path.abspath(folder)
    while True:
        out.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return out
        folder = parent


def _candidate(path: str) -> bool:
    """Whether a file search stops at ``path``: it exists and is not a folder."""
    return os.path.exists(path) and not os.path.isdir(path)


class Context:
    """Per-load state: warnings, the include chain (cycles), where files are looked for."""

    def __init__(self, path: str):
        self.path = path
        self.warnings: list[str] = []
        self.chain: list[str] = []
        roots = [d for d in os.environ.get('OPENRAVE_DATA', '').split(os.pathsep) if d]
        # An OpenRAVE data tree keeps robots/, data/ and models/ side by side: the folders
        # above the file stand in for the data directory OpenRAVE is installed with.
        self.data_dirs = roots + _ancestors(os.path.dirname(os.path.abspath(path)))

    def warn(self, element: Element | None, message: str) -> None:
        loc = where(self.path) if element is None else element.where()
        self.warnings.append(f'{loc}: {message}')

    def find(self, name: str, folder: str) -> str | None:
        """OpenRAVE's file search: ``folder``, then each data directory.

        Folders are passed over; a device, FIFO or socket of that name is returned (the caller
        reports it with ``file_problem`` instead of reading it).
        """
        name = os.path.expanduser(name.strip())
        if not name or '\0' in name:
            return None
        if os.path.isabs(name):
            return name if _candidate(name) else None
        for base in (folder, *self.data_dirs, *_ancestors(folder)):
            candidate = os.path.normpath(os.path.join(base, name))
            if _candidate(candidate):
                return candidate
        return None

    def include(self, element: Element, name: str, expected: tuple[str, ...]) -> Element:
        """Parse a ``file=`` include; its root element must be one of ``expected``.

        Raises:
            ModelError: a missing file, an include cycle, an unexpected root element.
        """
        root = parse_file(self.locate(element, name))
        if root.tag not in expected:
            raise root.error(f'expected <{"> or <".join(expected)}> as the root element of an '
                             f'included file, found <{root.tag}>')
        return root

    def locate(self, element: Element, name: str) -> str:
        """The file a ``file=`` include names, checked (exists, regular, no cycle, depth).

        Raises:
            ModelError: a missing file, an include cycle, includes nested too deep.
        """
        path = self.find(name, os.path.dirname(element.path))
        if path is None:
            raise element.error(f'file {name.strip()!r} not found (looked beside the file, '
                                'in $OPENRAVE_DATA and in the folders above)')
        problem = file_problem(path)
        if problem is not None:
            raise element.error(f'file {name.strip()!r} ({path}) {problem}')
        real = os.path.realpath(path)
        if real in self.chain:
            raise element.error(f'file {name.strip()!r} includes itself (through '
                                f'{" -> ".join(os.path.basename(p) for p in self.chain)})')
        if len(self.chain) > _MAX_DEPTH:
            raise element.error(f'files are included deeper than {_MAX_DEPTH} levels')
        return path
