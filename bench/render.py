"""Cameras and devices in the simulation layer alone (no ROS): what a frame and a period cost.

    .venv/bin/python bench/render.py [--models arm sr1 tank] [--frames N] [--periods N]

For each model (the sample arm with its hand camera made 640x480 colour and depth at 30 Hz,
SR1 with its two 640x480 cameras, the Tank with its Kinect and its Theta), in one process
that never imports rclpy:

* per camera, one frame read as the bridge reads it when it is due (the scene updated for the
  instant, rendered from the camera, read back, the depth turned into metres), colour only,
  depth only and both (those the camera's format produces), interleaved frame after frame,
  the simulation stepped one control period between frames (not timed):
  ``render_<model>_<camera>_{color,depth,both}`` (the camera's name in lower case) [ms,
  wall time, median], the process's CPU beside (``*_cpu``: Mesa llvmpipe rasterises in
  threads of its own), and ``render_<model>_<camera>_depth_over_color``;
* the model's control period with every device read as it falls due (cameras at their
  rates, every image they produce) against the same period without reading any device and
  against raw ``mj_step`` of the same compiled model from the same state, side by side:
  ``render_<model>_period_{raw,bare,devices}`` [us, wall], ``render_<model>_devices_ratio``
  (raw / with devices: the throughput ratio), ``render_<model>_devices_rtf`` (the real-time
  factor the stepping reaches with every device read).

It runs on Mesa (EGL, ``MUJOCO_GL=egl``, the default here) and on a GPU machine's EGL alike:
the renderer's name is printed on standard error. SR1 and the Tank need the real model
corpus (``$BODY_BRIDGE_MODELS``, else ``../shared/models/``); without it they are left out.
``run.py --only render`` runs it as a group of the suite.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault('MUJOCO_GL', 'egl')

from figures import REPO, Figures, have_corpus  # noqa: E402

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

__all__ = ['run', 'MODELS']

MODELS = ('arm', 'sr1', 'tank')


def _model(name: str, scratch: Path):
    """(Simulation, SensorSuite) of a model, its devices as the figures want them."""
    from body_bridge.device_overlay import apply_overlay, load_overlay
    from body_bridge.formats import load_model
    from body_bridge.sim.sensing.sensors import SensorSuite
    from body_bridge.sim.simulation import Simulation
    from chains import model_path
    overlay = None
    if name == 'arm':
        from realtime import write_overlay
        model = load_model(model_path('sample_arm'))
        overlay = load_overlay(write_overlay(scratch), model)
        model = apply_overlay(model, overlay)
    elif name == 'sr1':
        model = load_model(model_path('sr1'))
    else:
        from figures import shared_model
        model = load_model(shared_model('choreonoid/share/model/Tank/Tank.body'))
    sim = Simulation(model)
    suite = SensorSuite(sim, overlay)
    for _ in range(20):  # settled, contacts made
        sim.step_period()
    if name == 'tank':
        from body_bridge.sim.names import Mode
        sim.command(Mode.VELOCITY, ['TRACK_L', 'TRACK_R'], [-0.3, 0.3])
    return sim, suite


def _cameras(suite) -> dict:
    from body_bridge.sim.sensing.sensors import CameraSampler
    return {n: s for n, s in suite.samplers.items() if isinstance(s, CameraSampler)}


def frames(figures, name: str, sim, suite, count: int) -> None:
    """Per camera: colour, depth and both, a frame each in turn, ``count`` of each."""
    cameras = _cameras(suite)
    kinds = {'color': (True, False), 'depth': (False, True), 'both': (True, True)}
    for camera, sampler in cameras.items():
        sampler.read(True, True)  # the renderer's context and first buffers: not counted
        wall = {k: [] for k in kinds}
        cpu = {k: [] for k in kinds}
        for _ in range(count):
            for kind, (color, depth) in kinds.items():
                if color and not sampler.color or depth and not sampler.depth:
                    continue  # an image the camera's format does not produce
                sim.step_period()  # a new instant: the scene is made again, as when due
                t, c = time.perf_counter(), time.process_time()
                sampler.read(color=color, depth=depth)
                wall[kind].append(time.perf_counter() - t)
                cpu[kind].append(time.process_time() - c)
        key = f'render_{name}_{_token(camera)}'
        for kind in kinds:
            if wall[kind]:
                figures.add(f'{key}_{kind}', 1e3 * statistics.median(wall[kind]), 'ms')
                figures.add(f'{key}_{kind}_cpu', 1e3 * statistics.median(cpu[kind]), 'ms')
        if wall['color'] and wall['depth']:
            figures.add(f'{key}_depth_over_color',
                        statistics.median(wall['depth']) / statistics.median(wall['color']), 'x')


def _token(text: str) -> str:
    return ''.join(c if c.isalnum() else '_' for c in text.lower())


def periods(figures, name: str, sim, suite, count: int, repeats: int) -> None:
    """The period with every device read when due, without, and raw mj_step, side by side."""
    import mujoco
    world = sim.world
    raw = mujoco.MjData(world.mj)

    def with_devices():
        for _ in range(count):
            sim.step_period()
            for sampler in suite.due():
                sampler.read()

    def bare():
        for _ in range(count):
            sim.step_period()

    def physics():
        mujoco.mj_copyData(raw, world.mj, world.data)
        mujoco.mj_step(world.mj, raw, nstep=count * world.substeps)

    sides = {'devices': with_devices, 'bare': bare, 'raw': physics}
    costs = {side: [] for side in sides}
    for k in range(repeats):
        order = list(sides) if k % 2 == 0 else list(reversed(sides))
        for side in order:
            t = time.perf_counter()
            sides[side]()
            costs[side].append((time.perf_counter() - t) / count)
    median = {side: statistics.median(v) for side, v in costs.items()}
    key = f'render_{name}'
    for side in ('raw', 'bare', 'devices'):
        figures.add(f'{key}_period_{side}', 1e6 * median[side], 'us')
    figures.add(f'{key}_devices_ratio', median['raw'] / median['devices'], 'x')
    figures.add(f'{key}_devices_rtf', world.period / median['devices'], 'x')


def renderer_name() -> str:
    """The OpenGL renderer EGL gives this process (Mesa's llvmpipe on a machine without
    GPU, the GPU's name on one with)."""
    try:
        from mujoco.egl import GLContext
        from OpenGL import GL
        context = GLContext(16, 16)
        context.make_current()
        name = GL.glGetString(GL.GL_RENDERER).decode()
        context.free()
        return name
    except Exception as err:  # noqa: BLE001 (any GL failure: say it)
        return f'unknown ({err})'


def run(figures, quick: bool = False, models=MODELS, count: int | None = None,
        period_count: int | None = None) -> None:
    """Every figure of the models asked for (those of the corpus only with the corpus)."""
    count = count or (3 if quick else 20)
    period_count = period_count or (15 if quick else 150)
    repeats = 3 if quick else 7
    print(f'render: {renderer_name()}', file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix='body_bridge_render_') as scratch:
        for name in models:
            if name != 'arm' and not have_corpus():
                print(f'render: {name} needs the real model corpus; left out',
                      file=sys.stderr)
                continue
            sim, suite = _model(name, Path(scratch))
            try:
                frames(figures, name, sim, suite, count)
                periods(figures, name, sim, suite, period_count, repeats)
            finally:
                suite.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--models', nargs='+', choices=MODELS, default=list(MODELS))
    parser.add_argument('--frames', type=int, help='frames of each kind per camera')
    parser.add_argument('--periods', type=int, help='control periods per timed run')
    parser.add_argument('--quick', action='store_true', help='briefly (checks that it runs)')
    args = parser.parse_args(argv)
    run(Figures(), args.quick, args.models, args.frames, args.periods)
    if 'rclpy' in sys.modules:  # the simulation layer alone, as documented
        print('render: rclpy was imported', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
