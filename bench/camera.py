"""Benchmark: a 640x480 colour camera, rendered and published by the bridge, against the raw
MuJoCo render of the same frame (mujoco.Renderer), side by side in one run.

Per frame, interleaved: mujoco.Renderer through a model camera at the device's pose (the raw
render); the bridge's camera publisher (render, Image and CameraInfo, publish to a
subscriber); the bridge's render alone. ``camera_bridge_cost_ratio`` is bridge / raw,
``camera_publish_overhead_ratio`` bridge / its render alone; ``camera_image_difference`` is the
mean absolute difference of the two images (0-255), which shows they are the same frame.

Run from the repository: ``.venv/bin/python bench/camera.py [--frames N]``. Prints one
``name value unit`` line per measure.
"""

from __future__ import annotations

import argparse
import math
import os
import time

os.environ.setdefault('MUJOCO_GL', 'egl')
os.environ.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
os.environ.setdefault('ROS_DOMAIN_ID', str(1 + os.getpid() % 100))

import mujoco  # noqa: E402
import numpy as np  # noqa: E402
from figures import Figures  # noqa: E402

from body_bridge.device_overlay import Overlay, apply_overlay  # noqa: E402
from body_bridge.formats import load_model  # noqa: E402
from body_bridge.model import Device, DeviceKind, Pose, freeze  # noqa: E402
from body_bridge.paths import resolve_model  # noqa: E402
from body_bridge.sim.building.build import build_spec  # noqa: E402
from body_bridge.sim.sensing.sensors import SensorSuite  # noqa: E402
from body_bridge.sim.simulation import Mode, Simulation  # noqa: E402

WIDTH, HEIGHT, FOV = 640, 480, math.radians(60.0)
NEAR, FAR = 0.05, 20.0  # clip distances [m]
#: The camera on the arm's base, 0.9 m in front of it, looking back at it (+x of the device
#: frame towards the arm), a little from above.
CAMERA_POSE = Pose.from_rpy((0.0, 0.25, math.pi), (0.9, 0.0, 0.6))


def scene():
    """The sample arm with a 640x480 colour camera looking at it."""
    arm = load_model(resolve_model('sample_arm'))
    camera = Device('bench_camera', DeviceKind.CAMERA, 'base', CAMERA_POSE, freeze({
        'format': 'COLOR', 'width': WIDTH, 'height': HEIGHT, 'field_of_view': FOV,
        'near_clip_distance': NEAR, 'far_clip_distance': FAR, 'frame_rate': 30.0}), 'Camera')
    return apply_overlay(arm, Overlay(devices=(camera,)))


def raw_model(model, sim):
    """The same world with a MuJoCo camera at the device's pose, for mujoco.Renderer."""
    spec = build_spec(model, sim.options.build)
    cam = spec.body('base').add_camera()
    cam.name = 'raw'
    cam.pos = [float(x) for x in CAMERA_POSE.pos]
    # A MuJoCo camera looks along its -z with +y up: device x forward, z up.
    look = Pose(np.zeros(3), [[0, 0, -1], [-1, 0, 0], [0, 1, 0]])
    cam.quat = [float(q) for q in (CAMERA_POSE @ look).quat()]
    cam.fovy = math.degrees(FOV)  # the field of view spans the shorter side, the height
    mj = spec.compile()
    # The same clip planes as the bridge's camera (MuJoCo scales them by the model's extent).
    mj.vis.map.znear = NEAR / mj.stat.extent
    mj.vis.map.zfar = FAR / mj.stat.extent
    return mj, mujoco.MjData(mj)


def run(figures, frames: int = 60) -> None:
    """Measure ``frames`` frames of each kind (after 5 not counted); add the figures."""
    from body_bridge.ros.process.transport import use_bundled_fastdds_profile
    use_bundled_fastdds_profile()
    import rclpy
    from sensor_msgs.msg import Image

    from body_bridge.ros.stream import qos
    from body_bridge.ros.devices.sensors import CameraPublisher

    model = scene()
    sim = Simulation(model)
    suite = SensorSuite(sim)
    sampler = suite.samplers['bench_camera']
    mj, data = raw_model(model, sim)
    renderer = mujoco.Renderer(mj, HEIGHT, WIDTH)

    rclpy.init()
    node = rclpy.create_node('camera_bench')
    listener = rclpy.create_node('camera_bench_listener')
    received = []
    listener.create_subscription(Image, 'bench_camera/image_raw', received.append, qos.SENSOR)
    publisher = CameraPublisher(node, sampler, 'bench_camera', 'bench_camera_optical_frame')
    deadline = time.monotonic() + 10.0
    while publisher.image_pub.get_subscription_count() == 0 and time.monotonic() < deadline:
        rclpy.spin_once(listener, timeout_sec=0.05)

    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [1.0])
    raw_time = bridge_time = render_time = 0.0
    difference = []
    for frame in range(frames + 5):
        sim.step_period()
        data.qpos[:] = sim.data.qpos
        data.qvel[:] = sim.data.qvel
        mujoco.mj_forward(mj, data)

        t0 = time.perf_counter()
        renderer.update_scene(data, camera='raw')
        raw = renderer.render()
        t1 = time.perf_counter()
        publisher.tick()  # render, build Image and CameraInfo, publish
        t2 = time.perf_counter()
        ours = sampler.read(color=True, depth=False).rgb  # the same render, not published
        t3 = time.perf_counter()
        if frame >= 5:  # after warm-up (GL contexts, first allocations)
            raw_time += t1 - t0
            bridge_time += t2 - t1
            render_time += t3 - t2
            difference.append(float(np.mean(np.abs(ours.astype(int) - raw.astype(int)))))
        for _ in range(3):
            rclpy.spin_once(listener, timeout_sec=0.0)

    n = frames
    figures.add('camera_raw_mujoco_render', n / raw_time, 'frames/s')
    figures.add('camera_bridge_render_and_publish', n / bridge_time, 'frames/s')
    figures.add('camera_bridge_render_only', n / render_time, 'frames/s')
    figures.add('camera_bridge_cost_ratio', bridge_time / raw_time, 'x')
    figures.add('camera_publish_overhead_ratio', bridge_time / render_time, 'x')
    figures.add('camera_image_difference', np.mean(difference), 'levels')
    figures.add('camera_images_lost', n + 5 - len(received), 'images')
    renderer.close()
    suite.close()
    node.destroy_node()
    listener.destroy_node()
    rclpy.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--frames', type=int, default=60, help='frames of each kind')
    args = parser.parse_args()
    run(Figures(), args.frames)


if __name__ == '__main__':
    main()
