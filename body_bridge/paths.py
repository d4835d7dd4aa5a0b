"""Where the package's own files are: bundled models, the mesh cache."""

from __future__ import annotations

import os

from .errors import ModelError

__all__ = ['share_dir', 'bundled_models', 'bundled_worlds', 'files_under', 'resolve_model',
           'cache_dir']

_PACKAGE = 'body_bridge'
_SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def share_dir() -> str:
    """The package's share directory (installed), or the source tree when run from it."""
    if os.path.isdir(os.path.join(_SOURCE_ROOT, 'models')) and \
            os.path.isfile(os.path.join(_SOURCE_ROOT, 'package.xml')):
        return _SOURCE_ROOT
    try:
        from ament_index_python.packages import get_package_share_directory
        return get_package_share_directory(_PACKAGE)
    except (ImportError, LookupError, ValueError, OSError) as err:
        raise ModelError(None, None, 'cannot find the body_bridge share directory '
                         f'({err}); is the package installed?') from err


def bundled_models() -> dict[str, str]:
    """Name -> path of every model shipped in ``models/<name>/<name>.<ext>``."""
    from .formats import LOADERS
    root = os.path.join(share_dir(), 'models')
    found = {}
    if os.path.isdir(root):
        for name in sorted(os.listdir(root)):
            folder = os.path.join(root, name)
            for ext in LOADERS:
                path = os.path.join(folder, name + ext)
                if os.path.isfile(path):
                    found[name] = path
    return found


def bundled_worlds() -> dict[str, str]:
    """Name -> path of every world file shipped in ``worlds/<name>.world.yaml``."""
    root = os.path.join(share_dir(), 'worlds')
    return {os.path.basename(path)[:-len('.world.yaml')]: path
            for path in files_under(root, ('.world.yaml',))} if os.path.isdir(root) else {}


def files_under(folder: str, endings) -> list[str]:
    """The files under ``folder`` (its subfolders too, in name order) whose names end, in any
    case, with one of ``endings``.

    Raises:
        FileNotFoundError: ``folder`` is not a folder (one line naming it).
    """
    if not os.path.isdir(folder):
        raise FileNotFoundError(f'{folder}: no such folder')
    found = []
    for root, folders, files in os.walk(folder):
        folders.sort()
        found += [os.path.join(root, name) for name in sorted(files)
                  if name.lower().endswith(tuple(endings))]
    return found


def resolve_model(spec: str) -> str:
    """A model path as given, or the path of a bundled model of that name.

    Raises:
        ModelError: neither a file nor a bundled model.
    """
    if not spec:
        raise ModelError(None, None, 'no model given (parameter "model": a file or one of '
                         f'{", ".join(bundled_models()) or "the bundled models"})')
    if os.path.exists(spec):
        return spec
    models = bundled_models()
    if spec in models:
        return models[spec]
    raise ModelError(spec, None, 'no such file, and no bundled model of that name '
                     f'(bundled: {", ".join(models) or "none"})')


def cache_dir(*parts: str) -> str:
    """A directory under the user's cache (``$XDG_CACHE_HOME/body_bridge``), created."""
    base = os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache')
    path = os.path.join(base, _PACKAGE, *parts)
    os.makedirs(path, exist_ok=True)
    return path
