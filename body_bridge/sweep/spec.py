"""Sweep files: the world, the duration, the commands, what varies and what is checked.

    sweep: crate_push                 # its name (default: the file name up to its first dot)
    world: arm_and_crate.world.yaml   # a world file (relative to this file) or a bundled
                                      # world's name; or  models: [sample_arm, box=crate.body]
    duration: 3.5                     # simulated seconds of each run
    commands: push.yaml               # the record command's commands file (optional)
    topics: [/arm/joint_states, /tf]  # recorded (default: every topic)
    runs: 8
    seed: 1                           # the sweep's seed (default 0)
    real_time_factor: 0               # 0: as fast as it can (default)
    nodes: python3 my_controller.py   # run beside each run, in its domain (optional)
    parameters: {arm.servo_damping: 1.0}   # fixed parameters of every run (optional)
    vary:                             # name -> distribution (sweep/draw.py)
      crate.x: {uniform: [0.4, 0.55]}
      crate.yaw: {uniform: [-3.14, 3.14]}
      arm.noise_seed: {integers: [0, 1000000]}
    checks:                           # name -> check (sweep/checks.py)
      pushed: {moved: crate, at_least: 0.02}

Every error is one line ``path:line: message``; nothing runs until the whole file, its world
and every name it uses are good (:func:`read_sweep`, then ``targets.resolve``).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

from ..errors import ModelError
from ..formats.yamlsource import kind_of, line_at, line_of, load_yaml
from .draw import Distribution, read_distribution

__all__ = ['Sweep', 'Variable', 'CheckSpec', 'read_sweep', 'CHECK_KINDS', 'MAX_RUNS',
           'MAX_DURATION']

#: Most runs one sweep may ask for.
MAX_RUNS = 100_000
#: Longest simulated duration of one run [s].
MAX_DURATION = 86_400.0
_TOP = ('sweep', 'description', 'world', 'models', 'duration', 'commands', 'topics', 'runs',
        'seed', 'real_time_factor', 'nodes', 'parameters', 'vary', 'checks')
#: Each kind of check and the keys it takes (its own first).
CHECK_KINDS = {
    'inside': ('inside', 'box', 'at'),
    'moved': ('moved', 'at_least', 'at_most'),
    'joint': ('joint', 'range', 'at'),
    'no_divergence': ('no_divergence',),
    'topic': ('topic', 'min_rate'),
    'contact': ('contact', 'expect'),
}


_NAME = re.compile(r'[A-Za-z][A-Za-z0-9_]*$')
_TARGET = re.compile(r'[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z0-9_]+)?(\.[A-Za-z0-9_]+)*$')


@dataclass(frozen=True)
class Variable:
    """A quantity varied from run to run: its name (``crate.x``), where its values come
    from, and the line that declares it."""

    name: str
    distribution: Distribution
    line: int | None = None


@dataclass(frozen=True)
class CheckSpec:
    """A check as the file gives it: its name (a column of the table), its kind, its
    arguments, its line."""

    name: str
    kind: str
    args: dict
    line: int | None = None


@dataclass(frozen=True)
class Sweep:
    """A sweep as its file gives it (paths made absolute)."""

    path: str
    name: str
    runs: int
    duration: float
    world: str | None = None
    models: tuple[str, ...] = ()
    commands: str | None = None
    topics: tuple[str, ...] = ()
    seed: int = 0
    real_time_factor: float = 0.0
    nodes: str | None = None
    parameters: tuple[Variable, ...] = ()
    variables: tuple[Variable, ...] = ()
    checks: tuple[CheckSpec, ...] = ()
    description: str = ''
    #: The file's text (what a cluster worker reads again).
    text: str = field(default='', repr=False)
    #: Line of each top-level key (errors found later name them).
    lines: dict = field(default_factory=dict, repr=False)

    def values(self, index: int) -> dict:
        """The varied values of run ``index``, by name, in the file's order."""
        return {v.name: v.distribution.value(self.seed, index, v.name) for v in self.variables}


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


class _Reader:
    def __init__(self, path: str, top: dict):
        self.path, self.top = path, top

    def fail(self, key_or_line, message: str) -> ModelError:
        if isinstance(key_or_line, int):
            line = key_or_line
        elif key_or_line is None:  # the whole file
            line = line_of(self.top)
        else:
            line = line_at(self.top, key_or_line, line_of(self.top))
        return ModelError(self.path, line, message)

    def number(self, key: str, default, low: float, high: float, what: str,
               whole: bool = False):
        value = self.top.get(key, default)
        if value is None or not _number(value) or not low <= value <= high or \
                (whole and not float(value).is_integer()):
            raise self.fail(key, f'{key}: {value!r} is not {what}')
        return int(value) if whole else float(value)

    def path_of(self, key: str, folder: str) -> str | None:
        value = self.top.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.fail(key, f'{key}: a file is needed, not {kind_of(value)}')
        path = os.path.join(folder, value)
        if not os.path.isfile(path):
            raise self.fail(key, f'{key}: {path}: no such file')
        return os.path.abspath(path)

    def words(self, key: str) -> tuple[str, ...]:
        value = self.top.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(key, f'{key} must be a list of names, not {kind_of(value)}')
        return tuple(value)

    def named(self, key: str) -> list[tuple[str, object, int | None]]:
        value = self.top.get(key, {})
        if value is None:
            return []
        if not isinstance(value, dict):
            raise self.fail(key, f'{key} must be a mapping of names, not {kind_of(value)}')
        out = []
        for name, item in value.items():
            line = line_at(value, name, line_of(value))
            if not isinstance(name, str) or not _TARGET.match(name):
                raise self.fail(line, f'{key}: {name!r} is not a name (entity.quantity, '
                                'entity/link.quantity, or a word)')
            out.append((name, item, line))
        return out


def _variables(reader: _Reader, key: str) -> tuple[Variable, ...]:
    out = []
    for name, item, line in reader.named(key):
        if key == 'parameters':  # a value as it is (a list too: passive_joints, say)
            if isinstance(item, dict) or item is None:
                raise reader.fail(line, f'parameters.{name}: a fixed value, not a '
                                  'distribution (vary takes those)')
            out.append(Variable(name, Distribution('constant', (item,)), line))
            continue
        try:
            distribution = read_distribution(item)
        except ValueError as err:
            raise reader.fail(line, f'{key}.{name}: {err}') from None
        out.append(Variable(name, distribution, line))
    return tuple(out)


def _checks(reader: _Reader) -> tuple[CheckSpec, ...]:
    out = []
    for name, item, line in reader.named('checks'):
        if not _NAME.match(name):
            raise reader.fail(line, f'checks: {name!r} is not a name (a letter, then letters, '
                              'digits, underscores)')
        if not isinstance(item, dict):
            raise reader.fail(line, f'checks.{name} must be a mapping, not {kind_of(item)}')
        kinds = [k for k in item if k in CHECK_KINDS]
        if len(kinds) != 1:
            raise reader.fail(line, f'checks.{name}: say one of {", ".join(CHECK_KINDS)} '
                              f'(found {", ".join(map(str, item)) or "nothing"})')
        kind = kinds[0]
        unknown = [k for k in item if k not in CHECK_KINDS[kind]]
        if unknown:
            raise reader.fail(line, f'checks.{name}: unknown key {unknown[0]!r} for a '
                              f'{kind} check (known: {", ".join(CHECK_KINDS[kind])})')
        out.append(CheckSpec(name, kind, dict(item), line))
    return tuple(out)


def read_sweep(path: str, text: str | None = None) -> Sweep:
    """The sweep file at ``path`` (or its ``text``, reported as ``path``).

    Raises:
        ModelError: the file cannot be read, or says something a sweep cannot be
            (``path:line: message``).
    """
    if text is None:
        try:
            with open(path, encoding='utf-8') as f:
                text = f.read()
        except OSError as err:
            raise ModelError(path, None, f'cannot read the sweep file: {err.strerror}') \
                from None
    top = load_yaml(path, text)
    if not isinstance(top, dict):
        raise ModelError(path, line_of(top), f'a sweep file is a mapping, not {kind_of(top)}')
    reader = _Reader(path, top)
    for key in top:
        if key not in _TOP:
            raise reader.fail(key, f'unknown key {key!r} (known: {", ".join(_TOP)})')
    folder = os.path.dirname(os.path.abspath(path))
    name = top.get('sweep', os.path.basename(path).split('.')[0])
    if not isinstance(name, str) or not name:
        raise reader.fail('sweep', f'sweep: the name must be text, not {kind_of(name)}')
    if ('world' in top) == ('models' in top):
        raise reader.fail(None, 'give the world (world: a world file or a bundled world) or '
                          'the models (models: [...]), one of the two')
    world = None
    if 'world' in top:
        from ..paths import bundled_worlds
        value = top['world']
        if not isinstance(value, str) or not value:
            raise reader.fail('world', f'world: a world file is needed, not {kind_of(value)}')
        world = os.path.join(folder, value)
        if not os.path.isfile(world):
            world = bundled_worlds().get(value)
            if world is None:
                raise reader.fail('world', f'world: {os.path.join(folder, value)}: no such '
                                  'file, and no bundled world has that name')
        world = os.path.abspath(world)
    models = reader.words('models')
    if 'models' in top and not models:
        raise reader.fail('models', 'models: at least one model is needed')
    nodes = top.get('nodes')
    if nodes is not None and (not isinstance(nodes, str) or not nodes.strip()):
        raise reader.fail('nodes', f'nodes: a command line is needed, not {kind_of(nodes)}')
    description = top.get('description', '')
    if not isinstance(description, str):
        raise reader.fail('description', 'description must be text')
    if 'runs' not in top:
        raise reader.fail(None, 'runs: how many runs is needed')
    return Sweep(
        path=os.path.abspath(path), name=name,
        runs=reader.number('runs', None, 1, MAX_RUNS, f'a whole number of runs, 1 to '
                           f'{MAX_RUNS}', whole=True),
        duration=reader.number('duration', None, 0, MAX_DURATION,
                               f'a simulated duration in (0, {MAX_DURATION:g}] s')
        if top.get('duration') != 0 else _zero(reader),
        world=world, models=tuple(_model_spec(m, folder) for m in models),
        commands=reader.path_of('commands', folder), topics=reader.words('topics'),
        seed=reader.number('seed', 0, 0, 2 ** 63 - 1, 'a whole number >= 0', whole=True),
        real_time_factor=reader.number('real_time_factor', 0.0, 0, 1e6,
                                       'a real-time factor >= 0 (0: as fast as it can)'),
        nodes=nodes, parameters=_variables(reader, 'parameters'),
        variables=_variables(reader, 'vary'), checks=_checks(reader),
        description=description, text=text,
        lines={key: line_at(top, key, line_of(top)) for key in top})


def _model_spec(spec: str, folder: str) -> str:
    """``[NAME=]MODEL`` with MODEL made absolute when it is a file beside the sweep file."""
    name, sep, model = spec.partition('=')
    if not sep or os.path.exists(os.path.join(folder, spec)):
        name, model = '', spec
    path = os.path.join(folder, model)
    if os.path.exists(path):
        model = os.path.abspath(path)
    return f'{name}={model}' if name else model


def _zero(reader: _Reader):
    raise reader.fail('duration', 'duration: 0 is not a simulated duration in (0, '
                      f'{MAX_DURATION:g}] s')
