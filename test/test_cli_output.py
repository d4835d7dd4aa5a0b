"""What the commands say and where: problems on standard error for every command, camera
pictures that show something (the README's as documented), a warning for one that does not."""

import re

import numpy as np
import pytest

from conftest import REPO
from test_cli import cli
from test_cli_tools import read_png

#: A model of our own with something every loader warning path reports: an unknown key.
ODD = ('format: ChoreonoidBody\nname: odd\ncolour: red\nlinks:\n'
       '  - name: base\n    joint_type: fixed\n    mass: 1.0\n'
       '    inertia: [ 0.01, 0, 0, 0.01, 0, 0.01 ]\n'
       '    elements: { type: Shape, geometry: { type: Box, size: [ 0.1, 0.1, 0.1 ] } }\n')

#: Every command that reads a model, with what it needs besides it (ros: reads topics).
COMMANDS = [
    ('check', [], False),
    ('convert', ['-o', '{tmp}/odd.urdf'], False),
    ('snapshot', ['-o', '{tmp}/odd.png', '--width', '32', '--height', '24'], False),
    ('srdf', ['-o', '{tmp}/odd.srdf', '--samples', '0'], False),
    ('info', [], True),
    ('rviz', ['-o', '{tmp}/odd.rviz'], True),
]


def test_the_list_has_every_command_that_reads_a_model():
    from test_cli_arguments import subcommands
    reading = {name for name, parser in subcommands().items()
               if any(a.dest in ('model', 'models') for a in parser._actions)}
    # sim and record run the bridge: its nodes log the model's warnings (test_cli_sim.py)
    assert reading - {'sim', 'record'} == {c for c, _, _ in COMMANDS}


@pytest.mark.parametrize('command, extra, ros', [
    pytest.param(*c, marks=[pytest.mark.ros] if c[2] else []) for c in COMMANDS],
    ids=[c[0] for c in COMMANDS])
def test_every_command_puts_warnings_on_stderr(tmp_path, command, extra, ros):
    model = tmp_path / 'odd.body'
    model.write_text(ODD)
    proc = cli(command, model, *[a.format(tmp=tmp_path) for a in extra])
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(f"warning: {model}:1: body: key 'colour' is not")
    assert not re.search(r'^warning', proc.stdout, re.M)


# --- camera pictures -----------------------------------------------------------------------

def readme_camera_command() -> list[str]:
    readme = (REPO / 'README.md').read_text()
    line, = re.findall(r'^    \.venv/bin/python -m body_bridge (snapshot .*--camera .*)$', readme,
                       re.M)
    return line.split()


def test_the_readme_camera_picture_is_made_as_the_readme_says(tmp_path):
    """The README shows its camera picture's command, with the pose docs/make_pictures.sh
    renders it in, and that picture shows the model (in the start pose the camera looks at
    the sky)."""
    args = readme_camera_command()
    script = (REPO / 'docs' / 'make_pictures.sh').read_text()
    arm = re.search(r'^arm=\((.*)\)$', script, re.M).group(1).split()
    assert args[args.index('--camera') + 1] == 'hand_camera'
    assert [a for i, a in enumerate(args) if '--position' in args[i - 1:i + 1]] == arm
    assert re.search(r'--camera hand_camera \\\n\s+"\$\{arm\[@\]\}"', script)
    out = tmp_path / 'camera.png'
    args[args.index('-o') + 1] = str(out)
    proc = cli(*args)
    assert proc.returncode == 0 and proc.stderr == '', proc.stderr
    rgb = read_png(out)
    assert len(np.unique(rgb.reshape(-1, 3), axis=0)) > 50
    assert (rgb == 0).all(axis=2).mean() < 0.05  # not the black sky


def test_a_camera_that_sees_nothing_is_warned(tmp_path):
    out = tmp_path / 'sky.png'
    proc = cli('snapshot', 'sample_arm', '-o', out, '--camera', 'hand_camera')
    assert proc.returncode == 0
    assert proc.stderr == 'warning: hand_camera sees nothing in this pose (the picture is one ' \
        'colour): point it at the model with --position JOINT=VALUE\n'
    rgb = read_png(out)
    assert (rgb == rgb[0, 0]).all()


@pytest.mark.parametrize('shape', [(4, 5, 3), (4, 5)])
def test_blank_means_one_colour(shape):
    from body_bridge.cli import _blank
    pixels = np.full(shape, 7, np.uint8)
    assert _blank(pixels)
    for index in ((0, 0), (3, 4), (2, 1)):
        other = pixels.copy()
        other[index] = 8
        assert not _blank(other)
    if len(shape) == 3:
        other = pixels.copy()
        other[1, 1, 2] = 0  # one channel differs
        assert not _blank(other)


# --- why the URDF has more links than the model ----------------------------------------------

def own_models() -> list:
    data = REPO / 'test' / 'data'
    return [REPO / 'models' / 'sample_arm' / 'sample_arm.body',
            *sorted((data / 'choreonoid').glob('*.body')),
            *(p for p in sorted((data / 'chrono').glob('*.yaml'))
              if not p.name.endswith('_solver.yaml'))]  # a solver file holds no model


@pytest.mark.parametrize('path', own_models(), ids=lambda p: p.name)
def test_the_urdf_link_count_adds_up_for_every_model(tmp_path, path):
    from urdf_parser_py import urdf as urdf_parser

    from body_bridge.formats import load_model
    from body_bridge.summary import urdf_links
    from body_bridge.urdf import to_urdf
    model = load_model(path)
    robot = urdf_parser.URDF.from_xml_string(to_urdf(model, mesh_dir=tmp_path))
    total, why = urdf_links(model)
    assert total == len(robot.links)
    parts = dict((what, int(n)) for n, what in re.findall(r'(\d+) ([a-z ]+?)(?:,|$)', why))
    assert why.startswith(f"the model's {len(model.links)}")
    assert parts.get('device frames', parts.get('device frame', 0)) == len(model.devices)
    assert sum(parts.values()) + len(model.links) == total


def test_the_urdf_link_count_says_each_kind_of_frame():
    from dataclasses import replace

    from body_bridge.formats import load_model
    from body_bridge.model import Pose
    from body_bridge.model.parts import Frame
    from body_bridge.summary import urdf_links
    arm = load_model(REPO / 'models' / 'sample_arm' / 'sample_arm.body')
    assert urdf_links(arm) == (14, "the model's 6, 7 device frames, 1 camera optical frame")
    one = replace(arm, devices=arm.devices[:1], frames=(Frame('tip', 'hand', Pose()),))
    assert arm.devices[0].kind.value != 'camera'
    assert urdf_links(one) == (8, "the model's 6, 1 named frame, 1 device frame")
    bare = replace(arm, devices=(), frames=())
    assert urdf_links(bare) == (6, "the model's 6")


def test_check_says_why_and_refuses_a_count_that_does_not_add_up(monkeypatch):
    from body_bridge import summary
    from body_bridge.check import check_model
    report = check_model('sample_arm', seconds=0.0, trials=1)
    assert "URDF written (14 links: the model's 6, 7 device frames, 1 camera optical frame; " \
           '13 joints)' in report.passed
    monkeypatch.setattr(summary, 'urdf_links', lambda model: (13, 'a wrong count'))
    report = check_model('sample_arm', seconds=0.0, trials=1)
    assert [f.text for f in report.errors] == [
        f'{report.model.source}: the URDF has 14 links, not 13 (a wrong count)']
    assert not any(p.startswith('URDF written') for p in report.passed)
