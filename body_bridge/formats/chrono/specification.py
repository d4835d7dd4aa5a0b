"""Project Chrono YAML (``.yaml``, ``.yml``): multibody models and MBS specifications.

The reference is Chrono's YAML model format (``../shared/specs/chrono-yaml-model.txt``),
its schemas (``mbs_model.schema.yaml`` for 10.x, ``model.schema.yaml`` for 9.x) and the
parser that reads them (``chrono_parsers/yaml/ChParserMbsYAML``). A file is recognised by
its content:

* ``chrono-version`` and a ``model`` mapping with ``bodies`` (or FEA parts): an MBS model;
* ``chrono-version``, ``type: MBS``, ``model`` and ``solver`` file names: an MBS
  specification; the model it names is loaded and takes the solver's time step and the
  specification's gravity;
* any other Chrono file (vehicle, FSI, SPH and TDPF fluids, solver or simulation settings,
  schemas) or YAML that is not Chrono's fails with one line saying what it is.

Versions 9.x and 10.x are read (their differences: contact material ``properties`` and
``Coefficients`` became ``physical_properties`` and ``coefficients``; 10.x added
CONTROLLER functions, ``load_controllers``, load ``modulation_function`` and body-load
defaults, and reads a SINE ``phase`` in the model's angle unit).
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np

from ...errors import ModelError, UnsupportedError
from ...fileaccess import file_problem
from ...model import Model
from .bodies import DataPath, read_body
from .forces import read_load, read_rsda, read_tsda
from .joints import read_constraint, read_joint, read_motor
from .node import Context, Node, kind_of
from .tree import System, assemble
from ..yamlsource import line_at, line_of, load_yaml

__all__ = ['load', 'EXTENSIONS', 'DEFAULT_GRAVITY']

EXTENSIONS = ('.yaml', '.yml')
#: Gravity of a Chrono YAML simulation unless its specification says otherwise [m/s^2].
DEFAULT_GRAVITY = (0.0, 0.0, -9.8)

_VERSIONS = (9, 10)
_OTHER_TYPES = {
    'FSI': 'a Chrono FSI (fluid-solid interaction) simulation specification',
    'SPH': 'a Chrono::FSI-SPH fluid simulation specification',
    'TDPF': 'a Chrono::FSI-TDPF (potential flow) simulation specification',
    'VEHICLE': 'a Chrono::Vehicle simulation specification',
}
_MODEL_KEYS = ('name', 'angle_degrees', 'data_path', 'bodies', 'joints', 'constraints', 'tsdas',
               'rsdas', 'motors', 'body_loads', 'load_controllers')


def load(path: str | os.PathLike, nested: bool = False) -> Model:
    """Load a Chrono YAML MBS model or MBS specification file.

    Raises:
        ModelError: with ``path:line`` for anything the file gets wrong.
        UnsupportedError: a Chrono file that is not a multibody model, or a feature the
            bridge does not support.
    """
    path = os.fspath(path)
    if path.endswith('.schema.yaml'):
        raise UnsupportedError(path, None, 'a Chrono YAML schema (it describes the file format), '
                               'not a model')
    data = load_yaml(path)
    if isinstance(data, dict) and data.get('format') == 'ChoreonoidBody' and not nested:
        from .. import choreonoid  # a Body file named .yaml
        return choreonoid.load(path)
    version = _version(path, data)
    ctx = Context(path, version)
    top = Node(data, ctx, 'file', 1)
    top.ignore('chrono-version')
    kind = top.string('type')
    if kind is not None:
        if nested:
            raise UnsupportedError(path, 1, f'the model file of an MBS specification is itself '
                                   f'a "{kind}" specification')
        return _specification(top, kind)
    model = data.get('model')
    if not isinstance(model, (dict, str)) and model is not None:
        raise ModelError(path, line_at(data, 'model'), f'"model" must be a mapping, found '
                         f'{kind_of(model)}')
    if not isinstance(model, dict):
        raise UnsupportedError(path, 1, f'not a Chrono MBS model: {_what_else(data)}')
    system = _read_model(top)
    top.warn_unused()
    system.gravity = np.array(DEFAULT_GRAVITY)
    system.warnings = ctx.warnings
    return assemble(system)


def _version(path: str, data) -> tuple[int, int]:
    if not isinstance(data, dict):
        raise ModelError(path, line_of(data, 1), 'not a Chrono YAML file: the top level is '
                         f'{kind_of(data)}, not a mapping')
    raw = data.get('chrono-version')
    line = line_at(data, 'chrono-version')
    if raw is None:
        raise UnsupportedError(path, 1, 'not a Chrono YAML model: it has no "chrono-version"')
    if isinstance(raw, dict):
        raise UnsupportedError(path, line, 'a Chrono YAML schema (it describes the file format), '
                               'not a model')
    text = str(raw).strip()
    parts = text.split('.')
    try:
        major, minor = int(parts[0]), int(parts[1])
    except (ValueError, IndexError):
        raise ModelError(path, line, f'chrono-version {text!r} is not of the form M.m or '
                         'M.m.p') from None
    if major not in _VERSIONS:
        raise UnsupportedError(path, line, f'chrono-version {text} is not supported (9.x and 10.x '
                               'are)')
    return major, minor


def _what_else(data: dict) -> str:
    """What a Chrono file without a model mapping is, in words."""
    model = data.get('model')
    if isinstance(model, str):
        return 'it names a model file but has no "type: MBS"'
    if 'simulation' in data and isinstance(data['simulation'], dict):
        return 'a Chrono 9.x simulation specification (solver and integrator settings)'
    if any(key in data for key in ('integrator', 'solver', 'contact_method')):
        return 'a Chrono solver specification (integrator and solver settings)'
    if any(key in data for key in ('sph', 'kernel', 'integration')):
        return 'a Chrono::FSI-SPH solver specification'
    return 'it has no "model" section'


def _classify_model(node: Node) -> None:
    """Fail for Chrono model files that are not multibody models."""
    data = node.data
    if 'vehicle_json' in data:
        raise node.error('a Chrono::Vehicle model (it names Chrono::Vehicle JSON files), not '
                         'a multibody model', unsupported=True)
    if any(key in data for key in ('fluid_properties', 'physics_problem', 'fluid_domain')):
        raise node.error('a Chrono::FSI-SPH fluid model, not a multibody model',
                         unsupported=True)
    if not node.has('bodies') and not _fea_keys(node):
        raise node.error('"bodies" is missing (a multibody model lists its bodies)')


def _fea_keys(node: Node) -> list[str]:
    return [key for key in node.data if key.upper().startswith('FEA')]


def _read_model(top: Node) -> System:
    ctx = top.ctx
    node = top.child('model', 'model')
    _classify_model(node)
    ctx.degrees = node.boolean('angle_degrees', default=True)
    data_path = DataPath(base=os.path.dirname(os.path.abspath(ctx.path)))
    dp = node.child('data_path', 'model data_path')
    if dp is not None:
        data_path.relative = dp.choice('type', ('ABSOLUTE', 'RELATIVE'), required=True) == \
            'RELATIVE'
        data_path.root = dp.string('root', default='.')
        dp.warn_unused()
    name = node.string('name', default='YAML model')
    system = System(name, ctx.path)
    system.bodies = [read_body(b, data_path) for b in node.items('bodies', 'body')]
    system.connections = [read_joint(j) for j in node.items('joints', 'joint')]
    system.connections += [read_motor(m) for m in node.items('motors', 'motor')]
    system.constraints = [read_constraint(c) for c in node.items('constraints', 'constraint')]
    system.springs = [read_tsda(t) for t in node.items('tsdas', 'TSDA')]
    system.springs += [read_rsda(r) for r in node.items('rsdas', 'RSDA')]
    system.loads = [read_load(n, False) for n in node.items('body_loads', 'body load')]
    if ctx.version[0] >= 10:
        system.loads += [read_load(n, True) for n in node.items('load_controllers',
                                                                'load controller')]
    _warn_fea(node)
    node.warn_unused()
    return system


def _warn_fea(node: Node) -> None:
    for key in _fea_keys(node):
        node.ignore(key)
        value = node.data[key]
        items = value if isinstance(value, list) else [value]
        names = [str(i.get('name', '?')) for i in items if isinstance(i, dict)]
        listed = f' ({", ".join(names)})' if names else ''
        node.warn(f'"{key}": {len(items)} finite-element part(s){listed} left out; the bridge '
                  'loads the rigid bodies only')


# --- MBS specifications --------------------------------------------------------------------


def _specification(top: Node, kind: str) -> Model:
    ctx = top.ctx
    kind = kind.upper()
    if kind != 'MBS':
        what = _OTHER_TYPES.get(kind, f'a Chrono "{kind}" specification')
        raise UnsupportedError(ctx.path, top.line, f'{what}, not a multibody model')
    base = os.path.dirname(os.path.abspath(ctx.path))
    model_path = _named_file(top, 'model', base)
    solver_path = _named_file(top, 'solver', base)
    model = load(model_path, nested=True)
    timestep = _solver_timestep(solver_path, ctx)
    gravity = np.array(DEFAULT_GRAVITY)
    sim = top.child('simulation', 'simulation')
    if sim is not None:
        gravity = sim.vector('gravity', default=DEFAULT_GRAVITY)
        sim.ignore('end_time', 'enforce_realtime')
        sim.warn_unused()
    for key in ('output', 'visualization'):
        if top.has(key):
            top.ignore(key)
    ignored = [key for key in top.data if key not in top.used and key != 'type']
    if ignored:
        ctx.warn(top.line, f'{", ".join(ignored)} not used (the bridge takes the model, the time '
                 'step and gravity; it runs until stopped and publishes on ROS topics)')
    return dataclasses.replace(model, timestep=timestep, gravity=gravity,
                               warnings=tuple(ctx.warnings) + model.warnings)


def _named_file(top: Node, key: str, base: str) -> str:
    name = top.string(key, required=True)
    path = os.path.normpath(os.path.join(base, name))
    problem = file_problem(path)
    if problem is not None and problem.startswith('no such file'):
        raise top.error(f'{key} file {name!r} not found (names are relative to this file)')
    if problem is not None:
        raise top.error(f'{key} file {name!r} ({path}) {problem}')
    return path


def _solver_timestep(path: str, spec_ctx: Context) -> float:
    data = load_yaml(path)
    version = _version(path, data)
    ctx = Context(path, version)
    node = Node(data, ctx, 'solver', 1)
    integrator = node.child('integrator', 'solver integrator', required=True)
    step = integrator.number('time_step', required=True, positive=True)
    ignored = [key for key in node.data if key != 'integrator' and key != 'chrono-version']
    ignored += [f'integrator.{key}' for key in integrator.data if key != 'time_step']
    if ignored:
        ctx.warn(1, f'{", ".join(ignored)} not used: the bridge integrates with MuJoCo and '
                 f'takes only the time step ({step:g} s)')
    spec_ctx.warnings.extend(ctx.warnings)
    return step
