"""Simulated devices against analytic values, each in the sensor's own frame (no ROS)."""

import math
import textwrap

import numpy as np
import pytest

from body_bridge.device_overlay import load_overlay, apply_overlay
from body_bridge.formats import load_model
from body_bridge.sim.sensing.sensors import SensorSuite, camera_intrinsics, scan_angles
from body_bridge.sim.simulation import Mode, Simulation

from conftest import SAMPLE_ARM

G = 9.81  # MuJoCo's default gravity [m/s^2]


def body_file(tmp_path, links: str, name='scene.body'):
    path = tmp_path / name
    path.write_text('format: ChoreonoidBody\nformat_version: 2.0\nangle_unit: degree\n'
                    f'name: scene\nlinks:\n{textwrap.indent(textwrap.dedent(links), "  ")}')
    return path


def overlay_file(tmp_path, text, name='devices.yaml'):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def start(path, overlay_text=None, tmp_path=None):
    """A Simulation of a model file (with a device overlay) and its sensor suite."""
    model = load_model(path)
    overlay = None
    if overlay_text is not None:
        overlay = load_overlay(overlay_file(tmp_path, overlay_text), model)
        model = apply_overlay(model, overlay)
    sim = Simulation(model)
    return sim, SensorSuite(sim, overlay)


def run(sim, seconds):
    for _ in range(int(round(seconds / sim.period))):
        sim.step_period()


@pytest.fixture
def arm():
    return start(SAMPLE_ARM)


# --- inertial sensors -----------------------------------------------------------------------


def test_imu_at_rest_reads_plus_g_up_and_no_rotation(arm):
    sim, suite = arm
    run(sim, 1.0)
    reading = suite.samplers['base_imu'].read()
    np.testing.assert_allclose(reading.linear_acceleration, (0, 0, G), atol=0.01)
    np.testing.assert_allclose(reading.angular_velocity, 0.0, atol=1e-6)
    assert reading.orientation is None  # a Choreonoid Imu reports no orientation
    accel = suite.samplers['forearm_accel'].read()
    np.testing.assert_allclose(accel.linear_acceleration, (0, 0, G), atol=0.01)
    assert accel.angular_velocity is None
    assert suite.samplers['forearm_gyro'].read().linear_acceleration is None


def test_tilted_accelerometer_reads_gravity_in_its_own_frame(tmp_path):
    # Rotated +90 degrees about x: the world's up is the sensor's +y.
    path = body_file(tmp_path, """
        - name: base
          joint_type: fixed
          mass: 1.0
          inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]
          elements:
            - { type: AccelerationSensor, name: tilted, rotation: [ 1, 0, 0, 90 ] }
    """)
    sim, suite = start(path)
    run(sim, 0.1)
    np.testing.assert_allclose(suite.samplers['tilted'].read().linear_acceleration, (0, G, 0),
                               atol=0.01)


def test_gyro_on_a_link_spinning_at_one_radian_per_second(arm):
    sim, suite = arm
    sim.command(Mode.POSITION, ['elbow_pitch'], [0.6])
    run(sim, 1.5)
    sim.command(Mode.VELOCITY, ['shoulder_yaw'], [1.0])
    run(sim, 1.5)
    yaw_rate = sim.joint_velocities()[sim.joint_names.index('shoulder_yaw')]
    assert yaw_rate == pytest.approx(1.0, rel=0.01)
    # The forearm is tilted by the elbow: the world's vertical spin, seen in its frame.
    _, quat = sim.body_pose('elbow_pitch')
    from body_bridge.model import quat_matrix
    expected = quat_matrix(quat).T @ np.array([0.0, 0.0, 1.0])
    gyro = suite.samplers['forearm_gyro'].read().angular_velocity
    np.testing.assert_allclose(gyro, expected, rtol=0.01, atol=0.005)
    assert np.linalg.norm(gyro) == pytest.approx(1.0, rel=0.01)
    np.testing.assert_allclose(suite.samplers['base_imu'].read().angular_velocity, 0, atol=1e-6)


def test_imu_saturates_at_max_acceleration(arm, tmp_path):
    sim, suite = start(SAMPLE_ARM, """
        devices:
          base_imu: { max_acceleration: [ 5.0, 5.0, 5.0 ] }
    """, tmp_path)
    run(sim, 0.2)
    np.testing.assert_allclose(suite.samplers['base_imu'].read().linear_acceleration, (0, 0, 5.0))


# --- force sensors ------------------------------------------------------------------------------


def test_force_sensor_under_the_hand_reads_its_weight(arm):
    sim, suite = arm
    run(sim, 1.0)
    reading = suite.samplers['wrist_force'].read()
    m = 0.4  # the hand's mass in sample_arm.body
    # The hand pushes down on the wrist through the sensor (sensor z is up).
    assert reading.force[2] == pytest.approx(-m * G, rel=0.005)
    np.testing.assert_allclose(reading.force[:2], 0.0, atol=1e-3)
    np.testing.assert_allclose(reading.torque, 0.0, atol=1e-3)  # the com is above the sensor


def test_force_sensor_reads_force_and_moment_of_an_offset_load(tmp_path):
    path = body_file(tmp_path, """
        - name: base
          joint_type: fixed
          mass: 5.0
          inertia: [ 0.1, 0, 0, 0.1, 0, 0.1 ]
        - name: load
          parent: base
          joint_type: fixed
          translation: [ 0, 0, 0.5 ]
          mass: 2.0
          center_of_mass: [ 0.1, 0, 0.05 ]
          inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]
          elements:
            - { type: ForceSensor, name: ft }
    """)
    sim, suite = start(path)
    run(sim, 0.5)
    reading = suite.samplers['ft'].read()
    weight = np.array([0.0, 0.0, -2.0 * G])
    np.testing.assert_allclose(reading.force, weight, rtol=0.005, atol=1e-6)
    # The load's weight acts at its centre of mass: its moment about the sensor origin.
    np.testing.assert_allclose(reading.torque, np.cross([0.1, 0.0, 0.05], weight), atol=1e-3)


# --- range sensors -----------------------------------------------------------------------------


def range_scene(tmp_path, min_distance=0.05):
    # A range sensor 0.8 m above the floor on a link that turns about x; Choreonoid's range
    # sensors measure along their -Z, which is down at q = 0.
    return body_file(tmp_path, f"""
        - name: mast
          joint_type: fixed
          translation: [ 0, 0, 0.8 ]
          mass: 1.0
          inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]
        - name: head
          parent: mast
          joint_type: revolute
          joint_axis: X
          joint_range: [ -200, 200 ]
          mass: 0.5
          inertia: [ 0.001, 0, 0, 0.001, 0, 0.001 ]
          elements:
            - type: RangeSensor
              name: beam
              yaw_range: 0          # one beam (Choreonoid's default is a 120 degree scan)
              scan_rate: 20
              min_distance: {min_distance}
              max_distance: 10.0
    """)


def test_range_sensor_reads_the_floor_and_inf_at_the_sky(tmp_path):
    sim, suite = start(range_scene(tmp_path))
    run(sim, 0.2)
    beam = suite.samplers['beam']
    assert beam.rate == 20.0
    assert beam.read().ranges.shape == (1, 1)
    assert float(beam.read().ranges[0, 0]) == pytest.approx(0.8, abs=0.005)
    sim.command(Mode.POSITION, ['head'], [math.pi])
    run(sim, 2.0)
    assert sim.joint_positions()[0] == pytest.approx(math.pi, abs=0.01)
    assert float(beam.read().ranges[0, 0]) == math.inf  # REP-117: no return


def test_range_sensor_reads_minus_inf_when_too_close(tmp_path):
    sim, suite = start(range_scene(tmp_path, min_distance=1.0))
    run(sim, 0.1)
    assert float(suite.samplers['beam'].read().ranges[0, 0]) == -math.inf  # REP-117


def wall_scene(tmp_path):
    # A scanner 0.5 m up looking along +x (scanning about +z), a wall whose face is at x = 2 m,
    # and a post at (1, 0.5) on the scanner's left.
    return body_file(tmp_path, """
        - name: base
          joint_type: fixed
          mass: 10.0
          inertia: [ 0.1, 0, 0, 0.1, 0, 0.1 ]
          elements:
            - type: RangeSensor
              name: lidar
              translation: [ 0, 0, 0.5 ]
              rotation: [ [ 0, 0, 1, -90 ], [ 1, 0, 0, 90 ] ]
              yaw_range: 90
              yaw_step: 1
              scan_rate: 10
              min_distance: 0.1
              max_distance: 30
        - name: wall
          parent: base
          joint_type: fixed
          translation: [ 2.1, 0, 0.5 ]
          elements:
            - type: Shape
              geometry: { type: Box, size: [ 0.2, 6.0, 1.0 ] }
        - name: post
          parent: base
          joint_type: fixed
          translation: [ 1.0, 0.5, 0.5 ]
          elements:
            - type: Shape
              geometry: { type: Box, size: [ 0.1, 0.1, 1.0 ] }
    """)


def test_laser_scan_facing_a_wall_at_two_metres(tmp_path):
    sim, suite = start(wall_scene(tmp_path))
    run(sim, 0.1)
    lidar = suite.samplers['lidar']
    np.testing.assert_allclose(lidar.yaw, np.radians(np.arange(-45, 46)), atol=1e-12)
    ranges = lidar.read().ranges[0]
    assert ranges[45] == pytest.approx(2.0, abs=0.005)  # the middle beam
    # Beams at yaw y meet the wall at 2 / cos(y); yaw grows counter-clockwise (towards +y),
    # where the post stands.
    for index in (5, 20, 35, 55, 60):
        yaw = math.radians(index - 45)
        assert ranges[index] == pytest.approx(2.0 / math.cos(yaw), abs=0.005), index
    post = math.degrees(math.atan2(0.5, 0.95))
    assert ranges[45 + round(post)] == pytest.approx(0.95 / math.cos(math.radians(round(post))),
                                                     abs=0.01)
    assert ranges[45 - round(post)] == pytest.approx(2.0 / math.cos(math.radians(round(post))),
                                                     abs=0.005)


def test_choreonoid_error_deviation_and_detection_rate(tmp_path):
    path = wall_scene(tmp_path)
    path.write_text(path.read_text().replace('max_distance: 30', 'max_distance: 30\n'
                                             '        error_deviation: 0.01\n'
                                             '        detection_rate: 0.75'))
    sim, suite = start(path)
    run(sim, 0.1)
    ranges = np.array([suite.samplers['lidar'].read().ranges[0] for _ in range(200)])
    seen = np.isfinite(ranges)
    assert seen.mean() == pytest.approx(0.75, abs=0.02)
    middle = ranges[seen[:, 45], 45]
    assert middle.mean() == pytest.approx(2.0, abs=0.003)
    assert middle.std() == pytest.approx(0.01, rel=0.2)


def test_scan_angles_of_both_conventions():
    yaw, pitch = scan_angles({'yaw_range': math.radians(180), 'yaw_step': math.radians(0.4),
                              'pitch_range': math.radians(30), 'pitch_step': math.radians(2)})
    assert (yaw.size, pitch.size) == (451, 16)
    assert yaw[0] == pytest.approx(-math.pi / 2) and yaw[-1] == pytest.approx(math.pi / 2)
    yaw, pitch = scan_angles({'min_angle': -1.0, 'max_angle': 1.0, 'resolution': 0.5})
    np.testing.assert_allclose(yaw, [-1.0, -0.5, 0.0, 0.5, 1.0])
    assert pitch.tolist() == [0.0]


def test_three_d_scanner_points_lie_on_the_wall(tmp_path):
    path = wall_scene(tmp_path)
    sim, suite = start(path, """
        devices:
          lidar: { pitch_range: 0.4, pitch_step: 0.1, yaw_range: 0.6, yaw_step: 0.05 }
    """, tmp_path)
    run(sim, 0.1)
    lidar = suite.samplers['lidar']
    ranges = lidar.read().ranges
    assert ranges.shape == (5, 13)
    points = lidar.directions * ranges.reshape(-1, 1)
    # In the sensor frame (x forward, z up): the wall is the plane x = 2; pitch raises z.
    np.testing.assert_allclose(points[:, 0], 2.0, atol=0.005)
    assert points[:, 2].max() > 0.3 and points[:, 2].min() < -0.3
    np.testing.assert_allclose(points[-1, 2], 2.0 * math.tan(0.2) / math.cos(0.3), atol=0.01)


# --- cameras ----------------------------------------------------------------------------------


def camera_scene(tmp_path, fmt='COLOR_DEPTH'):
    # A camera 0.5 m up looking along +x, a red cube (0.2 m) centred at (2, 0.3, 0.6).
    return body_file(tmp_path, f"""
        - name: base
          joint_type: fixed
          mass: 10.0
          inertia: [ 0.1, 0, 0, 0.1, 0, 0.1 ]
          elements:
            - type: Camera
              name: cam
              translation: [ 0, 0, 0.5 ]
              rotation: [ [ 0, 0, 1, -90 ], [ 1, 0, 0, 90 ] ]
              format: {fmt}
              width: 320
              height: 240
              field_of_view: 60
              near_clip_distance: 0.05
              far_clip_distance: 20
              frame_rate: 10
        - name: target
          parent: base
          joint_type: fixed
          translation: [ 2.0, 0.3, 0.6 ]
          elements:
            - type: Shape
              geometry: {{ type: Box, size: [ 0.2, 0.2, 0.2 ] }}
              appearance: {{ material: {{ diffuse: [ 1, 0, 0 ] }} }}
    """)


def project(k, point_world, camera_origin=(0.0, 0.0, 0.5)):
    """Pixel (u, v) and depth of a world point for the camera of camera_scene."""
    p = np.asarray(point_world) - camera_origin
    x, y, z = -p[1], -p[2], p[0]  # optical frame: x right, y down, z forward
    return k.fx * x / z + k.cx, k.fy * y / z + k.cy, z


def is_red(pixel) -> bool:
    r, g, b = (int(c) for c in pixel)
    return r > 100 and g < r / 3 and b < r / 3


def test_choreonoid_field_of_view_spans_the_shorter_side():
    k = camera_intrinsics({'width': 320, 'height': 240, 'field_of_view': math.radians(60)})
    assert k.fx == k.fy == pytest.approx(120 / math.tan(math.radians(30)))
    assert (k.cx, k.cy) == (159.5, 119.5)
    portrait = camera_intrinsics({'width': 240, 'height': 320, 'field_of_view': math.radians(60)})
    assert portrait.fx == pytest.approx(k.fx)


def test_camera_sees_the_red_box_where_k_projects_it(tmp_path):
    sim, suite = start(camera_scene(tmp_path))
    run(sim, 0.1)
    cam = suite.samplers['cam']
    assert cam.rate == 10.0
    k = cam.intrinsics
    reading = cam.read()
    assert reading.rgb.shape == (240, 320, 3) and reading.depth.shape == (240, 320)
    u, v, _ = project(k, (2.0, 0.3, 0.6))
    col, row = round(u), round(v)
    assert is_red(reading.rgb[row, col])
    assert float(reading.depth[row, col]) == pytest.approx(1.9, abs=0.01)  # the face at x = 1.9
    # The face's edges fall where K puts them, to the pixel.
    left, top, _ = project(k, (1.9, 0.4, 0.7))
    right, bottom, _ = project(k, (1.9, 0.2, 0.5))
    assert is_red(reading.rgb[row, math.ceil(left) + 1])
    assert is_red(reading.rgb[row, math.floor(right) - 1])
    assert not is_red(reading.rgb[row, math.floor(left) - 1])
    assert not is_red(reading.rgb[row, math.ceil(right) + 1])
    assert is_red(reading.rgb[math.ceil(top) + 1, col])
    assert not is_red(reading.rgb[math.floor(top) - 1, col])
    assert is_red(reading.rgb[math.floor(bottom) - 1, col])
    assert not is_red(reading.rgb[math.ceil(bottom) + 1, col])
    # Sky: nothing within the far clip distance.
    assert float(reading.depth[0, 0]) == math.inf


def test_openrave_kk_intrinsics_are_honoured(tmp_path):
    # Off-centre principal point and non-square pixels, as an OpenRAVE KK gives them.
    sim, suite = start(camera_scene(tmp_path), """
        devices:
          cam: { fx: 300.0, fy: 250.0, cx: 120.0, cy: 140.0 }
    """, tmp_path)
    run(sim, 0.1)
    cam = suite.samplers['cam']
    k = cam.intrinsics
    assert (k.fx, k.fy, k.cx, k.cy) == (300.0, 250.0, 120.0, 140.0)
    reading = cam.read()
    u, v, _ = project(k, (2.0, 0.3, 0.6))
    assert is_red(reading.rgb[round(v), round(u)])
    assert float(reading.depth[round(v), round(u)]) == pytest.approx(1.9, abs=0.01)
    left, _, _ = project(k, (1.9, 0.4, 0.7))
    _, bottom, _ = project(k, (1.9, 0.2, 0.5))
    assert is_red(reading.rgb[round(v), math.ceil(left) + 1])
    assert not is_red(reading.rgb[round(v), math.floor(left) - 1])
    assert is_red(reading.rgb[math.floor(bottom) - 1, round(u)])
    assert not is_red(reading.rgb[math.ceil(bottom) + 1, round(u)])


def test_camera_renders_only_what_its_format_produces(tmp_path):
    sim, suite = start(camera_scene(tmp_path, fmt='COLOR'))
    run(sim, 0.1)
    reading = suite.samplers['cam'].read()
    assert reading.rgb is not None and reading.depth is None
    assert suite.samplers['cam'].read(color=False).rgb is None


def fisheye_scene(tmp_path, lens='FISHEYE', fmt='COLOR', fov=160):
    # The camera of camera_scene with a fisheye lens, the red cube ahead and a green cube
    # 72 degrees to the camera's left (seen through the left face of the cube map).
    path = camera_scene(tmp_path, fmt)
    text = path.read_text().replace('field_of_view: 60', f'field_of_view: {fov}\n'
                                    f'        lens_type: {lens}')
    text += textwrap.indent(textwrap.dedent("""
        - name: side
          parent: base
          joint_type: fixed
          translation: [ 0.5, 1.5, 0.5 ]
          elements:
            - type: Shape
              geometry: { type: Box, size: [ 0.3, 0.3, 0.3 ] }
              appearance: { material: { diffuse: [ 0, 1, 0 ] } }
    """), '  ')
    path.write_text(text)
    return path


def project_equidistant(k, point_world, camera_origin=(0.0, 0.0, 0.5)):
    """Pixel (u, v) of a world point for an equidistant fisheye (r = f * theta)."""
    p = np.asarray(point_world) - camera_origin
    x, y, z = -p[1], -p[2], p[0]
    theta = math.atan2(math.hypot(x, y), z)
    phi = math.atan2(y, x)
    return k.cx + k.fx * theta * math.cos(phi), k.cy + k.fy * theta * math.sin(phi)


def test_fisheye_camera_draws_what_the_equidistant_model_predicts(tmp_path):
    sim, suite = start(fisheye_scene(tmp_path))
    run(sim, 0.1)
    cam = suite.samplers['cam']
    assert cam.distortion_model == 'equidistant' and suite.warnings == []
    k = cam.intrinsics
    assert (k.width, k.height) == (320, 320)  # square: Choreonoid's height is the width
    assert k.fx == k.fy == pytest.approx(320 / math.radians(160))
    rgb = cam.read().rgb
    assert rgb.shape == (320, 320, 3)
    u, v = project_equidistant(k, (2.0, 0.3, 0.6))
    assert is_red(rgb[round(v), round(u)])
    u, v = project_equidistant(k, (0.5, 1.35, 0.5))  # the green cube's face towards the camera
    r, g, b = (int(c) for c in rgb[round(v), round(u)])
    assert g > 30 and r < g / 3 and b < g / 3  # green (lit from the side: dark)
    assert not rgb[0, 0].any() and not rgb[-1, -1].any()  # outside the circle: black


def test_dual_fisheye_draws_the_front_and_the_back_hemispheres_side_by_side(tmp_path):
    # Choreonoid's DUAL_FISHEYE: width x width/2, the front hemisphere in the left square,
    # the back one (the camera turned half a turn about its vertical axis) in the right.
    path = fisheye_scene(tmp_path, lens='DUAL_FISHEYE')
    path.write_text(path.read_text() + textwrap.indent(textwrap.dedent("""
        - name: behind
          parent: base
          joint_type: fixed
          translation: [ -2.0, -0.3, 0.6 ]
          elements:
            - type: Shape
              geometry: { type: Box, size: [ 0.2, 0.2, 0.2 ] }
              appearance: { material: { diffuse: [ 0, 0, 1 ] } }
    """), '  '))
    sim, suite = start(path)
    run(sim, 0.1)
    cam = suite.samplers['cam']
    assert cam.distortion_model == 'dual_equidistant' and suite.warnings == []
    k = cam.intrinsics
    assert (k.width, k.height) == (320, 160)
    assert k.fx == k.fy == pytest.approx(160 / math.pi)
    assert k.cx == k.cy == pytest.approx(79.5)
    rgb = cam.read().rgb
    assert rgb.shape == (160, 320, 3)
    u, v = project_equidistant(k, (2.0, 0.3, 0.6))  # the red cube ahead: left square
    assert u < 160 and is_red(rgb[round(v), round(u)])
    # the blue cube behind: in the back camera's optical frame (x, y, z) -> (-x, y, -z)
    p = np.array([-2.0, -0.3, 0.6]) - (0.0, 0.0, 0.5)
    x, y, z = p[1], -p[2], -p[0]
    theta, phi = math.atan2(math.hypot(x, y), z), math.atan2(y, x)
    u = 160 + k.cx + k.fx * theta * math.cos(phi)
    v = k.cy + k.fy * theta * math.sin(phi)
    assert u < 160 + k.cx  # world -y is on the left when looking along -x
    r, g, b = (int(c) for c in rgb[round(v), round(u)])
    assert b > 100 and r < b / 3 and g < b / 3
    u, v = project_equidistant(k, (0.5, 1.35, 0.5))  # the green cube, 70 degrees to the left
    r, g, b = (int(c) for c in rgb[round(v), round(u)])
    assert g > 30 and r < g / 3 and b < g / 3
    for row, col in ((0, 0), (0, 159), (0, 160), (159, 319)):  # outside both circles
        assert not rgb[row, col].any()


def test_fisheye_depth_cameras_are_pinholes(tmp_path):
    sim, suite = start(fisheye_scene(tmp_path, lens='FISHEYE', fmt='DEPTH'))
    assert suite.samplers['cam'].distortion_model == 'plumb_bob'
    assert suite.warnings[0].endswith("device 'cam': lens_type FISHEYE applies to COLOR "
                                      'cameras only (as in Choreonoid); this DEPTH camera is '
                                      'a pinhole camera')


# --- rates, noise, on/off, reset --------------------------------------------------------------


def count_readings(sim, suite, seconds, skip=0.5):
    """Readings per device due in [t + skip, t + skip + seconds) from now."""
    counts = {name: 0 for name in suite.samplers}
    start = sim.time + skip
    for _ in range(int(round((skip + seconds) / sim.period)) + 1):
        sim.step_period()
        due = suite.due()
        if start - 1e-6 <= sim.time < start + seconds - 1e-6:
            for sampler in due:
                counts[sampler.name] += 1
    return counts


def test_each_device_is_due_at_its_own_rate(arm):
    sim, suite = arm
    counts = count_readings(sim, suite, 5.0)
    assert counts == {'base_imu': 500, 'base_scan': 50, 'forearm_accel': 500, 'forearm_gyro': 500,
                      'wrist_force': 500, 'hand_camera': 75}


def test_rates_and_switches_from_the_overlay(tmp_path):
    sim, suite = start(SAMPLE_ARM, """
        devices:
          base_imu: { rate: 40.0 }
          hand_camera: { on: false }
    """, tmp_path)
    counts = count_readings(sim, suite, 2.0)
    assert counts['base_imu'] == 80 and counts['hand_camera'] == 0
    suite.samplers['hand_camera'].enabled = True
    suite.samplers['base_imu'].set_rate(25.0)
    counts = count_readings(sim, suite, 2.0)
    assert counts['base_imu'] == 50 and counts['hand_camera'] == 30


NOISY = """
    seed: 11
    devices:
      base_imu: { noise: { linear_acceleration: 0.2, angular_velocity: 0.01 } }
      wrist_force: { noise: { force: 0.5 } }
"""


def noisy_series(tmp_path, overlay, n=400):
    sim, suite = start(SAMPLE_ARM, overlay, tmp_path)
    run(sim, 0.2)
    imu, force = suite.samplers['base_imu'], suite.samplers['wrist_force']
    return (np.array([imu.read().linear_acceleration for _ in range(n)]),
            np.array([force.read().force for _ in range(n)]))


def test_gaussian_noise_has_its_deviation_and_repeats_with_its_seed(tmp_path):
    acc, force = noisy_series(tmp_path, NOISY)
    np.testing.assert_allclose(acc.mean(axis=0), (0, 0, G), atol=0.05)
    np.testing.assert_allclose(acc.std(axis=0), 0.2, rtol=0.15)
    np.testing.assert_allclose(force.std(axis=0), 0.5, rtol=0.15)
    again, _ = noisy_series(tmp_path, NOISY)
    np.testing.assert_array_equal(acc, again)
    other, _ = noisy_series(tmp_path, NOISY.replace('seed: 11', 'seed: 12'))
    assert not np.allclose(acc, other)


def test_a_reset_restarts_schedules_and_noise(tmp_path):
    sim, suite = start(SAMPLE_ARM, NOISY, tmp_path)
    imu = suite.samplers['base_imu']

    def first_readings():
        out = []
        for _ in range(5):
            sim.step_period()
            out += [s.read().linear_acceleration for s in suite.due() if s is imu]
        return np.array(out)

    before = first_readings()
    sim.reset()
    after = first_readings()
    assert len(before) == 5
    np.testing.assert_allclose(after, before, atol=1e-9)


def test_lights_become_spot_lights_of_the_scene(arm):
    sim, suite = arm
    assert 'hand_light' not in suite.samplers  # nothing to read
    light = sim.mj.light('device:hand_light')
    assert float(light.cutoff[0]) == pytest.approx(40.0)  # cut_off_angle [deg in MuJoCo]
    np.testing.assert_allclose(light.diffuse, 0.8)  # colour times intensity
    # At the reference pose the hand points up: the light is at (0, 0.04, 0.895), shining up.
    np.testing.assert_allclose(sim.data.light_xpos[light.id], (0, 0.04, 0.81 + 0.085), atol=1e-3)
    np.testing.assert_allclose(sim.data.light_xdir[light.id], (0, 0, 1), atol=1e-3)


@pytest.mark.corpus
def test_sr1_standing_carries_its_weight_on_its_ankle_sensors():
    from conftest import shared_model
    sim, suite = start(shared_model('choreonoid/share/model/SR1/SR1.body'))
    model = sim.model
    assert set(suite.samplers) == {d.name for d in model.devices}  # every device simulated
    run(sim, 1.0)
    left, right = suite.samplers['LeftAnkleForceSensor'], suite.samplers['RightAnkleForceSensor']
    feet = sum(model.link(s.device.link).inertial.mass for s in (left, right))
    # The ground carries the robot; each ankle sensor carries all of it but its own foot.
    carried = left.read().force[2] + right.read().force[2]
    assert carried == pytest.approx((model.total_mass - feet) * G, rel=0.01)
    np.testing.assert_allclose(np.linalg.norm(suite.samplers['WaistAccelSensor'].read()
                                              .linear_acceleration), G, rtol=0.01)


OPENRAVE_SCENE = """
<Environment>
  <Robot name="bot">
    <KinBody>
      <Body name="base" type="static">
        <Geom type="box"><Extents>0.1 0.1 0.1</Extents><Translation>0 0 0.1</Translation></Geom>
        <Mass type="box"><Total>5</Total><Extents>0.1 0.1 0.1</Extents></Mass>
      </Body>
    </KinBody>
    <AttachedSensor name="laser">
      <link>base</link>
      <translation>0 0 0.5</translation>
      <sensor type="BaseLaser2D">
        <minangle>-45</minangle>
        <maxangle>45</maxangle>
        <resolution>1</resolution>
        <maxrange>10</maxrange>
        <scantime>0.05</scantime>
      </sensor>
    </AttachedSensor>
    <AttachedSensor name="cam">
      <link>base</link>
      <translation>0 0 0.5</translation>
      <rotationmat>0 0 1 -1 0 0 0 -1 0</rotationmat>
      <sensor type="BaseCamera">
        <KK>300 250 120 140</KK>
        <width>320</width>
        <height>240</height>
        <framerate>10</framerate>
      </sensor>
    </AttachedSensor>
    <AttachedSensor name="flash">
      <link>base</link>
      <translation>0 0 0.5</translation>
      <rotationmat>0 0 1 -1 0 0 0 -1 0</rotationmat>
      <sensor type="BaseFlashLidar3D">
        <KK>100 100 5 4</KK>
        <width>11</width>
        <height>9</height>
        <maxrange>10</maxrange>
      </sensor>
    </AttachedSensor>
  </Robot>
  <KinBody name="wall">
    <Body name="slab" type="static">
      <Translation>3.0 0 0.5</Translation>
      <Geom type="box"><Extents>0.1 4 0.5</Extents></Geom>
    </Body>
  </KinBody>
  <KinBody name="target">
    <Body name="cube" type="static">
      <Translation>2.0 0.3 0.6</Translation>
      <Geom type="box"><Extents>0.1 0.1 0.1</Extents><diffuseColor>1 0 0</diffuseColor></Geom>
    </Body>
  </KinBody>
</Environment>
"""


def openrave_scene(tmp_path):
    path = tmp_path / 'scene.env.xml'
    path.write_text(OPENRAVE_SCENE)
    return path


def test_openrave_laser_and_kk_camera(tmp_path):
    # The OpenRAVE loader turns the sensors into devices; they read like Choreonoid's.
    sim, suite = start(openrave_scene(tmp_path))
    assert suite.warnings == []
    run(sim, 0.1)
    laser = suite.samplers['bot/laser']
    assert laser.rate == pytest.approx(20.0)  # 1 / scantime
    np.testing.assert_allclose(laser.yaw, np.radians(np.arange(-45, 46)), atol=1e-9)
    ranges = laser.read().ranges[0]
    for index in (0, 20, 45, 70, 90):  # the wall's face is at x = 2.9
        yaw = math.radians(index - 45)
        assert ranges[index] == pytest.approx(2.9 / math.cos(yaw), abs=0.005), index
    cam = suite.samplers['bot/cam']
    k = cam.intrinsics
    assert (k.fx, k.fy, k.cx, k.cy, k.width, k.height) == (300, 250, 120, 140, 320, 240)
    rgb = cam.read().rgb
    u, v, _ = project(k, (2.0, 0.3, 0.6))
    assert is_red(rgb[round(v), round(u)])
    left, top, _ = project(k, (1.9, 0.4, 0.7))
    assert is_red(rgb[math.ceil(top) + 1, math.ceil(left) + 1])
    assert not is_red(rgb[math.floor(top) - 1, math.floor(left) - 1])
    # A flash lidar: a beam through every pixel of its KK; the wall is the plane x = 2.9.
    flash = suite.samplers['bot/flash']
    assert flash.layout == 'cloud' and flash.grid == (9, 11)
    points = flash.directions * flash.read().ranges.reshape(-1, 1)
    np.testing.assert_allclose(points[:, 0], 2.9, atol=0.005)
    # Pixel (0, 0) is the top left: left (+y) and up (+z) in the device frame.
    np.testing.assert_allclose(points[0, 1:], (2.9 * 5 / 100, 2.9 * 4 / 100), atol=0.005)
