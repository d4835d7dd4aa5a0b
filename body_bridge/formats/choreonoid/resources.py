"""Choreonoid ``Resource`` nodes: mesh files, and nodes of Choreonoid YAML scene files.

Facts from Choreonoid's scene reader:

* ``uri`` is relative to the file that names it; ``node`` (or ``fragment``) picks one
  part: a named node of a mesh file, or the node with that *anchor* in a YAML file.
* A YAML resource (``.yaml``/``.yml``) holds body elements (Shape, Visual, Collision,
  RigidBody, devices ...), read at the Resource node as if written there; nested URIs are
  relative to the YAML file.
* The Resource node's own ``translation``, ``rotation`` and ``scale`` apply to what it
  loads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ...errors import ModelError, UnsupportedError
from ...fileaccess import file_problem
from ...meshfiles import load_mesh_file
from ...model import Material, Mesh
from .nodes import Context, Frame, Node
from ..yamlsource import load_yaml_anchors

__all__ = ['PlacedMesh', 'mesh_parts', 'yaml_resource', 'is_yaml', 'resolve_uri']

_YAML_EXTENSIONS = ('.yaml', '.yml')


@dataclass
class PlacedMesh:
    """A mesh of a resource file and where its coordinates sit in the link frame."""

    mesh: Mesh
    material: Material | None
    frame: Frame
    uri: str
    source: str


def resolve_uri(node: Node, uri: str) -> str:
    """A resource or texture URI as a file path, relative to the file that names it.

    ``file://`` URIs and plain paths are supported, and ``package://`` through
    ``ROS_PACKAGE_PATH`` as Choreonoid does.

    Raises:
        UnsupportedError: another scheme or a ``${VARIABLE}`` Choreonoid expands itself.
    """
    if '${' in uri:
        raise UnsupportedError(node.ctx.path, node.line, f'URI {uri!r} uses a Choreonoid path '
                               'variable, which only Choreonoid can expand')
    if uri.startswith('file://'):
        uri = uri[len('file://'):]
    elif uri.startswith('package://'):
        return _package_path(node, uri)
    elif '://' in uri:
        raise UnsupportedError(node.ctx.path, node.line, f'URI scheme of {uri!r} is not '
                               'supported (plain paths, file://, package://)')
    uri = os.path.expanduser(uri)
    return os.path.normpath(uri if os.path.isabs(uri) else os.path.join(node.ctx.directory, uri))


def _package_path(node: Node, uri: str) -> str:
    rest = uri[len('package://'):]
    package, _, relative = rest.partition('/')
    roots = [p for p in os.environ.get('ROS_PACKAGE_PATH', '').split(os.pathsep) if p]
    for root in roots:
        for candidate in (os.path.join(root, rest), os.path.join(root, relative)):
            if os.path.exists(candidate):
                return os.path.normpath(candidate)
    for prefix in [p for p in os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep) if p]:
        candidate = os.path.join(prefix, 'share', package, relative)
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    raise ModelError(node.ctx.path, node.line, f'{uri!r} is not found in ROS_PACKAGE_PATH or '
                     'the ament package index')


def is_yaml(uri: str) -> bool:
    return uri.lower().endswith(_YAML_EXTENSIONS)


def _uri(node: Node) -> tuple[str, str, str | None]:
    uri = node.string('uri')
    if not uri:
        raise node.error('Resource has no uri')
    fragment = node.string('node', 'fragment')
    return uri, resolve_uri(node, uri), fragment


def mesh_parts(node: Node, frame: Frame) -> list[PlacedMesh]:
    """The meshes a Resource node loads from a mesh file, placed by the node's transform.

    Raises:
        ModelError: no ``uri``, a missing or unreadable file, an unknown ``node``.
        UnsupportedError: a mesh format nobody reads here.
    """
    uri, path, fragment = _uri(node)
    if is_yaml(uri):
        raise UnsupportedError(node.ctx.path, node.line, f'{uri!r} is a YAML scene; a '
                               'geometry Resource must be a mesh file')
    _check_file(node, uri, path)
    inner = frame.of_node(node)
    cache = node.ctx.session
    key = (path, fragment)
    if key not in cache.meshes:
        cache.meshes[key] = _load_mesh_file(node, path, fragment)
    return [PlacedMesh(part.mesh, part.material, inner, uri, node.where())
            for part in cache.meshes[key]]


def _check_file(node: Node, uri: str, path: str) -> None:
    """A resource must be a regular file (never a device, FIFO or socket).

    Raises:
        ModelError: at the referring line, naming the file and what is wrong with it.
    """
    problem = file_problem(path)
    if problem is None:
        return
    if problem.startswith('no such file'):
        raise ModelError(node.ctx.path, node.line, f'resource {uri!r} does not exist ({path})')
    raise ModelError(node.ctx.path, node.line, f'resource {uri!r} ({path}) {problem}')


def _load_mesh_file(node: Node, path: str, fragment: str | None) -> list:
    try:
        parts = load_mesh_file(path, fragment, warn=node.ctx.warnings.append)
    except ModelError as err:
        # Name the line that refers to the file; the message keeps the file's own location.
        raise type(err)(node.ctx.path, node.line, f'cannot read resource: {err}') from err
    if not parts:
        raise ModelError(node.ctx.path, node.line, f'resource {path} has no mesh'
                         + (f' named {fragment!r}' if fragment else ''))
    return parts


def yaml_resource(node: Node, frame: Frame) -> tuple[object, Context, Frame, int | None]:
    """What a Resource node names in a Choreonoid YAML scene file.

    Returns:
        (elements value, context of the YAML file, frame to read them in, their line).

    Raises:
        ModelError: a missing file, invalid YAML, or no anchor of that name.
    """
    uri, path, fragment = _uri(node)
    _check_file(node, uri, path)
    cache = node.ctx.session
    if path not in cache.yaml:
        cache.yaml[path] = load_yaml_anchors(path)
    document, anchors = cache.yaml[path]
    if fragment is None:
        content = document
    elif fragment in anchors:
        content = anchors[fragment]
    else:
        raise ModelError(node.ctx.path, node.line, f'node {fragment!r} is not an anchor of '
                         f'{uri!r} (anchors: {", ".join(sorted(anchors)) or "none"})')
    if content is None:
        raise ModelError(path, None, 'the YAML resource is empty')
    return content, node.ctx.for_file(path), frame.of_node(node), getattr(content, 'line', None)
