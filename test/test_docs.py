"""The README and the shipped configuration say what the code does."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import yaml

from body_bridge.ros.params import GROUPS, PARAMETERS
from body_bridge.ros.params_doc import BEGIN, END, GROUP_ROWS, markdown

from conftest import REPO, SAMPLE_ARM

README = (REPO / 'README.md').read_text()
RVIZ = REPO / 'config' / 'body_bridge.rviz'
#: Display classes of rviz_default_plugins that Humble, Jazzy and Kilted all ship.
RVIZ_CLASSES = {'rviz_default_plugins/Grid', 'rviz_default_plugins/RobotModel',
                'rviz_default_plugins/TF', 'rviz_default_plugins/Image',
                'rviz_default_plugins/LaserScan', 'rviz_default_plugins/PointCloud2',
                'rviz_default_plugins/Range', 'rviz_default_plugins/Wrench'}


def section(title: str) -> str:
    start = README.index(f'\n## {title}\n')
    end = README.find('\n## ', start + 1)
    return README[start:end if end > 0 else None]


def test_parameter_reference_matches_the_declared_parameters():
    assert set(GROUP_ROWS) == set(GROUPS) | {'devices'}  # every group is documented
    block = README[README.index(BEGIN) + len(BEGIN):README.index(END)]
    assert block.strip() == markdown().strip(), \
        'run: .venv/bin/python -m body_bridge params --write README.md'
    for name in PARAMETERS:
        assert f'| `{name}` |' in block


def test_launch_arguments_are_documented_with_their_defaults():
    tree = ast.parse((REPO / 'launch' / 'sim.launch.py').read_text())
    declared = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, 'id', '') == 'DeclareLaunchArgument':
            default = next(k.value for k in node.keywords if k.arg == 'default_value')
            declared[node.args[0].value] = default.value if isinstance(default, ast.Constant) \
                else None
    ros = section('For ROS users')
    for name, default in declared.items():
        row = re.search(rf'^\| `{name}` \| (.*?) \|', ros, re.M)
        assert row, f'launch argument {name} is not in the README'
        if default is not None:
            shown = row.group(1).strip('`')
            assert shown == default or (default == '' and shown == '""'), name


def test_pictures_exist_and_are_shown():
    shown = set(re.findall(r'\]\((docs/images/[^)]+\.png)\)', README))
    for page in (REPO / 'docs').glob('*.md'):  # pictures of the docs pages
        shown |= {f'docs/{p}' for p in re.findall(r'\]\((images/[^)]+\.png)\)',
                                                    page.read_text())}
    on_disk = {str(p.relative_to(REPO)) for p in (REPO / 'docs' / 'images').glob('*.png')}
    assert shown == on_disk and len(on_disk) >= 5
    for path in on_disk:
        data = (REPO / path).read_bytes()
        assert data[:8] == b'\x89PNG\r\n\x1a\n' and len(data) < 100_000  # small pictures
    script = (REPO / 'docs' / 'make_pictures.sh').read_text()
    for path in on_disk:
        assert path.split('/')[-1] in script, f'{path} is not made by docs/make_pictures.sh'


def test_links_and_anchors_resolve():
    anchors = {re.sub(r'[^a-z0-9 -]', '', h.lower()).replace(' ', '-')
               for h in re.findall(r'^#+ (.+)$', README, re.M)}
    for target in re.findall(r'\]\(#([^)]+)\)', README):
        assert target in anchors, target
    for target in re.findall(r'\]\(((?:examples|docs|config|launch)/[^)#]+)\)', README):
        assert (REPO / target).exists(), target


def test_every_command_is_documented():
    text = section('Command line')
    for command in ('sim', 'info', 'check', 'convert', 'snapshot', 'rviz', 'params'):
        assert f'python -m body_bridge {command}' in text
        assert f'- `{command}`' in text


def test_the_readme_commands_for_a_new_user_run(tmp_path):
    """The commands of 'Two commands on a fresh machine' that finish by themselves."""
    text = section('Two commands on a fresh machine')
    commands = re.findall(r'^    \.venv/bin/python -m body_bridge (snapshot|info|convert) (.*)$',
                          text, re.M)
    assert [c for c, _ in commands] == ['snapshot', 'info', 'convert']
    for command, rest in commands:
        args = [a.replace('../shared', str(REPO.parent / 'shared')) for a in rest.split()]
        proc = subprocess.run([sys.executable, '-m', 'body_bridge', command, *args],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    assert (tmp_path / 'arm.png').is_file() and (tmp_path / 'SR1.urdf').is_file()


def test_rviz_config_shows_what_the_sample_arm_publishes():
    config = yaml.safe_load(RVIZ.read_text())
    manager = config['Visualization Manager']
    assert manager['Global Options']['Fixed Frame'] == 'world'
    displays = manager['Displays']
    assert {d['Class'] for d in displays} <= RVIZ_CLASSES
    robot = next(d for d in displays if d['Class'] == 'rviz_default_plugins/RobotModel')
    assert robot['Description Source'] == 'Topic'
    assert robot['Description Topic']['Value'] == 'robot_description'
    assert robot['Description Topic']['Durability Policy'] == 'Transient Local'
    assert any(d['Class'] == 'rviz_default_plugins/TF' and d['Enabled'] for d in displays)
    # every sensor display type the bridge publishes is there
    classes = {d['Class'] for d in displays}
    assert {'rviz_default_plugins/Image', 'rviz_default_plugins/LaserScan',
            'rviz_default_plugins/PointCloud2', 'rviz_default_plugins/Range',
            'rviz_default_plugins/Wrench'} <= classes
    # enabled displays watch exactly the sample arm's topics of those types, with their QoS
    from body_bridge.formats import load_model
    from body_bridge.ros.graph import device_topics
    from body_bridge.rviz import DISPLAY_CLASSES
    published = {(DISPLAY_CLASSES[t.type], t.name) for e in device_topics(load_model(SAMPLE_ARM))
                 for t in e.topics if t.type in DISPLAY_CLASSES}
    enabled = {(d['Class'], d['Topic']['Value']) for d in displays
               if d['Enabled'] and 'Topic' in d}
    assert enabled == published == {
        ('rviz_default_plugins/Image', 'hand_camera/image_raw'),
        ('rviz_default_plugins/Image', 'hand_camera/depth/image'),
        ('rviz_default_plugins/LaserScan', 'base_scan/scan'),
        ('rviz_default_plugins/Wrench', 'wrist_force')}
    for d in displays:
        if 'Topic' in d:
            assert d['Topic']['Reliability Policy'] == 'Best Effort'  # sensor-data QoS
            assert d['Enabled'] == bool(d['Topic']['Value'])


def test_shipped_rviz_config_is_the_generated_one():
    proc = subprocess.run([sys.executable, '-m', 'body_bridge', 'rviz', 'sample_arm'],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == RVIZ.read_text(), \
        'run: .venv/bin/python -m body_bridge rviz sample_arm -o config/body_bridge.rviz'
