"""World files (``*.world.yaml``): the models a world holds, where they start, the world's
settings and its named poses (docs/simulator-api.md, "World files").

    world: two_arms                   # its name (default: the file name up to its first dot)
    description: two arms face to face
    tags: [demo]
    settings: {control_rate: 100}     # world-wide parameters (WORLD_SETTINGS)
    models:
      - name: left                    # entity name (default: the model file's name)
        file: sample_arm              # relative to this file, or a bundled model's name
        pose: [0, -0.4, 0, 0, 0, 0]   # x y z roll pitch yaw [m, rad] (or x y z)
      - {name: right, file: ../models/sample_arm/sample_arm.body, pose: [0, 0.4, 0]}
    named_poses:
      - name: table_left
        description: beside the left arm
        tags: [spawn]
        pose: [0.5, -0.4, 0.1]
        bounds: {box: [[-0.1, -0.1, 0], [0.1, 0.1, 0.2]]}   # or {sphere: 0.2}

Every error is one line ``path:line: message``. Keys the format does not know are collected
in :attr:`WorldFile.unsupported` (the caller ignores them with a warning, or refuses the file).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from ...errors import ModelError
from ...formats.yamlsource import kind_of, line_of, load_yaml
from ...model import Pose
from ...paths import bundled_models

__all__ = ['WorldFile', 'WorldModel', 'NamedPose', 'read_world', 'read_named_poses',
           'is_world_file', 'WORLD_SUFFIX', 'WORLD_SETTINGS']

#: The ending of a world file's name.
WORLD_SUFFIX = '.world.yaml'
#: World-wide settings a world file may give: name -> check of its value (None: good).
WORLD_SETTINGS = {
    'timestep': lambda v: None if _number(v) and 0 < v <= 1 else 'a time step in (0, 1] s',
    'control_rate': lambda v: None if _number(v) and v > 0 else 'a positive rate [Hz]',
    'real_time_factor': lambda v: None if _number(v) and v >= 0 else 'a number >= 0',
    'ground_plane': lambda v: None if v in ('auto', 'on', 'off') else 'one of auto, on, off',
    'on_divergence': lambda v: None if v in ('reset', 'pause') else 'one of reset, pause',
}
_NAME = re.compile(r'[A-Za-z][A-Za-z0-9_]*$')
_TOP = ('world', 'description', 'tags', 'settings', 'models', 'named_poses')
_MODEL = ('name', 'file', 'pose', 'description', 'tags')
_POSE = ('name', 'pose', 'description', 'tags', 'bounds')


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def is_world_file(spec: str) -> bool:
    """Whether a model argument names a world file (by its ending)."""
    return spec.lower().endswith(WORLD_SUFFIX)


@dataclass(frozen=True)
class WorldModel:
    """One model of a world: its entity name, its file, where it starts (world frame)."""

    name: str
    path: str
    pose: Pose = field(default_factory=Pose)
    description: str = ''
    tags: tuple[str, ...] = ()
    line: int | None = None


@dataclass(frozen=True)
class NamedPose:
    """A place in the world (for spawning, a goal...): its pose in the world frame, and
    optionally its bounds in its own frame: ``('box', lower, upper)`` or ``('sphere',
    centre, radius)`` (None: unbounded)."""

    name: str
    pose: Pose
    description: str = ''
    tags: tuple[str, ...] = ()
    bounds: tuple | None = None


@dataclass(frozen=True)
class WorldFile:
    """A world as its file gives it."""

    name: str
    path: str
    description: str = ''
    tags: tuple[str, ...] = ()
    models: tuple[WorldModel, ...] = ()
    settings: dict = field(default_factory=dict)
    named_poses: tuple[NamedPose, ...] = ()
    #: One line per key the format does not know (``path:line: ...``).
    unsupported: tuple[str, ...] = ()


class _Reader:
    def __init__(self, path: str):
        self.path = path
        #: (line, message) of each key the format does not know.
        self.unknown: list[tuple[int | None, str]] = []

    def fail(self, where, message: str) -> ModelError:
        return ModelError(self.path, line_of(where), message)

    def mapping(self, value, what: str, known, parent=None) -> dict:
        if not isinstance(value, dict):
            raise self.fail(value if isinstance(value, list) else parent,
                            f'{what} must be a mapping, not {kind_of(value)}')
        self.unknown += [(line_of(value), f'{what}: unknown key {key!r} (known: '
                          f'{", ".join(known)})') for key in value if key not in known]
        return value

    def text(self, data: dict, key: str, what: str) -> str:
        value = data.get(key, '')
        if not isinstance(value, str):
            raise self.fail(data, f'{what}.{key} must be text, not {kind_of(value)}')
        return value

    def tags(self, data: dict, what: str) -> tuple[str, ...]:
        value = data.get('tags', [])
        if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
            raise self.fail(data, f'{what}.tags must be a list of words, not {kind_of(value)}')
        return tuple(value)

    def name(self, data: dict, what: str, fallback: str | None, taken: set) -> str:
        name = data.get('name', fallback)
        if not isinstance(name, str) or not _NAME.match(name):
            raise self.fail(data, f'{what}.name: {name!r} is not a name (a letter, then '
                            'letters, digits, underscores)')
        if name in taken:
            raise self.fail(data, f'{what}.name: {name!r} is given twice')
        taken.add(name)
        return name

    def pose(self, data: dict, what: str) -> Pose:
        value = data.get('pose', [0.0] * 6)
        if not isinstance(value, list) or len(value) not in (3, 6) or \
                not all(_number(v) for v in value):
            raise self.fail(data, f'{what}.pose must be [x, y, z] or [x, y, z, roll, pitch, '
                            f'yaw] (m, rad), not {value!r}')
        return Pose.from_rpy([float(v) for v in value[3:]] or [0.0] * 3,
                             pos=[float(v) for v in value[:3]])

    def point(self, value, where, what: str) -> np.ndarray:
        if not isinstance(value, list) or len(value) != 3 or not all(_number(v) for v in value):
            raise self.fail(where, f'{what} must be a point [x, y, z], not {value!r}')
        return np.array(value, dtype=float)

    def bounds(self, data: dict, what: str):
        if 'bounds' not in data:
            return None
        value = data['bounds']
        if not isinstance(value, dict) or list(value) not in (['box'], ['sphere']):
            raise self.fail(data, f'{what}.bounds must be {{box: [[x, y, z], [x, y, z]]}} or '
                            f'{{sphere: radius}} (or {{sphere: [radius, [x, y, z]]}}), not '
                            f'{value!r}')
        if 'box' in value:
            corners = value['box']
            if not isinstance(corners, list) or len(corners) != 2:
                raise self.fail(data, f'{what}.bounds.box must be two corners, not {corners!r}')
            a, b = (self.point(c, data, f'{what}.bounds.box corner') for c in corners)
            if np.any(a == b):
                raise self.fail(data, f'{what}.bounds.box has no volume: {corners!r}')
            return 'box', np.minimum(a, b), np.maximum(a, b)
        sphere = value['sphere']
        radius, centre = (sphere, [0, 0, 0]) if not isinstance(sphere, list) or \
            len(sphere) != 2 else sphere
        if not _number(radius) or radius <= 0:
            raise self.fail(data, f'{what}.bounds.sphere: the radius must be a positive '
                            f'number [m], not {radius!r}')
        return 'sphere', self.point(centre, data, f'{what}.bounds.sphere centre'), \
            float(radius)

    def named_pose(self, data, what: str, taken: set, parent=None) -> NamedPose:
        data = self.mapping(data, what, _POSE, parent)
        return NamedPose(self.name(data, what, None, taken), self.pose(data, what),
                         self.text(data, 'description', what), self.tags(data, what),
                         self.bounds(data, what))

    def model(self, data, what: str, folder: str, taken: set, parent=None) -> WorldModel:
        data = self.mapping(data, what, _MODEL, parent)
        spec = data.get('file')
        if not isinstance(spec, str) or not spec:
            raise self.fail(data, f'{what}.file: a model file or a bundled model\'s name is '
                            f'needed, not {kind_of(spec)}')
        path = os.path.join(folder, spec)
        if not os.path.exists(path):
            path = bundled_models().get(spec, path)
        fallback = re.sub(r'[^A-Za-z0-9_]', '_', os.path.basename(spec).split('.')[0])
        fallback = fallback if _NAME.match(fallback) else f'model_{fallback}'
        return WorldModel(self.name(data, what, fallback, taken), path, self.pose(data, what),
                          self.text(data, 'description', what), self.tags(data, what),
                          line_of(data))

    def settings(self, top: dict) -> dict:
        value = top.get('settings', {})
        data = self.mapping(value, 'settings', tuple(WORLD_SETTINGS), top)
        out = {}
        for key, check in WORLD_SETTINGS.items():
            if key in data:
                problem = check(data[key])
                if problem is not None:
                    raise self.fail(data, f'settings.{key}: {data[key]!r} is not {problem}')
                out[key] = float(data[key]) if _number(data[key]) else data[key]
        return out

    def listed(self, top: dict, key: str) -> list:
        value = top.get(key, [])
        if not isinstance(value, list):
            raise self.fail(top, f'{key} must be a list, not {kind_of(value)}')
        return value


def read_world(path: str, text: str | None = None, folder: str | None = None) -> WorldFile:
    """The world file at ``path`` (or its ``text``, reported as ``path``); its models'
    relative paths are taken from ``folder`` (default: the file's).

    Raises:
        ModelError: the file cannot be read, or is not a world file (``path:line: message``).
    """
    reader = _Reader(path)
    top = reader.mapping(load_yaml(path, text), 'the world file', _TOP)
    name = top.get('world', os.path.basename(path).split('.')[0])
    if not isinstance(name, str) or not name:
        raise reader.fail(top, f'world: the name must be text, not {kind_of(name)}')
    folder = os.path.dirname(os.path.abspath(path)) if folder is None else folder
    models, taken = [], set()
    listed = reader.listed(top, 'models')
    for index, entry in enumerate(listed):
        models.append(reader.model(entry, f'models[{index}]', folder, taken, listed))
    if not models:
        raise reader.fail(top, 'models: a world needs at least one model')
    poses, taken = [], set()
    listed = reader.listed(top, 'named_poses')
    for index, entry in enumerate(listed):
        poses.append(reader.named_pose(entry, f'named_poses[{index}]', taken, listed))
    return WorldFile(name, path, reader.text(top, 'description', 'world'),
                     reader.tags(top, 'world'), tuple(models), reader.settings(top),
                     tuple(poses), tuple(str(ModelError(path, line, message))
                                         for line, message in reader.unknown))


def read_named_poses(text: str,
                     where: str = 'parameter named_poses') -> tuple[NamedPose, ...]:
    """Named poses written as a YAML list, as a world file's ``named_poses`` gives them (the
    ``named_poses`` parameter): ``[{name: dock, pose: [1, 0, 0], tags: [spawn]}]``; empty
    text: none.

    Raises:
        ModelError: not a list of named poses, or a key the format does not know
            (``where:line: message``).
    """
    if not text.strip():
        return ()
    reader = _Reader(where)
    entries = reader.listed({'named_poses': load_yaml(where, text)}, 'named_poses')
    taken: set = set()
    poses = tuple(reader.named_pose(entry, f'named_poses[{index}]', taken, entries)
                  for index, entry in enumerate(entries))
    if reader.unknown:
        raise ModelError(where, *reader.unknown[0])
    return poses
