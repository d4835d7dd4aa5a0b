"""Benchmark: what sensor noise and image compression cost, and what compression saves.

* Noise per message: readings of the sample arm's IMU, laser scan and a 640x480 colour and
  depth camera with and without noise (the full IMU model: density, random walk, turn-on
  and constant bias on both quantities; distance noise growing with range, quantisation and
  dropouts on the scan and the depth; pixel noise), side by side, CPU time per reading.
* Compression per frame: a rendered 640x480 frame of the sample arm (camera.py's scene) as
  JPEG (quality 95), PNG (level 3) and compressedDepth (PNG, and RVL), CPU time and size.
* Bytes per second of the sample arm's hand camera (320x240, 15 Hz, colour and depth) raw
  (Image) against compressed (JPEG colour, compressedDepth), from frames it rendered.
* Real time: the sample arm with its hand camera made 640x480 at 30 Hz, the bridge process at
  real-time factor 1, a listener in another process on ``image_raw/compressed`` and
  ``depth/image/compressedDepth`` only (as a remote viewer), and, alternately, on the raw
  ``image_raw`` and ``depth/image``: the real-time factor kept (the worse of the runs), the
  frame rates, the bridge's CPU use.
* Compression per frame and bytes per second of a 640x480 frame at 30 Hz of camera.py's
  view of the arm.

Run from the repository: ``.venv/bin/python bench/sensor_costs.py [--quick]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault('MUJOCO_GL', 'egl')

from figures import Cost, Figures, isolate_dds, side_by_side, timed  # noqa: E402

IMU_NOISE = {'linear_acceleration': 0.01, 'linear_acceleration_bias': 0.02,
             'linear_acceleration_turn_on_bias': 0.05,
             'linear_acceleration_noise_density': 2e-3,
             'linear_acceleration_random_walk': 3e-3, 'angular_velocity': 1e-3,
             'angular_velocity_bias': 1e-3, 'angular_velocity_turn_on_bias': 5e-3,
             'angular_velocity_noise_density': 1.7e-4, 'angular_velocity_random_walk': 2e-5}
SCAN_NOISE = {'distance': 0.01, 'distance_per_meter': 0.001, 'resolution': 0.001,
              'dropout': 0.01}
CAMERA_NOISE = {'color': 2.0, 'depth': 0.002, 'depth_per_meter': 0.003,
                'depth_resolution': 0.001, 'depth_dropout': 0.01}


def _reads(sampler, n: int):
    """A function timing ``n`` scheduled readings of ``sampler`` (each one sample further)."""
    def run() -> Cost:
        def go():
            for _ in range(n):
                sampler.sample_index += 1
                sampler.read()
        return timed(go) / n
    return run


def noise_costs(figures: Figures, quick: bool) -> None:
    from body_bridge.device_overlay import DeviceSettings
    from body_bridge.formats import load_model
    from body_bridge.model import freeze
    from body_bridge.paths import resolve_model
    from body_bridge.sim.sensing.optical import CameraSampler, RangeSampler
    from body_bridge.sim.sensing.samplers import InertialSampler
    from body_bridge.sim.sensing.sensors import SensorSuite
    from body_bridge.sim.simulation import Simulation
    from camera import scene
    arm = Simulation(load_model(resolve_model('sample_arm')))
    arm.step_period()
    devices = {d.name: d for d in arm.model.devices}
    repeats = 5 if quick else 15
    for name, cls, noise, n in (('imu', InertialSampler, IMU_NOISE, 200 if quick else 2000),
                                ('scan', RangeSampler, SCAN_NOISE, 20 if quick else 200)):
        device = devices['base_imu' if name == 'imu' else 'base_scan']
        plain = cls(arm, device, DeviceSettings(), 1, 100.0)
        noisy = cls(arm, device, DeviceSettings(noise=noise), 1, 100.0)
        cost = side_by_side({'plain': _reads(plain, n), 'noisy': _reads(noisy, n)}, repeats)
        figures.add(f'sensors_{name}_read', cost['plain'].cpu * 1e6, 'us')
        figures.add(f'sensors_{name}_noise_cost', (cost['noisy'].cpu - cost['plain'].cpu) * 1e6,
                    'us')
    sim = Simulation(scene())
    suite = SensorSuite(sim)
    try:
        cam = suite.samplers['bench_camera']
        device = dataclasses.replace(cam.device, params=freeze(
            {**cam.device.params, 'format': 'COLOR_DEPTH'}))
        plain = CameraSampler(sim, device, DeviceSettings(), 1, 30.0, suite._scene)
        noisy = CameraSampler(sim, device, DeviceSettings(noise=CAMERA_NOISE), 1, 30.0,
                              suite._scene)
        plain.read()  # the renderer's context
        frames = 2 if quick else 10
        cost = side_by_side({'plain': _reads(plain, frames), 'noisy': _reads(noisy, frames)},
                            3 if quick else 5)
        figures.add('sensors_camera_640x480_read', cost['plain'].cpu * 1e3, 'ms')
        figures.add('sensors_camera_640x480_noise_cost',
                    (cost['noisy'].cpu - cost['plain'].cpu) * 1e3, 'ms')
        compression_costs(figures, plain.read(), quick)
    finally:
        suite.close()


def compression_costs(figures: Figures, frame, quick: bool) -> None:
    from body_bridge.ros.stream.compression import (COLOR_DEFAULTS, DEPTH_DEFAULTS, compress_color,
                                             compress_depth)
    rgb, depth = frame.rgb.copy(), frame.depth.copy()
    rvl = dict(DEPTH_DEFAULTS, format='rvl')
    n = 3 if quick else 20
    sides = {
        'jpeg': lambda: timed(lambda: [compress_color(rgb, COLOR_DEFAULTS)
                                       for _ in range(n)]) / n,
        'png': lambda: timed(lambda: [compress_color(rgb, dict(COLOR_DEFAULTS, format='png'))
                                      for _ in range(n)]) / n,
        'depth': lambda: timed(lambda: [compress_depth(depth, DEPTH_DEFAULTS)
                                        for _ in range(n)]) / n,
        'depth_rvl': lambda: timed(lambda: [compress_depth(depth, rvl) for _ in range(n)]) / n}
    cost = side_by_side(sides, 3 if quick else 5)
    for name, c in cost.items():
        figures.add(f'sensors_compress_{name}_640x480', c.cpu * 1e3, 'ms')
    packed = len(compress_color(rgb, COLOR_DEFAULTS)[1]) + \
        len(compress_depth(depth, DEPTH_DEFAULTS)[1])
    figures.add('sensors_depth_png_640x480_bytes', len(compress_depth(depth, DEPTH_DEFAULTS)[1]),
                'B')
    figures.add('sensors_depth_rvl_640x480_bytes', len(compress_depth(depth, rvl)[1]), 'B')
    figures.add('sensors_640x480_raw_bytes_per_s', (rgb.nbytes + depth.nbytes) * 30.0, 'B/s')
    figures.add('sensors_640x480_compressed_bytes_per_s', packed * 30.0, 'B/s')


def hand_camera_bytes(figures: Figures) -> None:
    """Raw against compressed bytes per second of the sample arm's hand camera (as the model
    has it: 320x240, 15 Hz, colour and depth), the arm bent so that it looks at the floor."""
    import mujoco
    import numpy as np

    from body_bridge.formats import load_model
    from body_bridge.paths import resolve_model
    from body_bridge.ros.stream.compression import (COLOR_DEFAULTS, DEPTH_DEFAULTS, compress_color,
                                             compress_depth)
    from body_bridge.sim.sensing.sensors import SensorSuite
    from body_bridge.sim.simulation import Simulation
    sim = Simulation(load_model(resolve_model('sample_arm')))
    suite = SensorSuite(sim)
    try:
        cam = suite.samplers['hand_camera']
        sim.data.qpos[:] = np.linspace(0.4, 1.2, sim.data.qpos.size)
        mujoco.mj_forward(sim.mj, sim.data)
        raw = packed = 0
        for _ in range(3):
            r = cam.read()
            raw += r.rgb.nbytes + r.depth.nbytes
            packed += len(compress_color(r.rgb, COLOR_DEFAULTS)[1]) + \
                len(compress_depth(r.depth, DEPTH_DEFAULTS)[1])
        rate = cam.rate
        figures.add('sensors_hand_camera_raw_bytes_per_s', raw / 3 * rate, 'B/s')
        figures.add('sensors_hand_camera_compressed_bytes_per_s', packed / 3 * rate, 'B/s')
    finally:
        suite.close()


def realtime_camera(figures: Figures, listener, quick: bool, scratch: Path) -> None:
    """The bridge at real-time factor 1 with a 640x480 30 Hz camera: the raw images watched,
    then the compressed ones (alternately, twice each in a full run)."""
    from realtime import CAMERA
    results = {'raw': [], 'compressed': []}
    for k in range(1 if quick else 2):
        for kind in (('raw', 'compressed') if k % 2 == 0 else ('compressed', 'raw')):
            results[kind].append(_paced(listener, quick, scratch, kind, CAMERA))
    for kind, runs in results.items():
        rtf, image, depth, cpu = (min(r[i] for r in runs) for i in range(4))
        figures.add(f'sensors_{kind}_camera_rtf', rtf, 'x')
        figures.add(f'sensors_{kind}_image_rate', image, 'Hz')
        figures.add(f'sensors_{kind}_depth_rate', depth, 'Hz')
        figures.add(f'sensors_{kind}_bridge_cpu', cpu, 'cores')


def _paced(listener, quick: bool, scratch: Path, kind: str, camera: str):
    """(real-time factor, image rate, depth rate, CPU use) of one paced run."""
    from paced import rates, watch_paced
    from realtime import write_overlay
    ns = f'/bench_{kind}'
    overlay = write_overlay(scratch)
    cmd = [sys.executable, '-m', 'body_bridge', 'sim', 'sample_arm', '--ros-args',
           '-r', f'__ns:={ns}', '-p', f'devices_file:={overlay}',
           '-p', f'mesh_directory:={scratch / "meshes"}', '-p', 'real_time_factor:=1.0']
    image, depth = (('image_raw/compressed', 'depth/image/compressedDepth')
                    if kind == 'compressed' else ('image_raw', 'depth/image'))
    msg = 'sensor_msgs/msg/CompressedImage' if kind == 'compressed' else 'sensor_msgs/msg/Image'
    topics = [[f'{ns}/{camera}/{image}', msg, False], [f'{ns}/{camera}/{depth}', msg, False],
              ['/clock', 'rosgraph_msgs/msg/Clock', False]]
    report, cpu = watch_paced(listener, cmd, ns, scratch / f'{kind}_bridge.log', topics[0][0],
                              1.5 if quick else 3.0, 2.0 if quick else 20.0, topics=topics)
    return (*rates(report, topics[0][0], topics[1][0]), cpu)


def run(figures: Figures, listener, quick: bool, scratch: Path) -> None:
    noise_costs(figures, quick)
    hand_camera_bytes(figures)
    realtime_camera(figures, listener, quick, scratch)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--quick', action='store_true')
    args = parser.parse_args(argv)
    isolate_dds()
    from listener import ListenerProcess
    listener = ListenerProcess()
    try:
        with tempfile.TemporaryDirectory(prefix='body_bridge_bench_') as scratch:
            run(Figures(), listener, args.quick, Path(scratch))
    finally:
        listener.close()
    return 0


if __name__ == '__main__':
    sys.exit(main())
