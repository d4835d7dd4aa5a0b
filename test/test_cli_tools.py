"""python -m body_bridge info (tree), check, snapshot, rviz and params, as a user runs them."""

import re
import struct
import zlib

import numpy as np
import pytest
import yaml

from conftest import SAMPLE_ARM, shared_model
from test_cli import cli

TANK = 'choreonoid/share/model/Tank/TankBody.body'  # a DUAL_FISHEYE camera and a light
PA10 = 'choreonoid/share/model/PA10/PA10.body'  # a Holder device: a TF frame only
ARM_POSE = ['--position', 'shoulder_pitch=0.3', '--position', 'elbow_pitch=1.5',
            '--position', 'wrist_pitch=1.75']


def read_png(path) -> np.ndarray:
    """Decode a PNG written without row filters (as write_png does); CRCs checked."""
    data = path.read_bytes()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, chunks = 8, {}
    while pos < len(data):
        length, tag = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        assert struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])[0] == \
            zlib.crc32(tag + body) & 0xFFFFFFFF, tag
        chunks.setdefault(tag, b'')
        chunks[tag] += body
        pos += 12 + length
    width, height, depth, color, _, _, _ = struct.unpack('>IIBBBBB', chunks[b'IHDR'])
    assert depth == 8 and color in (0, 2) and b'IEND' in chunks
    channels = 3 if color == 2 else 1
    rows = np.frombuffer(zlib.decompress(chunks[b'IDAT']), np.uint8).reshape(height, -1)
    assert not rows[:, 0].any()  # filter type 0 on every row
    pixels = rows[:, 1:].reshape(height, width, channels)
    return pixels if channels == 3 else pixels[..., 0]


# --- info ----------------------------------------------------------------------------------

def tree_depth(line: str) -> int:
    """Nesting level of a tree line (each level is four characters of glyphs)."""
    return re.match(r'^[│ ├└─]*', line).end() // 4


@pytest.mark.ros  # info, rviz and params read the node's topics and parameters
def test_info_is_a_tree_of_links_with_joints_limits_and_device_topics():
    proc = cli('info', 'sample_arm')
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == 'sample_arm: 6 links, 4 moving joints, 7 devices, 9.2 kg'
    # why the URDF has more links (check, convert and TF count those)
    assert lines[2] == "  as URDF: 14 links (the model's 6, 7 device frames, 1 camera " \
        'optical frame)'
    depth = {}
    for line in lines:
        for name in ('base', 'shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch',
                     'hand'):
            if re.search(rf'[─] {name}  ', line):
                depth[name] = tree_depth(line)
    assert [depth[n] for n in ('base', 'shoulder_yaw', 'shoulder_pitch', 'elbow_pitch',
                               'wrist_pitch', 'hand')] == [1, 2, 3, 4, 5, 6]
    elbow = next(line for line in lines if '─ elbow_pitch  ' in line)
    assert '0.8 kg' in elbow and 'revolute joint elbow_pitch about y' in elbow
    assert '-2.618..2.618 rad [-150..150 deg]' in elbow and '3.142 rad/s' in elbow
    camera = next(line for line in lines if 'device hand_camera' in line)
    assert tree_depth(camera) == depth['hand'] + 1
    assert 'hand_camera/image_raw, hand_camera/camera_info, hand_camera/depth/image, ' \
           'hand_camera/depth/camera_info, 15 Hz' in camera
    assert any('device base_scan: range (RangeSensor) -> base_scan/scan, 10 Hz' in line
               for line in lines)
    assert any('device hand_light: light (SpotLight), lights the rendered scene' in line
               for line in lines)


#: A model of our own with the devices whose topics need explaining: a dual fisheye camera, a
#: 3-D range scanner whose name a topic cannot hold, a light, a plug-in device.
ODD_DEVICES = """format: ChoreonoidBody
format_version: 2.0
name: devices
links:
  - name: base
    joint_type: fixed
    mass: 1.0
    inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]
    elements:
      - { type: Camera, name: Theta, lens_type: DUAL_FISHEYE, width: 64, frame_rate: 30 }
      - { type: RangeSensor, name: VLP-16, yaw_range: 360, yaw_step: 2, pitch_range: 30,
          pitch_step: 2, scan_rate: 5 }
      - { type: SpotLight, name: Light }
      - { type: Holder, name: Gripper }
"""
MIMIC = """<KinBody name="m">
  <Body name="base" type="static"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Body name="a"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Body name="b"><Geom type="box"><extents>0.1 0.1 0.1</extents></Geom></Body>
  <Joint name="lead" type="hinge"><Body>base</Body><Body>a</Body><axis>0 0 1</axis></Joint>
  <Joint name="follow" type="hinge" enable="false" mimic_pos="lead/3+0.8727">
    <Body>base</Body><Body>b</Body><axis>0 0 1</axis></Joint>
</KinBody>
"""


@pytest.mark.ros  # info and rviz read the node's topics
def test_info_and_rviz_of_devices_that_need_explaining(tmp_path):
    path = tmp_path / 'devices.body'
    path.write_text(ODD_DEVICES)
    proc = cli('info', path)
    assert proc.returncode == 0, proc.stderr
    lines = [line[line.index('device '):] for line in proc.stdout.splitlines()
             if '─ device ' in line]
    assert lines == [
        'device Theta: camera (Camera) -> Theta/image_raw, Theta/camera_info, 30 Hz',
        'device VLP-16: range (RangeSensor) -> VLP_16/points, 5 Hz',
        'device Light: light (SpotLight), lights the rendered scene',
        'device Gripper: other (Holder), not simulated (a TF frame only)']
    rviz = yaml.safe_load(cli('rviz', path).stdout)
    enabled = {(d['Class'], d['Topic']['Value'])
               for d in rviz['Visualization Manager']['Displays'] if d['Enabled'] and 'Topic' in d}
    assert enabled == {('rviz_default_plugins/Image', 'Theta/image_raw'),
                       ('rviz_default_plugins/PointCloud2', 'VLP_16/points')}
    mimic = tmp_path / 'mimic.kinbody.xml'
    mimic.write_text(MIMIC)
    out = cli('info', mimic).stdout
    # OpenRAVE's default speed and torque for a joint that gives neither (its JointInfo)
    assert 'revolute joint follow about z, -3.142..3.142 rad [-180..180 deg], 10 rad/s, ' \
           '1e+05 N m, = 0.3333 lead + 0.8727' in out


@pytest.mark.corpus
@pytest.mark.ros  # info, rviz and params read the node's topics and parameters
def test_info_names_devices_that_do_not_publish_and_mimic_formulas():
    proc = cli('info', shared_model(TANK))
    assert proc.returncode == 0, proc.stderr
    assert 'device Theta: camera (Camera) -> Theta/image_raw, Theta/camera_info, 30 Hz' \
           in proc.stdout
    assert 'device VLP-16: range (RangeSensor) -> VLP_16/points, 5 Hz' in proc.stdout
    assert 'device Light: light (SpotLight), lights the rendered scene' in proc.stdout
    pa10 = cli('info', shared_model(PA10))
    assert 'device Gripper: other (Holder), not simulated (a TF frame only)' in pa10.stdout
    wam = cli('info', shared_model('openrave/src/robots/barrettwam.robot.xml'))
    assert 'revolute joint JF3mimic about z' in wam.stdout
    assert '= 0.3333 JF3 + 0.8727' in wam.stdout


@pytest.mark.ros  # info, rviz and params read the node's topics and parameters
def test_info_json_lists_device_topics():
    import json
    data = json.loads(cli('info', 'sample_arm', '--json').stdout)
    camera = next(d for d in data['devices'] if d['name'] == 'hand_camera')
    assert [t['name'] for t in camera['topics']] == [
        'hand_camera/image_raw', 'hand_camera/camera_info', 'hand_camera/depth/image',
        'hand_camera/depth/camera_info']
    assert {t['rate'] for t in camera['topics']} == {15.0}


# --- check ---------------------------------------------------------------------------------

def test_check_passes_a_good_model_through_every_stage():
    proc = cli('check', 'sample_arm')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    for stage in ('ok: loaded', "ok: URDF written (14 links: the model's 6, 7 device frames, 1 "
                  'camera optical frame; 13 joints)',
                  'ok: check_urdf accepts the URDF',
                  'ok: integrator compiled (6 simulated devices), 1 s stepped without warnings',
                  'ok: URDF and integrator agree on every link pose'):
        assert stage in out
    assert out.strip().splitlines()[-1] == 'sample_arm: ok: 0 errors, 0 warnings'


def test_check_reports_every_problem_of_every_model(tmp_path):
    bad = tmp_path / 'bad.body'
    bad.write_text('format: ChoreonoidBody\nlinks: [ { name: a, mass: [1] } ]\n')
    odd = tmp_path / 'odd.body'
    odd.write_text('format: ChoreonoidBody\nangle_unit: degree\ncolour: red\nlinks:\n'
                   '  - name: base\n    joint_type: fixed\n    mass: 1.0\n'
                   '    inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]\n    elements:\n'
                   '      - { type: Camera, name: eye, near_clip_distance: 5, '
                   'far_clip_distance: 1 }\n'
                   '      - { type: Camera, name: wide, field_of_view: 200 }\n')
    proc = cli('check', bad, odd, 'sample_arm')
    assert proc.returncode == 2
    lines, problems = proc.stdout.splitlines(), proc.stderr.splitlines()
    assert f'error: {bad}:2: mass must be a number, found a list' in problems
    assert f'{bad}: FAILED: 1 error, 0 warnings' in lines
    # problems on stderr (as every command's), the report on stdout
    assert all(line.startswith(('error: ', 'warning: ')) for line in problems)
    assert not any(line.startswith(('error', 'warning')) for line in lines)
    warnings = [line for line in problems if line.startswith(f'warning: {odd}')]
    assert any("'colour'" in line for line in warnings)
    assert any("device 'eye'" in line and 'it does not publish' in line for line in warnings)
    assert any("device 'wide'" in line and 'field_of_view 200' in line for line in warnings)
    assert f'{odd}: ok: 0 errors, {len(warnings)} warnings' in lines
    assert 'sample_arm: ok: 0 errors, 0 warnings' in lines


@pytest.mark.corpus
def test_check_passes_a_real_model_with_its_warnings():
    proc = cli('check', shared_model(TANK))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1].startswith(f'{shared_model(TANK)}: ok: 0 errors, ')
    assert 'Traceback' not in proc.stdout + proc.stderr


# --- snapshot ------------------------------------------------------------------------------

def orange(rgb: np.ndarray) -> np.ndarray:
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (r > 150) & (g > 40) & (g < r - 50) & (b < 80)


def test_snapshot_frames_the_whole_model(tmp_path):
    out = tmp_path / 'arm.png'
    proc = cli('snapshot', 'sample_arm', '-o', out, '--width', '320', '--height', '240',
               *ARM_POSE)
    assert proc.returncode == 0, proc.stderr
    rgb = read_png(out)
    assert rgb.shape == (240, 320, 3)
    rows, cols = np.nonzero(orange(rgb))
    assert len(rows) > 0.03 * rgb.shape[0] * rgb.shape[1]  # the arm is large in the picture
    # inside the picture, not cut by its edges
    assert rows.min() > 0 and cols.min() > 0 and rows.max() < 239 and cols.max() < 319
    assert len(np.unique(rgb.reshape(-1, 3), axis=0)) > 100  # shaded, with a floor


def test_snapshot_of_a_camera_is_what_the_sensor_renders(tmp_path):
    from body_bridge.formats import load_model
    from body_bridge.sim.sensing.sensors import SensorSuite
    from body_bridge.sim.simulation import Simulation, SimOptions
    out = tmp_path / 'camera.png'
    proc = cli('snapshot', 'sample_arm', '-o', out, '--camera', 'hand_camera', *ARM_POSE)
    assert proc.returncode == 0, proc.stderr
    sim = Simulation(load_model(SAMPLE_ARM), SimOptions(initial_positions={
        'shoulder_pitch': 0.3, 'elbow_pitch': 1.5, 'wrist_pitch': 1.75}))
    suite = SensorSuite(sim)
    try:
        expected = suite.samplers['hand_camera'].read(color=True, depth=False).rgb
        np.testing.assert_array_equal(read_png(out), expected)
    finally:
        suite.close()
    assert orange(expected).any()  # it looks down at the shoulder


def test_snapshot_of_an_unknown_camera_is_one_line(tmp_path):
    proc = cli('snapshot', 'sample_arm', '-o', tmp_path / 'x.png', '--camera', 'nope')
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].endswith(
        "'nope' is not a simulated camera of sample_arm (cameras: hand_camera)")
    bad = cli('snapshot', 'sample_arm', '-o', tmp_path / 'x.png', '--position', 'knee=1')
    assert bad.returncode == 2 and bad.stderr.startswith('parameter --position: ')


# --- rviz, params --------------------------------------------------------------------------

@pytest.mark.corpus
@pytest.mark.ros  # info, rviz and params read the node's topics and parameters
def test_rviz_config_of_a_model_has_a_display_per_sensor_topic():
    proc = cli('rviz', shared_model(TANK))
    assert proc.returncode == 0, proc.stderr
    config = yaml.safe_load(proc.stdout)
    displays = config['Visualization Manager']['Displays']
    enabled = {(d['Class'], d['Topic']['Value']) for d in displays
               if d['Enabled'] and 'Topic' in d}
    assert enabled == {('rviz_default_plugins/Image', 'Kinect/image_raw'),
                       ('rviz_default_plugins/Image', 'Kinect/depth/image'),
                       ('rviz_default_plugins/Image', 'Theta/image_raw'),
                       ('rviz_default_plugins/PointCloud2', 'VLP_16/points')}
    assert config['Visualization Manager']['Global Options']['Fixed Frame'] == 'world'


@pytest.mark.ros  # info, rviz and params read the node's topics and parameters
def test_params_prints_every_declared_parameter():
    from body_bridge.ros.node.params import PARAMETERS
    proc = cli('params')
    assert proc.returncode == 0
    for name, (_, _, description) in PARAMETERS.items():
        assert f'{name} (' in proc.stdout and description in proc.stdout
    markdown = cli('params', '--markdown').stdout
    assert markdown.splitlines()[0] == '| parameter | type | default | at run time | meaning |'
    assert '| `ground_plane` | string | `auto` | read-only: ' in markdown
    assert '| `real_time_factor` | double | `1.0` | settable: ' in markdown


@pytest.mark.ros  # info, rviz and params read the node's topics and parameters
def test_params_write_replaces_only_the_generated_block(tmp_path):
    from body_bridge.ros.node.params_doc import BEGIN, END, markdown
    doc = tmp_path / 'doc.md'
    doc.write_text(f'# title\n\n{BEGIN}\nold table\n{END}\n\nafter\n')
    assert cli('params', '--write', doc).returncode == 0
    assert doc.read_text() == f'# title\n\n{BEGIN}\n\n{markdown()}\n{END}\n\nafter\n'
    (tmp_path / 'none.md').write_text('nothing here\n')
    proc = cli('params', '--write', tmp_path / 'none.md')
    assert proc.returncode == 2 and 'no block between' in proc.stderr


def test_every_command_has_help():
    proc = cli('--help')
    for command in ('sim', 'info', 'check', 'convert', 'snapshot', 'rviz', 'params'):
        assert command in proc.stdout
        assert cli(command, '--help').returncode == 0
