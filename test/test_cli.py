"""python -m body_bridge convert / info, as a user runs them."""

import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, SAMPLE_ARM, shared_model


def cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, '-m', 'body_bridge', *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_help_names_the_command_as_typed():
    """``python -m body_bridge --help`` and the installed script (what ``ros2 run body_bridge
    body_bridge`` runs) each print their own usage line."""
    assert cli('--help').stdout.startswith('usage: python -m body_bridge ')
    # pip puts it in bin/, or (setup.py develop, setup.cfg) in lib/body_bridge/ as colcon does
    script = next(path for path in (os.path.join(sys.prefix, 'bin', 'body_bridge'),
                                    os.path.join(sys.prefix, 'lib', 'body_bridge', 'body_bridge'))
                  if os.path.exists(path))
    proc = subprocess.run([script, '--help'], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('usage: body_bridge ')


def test_convert_to_stdout_is_accepted_by_check_urdf(tmp_path, check_urdf):
    proc = cli('convert', SAMPLE_ARM)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / 'arm.urdf').write_text(proc.stdout)
    assert check_urdf(tmp_path / 'arm.urdf')[0]


def test_convert_by_bundled_name_with_mjcf(tmp_path):
    out, mjcf = tmp_path / 'arm.urdf', tmp_path / 'arm.xml'
    proc = cli('convert', 'sample_arm', '-o', out, '--mjcf', mjcf)
    assert proc.returncode == 0, proc.stderr
    import mujoco
    mj = mujoco.MjModel.from_xml_path(str(mjcf))
    from urdf_parser_py import urdf
    robot = urdf.URDF.from_xml_string(out.read_text())
    model_links = {'base', 'shoulder_yaw', 'shoulder_pitch', 'elbow_pitch', 'wrist_pitch', 'hand'}
    assert model_links <= {link.name for link in robot.links}
    assert model_links <= {mj.body(i).name for i in range(mj.nbody)}
    assert {j.name for j in robot.joints if j.type != 'fixed'} == \
        {mj.joint(i).name for i in range(mj.njnt)}


@pytest.mark.corpus
@pytest.mark.parametrize('relative', ['choreonoid/share/model/misc/box1.body',
                                      'choreonoid/share/model/misc/floor.body'])
def test_convert_real_models(tmp_path, check_urdf, relative):
    out = tmp_path / 'model.urdf'
    proc = cli('convert', shared_model(relative), '-o', out)
    assert proc.returncode == 0, proc.stderr
    assert check_urdf(out)[0]


@pytest.mark.ros  # info names the device topics (ros/devices/graph.py)
def test_info_json():
    proc = cli('info', SAMPLE_ARM, '--json')
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) >= {'links', 'joints', 'devices', 'mass'}
    assert data['mass'] == pytest.approx(9.2)
    joint = next(j for j in data['joints'] if j['name'] == 'elbow_pitch')
    assert joint['type'] == 'revolute' and joint['parent'] == 'shoulder_pitch'
    assert joint['limits']['upper'] == pytest.approx(2.617993877991494)
    assert {d['kind'] for d in data['devices']} >= {'imu', 'camera', 'range', 'force'}


@pytest.mark.corpus
@pytest.mark.ros  # info names the device topics (ros/devices/graph.py)
def test_info_json_real_model():
    proc = cli('info', shared_model('choreonoid/share/model/misc/box1.body'), '--json')
    data = json.loads(proc.stdout)
    assert data['mass'] == pytest.approx(12.8) and data['joints'] == []


@pytest.mark.ros  # info names the device topics (ros/devices/graph.py)
def test_info_text():
    proc = cli('info', 'sample_arm')
    assert proc.returncode == 0 and 'elbow_pitch' in proc.stdout and 'hand_camera' in proc.stdout


@pytest.mark.parametrize('content, expect', [
    ('just: yaml\n', 'not a Choreonoid Body file'),
    ('format: ChoreonoidBody\nlinks: [ { name: a, mass: [1] } ]\n', 'mass must be a number'),
    ('\x00\x01binary', ''),
])
def test_bad_model_exits_2_with_one_line(tmp_path, content, expect):
    path = tmp_path / 'bad.body'
    path.write_text(content)
    proc = cli('info', path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f'{path}:'), proc.stderr
    assert expect in lines[0]
    assert 'Traceback' not in proc.stderr


def test_unknown_format_exits_2(tmp_path):
    path = tmp_path / 'robot.txt'
    path.write_text('hello')
    proc = cli('convert', path)
    assert proc.returncode == 2 and 'unknown model format' in proc.stderr
