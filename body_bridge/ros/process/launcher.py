"""Starting the bridge: one model, or several sharing one physics world.

    bridge [--ros-args ...]                         the ``model`` parameter, one node
    bridge MODEL [--ros-args ...]                   that model, one node
    bridge [NAME=]MODEL [NAME=]MODEL ... [--ros-args ...]
    bridge WORLD.world.yaml [--ros-args ...]        the models of a world file

With several models every model gets its own node, ``body_bridge``, in the namespace
``<namespace>/<NAME>`` (``NAME`` defaults to the file name up to its first dot), with
``frame_prefix`` ``<NAME>/`` unless a parameter sets another; all of them live in one
world, where they touch each other. Parameters given on the command line or in a
``--params-file`` reach every node (``/**``); a params-file section ``/<NAME>/body_bridge``
reaches one. World-wide parameters (time step, control rate, real-time factor, start paused,
ground plane) are taken from the first model's node, which also publishes ``/clock``.
A world file (``sim/building/worldfile.py``) names its models, their poses and the world's settings
(parameters given on the command line win over them); its models run as several do, even one.
"""

from __future__ import annotations

import os
import re
import sys
import time

from ...errors import BodyBridgeError, ParameterError
from .stopping import install, requested, restore

# rclpy is imported where it is used, not with this module: the ``bridge`` program then reaches
# main(), and its Ctrl-C handling, before the slow import (ros/process/stopping.py).

__all__ = ['run', 'main', 'run_models', 'create_nodes', 'model_names', 'split_ros_args']

_TOKEN = re.compile(r'[A-Za-z][A-Za-z0-9_]*$')
#: ROS arguments that take a value, and those of them that configure a node (not the process).
_WITH_VALUE = {'-r', '--remap', '-p', '--param', '--params-file', '--log-level',
               '--log-config-file', '-e', '--enclave', '--log-file-name'}
_PER_NODE = {'-r', '--remap', '-p', '--param', '--params-file'}


def model_names(specs: list[str]) -> list[tuple[str, str]]:
    """(name, model) for each ``[NAME=]MODEL``; names made valid and unique.

    Raises:
        ParameterError: a NAME that is not a valid ROS name token.
    """
    out, taken = [], set()
    for spec in specs:
        name, sep, model = spec.partition('=')
        if sep and not os.path.exists(spec):
            if not _TOKEN.match(name):
                raise ParameterError('model', f'{name!r} (in {spec!r}) is not a valid namespace '
                                     'name: a letter, then letters, digits, underscores')
        else:
            model = spec
            name = re.sub(r'[^A-Za-z0-9_]', '_', os.path.basename(model).split('.')[0])
            name = name if _TOKEN.match(name) else f'model_{name}'
        unique, count = name, 1
        while unique in taken:
            count += 1
            unique = f'{name}_{count}'
        taken.add(unique)
        out.append((unique, model))
    return out


def split_ros_args(args: list[str]) -> tuple[str, list[str]]:
    """The process namespace (``-r __ns:=``) and the ROS arguments that configure nodes."""
    base, local, inside = '/', [], False
    tokens = iter(args)
    for token in tokens:
        if token == '--ros-args':
            inside = True
        elif token == '--':
            inside = False
        elif inside and token in _WITH_VALUE:
            value = next(tokens, None)
            if value is None:
                break
            if token in ('-r', '--remap'):
                rule = value.split(':=', 1)[0].rsplit(':', 1)[-1]
                if rule == '__ns':
                    base = value.split(':=', 1)[1]
                    continue
                if rule in ('__node', '__name'):
                    continue
            if token in _PER_NODE:
                local += [token, value]
    return base, local


def _world_nodes(specs: list[str], args: list[str], nodes: list) -> None:
    """One BridgeNode per model, each in its namespace, appended to ``nodes``."""
    from rclpy.parameter import Parameter
    from ..node.node import BridgeNode
    base, local = split_ros_args(args)
    for name, model in model_names(specs):
        nodes.append(BridgeNode(
            shared=True, namespace=f'{base.rstrip("/")}/{name}',
            cli_args=['--ros-args', *local] if local else None, use_global_arguments=False,
            parameter_overrides=[Parameter('model', Parameter.Type.STRING, model)],
            defaults={'frame_prefix': f'{name}/'}))


def world_of(specs: list[str]):
    """The WorldFile that ``specs`` name (one argument: a file ending in ``.world.yaml``, or
    a bundled world's name), or None.

    Raises:
        ModelError: the world file does not read, or a model file of it is missing.
    """
    from ...errors import ModelError
    from ...paths import bundled_worlds
    from ...sim.building.worldfile import is_world_file, read_world
    if len(specs) != 1:
        return None
    path = specs[0] if os.path.exists(specs[0]) else bundled_worlds().get(specs[0], specs[0])
    if not is_world_file(path):
        return None
    world = read_world(path)
    for model in world.models:
        if not os.path.exists(model.path):
            raise ModelError(world.path, model.line,
                             f'model {model.name}: {model.path}: no such file')
    return world


def _world_file_nodes(world, args: list[str], nodes: list) -> None:
    """One BridgeNode per model of a world file, each in its namespace at its pose."""
    from rclpy.parameter import Parameter
    from ..node.node import BridgeNode
    base, local = split_ros_args(args)
    for model in world.models:
        pose = [float(v) for v in (*model.pose.pos, *model.pose.rpy())]
        nodes.append(BridgeNode(
            shared=True, namespace=f'{base.rstrip("/")}/{model.name}',
            cli_args=['--ros-args', *local] if local else None, use_global_arguments=False,
            parameter_overrides=[Parameter('model', Parameter.Type.STRING, model.path)],
            defaults={'frame_prefix': f'{model.name}/', 'initial_pose': pose,
                      **world.settings}))
        nodes[-1].world_file = world.path  # where its pose is (the runner's advice names it)
        if nodes[0] is nodes[-1]:
            for line in world.unsupported:
                nodes[0].get_logger().warning(f'{line}: ignored')


def create_nodes(specs: list[str], args: list[str], nodes: list, world=None) -> None:
    """The bridge nodes of ``specs`` (or of the WorldFile ``world``), appended to ``nodes``:
    one model's node simulates on its own; several models' nodes, and a world file's, are not
    yet simulating (their world is the caller's).

    Raises:
        BodyBridgeError: a node cannot start (the nodes made so far are in ``nodes``).
    """
    from rclpy.parameter import Parameter
    from ..node.node import BridgeNode
    if world is not None:
        _world_file_nodes(world, args, nodes)
    elif len(specs) <= 1:
        overrides = [Parameter('model', Parameter.Type.STRING, specs[0])] if specs else []
        nodes.append(BridgeNode(parameter_overrides=overrides))
    else:
        _world_nodes(specs, args, nodes)


def run_models(args: list[str], models: list[str] | None = None) -> int:
    """Run the bridge on one or several models until shutdown; the exit status.

    A bad model file or parameter prints one line and returns 2. A node whose model was
    reloaded (``~/reload``, or the ``model`` parameter: checked by the node first) has the
    nodes restarted with it; should that fail after all, the models that ran come back.
    SIGINT (Ctrl-C) or SIGTERM at any moment ends it with status 0 (``stopping.py``).
    """
    installed = install()
    try:
        return _run(args, models)
    except BaseException:
        if requested():  # Ctrl-C or SIGTERM, or what the interrupted code made of it
            return 0
        raise
    finally:
        if installed:
            restore()


def _run(args: list[str], models: list[str] | None) -> int:
    import rclpy
    from rclpy.executors import ExternalShutdownException
    from rclpy.utilities import remove_ros_args
    from .stopping import init_options
    from .transport import use_bundled_fastdds_profile
    use_bundled_fastdds_profile()  # camera images need a large shared-memory segment
    from ..stream.live_outlets import LiveOutlets
    outlets = LiveOutlets()  # record:=DIR, foxglove_port:=PORT
    try:
        rclpy.init(args=args, **init_options())
        specs = list(models) if models is not None else remove_ros_args(args)[1:]
        previous = None
        while True:
            try:
                reload = _session(specs, args, outlets)
            except BodyBridgeError as err:
                if requested():
                    raise  # the signal interrupted the start: no model error to report
                print(err, file=sys.stderr)
                if previous is None:
                    return 2
                specs, previous = previous, None  # the restart failed: back to what ran
                continue
            if reload is None:
                return 0
            previous, specs = specs, reload
    except ExternalShutdownException:
        return 0
    finally:
        from ..node.runner import stop_all
        stop_all()  # a runner whose node was being made when a signal came
        outlets.stop()
        if rclpy.ok():
            rclpy.shutdown()


def _session(specs: list[str], args: list[str], outlets) -> list[str] | None:
    """Start the nodes of ``specs`` and spin them until shutdown (None) or a reload (the
    model specs to restart with).

    Raises:
        BodyBridgeError: a node cannot start (its nodes are destroyed first).
    """
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from ..console import announce
    from ..node.runner import SimulationRunner
    nodes: list = []
    runner = reporter = executor = world_api = None
    try:
        world = world_of(specs)
        create_nodes(specs, args, nodes, world)
        if len(specs) > 1 or world is not None:
            simulating = [node for node in nodes if node.params['simulate']]
            if simulating:
                runner = SimulationRunner(simulating)
                runner.start()
        outlets.start(nodes)
        executor = SingleThreadedExecutor()
        for node in nodes:
            executor.add_node(node)
        from ..simapi import serve_world  # the world's simulator API (simulation_interfaces)
        world_api = serve_world(runner or nodes[0].runner, executor, split_ros_args(args)[0],
                                world, ' '.join(specs))
        outlets.serve_world(world_api)
        reporter = announce(nodes, runner or nodes[0].runner,
                            also=[world_api.node] if world_api is not None else [])
        while rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
            # Hand the interpreter to the simulation thread if it waits: a flood of messages
            # must not hold it for the 5 ms switch interval at every turn.
            time.sleep(0)
            now = time.monotonic()
            asked = [i for i, node in enumerate(nodes)
                     if node.restart_request is not None and now >= node.restart_after]
            if asked:  # a world file's world starts again from its file
                return _reloaded(specs, nodes, asked) if world is None else specs
        return None
    finally:
        outlets.stop_server()
        if executor is not None:
            executor.shutdown(timeout_sec=1.0)
        if reporter is not None:
            reporter.stop()
        if runner is not None:
            runner.stop()
        if world_api is not None:
            world_api.stop()
        for node in nodes:
            node.destroy_node()


def _reloaded(specs: list[str], nodes: list, asked: list[int]) -> list[str]:
    """The model specs after the reloads the nodes at ``asked`` requested."""
    if len(specs) <= 1:
        return [nodes[0].restart_request]
    named = model_names(specs)
    return [f'{name}={nodes[i].restart_request if i in asked else model}'
            for i, (name, model) in enumerate(named)]


def run(args: list[str] | None = None, models: list[str] | None = None) -> int:
    """Run the bridge until shutdown; return the process exit status.

    Args:
        args: the command line (program name first), with ROS arguments.
        models: model specs (``MODEL`` or ``NAME=MODEL``); default: the positional
            arguments of ``args``, or the ``model`` parameter when there are none.
    """
    return run_models(list(sys.argv if args is None else args), models)


def main(args: list[str] | None = None) -> None:
    """Entry point of ``ros2 run body_bridge bridge [MODEL ...] [--ros-args ...]``."""
    install()  # before anything slow; run() keeps it
    try:
        status = run(args)
    except BaseException:
        if not requested():
            raise
        status = 0  # stopped between here and run()'s own handling
    sys.exit(status)
