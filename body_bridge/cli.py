"""``python -m body_bridge``: convert, info, sim.

    python -m body_bridge sim [NAME=]MODEL [[NAME=]MODEL ...] [--ros-args ...]

Exit status 0 on success; 2 with one ``path:line: message`` line on stderr for a bad model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .errors import BodyBridgeError
from .model import Model

__all__ = ['main']


def _load(spec: str) -> Model:
    from .formats import load_model
    from .paths import resolve_model
    model = load_model(resolve_model(spec))
    for line in model.warnings:
        print(f'warning: {line}', file=sys.stderr)
    return model


def _convert(args) -> int:
    from . import urdf
    model = _load(args.model)
    if args.output:
        out_dir = os.path.dirname(os.path.abspath(args.output))
        stem = os.path.splitext(os.path.basename(args.output))[0]
    else:
        out_dir, stem = os.getcwd(), model.name
    mesh_dir = args.mesh_dir or os.path.join(out_dir, f'{stem}_meshes')
    text = urdf.to_urdf(model, mesh_dir=mesh_dir)
    if args.output:
        with open(args.output, 'w', encoding='utf-8') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.mjcf:
        _write_mjcf(model, args.mjcf)
    return 0


def _write_mjcf(model: Model, path: str) -> None:
    """The MuJoCo model the integrator runs; meshes are embedded as vertex lists."""
    from .sim.build import build_spec
    spec = build_spec(model)
    spec.compile()
    with open(path, 'w', encoding='utf-8') as f:
        f.write(spec.to_xml())


def describe(model: Model) -> dict:
    """The model as plain data: links, joints, devices, total mass."""
    def limit(value):
        return None if value is None else float(value)
    return {
        'name': model.name,
        'root': model.root,
        'root_joint': model.root_joint.value,
        'links': [{'name': link.name,
                   'mass': 0.0 if link.inertial is None else link.inertial.mass}
                  for link in model.links],
        'joints': [{'name': j.name, 'type': j.type.value, 'parent': j.parent, 'child': j.child,
                    'axis': [float(a) for a in j.axis],
                    'limits': {'lower': limit(j.limits.lower), 'upper': limit(j.limits.upper),
                               'velocity': limit(j.limits.velocity),
                               'effort': limit(j.limits.effort)}}
                   for j in model.joints],
        'devices': [{'name': d.name, 'kind': d.kind.value, 'type': d.type_name, 'link': d.link}
                    for d in model.devices],
        'mass': float(model.total_mass),
    }


def _info(args) -> int:
    model = _load(args.model)
    data = describe(model)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f'{model.name}: root {model.root} ({model.root_joint.value}), '
          f'total mass {data["mass"]:.3f} kg')
    print(f'links ({len(data["links"])}):')
    for link in data['links']:
        print(f'  {link["name"]}  {link["mass"]:.3f} kg')
    print(f'joints ({len(data["joints"])}):')
    for j in data['joints']:
        lim = j['limits']
        rng = '' if lim['lower'] is None and lim['upper'] is None else \
            f'  [{lim["lower"]}, {lim["upper"]}]'
        print(f'  {j["name"]}  {j["type"]}  {j["parent"]} -> {j["child"]}  axis {j["axis"]}{rng}')
    print(f'devices ({len(data["devices"])}):')
    for d in data['devices']:
        print(f'  {d["name"]}  {d["kind"]} ({d["type"]})  on {d["link"]}')
    return 0


def _sim(args, ros_args: list[str]) -> int:
    from .ros.node import run
    return run(['body_bridge', *ros_args], models=args.models)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog='python -m body_bridge',
                                     description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    p = sub.add_parser('convert', help='write the URDF (and the MuJoCo model) of a model')
    p.add_argument('model', help='model file, or the name of a bundled model')
    p.add_argument('-o', '--output', help='URDF file to write (default: standard output)')
    p.add_argument('--mjcf', help='also write the MuJoCo model the integrator runs')
    p.add_argument('--mesh-dir', help='where mesh files go (default: <output>_meshes/ beside it)')
    p = sub.add_parser('info', help='list links, joints, devices and mass')
    p.add_argument('model')
    p.add_argument('--json', action='store_true', help='print one JSON object')
    p = sub.add_parser('sim', help='run the bridge on one model, or on several in one world '
                       '(one node each, in namespace NAME); ROS arguments may follow --ros-args')
    p.add_argument('models', nargs='+', metavar='[NAME=]MODEL',
                   help='model file or bundled model name, optionally with its namespace')
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    ros_args = []
    if argv and argv[0] == 'sim' and '--ros-args' in argv:
        cut = argv.index('--ros-args')
        argv, ros_args = argv[:cut], argv[cut:]
    args, rest = parser.parse_known_args(argv)
    if rest:
        parser.error(f'unrecognized arguments: {" ".join(rest)}')
    try:
        if args.command == 'convert':
            return _convert(args)
        if args.command == 'info':
            return _info(args)
        return _sim(args, ros_args)
    except BodyBridgeError as err:
        print(err, file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
