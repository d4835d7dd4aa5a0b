"""The benchmark suite: every figure of the bridge's cost against the physics it wraps.

    .venv/bin/python bench/run.py [--quick] [--json PATH] [--only GROUP ...]
    .venv/bin/python bench/run.py --against REV [--repeats N] [--quick] [--only GROUP ...]

Prints one ``name value unit`` line per figure as it is measured and writes the same to a
JSON file (default ``bench/results/latest.json``) with the machine's load average. Groups, in
order: ``loading`` (parse + convert + URDF against a plain parse of the same files),
``throughput`` (the stepping thread against raw ``mj_step``), ``scale`` (chains of 1 to 100
joints and more, and growing numbers of devices), ``realtime`` (the sample arm with a
640x480 camera at 30 Hz), ``camera`` (``bench/camera.py``), ``latency``
(``bench/latency.py``), ``memory`` (resident size after loading and after 60 s of running),
``tracks`` (``bench/tracks.py``: the tracks' cost per period, the Tank with its Kinect at
real-time factor 1), ``sensors``, ``world`` (``bench/world.py``, and ``bench/arms.py``: how
many sample arms one world holds at real time), ``render`` (``bench/render.py``: every camera's
frame and the period with every device read, in the simulation layer alone).
Ratios are measured side by side in one run (see ``figures.side_by_side``). ``--quick`` runs
every figure briefly (fewer repetitions, shorter runs): for checking that the suite works,
not for numbers. ``--against REV`` measures another revision side by side with the working
tree and fails when a figure moves past its goal (``bench/against.py``, ``bench/goals.py``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from figures import REPO, Figures, isolate_dds

GROUPS = ('loading', 'throughput', 'scale', 'realtime', 'camera', 'latency', 'memory', 'tracks',
          'sensors', 'world', 'render')
DEFAULT_JSON = REPO / 'bench' / 'results' / 'latest.json'


def _arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='every figure, briefly')
    parser.add_argument('--json', type=Path, default=DEFAULT_JSON, help='where to write JSON')
    parser.add_argument('--only', nargs='+', choices=GROUPS, help='run only these groups')
    parser.add_argument('--against', metavar='REV',
                        help='measure revision REV (e.g. main) side by side with the working '
                        'tree; fail when a figure moves past its goal')
    parser.add_argument('--repeats', type=int, default=3,
                        help='with --against: runs of each group on each side (default 3)')
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f'--repeats must be at least 1, not {args.repeats}')
    return args


def _machine(figures: Figures, when: str) -> None:
    figures.add(f'machine_load_average_{when}', os.getloadavg()[0], 'processes')


def _run_groups(groups, figures: Figures, quick: bool, scratch: Path) -> None:
    import rclpy
    from listener import ListenerProcess
    context = rclpy.Context()
    rclpy.init(context=context)
    listener = ListenerProcess()
    try:
        for group in groups:
            _group(group, figures, quick, scratch, context, listener)
    finally:
        listener.close()
        rclpy.shutdown(context=context)


def _group(group, figures, quick, scratch, context, listener) -> None:
    from chains import model_path, real_models, write_chain
    common = {'mesh_directory': str(scratch / 'meshes')}
    if group == 'loading':
        import loading
        loading.run(figures, quick, scratch)
    elif group == 'throughput':
        import throughput
        chain = write_chain(scratch, 30, imus=1, force_sensor=True)
        models = {'sr1': (model_path('sr1'), common)} if 'sr1' in real_models() else {}
        models['chain30'] = (chain, common)
        models['sample_arm'] = (model_path('sample_arm'), common)
        throughput.run(figures, context, listener, models, quick)
    elif group == 'scale':
        import scale
        scale.run(figures, context, listener, quick, scratch, common)
    elif group == 'realtime':
        import realtime
        realtime.run(figures, context, listener, quick, scratch, common)
    elif group == 'camera':
        import camera
        camera.run(figures, frames=10 if quick else 60)
    elif group == 'latency':
        import latency
        latency.run(figures, samples=20 if quick else 300)
    elif group == 'memory':
        import memory
        memory.run(figures, listener, quick, scratch)
    elif group == 'sensors':
        import sensor_costs
        sensor_costs.run(figures, listener, quick, scratch)
    elif group == 'tracks':
        from figures import have_corpus
        if have_corpus():  # the Tank is a real model
            import tracks
            tracks.run(figures, context, listener, quick, scratch)
    elif group == 'world':
        import arms
        import world
        world.run(figures, quick)
        arms.run(figures, listener, quick, scratch)
    elif group == 'render':
        import render
        render.run(figures, quick)


def main(argv=None) -> int:
    args = _arguments(argv)
    groups = [g for g in GROUPS if not args.only or g in args.only]
    if args.against:
        import against
        json_path = None if args.json == DEFAULT_JSON else args.json
        return against.run(args.against, groups, args.quick, args.repeats, json_path)
    isolate_dds()
    from figures import have_corpus
    if not have_corpus():
        from body_bridge.corpus import REASON
        print(f'bench: {REASON}; the figures of real models are left out', file=sys.stderr)
    figures = Figures()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')
    clock = time.monotonic()
    _machine(figures, 'start')
    with tempfile.TemporaryDirectory(prefix='body_bridge_bench_') as scratch:
        _run_groups(groups, figures, args.quick, Path(scratch))
    _machine(figures, 'end')
    figures.add('bench_wall_time', time.monotonic() - clock, 's')
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        'started': started, 'quick': args.quick, 'groups': groups,
        'cpus': os.cpu_count(), 'load_average': os.getloadavg(),
        'figures': figures.rows}, indent=1) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
