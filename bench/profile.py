"""Profile of the stepping loop: where one control period of the bridge goes.

    .venv/bin/python bench/profile.py [MODEL] [--seconds S] [--subscribed]
                                      [--cameras [CAMERA ...]] [--html FILE] [--parts]
                                      [--apart]

Runs the stepping loop of the bridge (``SimulationRunner.advance``, as the throughput figures
do) on a model (default: SR1) for S simulated seconds under pyinstrument, with a subscriber
in another process on every topic (``--subscribed``; ``--cameras``: every camera's too, or
those named) or none, and prints the call tree. ``tank`` is the Tank of ``tracks.py``
turning in place on its tracks (its Kinect 320x240 at 30 Hz), ``camera_arm`` the sample arm
of ``realtime.py`` (its hand camera 640x480 at 30 Hz).

``--parts`` prints instead the stepping thread's CPU per period in each part of the period
(``time.thread_time`` around the watchdog, ``begin_period``, ``mj_step``, the transforms,
the state's publishing, the devices due...), without a sampling profiler: the parts' own
cost, plus about a microsecond each for the timing itself.

``--apart`` times each part of the state's publishing with ``timeit`` twice: alone, called
again and again, and right after the world's physics period (its cost beyond the period's
own). The second is what the stepping loop pays: MuJoCo's step leaves the caches cold for
the Python that follows it.
"""

from __future__ import annotations

import argparse
import sys

from figures import isolate_dds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('model', nargs='?', default='sr1',
                        help='sr1, barrettwam, slider_crank, sample_arm, chainN or a file')
    parser.add_argument('--seconds', type=float, default=3.0, help='simulated time [s]')
    parser.add_argument('--subscribed', action='store_true', help='a subscriber listens')
    parser.add_argument('--cameras', nargs='*', metavar='CAMERA',
                        help='the subscriber listens to the cameras too (these, or all)')
    parser.add_argument('--html', help='also write the profile as HTML')
    parser.add_argument('--parts', action='store_true',
                        help='CPU per part of the period instead of a profile')
    parser.add_argument('--apart', action='store_true',
                        help='each part timed alone and right after a physics period')
    args = parser.parse_args(argv)
    isolate_dds()
    import tempfile
    from pathlib import Path

    import rclpy
    from chains import REAL_MODELS, model_path, write_chain
    from listener import ListenerProcess
    from pyinstrument import Profiler
    from throughput import bridge_under_test

    scratch = Path(tempfile.mkdtemp(prefix='body_bridge_profile_'))
    parameters = {'mesh_directory': str(scratch)}
    if args.model in REAL_MODELS or args.model == 'sample_arm':
        model = model_path(args.model)
    elif args.model == 'tank':
        from figures import shared_model
        from tracks import TANK
        model = shared_model(TANK)
    elif args.model == 'camera_arm':
        from realtime import write_overlay
        model = model_path('sample_arm')
        parameters['devices_file'] = str(write_overlay(scratch))
    elif args.model.startswith('chain') and args.model[5:].isdigit():
        model = write_chain(scratch, int(args.model[5:]), imus=1, force_sensor=True)
    else:
        model = Path(args.model)
    context = rclpy.Context()
    rclpy.init(context=context)
    listener = ListenerProcess() if args.subscribed else None
    try:
        with bridge_under_test(context, model, '/bench_profile', parameters) as bridge:
            if listener is not None:
                cameras = False if args.cameras is None else (args.cameras or True)
                bridge.listen(listener, cameras=cameras)
            if args.model == 'tank':
                from body_bridge.sim.names import Mode
                bridge.node.sim.command(Mode.VELOCITY, ['TRACK_L', 'TRACK_R'], [-0.3, 0.3])
            periods = max(1, round(args.seconds / bridge.world.period))
            bridge.bridge(10)
            if args.parts:
                parts(bridge, periods)
                return 0
            if args.apart:
                apart(bridge)
                return 0
            profiler = Profiler(interval=0.0002)
            profiler.start()
            cost = bridge.bridge(periods)
            profiler.stop()
    finally:
        if listener is not None:
            listener.close()
        rclpy.shutdown(context=context)
    print(f'{periods} periods, {1e6 * cost.wall / periods:.0f} us each (wall, profiled)')
    print(profiler.output_text(unicode=False, color=False, show_all=False))
    if args.html:
        Path(args.html).write_text(profiler.output_html())
    return 0


def parts(bridge, periods: int) -> None:
    """Print the stepping thread's CPU per period in each part of ``periods`` periods."""
    import functools
    import time

    import mujoco
    tally: dict[str, int] = {}

    def timed(owner, attribute: str, label: str) -> None:
        function = getattr(owner, attribute)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            start = time.thread_time_ns()
            try:
                return function(*args, **kwargs)
            finally:
                tally[label] = tally.get(label, 0) + time.thread_time_ns() - start
        setattr(owner, attribute, wrapper)
    world, node = bridge.world, bridge.node
    sim = world.sims[0]
    for owner, attribute, label in (
            (bridge.runner, '_step', 'the period'), (world.watchdog, 'save', 'watchdog save'),
            (world.watchdog, 'check', 'watchdog check'), (sim, 'begin_period', 'begin_period'),
            (sim, 'end_period', 'end_period'), (mujoco, 'mj_step', 'mj_step'),
            (mujoco, 'mj_kinematics', 'mj_kinematics'),
            (node, '_publish_state', 'joint_states, /clock, /tf'),
            (sim, 'moving_transforms', '  of which the transforms'),
            (node.joint_noise, 'fill', '  of which positions, velocities'),
            (node.sensors.suite, 'due', 'the devices due')):
        timed(owner, attribute, label)
    try:
        bridge.bridge(periods)
    finally:
        for owner in (mujoco,):
            for name in ('mj_step', 'mj_kinematics'):
                setattr(owner, name, getattr(owner, name).__wrapped__)
    for label, ns in tally.items():
        print(f'{label:34s} {ns / periods / 1e3:7.1f} us')


def apart(bridge, number: int = 5000, repeat: int = 5) -> None:
    """Print each part of the state's publishing timed alone and after a physics period
    [us], the best of ``repeat`` runs of ``number`` calls each."""
    import timeit

    from body_bridge.ros.stream import wire

    def best(work) -> float:
        return min(timeit.repeat(work, number=number, repeat=repeat)) / number * 1e6
    world, node = bridge.world, bridge.node
    sim, msg, tf = node.sim, node._state_msg, node._tf_msg
    positions, velocities = sim.joint_positions(), sim.joint_velocities()
    parts = {
        'the transforms': sim.moving_transforms,
        'positions, velocities': lambda: node.joint_noise.fill(msg, positions, velocities),
        'efforts': lambda: msg.set('effort', sim.joint_efforts()),
        'the stamp': lambda: msg.set_stamp(*wire.stamp_parts(sim.time)),
        'publish joint_states': lambda: node._state_pub.publish(msg.payload()),
        '/clock (stamp, publish)': node.publish_clock,
    }
    if tf is not None:
        parts['publish /tf'] = lambda: node._tf_pub.publish(tf.payload())
    parts['the devices due'] = lambda: node.period_outputs[0](None)
    parts['the whole state (_publish_state)'] = node._publish_state
    parts['the whole publishing (publish_period)'] = node.publish_period
    period = best(world.step_period)
    print(f'{"the physics period (World.step_period)":40s} {period:7.1f} us')
    print(f'{"part":40s} {"alone":>7s} {"after it":>10s}')
    for label, work in parts.items():
        after = best(lambda work=work: (world.step_period(), work())) - period
        print(f'{label:40s} {best(work):7.1f} {after:10.1f}')


if __name__ == '__main__':
    sys.exit(main())
