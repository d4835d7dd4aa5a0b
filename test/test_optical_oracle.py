"""A world point projected through the TF optical frame and CameraInfo K lands on the pixel
where the rendered image shows it: pinhole and fisheye cameras on a turned and tilted head.

TF is the URDF's chain (robot_state_publisher broadcasts its fixed joints) read by
urdf_parser_py; K is the CameraInfo message the bridge publishes; the image is the camera's
rendering. Where things are is also checked against the file itself: a ball to the camera's
left and above its axis is drawn left of and above the principal point (REP-103/104)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.ros.devices.sensors import camera_info
from body_bridge.urdf import optical_frame, to_urdf

from test_sensors_sim import body_file, run, start
from urdf_fk import urdf_forward_kinematics

YAW, PITCH = 25.0, -10.0  # the head: turned left, then tilted up [degrees]
HEAD = np.array([0.2, -0.1, 0.8])


def _head_axes():
    """Forward, left and up of the camera in the world, from the file's numbers."""
    y, p = math.radians(YAW), math.radians(PITCH)
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    # -10 degrees about the turned head's y axis: x goes to (cos 10, 0, sin 10), up
    ry = np.array([[math.cos(p), 0, math.sin(p)], [0, 1, 0], [-math.sin(p), 0, math.cos(p)]])
    r = rz @ ry
    return r[:, 0], r[:, 1], r[:, 2]


FORWARD, LEFT, UP = _head_axes()
#: Red ball ahead, to the left and above; blue ball ahead, to the right and below.
RED = HEAD + 2.0 * FORWARD + 0.35 * LEFT + 0.25 * UP
BLUE = HEAD + 2.5 * FORWARD - 0.5 * LEFT - 0.3 * UP


def _scene(tmp_path, lens: str):
    ball = '''
        - name: {name}
          parent: base
          joint_type: fixed
          translation: [ {x}, {y}, {z} ]
          elements:
            - type: Shape
              geometry: {{ type: Sphere, radius: 0.06 }}
              appearance: {{ material: {{ diffuse: {colour}, emissive: {colour} }} }}'''
    balls = ''.join(ball.format(name=n, x=p[0], y=p[1], z=p[2], colour=c) for n, p, c in
                    (('red', RED, '[ 1, 0, 0 ]'), ('blue', BLUE, '[ 0, 0, 1 ]')))
    return body_file(tmp_path, f"""
        - name: base
          joint_type: fixed
          mass: 10.0
          inertia: [ 0.1, 0, 0, 0.1, 0, 0.1 ]
        - name: head
          parent: base
          joint_type: fixed
          translation: [ {HEAD[0]}, {HEAD[1]}, {HEAD[2]} ]
          rotation: [ [ 0, 0, 1, {YAW} ], [ 0, 1, 0, {PITCH} ] ]
          mass: 1.0
          inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]
          elements:
            - type: Camera
              name: cam
              rotation: [ [ 0, 0, 1, -90 ], [ 1, 0, 0, 90 ] ]
              format: COLOR
              lens_type: {lens}
              width: 200
              height: 150
              field_of_view: {140 if lens == 'FISHEYE' else 60}
              near_clip_distance: 0.05
              far_clip_distance: 20
        {balls}
    """)


def _centroid(rgb, channel: int) -> tuple[float, float] | None:
    """Mean (u, v) of the pixels where ``channel`` dominates."""
    img = rgb.astype(int)
    others = [c for c in range(3) if c != channel]
    mask = (img[..., channel] > 80) & (img[..., channel] > 3 * img[..., others].max(axis=-1))
    if mask.sum() < 4:
        return None
    rows, cols = np.nonzero(mask)
    return float(cols.mean()), float(rows.mean())


def _project(k, model: str, point_optical) -> tuple[float, float]:
    x, y, z = point_optical
    fx, cx, fy, cy = k[0], k[2], k[4], k[5]
    if model == 'plumb_bob':
        return fx * x / z + cx, fy * y / z + cy
    assert model == 'equidistant'
    theta, phi = math.atan2(math.hypot(x, y), z), math.atan2(y, x)
    return cx + fx * theta * math.cos(phi), cy + fy * theta * math.sin(phi)


@pytest.mark.parametrize('lens, model', [('NORMAL', 'plumb_bob'), ('FISHEYE', 'equidistant')])
def test_points_project_through_tf_and_k_onto_the_image(tmp_path, lens, model):
    sim, suite = start(_scene(tmp_path, lens))
    run(sim, 0.01)
    cam = suite.samplers['cam']
    frame = sim.model.device_frames()['cam']
    info = camera_info(cam.intrinsics, optical_frame(frame), cam.distortion_model)
    assert info.distortion_model == model
    tf = urdf_forward_kinematics(to_urdf(sim.model), {})[info.header.frame_id]
    rgb = cam.read().rgb
    assert rgb.shape == (info.height, info.width, 3)
    for point, channel in ((RED, 0), (BLUE, 2)):
        local = np.linalg.inv(tf) @ [*point, 1.0]
        u, v = _project(info.k, model, local[:3])
        seen = _centroid(rgb, channel)
        assert seen is not None, f'the ball of channel {channel} is not in the image'
        assert math.hypot(seen[0] - u, seen[1] - v) < 1.0, (seen, (u, v))
    (ru, rv), (bu, bv) = _centroid(rgb, 0), _centroid(rgb, 2)
    cx, cy = info.k[2], info.k[5]
    assert ru < cx and rv < cy  # left of and above the principal point: the red ball
    assert bu > cx and bv > cy  # right and below: the blue one
