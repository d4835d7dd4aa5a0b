"""``record``: run models headless for a simulated duration and keep what they publish as a bag.

    python -m body_bridge record MODEL... -o DIR [--duration S] [--topics T ...]
                                 [--commands FILE] [--real-time-factor F] [--ros-args ...]
    python -m body_bridge record WORLD.world.yaml -o DIR ...

The bridge nodes are made as ``sim`` makes them and stepped by this command (one control
period at a time, as fast as it can unless ``--real-time-factor`` paces it); a
:class:`~.recorder.Recorder` attached to the outlets keeps every topic (or those named), in
simulated time. The nodes publish on DDS as well, so the run can be watched while it records.
The running bridge records the same way with its ``record`` parameter (:mod:`.live_outlets`).

What is recorded does not depend on the machine's speed: the recorder waits for the disk
rather than drop a message, and the image compression keeps every frame
(:func:`~..stream.encoder.set_lossless`) and finishes before the bag is closed. Two runs with
the same model, parameters and seed give the same messages, byte for byte.
"""

from __future__ import annotations

import os
import sys
import time

from ...errors import BodyBridgeError
from ...sim.names import CommandRejected
from ..control.command_file import Commands, read_commands
from ..stream.encoder import flush_all, set_lossless
from ..stream.live_outlets import stop_recording
from ..stream.outlets import OUTLETS
from ..stream.recorder import Recorder

__all__ = ['record', 'bag_size']


def bag_size(directory: str) -> int:
    """Bytes of the files of a bag directory."""
    return sum(os.path.getsize(os.path.join(directory, name)) for name in os.listdir(directory))


def _nodes(models: list[str], ros_args: list[str], rtf: float) -> list:
    """The bridge nodes of ``models`` (one model, several, or one world file), paced by
    ``rtf`` whatever a world file's settings say."""
    from rclpy.parameter import Parameter

    from .launcher import _world_file_nodes, _world_nodes, world_of
    from ..node.node import BridgeNode
    nodes: list = []
    world = world_of(models)
    pace = [*ros_args, '--ros-args', '-p', f'real_time_factor:={rtf}']
    if world is not None:
        _world_file_nodes(world, pace, nodes)
    elif len(models) == 1:
        rate = Parameter('real_time_factor', Parameter.Type.DOUBLE, rtf)
        nodes.append(BridgeNode(shared=True, parameter_overrides=[
            Parameter('model', Parameter.Type.STRING, models[0]), rate]))
    else:
        _world_nodes(models, pace, nodes)
    return nodes


def _command(node, commands: Commands, t: float) -> None:
    """Hand this period's commands to the first node's simulation."""
    twist = commands.twist_at(t)
    mobile = getattr(node, 'mobile', None)
    if twist is not None and mobile is not None:
        from geometry_msgs.msg import Twist
        msg = Twist()
        msg.linear.x, msg.angular.z = twist.linear, twist.angular
        mobile._on_twist(msg)  # as if it came on cmd_vel, with its checks


def _run(nodes, commands: Commands | None, duration: float, rtf: float, watch=None) -> None:
    """Step the world of ``nodes`` for ``duration`` simulated seconds; ``watch`` (an object
    with ``start(runner)`` and ``period(runner)``) is told before the first period and after
    every one."""
    from ..node.runner import SimulationRunner
    runner = SimulationRunner(nodes)
    first = nodes[0]
    if commands is not None:
        if commands.twists and getattr(first, 'mobile', None) is None:
            first.get_logger().warning('the commands have a cmd_vel profile but the model '
                                       'has no mobile base: it is ignored')
        if commands.trajectory is not None:
            for line in first.sim.follow(commands.trajectory, start=0.0):
                first.get_logger().warning(f'trajectory: {line}')
    with runner.lock:
        for node in runner.nodes:
            node.publish_period()
    if watch is not None:
        watch.start(runner)
    steps = int(round(duration / runner.period))
    wall = time.monotonic()
    for index in range(steps):
        if commands is not None and commands.twists:
            _command(first, commands, first.sim.time)
        runner.advance()
        if watch is not None:
            watch.period(runner)
        if rtf > 0:
            delay = wall + (index + 1) * runner.period / rtf - time.monotonic()
            if delay > 0:
                time.sleep(delay)


def record(models: list[str], output: str, duration: float = 10.0, topics=(),
           commands_file: str | None = None, real_time_factor: float = 0.0,
           ros_args: list[str] | None = None) -> int:
    """The ``record`` command; returns the exit status (2: bad input, said in one line)."""
    import rclpy

    from .transport import use_bundled_fastdds_profile
    if not duration > 0 or duration == float('inf'):
        print(f'--duration must be a positive number of seconds, not {duration}',
              file=sys.stderr)
        return 2
    if real_time_factor < 0:
        print(f'--real-time-factor must be 0 or positive, not {real_time_factor}',
              file=sys.stderr)
        return 2
    use_bundled_fastdds_profile()
    set_lossless(True)
    rclpy.init(args=['body_bridge', *(ros_args or [])])
    recorder, nodes = None, []
    try:
        commands = read_commands(commands_file) if commands_file else None
        nodes = _nodes(models, ros_args or [], real_time_factor)  # a bad model: no bag
        # Attached after the nodes: it is told of their channels and given the latched ones.
        recorder = Recorder(output, topics, warn=lambda text: print(text, file=sys.stderr),
                            lossless=True)
        OUTLETS.attach(recorder)
        started, cpu = time.monotonic(), time.process_time()
        _run(nodes, commands, duration, real_time_factor)
        if not flush_all():
            print('record: an image compression did not finish; its last frames are missing',
                  file=sys.stderr)
        wall, cpu = time.monotonic() - started, time.process_time() - cpu
    except BodyBridgeError as err:
        print(err, file=sys.stderr)
        return 2
    except CommandRejected as err:  # the commands file's trajectory names unknown joints
        print(f'{commands_file}: trajectory: {err}', file=sys.stderr)
        return 2
    finally:
        for node in nodes:
            node.destroy_node()
        stop_recording(recorder)
        set_lossless(False)  # the process's encoders made from now on live again
        if rclpy.ok():
            rclpy.shutdown()
    bag = recorder.bag
    print(f'{bag.directory}: {len(bag.topics)} topics, {bag.message_count} messages, '
          f'{duration:g} s simulated in {wall:.1f} s (CPU {cpu:.1f} s), '
          f'{bag_size(bag.directory) / 1e6:.1f} MB'
          + (f', {recorder.dropped} dropped' if recorder.dropped else ''))
    return 0
