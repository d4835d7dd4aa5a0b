"""Mesh files in: every format a supported model refers to, read into triangle meshes.

``load_mesh_file(path)`` returns all geometry of a file, one :class:`MeshPart` per material;
``load_mesh_file(path, node)`` only that of a named node (VRML/Inventor DEF name, COLLADA
node id or name, OBJ object or group, glTF node, ASCII STL solid). Formats: STL, OBJ (+MTL),
COLLADA (``.dae``), glTF 2.0 (``.gltf``, ``.glb``), VRML97 and VRML 1.0 (``.wrl``), Open
Inventor ASCII and binary (``.iv``).

Broken files raise ``ModelError`` (``path:line: message``); a format or feature this package
cannot read raises ``UnsupportedError``; what is read but ignored is reported through
``warn`` (a callable taking one ``path:line: message`` line; without it, Python's
``warnings`` module with :class:`MeshFileWarning`, attributed to the line that called
``load_mesh_file``).
"""

from __future__ import annotations

import os

from ..errors import ModelError, UnsupportedError
from . import _common
from ._common import MeshFileWarning, MeshPart, Warn, Warnings

__all__ = ['MESH_EXTENSIONS', 'MeshFileWarning', 'MeshPart', 'load_mesh_file']

#: File name endings this package reads (lower case).
MESH_EXTENSIONS: tuple[str, ...] = ('.stl', '.obj', '.dae', '.gltf', '.glb', '.wrl', '.vrml',
                                    '.iv')


def load_mesh_file(path: str | os.PathLike, node: str | None = None, *,
                   warn: Warn | None = None) -> list[MeshPart]:
    """All geometry of a mesh file (or of the named node), one part per material.

    Args:
        path: the mesh file; its ending chooses the reader (``MESH_EXTENSIONS``).
        node: a node name (VRML/Inventor DEF name, COLLADA node id or name, OBJ object or
            group, glTF node name, ASCII STL solid name), or None for the whole file.
        warn: receives one ``path:line: message`` line per thing ignored.

    Returns:
        The parts, each a triangle mesh (transforms inside the file applied; metres when the
        file states its unit, else the file's numbers) and its material.

    Raises:
        ModelError: the file is missing, broken, too large, or has no such node.
        UnsupportedError: the format (or a feature the file needs) is not supported.
    """
    return load_parts(os.fspath(path), node, Warnings(warn), ())


def load_parts(path: str, node: str | None, warn: Warnings,
               stack: tuple[str, ...]) -> list[MeshPart]:
    """``load_mesh_file`` with a shared warning sink and the chain of including files."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in MESH_EXTENSIONS:
        known = ', '.join(MESH_EXTENSIONS)
        raise UnsupportedError(path, None, f'mesh format {ext or "(no extension)"!r} is not '
                               f'supported (supported: {known})')
    data = _common.read_bytes(path)
    if ext == '.stl':
        from . import stl
        return stl.load(path, data, node, warn)
    if ext == '.obj':
        from . import obj
        return obj.load(path, data, node, warn)
    if ext in ('.wrl', '.vrml', '.iv'):
        return _scene_text(path, data, node, warn, stack)
    if ext == '.dae':
        from . import collada
        return collada.load(path, data, node, warn)
    from . import gltf
    return gltf.load(path, data, node, warn)


def _scene_text(path: str, data: bytes, node: str | None, warn: Warnings,
                stack: tuple[str, ...]) -> list[MeshPart]:
    head = data[:64].lstrip(b'\xef\xbb\xbf')
    if head.startswith(b'#Inventor') and b'binary' in head.split(b'\n')[0]:
        from . import inventor_binary
        return inventor_binary.load(path, data, node, warn, load_parts)
    if head.startswith((b'#Inventor', b'#VRML V1.0')):
        from . import inventor
        return inventor.load(path, data, node, warn, load_parts, stack)
    if head.startswith(b'#X3D') or head.lstrip().startswith(b'<'):
        raise UnsupportedError(path, 1, 'X3D files are not supported')
    if head.startswith(b'#VRML') and not head.startswith(b'#VRML V2.0'):
        raise UnsupportedError(path, 1, f'{head.splitlines()[0][:40].decode("latin-1")!r}: '
                               'only VRML V2.0 (VRML97) and V1.0 are supported')
    if os.path.splitext(path)[1].lower() == '.iv':
        raise ModelError(path, 1, 'not an Open Inventor file (no "#Inventor" header)')
    from . import vrml
    return vrml.load(path, data, node, warn, load_parts, stack)


