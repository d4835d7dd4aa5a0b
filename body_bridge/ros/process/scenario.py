"""One run of a scenario (for ``sweep``): a world whose models take given parameters, stepped
headless for a simulated duration, recorded as a bag, and watched after every period.

The caller owns the process: it sets the ROS domain and discovery range before calling, and
nothing else of ROS runs in it. The nodes are made as ``sim`` makes a world file's (each model
in its namespace at its pose, the world's settings applied) with the caller's parameters over
them, and stepped and recorded as ``record`` does it (``record._run``; the recorder and the
image compression lossless, so that identical runs give identical bags).
"""

from __future__ import annotations

import time

from ...errors import BodyBridgeError
from ...sim.names import CommandRejected
from ..control.command_file import read_commands
from .record import _run, bag_size

__all__ = ['run_world', 'RunFailed']


class RunFailed(BodyBridgeError):
    """The run could not start or step (a model, a parameter or a command was refused)."""


def _parameter(name: str, value):
    """A Parameter of the type the bridge declares ``name`` with (a whole number given for a
    parameter of seconds or metres is a float there)."""
    from rclpy.parameter import Parameter

    from ..node.params import PARAMETERS
    if name in PARAMETERS:
        default = PARAMETERS[name][0]
        if isinstance(default, bool):
            value = bool(value)
        elif isinstance(default, float) and isinstance(value, int):
            value = float(value)
        elif isinstance(default, int) and isinstance(value, float) and value.is_integer():
            value = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        value = float(value)  # noise, initial positions, rates: declared as doubles
    return Parameter(name, value=value)


def _nodes(world, parameters: dict, nodes: list) -> None:
    from rclpy.parameter import Parameter

    from ..node.node import BridgeNode
    for model in world.models:
        pose = [float(v) for v in (*model.pose.pos, *model.pose.rpy())]
        given = [_parameter(k, v) for k, v in parameters.get(model.name, {}).items()]
        nodes.append(BridgeNode(
            shared=True, namespace=f'/{model.name}', use_global_arguments=False,
            parameter_overrides=[Parameter('model', Parameter.Type.STRING, model.path), *given],
            defaults={'frame_prefix': f'{model.name}/', 'initial_pose': pose,
                      **world.settings}))


def run_world(world, output: str, duration: float, *, topics=(), commands_file=None,
              real_time_factor: float = 0.0, parameters: dict | None = None, sinks=(),
              watch=None, warn=print) -> dict:
    """Run the WorldFile ``world`` for ``duration`` simulated seconds into the bag ``output``.

    Args:
        parameters: entity name -> {parameter: value} given to that model's node.
        sinks: more outlets sinks (ros/stream/outlets.py) attached for the run.
        watch: told ``start(runner)`` before the first period and ``period(runner)`` after
            every one (``runner.nodes``: the nodes, each with its ``sim``).

    Returns:
        ``wall`` and ``cpu`` [s] of the stepping, ``messages`` and ``bytes`` of the bag,
        ``dropped`` messages.

    Raises:
        RunFailed: a model, parameter or command was refused (one line).
    """
    import rclpy

    from ..stream.encoder import flush_all, set_lossless
    from ..stream.live_outlets import stop_recording
    from ..stream.outlets import OUTLETS
    from ..stream.recorder import Recorder
    from .stopping import init_options
    from .transport import use_bundled_fastdds_profile
    use_bundled_fastdds_profile()
    set_lossless(True)  # as record: every compressed frame, whatever the machine's speed
    rclpy.init(args=['body_bridge'], **init_options())  # the caller's signal handlers stay
    recorder, nodes = None, []
    for sink in sinks:
        OUTLETS.attach(sink)
    try:
        commands = read_commands(commands_file) if commands_file else None
        _nodes(world, parameters or {}, nodes)
        recorder = Recorder(output, topics, warn=warn, lossless=True)
        OUTLETS.attach(recorder)
        started, cpu = time.monotonic(), time.process_time()
        _run(nodes, commands, duration, real_time_factor, watch)
        if not flush_all():
            warn('an image compression did not finish; its last frames are missing')
        wall, cpu = time.monotonic() - started, time.process_time() - cpu
    except CommandRejected as err:
        raise RunFailed(f'{commands_file}: trajectory: {err}') from None
    except BodyBridgeError as err:
        raise RunFailed(str(err)) from None
    finally:
        for node in nodes:
            node.destroy_node()
        stop_recording(recorder)
        set_lossless(False)
        for sink in sinks:
            OUTLETS.detach(sink)
        if rclpy.ok():
            rclpy.shutdown()
    bag = recorder.bag
    return {'wall': wall, 'cpu': cpu, 'messages': bag.message_count,
            'bytes': bag_size(bag.directory), 'dropped': recorder.dropped}
