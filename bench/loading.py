"""Loading: parse + convert + URDF of real models, against the floor of the same work.

The bridge side is ``load_model(path)`` then ``to_urdf(model)`` (shapes URDF lacks written as
STL files into a scratch folder), what the node does before it can publish anything. The
floor is a plain parse of the same model files: YAML (``.body``, ``.yaml``) with PyYAML's C
loader, XML with the standard library's ElementTree; the files are the ones the loader opens
(found with an audit hook on a first load), mesh files aside, as no plain parser exists for
them. The time spent reading meshes (``body_bridge.meshfiles``) is reported on its own.
Warm: a first load is not timed; the two sides then alternate (medians).
"""

from __future__ import annotations

import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import yaml
from chains import model_path, real_models
from figures import side_by_side, timed

__all__ = ['run', 'files_read']

_YAML = ('.body', '.yaml', '.yml')
_XML = ('.xml',)
_MESH_USERS = ('body_bridge.formats.openrave.geom', 'body_bridge.formats.choreonoid.resources',
               'body_bridge.meshfiles')


def files_read(action) -> list[str]:
    """The files ``action()`` opens for reading, in order, each once."""
    seen: list[str] = []
    active = [True]

    def hook(event, args):
        if active[0] and event == 'open' and isinstance(args[0], str) and \
                (args[1] is None or 'r' in str(args[1])) and args[0] not in seen:
            seen.append(args[0])
    sys.addaudithook(hook)  # hooks cannot be removed: this one is switched off instead
    try:
        action()
    finally:
        active[0] = False
    return seen


def _floor(files: list[str]) -> None:
    for path in files:
        if path.endswith(_XML):
            ElementTree.parse(path)
        else:
            with open(path, 'rb') as stream:
                yaml.load(stream, Loader=yaml.CSafeLoader)


class _MeshClock:
    """Time spent in ``load_mesh_file`` (wrapped where the loaders call it)."""

    def __init__(self):
        self.seconds = 0.0
        self._saved = []
        for name in _MESH_USERS:
            module = sys.modules.get(name)
            original = getattr(module, 'load_mesh_file', None)
            if original is not None:
                self._saved.append((module, original))
                module.load_mesh_file = self._wrap(original)

    def _wrap(self, original):
        def load_mesh_file(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
        return load_mesh_file

    def close(self) -> None:
        for module, original in self._saved:
            module.load_mesh_file = original


def measure(figures, name: str, path: Path, repeats: int, scratch: Path) -> None:
    import body_bridge.meshfiles  # noqa: F401 (so that the mesh clock can wrap it)
    from body_bridge.formats import load_model
    from body_bridge.urdf import to_urdf
    mesh_dir = scratch / f'load_{name}'

    def bridge():
        to_urdf(load_model(path), mesh_dir=str(mesh_dir))

    files = [f for f in files_read(bridge) if f.endswith(_YAML + _XML)]
    meshes = _MeshClock()
    try:
        loads = [0]

        def counted():
            loads[0] += 1
            bridge()
        costs = side_by_side({'bridge': lambda: timed(counted),
                              'floor': lambda: timed(lambda: _floor(files))}, repeats)
    finally:
        meshes.close()
    total, floor = costs['bridge'].wall, costs['floor'].wall
    mesh = meshes.seconds / loads[0]
    figures.add(f'load_{name}_time', 1e3 * total, 'ms')
    figures.add(f'load_{name}_floor', 1e3 * floor, 'ms')
    figures.add(f'load_{name}_ratio', total / floor, 'x')
    figures.add(f'load_{name}_model_files', len(files), 'count')
    figures.add(f'load_{name}_mesh_time', 1e3 * mesh, 'ms')
    figures.add(f'load_{name}_ratio_without_meshes', max(total - mesh, 0.0) / floor, 'x')


def run(figures, quick: bool, scratch: Path) -> None:
    repeats = 3 if quick else 15
    for name in real_models():
        measure(figures, name, model_path(name), repeats, scratch)
