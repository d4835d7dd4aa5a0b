"""The commands of cli.py run in this process (``cli.main``): what each prints and returns,
with the slow work they hand on (checking, rendering, running a bridge) replaced where the
test is about the command itself. Argument checking is in test_cli_arguments.py."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from body_bridge import cli
from body_bridge.arguments import Number
from conftest import REPO, SAMPLE_ARM

BOX = str(REPO / 'test' / 'data' / 'choreonoid' / 'box.body')


def run(capsys, *args):
    status = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


# --- the ranges of the numeric options -----------------------------------------------------

RANGES = {'check --seconds': (0.0, 3600.0), 'snapshot --width': (1, 8192),
          'snapshot --height': (1, 8192), 'snapshot --azimuth': (-360.0, 360.0),
          'snapshot --elevation': (-89.0, 89.0), 'snapshot --time': (0.0, 3600.0),
          'srdf --samples': (0, 10_000_000), 'srdf --seed': (0, 2**32 - 1),
          'sim --foxglove': (1, 65535), 'record --duration': (0.001, 86400.0),
          'record --real-time-factor': (0.0, 1000.0), 'sweep --jobs': (1, 1024),
          'sweep --retries': (0, 100)}


def test_the_range_of_every_numeric_option():
    found = {}
    parser = cli._parser()
    for name, sub in parser._subparsers._group_actions[0].choices.items():
        for action in sub._actions:
            if isinstance(action.type, Number):
                found[f'{name} {action.option_strings[-1]}'] = (action.type.low,
                                                                action.type.high)
    assert found == RANGES


def test_the_defaults_of_the_options():
    parser = cli._parser()
    record = parser.parse_args(['record', 'sample_arm', '-o', 'bag'])
    assert (record.duration, record.real_time_factor, record.topics) == (10.0, 0.0, None)
    snapshot = parser.parse_args(['snapshot', 'sample_arm', '-o', 'x.png'])
    assert (snapshot.width, snapshot.height, snapshot.azimuth, snapshot.elevation,
            snapshot.time, snapshot.ground) == (640, 480, 35.0, 25.0, 0.0, 'auto')
    sim = parser.parse_args(['sim', 'sample_arm', '-q', '--foxglove'])
    assert (sim.quiet, sim.foxglove, sim.record) == (True, 8765, None)
    assert parser.parse_args(['sim', 'a']).foxglove is None
    srdf = parser.parse_args(['srdf', 'sample_arm', '-o', 'x.srdf'])
    assert (srdf.samples, srdf.seed) == (10000, 0)
    assert parser.parse_args(['check', 'a']).seconds == 1.0
    assert parser.parse_args(['rviz', 'a']).fixed_frame == 'world'


def test_record_needs_its_bag(capsys):
    with pytest.raises(SystemExit) as stop:
        cli._parser().parse_args(['record', 'sample_arm'])
    assert stop.value.code == 2
    assert 'the following arguments are required: -o/--output' in capsys.readouterr().err


@pytest.mark.parametrize('argv, program', [
    ([], 'python -m body_bridge'), ([''], 'python -m body_bridge'),
    (['/x/lib/body_bridge/__main__.py'], 'python -m body_bridge'), (['-c'], 'python -m body_bridge'),
    (['/opt/ros/lib/body_bridge/body_bridge', 'info'], 'body_bridge')])
def test_the_program_is_named_as_the_user_typed_it(monkeypatch, argv, program):
    monkeypatch.setattr(sys, 'argv', argv)
    assert cli._program() == program


# --- check -----------------------------------------------------------------------------------

def _report(errors=0, warnings=0):
    findings = [SimpleNamespace(level='error', text=f'm.body:{i}: bad') for i in range(errors)]
    findings += [SimpleNamespace(level='warning', text='m.body: odd')] * warnings
    return SimpleNamespace(findings=findings, passed=['loaded'], errors=findings[:errors],
                           warnings=findings[errors:])


def test_check_reports_each_model_and_fails_when_one_has_errors(capsys, monkeypatch):
    import body_bridge.check as check
    reports = {'a': _report(0, 1), 'b': _report(2, 0), 'c': _report(1, 2)}
    seen = []
    monkeypatch.setattr(check, 'check_model',
                        lambda spec, seconds: seen.append(seconds) or reports[spec])
    status, out, err = run(capsys, 'check', 'a', 'b', 'c', '--seconds', '0.5')
    assert status == 2 and seen == [0.5, 0.5, 0.5]
    assert out.splitlines() == ['ok: loaded', 'a: ok: 0 errors, 1 warning',
                                'ok: loaded', 'b: FAILED: 2 errors, 0 warnings',
                                'ok: loaded', 'c: FAILED: 1 error, 2 warnings']
    assert err.splitlines() == ['warning: m.body: odd', 'error: m.body:0: bad',
                                'error: m.body:1: bad', 'error: m.body:0: bad',
                                'warning: m.body: odd', 'warning: m.body: odd']
    status, out, _ = run(capsys, 'check', 'a')
    assert status == 0 and out.endswith('a: ok: 0 errors, 1 warning\n')


# --- snapshot --------------------------------------------------------------------------------

def test_a_snapshot_of_the_model(capsys, tmp_path, monkeypatch):
    from body_bridge.sim.simulation import Simulation
    steps = []
    real = Simulation.step_period
    monkeypatch.setattr(Simulation, 'step_period', lambda sim: steps.append(1) or real(sim))
    out_png = tmp_path / 'arm.png'
    status, out, err = run(capsys, 'snapshot', SAMPLE_ARM, '-o', out_png, '--width', 40,
                           '--height', 30, '--time', 0.05)
    assert (status, out, err) == (0, f'{out_png}: 40 x 30 pixels\n', '')
    assert out_png.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n' and len(steps) == 5


def test_a_snapshot_of_a_camera_that_does_not_exist(capsys, tmp_path):
    status, out, err = run(capsys, 'snapshot', SAMPLE_ARM, '-o', tmp_path / 'x.png',
                           '--camera', 'nothing')
    assert status == 2 and out == '' and not (tmp_path / 'x.png').exists()
    assert err.startswith(f'{SAMPLE_ARM}: ') and 'nothing' in err and len(err.splitlines()) == 1


def test_a_depth_camera_is_pictured_in_grey_and_a_blank_view_is_warned(capsys, tmp_path,
                                                                        monkeypatch):
    import body_bridge.sim.sensing.snapshot as snapshot
    depth = np.full((6, 8), 2.0, dtype=np.float32)
    monkeypatch.setattr(snapshot, 'device_view', lambda sim, name: (None, depth))
    status, out, err = run(capsys, 'snapshot', SAMPLE_ARM, '-o', tmp_path / 'd.png',
                           '--camera', 'depth')
    assert status == 0 and out == f'{tmp_path / "d.png"}: 8 x 6 pixels\n'
    assert err == ('warning: depth sees nothing in this pose (the picture is one colour): '
                   'point it at the model with --position JOINT=VALUE\n')
    rgb = np.zeros((6, 8, 3), dtype=np.uint8)
    rgb[0, 0] = (9, 9, 9)
    monkeypatch.setattr(snapshot, 'device_view', lambda sim, name: (rgb, None))
    status, out, err = run(capsys, 'snapshot', SAMPLE_ARM, '-o', tmp_path / 'c.png',
                           '--camera', 'hand_camera')
    assert (status, err) == (0, '')


def test_a_snapshot_without_opengl_is_one_line(capsys, tmp_path, monkeypatch):
    import body_bridge.sim.sensing.snapshot as snapshot
    from body_bridge.sim.sensing.render import RenderError

    def fail(*args):
        raise RenderError('no EGL display')
    monkeypatch.setattr(snapshot, 'overview', fail)
    status, out, err = run(capsys, 'snapshot', SAMPLE_ARM, '-o', tmp_path / 'x.png')
    assert (status, out) == (2, '')
    assert err == ('snapshot: no EGL display (MuJoCo renders offscreen with EGL: set '
                   'MUJOCO_GL=egl and install an OpenGL driver such as Mesa)\n')


@pytest.mark.parametrize('pixels, blank', [
    (np.full((2, 3, 3), (10, 20, 30), dtype=np.uint8), True),
    (np.array([[[10, 20, 30], [10, 20, 31]]], dtype=np.uint8), False),
    (np.full((2, 3), 7, dtype=np.uint8), True),
    (np.array([[7, 7], [7, 8]], dtype=np.uint8), False)])
def test_a_picture_of_one_colour_is_blank(pixels, blank):
    assert cli._blank(pixels) is blank


# --- rviz, params, srdf, info --------------------------------------------------------------------

@pytest.mark.ros  # the display config names the topics of the devices (ros/devices/graph.py)
def test_rviz_writes_to_a_file_or_standard_output(capsys, tmp_path):
    status, out, _ = run(capsys, 'rviz', SAMPLE_ARM, '--fixed-frame', 'map')
    assert status == 0 and out.startswith('# rviz2 configuration for sample_arm')
    assert 'Fixed Frame: map' in out
    status, written, _ = run(capsys, 'rviz', SAMPLE_ARM, '-o', tmp_path / 'a.rviz')
    assert status == 0 and written == ''
    assert (tmp_path / 'a.rviz').read_text().startswith('# rviz2 configuration for sample_arm')


@pytest.mark.ros  # the parameter reference reads the node's declared parameters
def test_params_print_or_write_the_reference(capsys, tmp_path):
    pytest.importorskip('rclpy')
    from body_bridge.ros.node.params_doc import BEGIN, END, markdown, text
    assert run(capsys, 'params') == (0, text(), '')
    assert run(capsys, 'params', '--markdown') == (0, markdown(), '')
    doc = tmp_path / 'doc.md'
    doc.write_text(f'{BEGIN}\nold\n{END}\n')
    assert run(capsys, 'params', '--write', doc) == (0, '', '')
    assert doc.read_text() == f'{BEGIN}\n\n{markdown()}\n{END}\n'
    doc.write_text('no block\n')
    status, out, err = run(capsys, 'params', '--write', doc)
    assert (status, out) == (2, '') and err.startswith(f'{doc}: no block between')
    assert doc.read_text() == 'no block\n'


def test_srdf_prints_the_files_it_wrote(capsys, tmp_path):
    status, out, _ = run(capsys, 'srdf', SAMPLE_ARM, '-o', tmp_path / 'arm.srdf',
                         '--samples', 0)
    assert status == 0 and str(tmp_path / 'arm.srdf') in out.splitlines()
    assert all(__import__('os').path.isfile(line) for line in out.splitlines())


@pytest.mark.ros  # info names the device topics (ros/devices/graph.py)
def test_info_as_a_tree_or_json(capsys):
    status, out, _ = run(capsys, 'info', BOX)
    assert status == 0 and out.startswith('box: ')
    status, out, _ = run(capsys, 'info', BOX, '--json')
    assert status == 0 and json.loads(out)['name'] == 'box'
    assert out == json.dumps(json.loads(out), indent=2) + '\n'  # two spaces a level


def test_sweep_hands_on_its_file_folder_jobs_cluster_and_retries(monkeypatch, capsys):
    import body_bridge.sweep.command as command
    got = []
    monkeypatch.setattr(command, 'sweep_command', lambda *a: got.append(a) or 0)
    status, _, _ = run(capsys, 'sweep', 'runs.sweep.yaml', '-o', 'out', '--jobs', 3,
                       '--cluster', 'tcp://10.0.0.1:8786', '--retries', 0)
    assert status == 0 and got == [('runs.sweep.yaml', 'out', 3, 'tcp://10.0.0.1:8786', 0)]
    run(capsys, 'sweep', 'runs.sweep.yaml', '-o', 'out')
    assert got[-1] == ('runs.sweep.yaml', 'out', None, None, 2)


# --- sim and record hand on to the launcher --------------------------------------------------------

@pytest.mark.ros
def test_sim_passes_its_options_as_parameters_before_the_user_s(monkeypatch, tmp_path):
    pytest.importorskip('rclpy')
    import body_bridge.ros.process.launcher as launcher
    runs = []
    monkeypatch.setattr(launcher, 'run', lambda argv, models: runs.append((argv, models)) or 0)
    assert cli.main(['sim', 'a', 'b=c', '--ros-args', '-p', 'x:=1']) == 0
    assert cli.main(['sim', 'a', '--quiet']) == 0
    bag = str(tmp_path / 'run')
    assert cli.main(['sim', 'a', '-q', '--foxglove', '--record', bag, '--ros-args',
                     '-r', '__ns:=/x']) == 0
    assert runs == [
        (['body_bridge', '--ros-args', '-p', 'x:=1'], ['a', 'b=c']),
        (['body_bridge', '--ros-args', '--log-level', 'warn'], ['a']),
        (['body_bridge', '--ros-args', '-p', f'record:={bag}', '--ros-args', '-p',
          'foxglove_port:=8765', '--ros-args', '-r', '__ns:=/x', '--log-level', 'warn'],
         ['a'])]


@pytest.mark.ros
def test_record_hands_its_options_on(monkeypatch):
    pytest.importorskip('rclpy')
    import body_bridge.ros.process.record as record
    calls = []
    monkeypatch.setattr(record, 'record', lambda *args: calls.append(args) or 0)
    monkeypatch.setattr(cli, 'check_outputs', lambda command, args: None)
    assert cli.main(['record', 'a', 'b', '-o', 'bag', '--duration', '2', '--topics', '/js',
                     '--commands', 'c.yaml', '--real-time-factor', '1', '--ros-args',
                     '-p', 'x:=1']) == 0
    assert cli.main(['record', 'a', '-o', 'bag']) == 0
    assert calls == [(['a', 'b'], 'bag', 2.0, ['/js'], 'c.yaml', 1.0, ['--ros-args', '-p', 'x:=1']),
                     (['a'], 'bag', 10.0, (), None, 0.0, [])]


# --- convert -------------------------------------------------------------------------------------

MESHES = str(REPO / 'test' / 'data' / 'chrono' / 'meshes.yaml')


def test_convert_puts_the_meshes_beside_the_urdf(capsys, tmp_path):
    status, out, _ = run(capsys, 'convert', MESHES, '-o', tmp_path / 'm.urdf')
    assert (status, out) == (0, '')
    text = (tmp_path / 'm.urdf').read_text()
    assert f'file://{tmp_path}/m_meshes/' in text and (tmp_path / 'm_meshes').is_dir()


def test_convert_to_standard_output_and_a_mesh_folder_given(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, 'convert', MESHES, '--mesh-dir', tmp_path / 'here')
    assert status == 0 and out.startswith('<?xml') and f'file://{tmp_path}/here/' in out
    status, out, _ = run(capsys, 'convert', SAMPLE_ARM, '--mjcf', tmp_path / 'arm.xml')
    assert status == 0 and '<robot name="sample_arm"' in out
    assert '<mujoco' in (tmp_path / 'arm.xml').read_text()
