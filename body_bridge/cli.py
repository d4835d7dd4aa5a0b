"""``python -m body_bridge``: the bridge and the tools around it.

    python -m body_bridge sim [--quiet] [--foxglove [PORT]] [--record DIR]
                              [NAME=]MODEL [[NAME=]MODEL ...] [--ros-args ...]
    python -m body_bridge record MODEL [MODEL ...] -o BAG [--duration S] [--topics T ...]
                                 [--commands FILE] [--real-time-factor F] [--ros-args ...]
    python -m body_bridge sweep FILE -o DIR [--jobs N] [--cluster ADDRESS]
    python -m body_bridge info MODEL [--json]
    python -m body_bridge check MODEL [MODEL ...]
    python -m body_bridge convert MODEL [-o OUT.urdf] [--mjcf OUT.xml] [--mesh-dir DIR]
    python -m body_bridge snapshot MODEL -o PICTURE.png [--camera DEVICE]
    python -m body_bridge rviz MODEL [-o CONFIG.rviz]
    python -m body_bridge params [--markdown] [--write FILE]
    python -m body_bridge srdf MODEL -o ROBOT.srdf [--samples N] [--seed S]

Exit status 0 on success; 2 with one ``path:line: message`` line on stderr for a bad model
(``check``: 2 when any model has an error). Warnings about what a loader ignored go to stderr
as ``warning: path:line: ...``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

from .arguments import Number, Parser, check_outputs
from .errors import BodyBridgeError
from .model import Model

__all__ = ['main', 'MAX_PIXELS']

#: Largest picture side ``snapshot`` renders [pixels] (OpenGL drivers' framebuffers reach 16384
#: at most; a picture of 8192 x 8192 is 200 MB of pixels already).
MAX_PIXELS = 8192


def _load(spec: str, quiet: bool = False) -> Model:
    from .formats import load_model
    from .paths import resolve_model
    model = load_model(resolve_model(spec))
    if not quiet:
        for line in model.warnings:
            print(f'warning: {line}', file=sys.stderr)
    return model


def _device_topics(model: Model):
    from .ros.devices.graph import device_topics
    return device_topics(model)


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
    from .sim.building.build import build_spec
    spec = build_spec(model)
    spec.compile()
    with open(path, 'w', encoding='utf-8') as f:
        f.write(spec.to_xml())


def _info(args) -> int:
    from .summary import describe, tree
    model = _load(args.model, quiet=args.json)
    entries = _device_topics(model)
    if args.json:
        topics = {e.device.name: list(e.topics) for e in entries}
        print(json.dumps(describe(model, topics), indent=2))
        return 0
    print(tree(model, entries))
    return 0


def _count(n: int, what: str) -> str:
    return f'{n} {what}' + ('' if n == 1 else 's')


def _check(args) -> int:
    from .check import check_model
    failed = 0
    for spec in args.models:
        report = check_model(spec, seconds=args.seconds)
        for finding in report.findings:  # problems to stderr, as every command's
            sys.stdout.flush()
            print(f'{finding.level}: {finding.text}', file=sys.stderr, flush=True)
        for stage in report.passed:
            print(f'ok: {stage}')
        verdict = 'FAILED' if report.errors else 'ok'
        print(f'{spec}: {verdict}: {_count(len(report.errors), "error")}, '
              f'{_count(len(report.warnings), "warning")}')
        failed += bool(report.errors)
    return 2 if failed else 0


def _snapshot(args) -> int:
    from .sim.building.build import BuildOptions
    from .sim.sensing.render import RenderError
    from .sim.simulation import Simulation, SimOptions
    from .sim.sensing.snapshot import depth_to_gray, device_view, overview, write_png
    os.environ.setdefault('MUJOCO_GL', 'egl')
    model = _load(args.model)
    positions = _positions(args.position, model)
    sim = Simulation(model, SimOptions(build=BuildOptions(ground_plane=args.ground),
                                       initial_positions=positions))
    for _ in range(int(round(args.time / sim.period))):
        sim.step_period()
    try:
        if args.camera:
            try:
                rgb, depth = device_view(sim, args.camera)
            except KeyError as err:
                print(f'{model.source}: {err.args[0]}', file=sys.stderr)
                return 2
            pixels = rgb if rgb is not None else depth_to_gray(depth)
        else:
            pixels = overview(sim, args.width, args.height, math.radians(args.azimuth),
                              math.radians(args.elevation))
    except RenderError as err:
        print(f'snapshot: {err} (MuJoCo renders offscreen with EGL: set MUJOCO_GL=egl and '
              'install an OpenGL driver such as Mesa)', file=sys.stderr)
        return 2
    write_png(args.output, pixels)
    print(f'{args.output}: {pixels.shape[1]} x {pixels.shape[0]} pixels')
    if args.camera and _blank(pixels):
        print(f'warning: {args.camera} sees nothing in this pose (the picture is one colour): '
              'point it at the model with --position JOINT=VALUE', file=sys.stderr)
    return 0


def _blank(pixels) -> bool:
    """Whether a picture is one colour (a camera looking at the empty sky)."""
    flat = pixels.reshape(-1, pixels.shape[-1]) if pixels.ndim == 3 else pixels.reshape(-1, 1)
    return bool((flat == flat[0]).all())


def _positions(items: list[str], model: Model) -> dict[str, float]:
    """``JOINT=VALUE`` items as joint -> position [rad or m].

    Raises:
        ParameterError: not JOINT=VALUE, an unknown joint, a value that is not a number.
    """
    from .errors import ParameterError
    joints = {j.name for j in model.movable_joints}
    out = {}
    for item in items or []:
        name, sep, value = item.partition('=')
        if not sep or name not in joints:
            raise ParameterError('--position', f'{item!r} is not JOINT=VALUE with JOINT a 1-DOF '
                                 f'joint of {model.name}')
        try:
            position = float(value)
        except ValueError:
            raise ParameterError('--position', f'{value!r} is not a number') from None
        limits = model.joint(name).limits
        lower = -math.inf if limits.lower is None else limits.lower
        upper = math.inf if limits.upper is None else limits.upper
        if not math.isfinite(position) or not lower <= position <= upper:
            raise ParameterError('--position', f'{item}: {name} moves from {lower:g} to '
                                 f'{upper:g} (rad or m)')
        out[name] = position
    return out


def _rviz(args) -> int:
    from .rviz import rviz_config
    model = _load(args.model)
    text = rviz_config(model, _device_topics(model), fixed_frame=args.fixed_frame)
    if args.output:
        with open(args.output, 'w', encoding='utf-8') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _params(args) -> int:
    from .ros.node import params_doc
    if args.write:
        with open(args.write, encoding='utf-8') as f:
            document = f.read()
        try:
            updated = params_doc.replace_block(document)
        except ValueError as err:
            print(f'{args.write}: {err}', file=sys.stderr)
            return 2
        with open(args.write, 'w', encoding='utf-8') as f:
            f.write(updated)
        return 0
    sys.stdout.write(params_doc.markdown() if args.markdown else params_doc.text())
    return 0


def _srdf(args) -> int:
    from .srdf import make_srdf, write_srdf
    model = _load(args.model)
    for path in write_srdf(make_srdf(model, args.samples, args.seed), args.output):
        print(path)
    return 0


def _sim(args, ros_args: list[str]) -> int:
    from .ros.process.launcher import run
    if args.quiet:
        ros_args = [*(ros_args or ['--ros-args']), '--log-level', 'warn']
    for name, value in (('foxglove_port', args.foxglove), ('record', args.record)):
        if value is not None:  # before the user's own --ros-args -p, which win
            ros_args = ['--ros-args', '-p', f'{name}:={value}', *ros_args]
    return run(['body_bridge', *ros_args], models=args.models)


def _record(args, ros_args: list[str]) -> int:
    from .ros.process.record import record
    return record(args.models, args.output, args.duration, args.topics or (), args.commands,
                  args.real_time_factor, ros_args)


def _sweep(args) -> int:
    from .sweep.command import sweep_command
    return sweep_command(args.file, args.output, args.jobs, args.cluster, args.retries)


def _program() -> str:
    """The command as the user typed it: ``python -m body_bridge``, or the installed script
    (``body_bridge``, which ``ros2 run body_bridge body_bridge`` runs)."""
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ''
    if not script or script in ('__main__.py', '-c'):
        return 'python -m body_bridge'
    return script


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog=_program(),
                                     description='Robot models of Choreonoid, OpenRAVE and '
                                     'Project Chrono as live ROS 2 robots.')
    sub = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
    p = sub.add_parser('sim', help='run the bridge on one model, or on several in one world '
                       '(one node each, in namespace NAME); ROS arguments follow --ros-args')
    p.add_argument('models', nargs='+', metavar='[NAME=]MODEL',
                   help='model file or bundled model name, optionally with its namespace; or '
                   'one world file (*.world.yaml) or bundled world name')
    p.add_argument('-q', '--quiet', action='store_true',
                   help='no topic table and no status lines: warnings and errors only')
    p.add_argument('--foxglove', type=Number(int, 1, 65535), nargs='?', const=8765,
                   metavar='PORT',
                   help='serve the Foxglove WebSocket protocol on 127.0.0.1 (default port 8765)')
    p.add_argument('--record', metavar='DIR', help='record what the bridge publishes into a '
                   'new rosbag2 bag (MCAP) in DIR')
    p = sub.add_parser('record', help='run models headless for a simulated duration and '
                       'record what they publish as a rosbag2 bag (MCAP)')
    p.add_argument('models', nargs='+', metavar='[NAME=]MODEL')
    p.add_argument('-o', '--output', required=True, help='the new bag directory')
    p.add_argument('--duration', type=Number(float, 0.001, 86400.0, 's'), default=10.0,
                   help='simulated time to record [s] (default 10)')
    p.add_argument('--topics', nargs='+', metavar='TOPIC',
                   help='record only these topics (shell patterns allowed; default: all)')
    p.add_argument('--commands', metavar='FILE', help='a joint trajectory and/or cmd_vel '
                   'profile to follow (YAML or CSV, docs/recording-and-foxglove.md)')
    p.add_argument('--real-time-factor', type=Number(float, 0.0, 1000.0), default=0.0,
                   help='pace the run (default 0: as fast as it can)')
    p = sub.add_parser('sweep', help='run a scenario many times, each run a seeded variant '
                       'with a bag and a verdict, several at once (docs/sweeps.md)')
    p.add_argument('file', metavar='FILE', help='the sweep file (*.sweep.yaml)')
    p.add_argument('-o', '--output', required=True, help='the folder of the runs and the '
                   'table (a second run of the same command does what is missing)')
    p.add_argument('--jobs', type=Number(int, 1, 1024), default=None,
                   help='runs at once on this machine (default: its cores)')
    p.add_argument('--cluster', metavar='ADDRESS', help='run on a Dask scheduler '
                   '(tcp://HOST:8786) instead of this machine\'s cores')
    p.add_argument('--retries', type=Number(int, 0, 100), default=2,
                   help='times a run whose process died is run again (default 2)')
    p = sub.add_parser('info', help='print the model as a tree: links, joints with limits, '
                       'devices with their topics')
    p.add_argument('model', help='model file, or the name of a bundled model')
    p.add_argument('--json', action='store_true', help='print one JSON object instead')
    p = sub.add_parser('check', help='run every validation (loader, URDF writer and '
                       'check_urdf, kinematics, integrator) and report all problems')
    p.add_argument('models', nargs='+', metavar='MODEL')
    p.add_argument('--seconds', type=Number(float, 0.0, 3600.0, 's'), default=1.0,
                   help='simulated time stepped by the integrator check [s] (default 1)')
    p = sub.add_parser('convert', help='write the URDF (and the MuJoCo model) of a model')
    p.add_argument('model', help='model file, or the name of a bundled model')
    p.add_argument('-o', '--output', help='URDF file to write (default: standard output)')
    p.add_argument('--mjcf', help='also write the MuJoCo model the integrator runs')
    p.add_argument('--mesh-dir', help='where mesh files go (default: <output>_meshes/ beside it)')
    p = sub.add_parser('snapshot', help='render a picture of the model, or of what one of its '
                       'cameras sees (offscreen, no display needed)')
    p.add_argument('model', help='model file, or the name of a bundled model')
    p.add_argument('-o', '--output', required=True, help='PNG file to write')
    p.add_argument('--camera', metavar='DEVICE', help='render what this camera device sees, '
                   'as its topics publish it (depth-only cameras: depth as grey levels)')
    p.add_argument('--width', type=Number(int, 1, MAX_PIXELS), default=640, help='picture width [pixels]')
    p.add_argument('--height', type=Number(int, 1, MAX_PIXELS), default=480, help='picture height [pixels]')
    p.add_argument('--azimuth', type=Number(float, -360.0, 360.0, 'deg'), default=35.0,
                   help='direction the view comes from, about +z from +x [deg] (default 35)')
    p.add_argument('--elevation', type=Number(float, -89.0, 89.0, 'deg'), default=25.0,
                   help='height of the view above the horizon [deg] (default 25)')
    p.add_argument('--position', action='append', metavar='JOINT=VALUE',
                   help='initial position of a joint [rad or m] (repeat for several joints)')
    p.add_argument('--time', type=Number(float, 0.0, 3600.0, 's'), default=0.0,
                   help='simulate this long first, holding the initial positions [s]')
    p.add_argument('--ground', choices=('auto', 'on', 'off'), default='auto',
                   help='the ground plane, as the ground_plane parameter (default auto)')
    p = sub.add_parser('rviz', help='write an rviz2 configuration with a display for every '
                       'sensor topic of the model')
    p.add_argument('model', help='model file, or the name of a bundled model')
    p.add_argument('-o', '--output', help='file to write (default: standard output)')
    p.add_argument('--fixed-frame', default='world', help='the fixed frame (default: world)')
    p = sub.add_parser('params', help='print the reference of the node\'s parameters')
    p.add_argument('--markdown', action='store_true', help='as a Markdown table')
    p.add_argument('--write', metavar='FILE', help='replace the generated parameter table '
                   'in FILE (docs/topics-and-parameters.md)')
    p = sub.add_parser('srdf', help='write an SRDF for MoveIt (groups, end effectors, home '
                       'states, collision pairs to skip) with MoveIt\'s controllers file and '
                       'the bridge\'s parameter file beside it')
    p.add_argument('model', help='model file, or the name of a bundled model')
    p.add_argument('-o', '--output', required=True, help='SRDF file to write')
    p.add_argument('--samples', type=Number(int, 0, 10_000_000), default=10000, help='configurations sampled for '
                   'link pairs that never collide (default 10000; 0: none)')
    p.add_argument('--seed', type=Number(int, 0, 2**32 - 1), default=0, help='seed of the sampling (default 0)')
    return parser


_COMMANDS = {'convert': _convert, 'info': _info, 'check': _check, 'snapshot': _snapshot,
             'rviz': _rviz, 'params': _params, 'srdf': _srdf, 'sweep': _sweep}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    ros_args = []
    if argv and argv[0] in ('sim', 'record') and '--ros-args' in argv:
        cut = argv.index('--ros-args')
        argv, ros_args = argv[:cut], argv[cut:]
    args, rest = parser.parse_known_args(argv)
    if rest:
        parser.error(f'unrecognized arguments: {" ".join(rest)}')
    try:
        check_outputs(args.command, args)
        if args.command == 'sim':
            return _sim(args, ros_args)
        if args.command == 'record':
            return _record(args, ros_args)
        return _COMMANDS[args.command](args)
    except BodyBridgeError as err:
        print(err, file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of standard output is gone (| head)
        return 0
    except OSError as err:  # a file to read or write: gone, not allowed, disk full...
        if err.filename is None:
            raise
        print(f'{args.command}: {err.filename}: {err.strerror or err}', file=sys.stderr)
        return 2
