"""The README, docs/ and the shipped configuration say what the code does, and their links
lead where they say."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

import pytest
import yaml
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.ros.node.params import GROUPS, PARAMETERS
from body_bridge.ros.node.params_doc import BEGIN, END, GROUP_ROWS, markdown

from conftest import CORPUS, REPO, SAMPLE_ARM

README = (REPO / 'README.md').read_text()
DOCS = REPO / 'docs'
PARAMETERS_PAGE = DOCS / 'topics-and-parameters.md'
#: Every Markdown page a user reads: their relative links and anchors must resolve on GitHub.
PAGES = [REPO / 'README.md', *sorted(DOCS.glob('*.md')), REPO / 'bench' / 'README.md']
RVIZ = REPO / 'config' / 'body_bridge.rviz'
#: Display classes of rviz_default_plugins that Humble, Jazzy and Kilted all ship.
RVIZ_CLASSES = {'rviz_default_plugins/Grid', 'rviz_default_plugins/RobotModel',
                'rviz_default_plugins/TF', 'rviz_default_plugins/Image',
                'rviz_default_plugins/LaserScan', 'rviz_default_plugins/PointCloud2',
                'rviz_default_plugins/Range', 'rviz_default_plugins/Wrench'}


def section(title: str, text: str = README) -> str:
    start = text.index(f'\n## {title}\n')
    end = text.find('\n## ', start + 1)
    return text[start:end if end > 0 else None]


def test_parameter_reference_matches_the_declared_parameters():
    assert set(GROUP_ROWS) == set(GROUPS) | {'devices'}  # every group is documented
    page = PARAMETERS_PAGE.read_text()
    block = page[page.index(BEGIN) + len(BEGIN):page.index(END)]
    assert block.strip() == markdown().strip(), \
        f'run: .venv/bin/python -m body_bridge params --write {PARAMETERS_PAGE.relative_to(REPO)}'
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


def _outside_code(text: str) -> str:
    """The Markdown text without fenced and indented code blocks (their lines blanked)."""
    lines, fenced = [], False
    for line in text.split('\n'):
        if line.startswith('```'):
            fenced = not fenced
            lines.append('')
        else:
            lines.append('' if fenced or line.startswith('    ') and not line.lstrip().startswith(
                ('-', '|')) else line)
    return '\n'.join(lines)


def github_anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of a page: the heading's text in lower case,
    without characters other than letters, digits, '_', '-' and spaces, spaces made '-';
    a repeated one gets -1, -2, ..."""
    anchors: set[str] = set()
    for heading in re.findall(r'^#{1,6} (.+?)#*$', _outside_code(text), re.M):
        shown = re.sub(r'[`*]', '', re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading.strip()))
        anchor = re.sub(r'[^\w\- ]', '', shown.lower()).replace(' ', '-')
        unique, count = anchor, 0
        while unique in anchors:
            count += 1
            unique = f'{anchor}-{count}'
        anchors.add(unique)
    return anchors


def relative_links(text: str) -> list[str]:
    """Targets of the page's links and images that are not URLs (code blocks left out)."""
    targets = re.findall(r'\]\(([^)\s]+)(?:\s+"[^"]*")?\)', _outside_code(text))
    return [t for t in targets if not re.match(r'[a-z]+:', t)]


def test_anchor_rule_is_githubs():
    assert github_anchors('# Choreonoid Body (`.body`)\n## Time, pause, reset\n'
                          '## `devices_file`\n## Notes\n## Notes\n') == {
        'choreonoid-body-body', 'time-pause-reset', 'devices_file', 'notes', 'notes-1'}
    assert relative_links('[a](docs/x.md#y) ![p](i.png) [w](https://e.org)\n\n    [c](z.md)') \
        == ['docs/x.md#y', 'i.png']


def test_links_and_anchors_resolve():
    """Every relative link of README.md and docs/ leads to a file of the repository, and an
    #anchor to a heading of that page, as GitHub renders them."""
    broken = []
    for page in PAGES:
        for target in relative_links(page.read_text()):
            path, _, anchor = target.partition('#')
            file = (page.parent / path).resolve() if path else page
            if not file.exists() or REPO not in (file, *file.parents):
                broken.append(f'{page.relative_to(REPO)}: {target}: no such file')
            elif anchor and anchor not in github_anchors(file.read_text()):
                broken.append(f'{page.relative_to(REPO)}: {target}: no such heading')
    assert not broken, '\n'.join(broken)


def test_the_readme_links_every_docs_page():
    linked = {(REPO / t.partition('#')[0]).resolve() for t in relative_links(README)}
    for page in DOCS.glob('*.md'):
        assert page.resolve() in linked, f'{page.name} is not in the README\'s map'
    assert len(README.splitlines()) <= 200


def test_every_command_is_documented():
    text = (DOCS / 'command-line.md').read_text()
    for command in ('sim', 'record', 'info', 'check', 'convert', 'snapshot', 'rviz', 'params'):
        assert f'python -m body_bridge {command}' in text
        assert f'- `{command}`' in text


def _readme_commands(corpus: bool) -> list[tuple[str, list[str]]]:
    """The ``snapshot``, ``info`` and ``convert`` commands of the README (they finish by
    themselves): those on bundled models, or those on files of the real model corpus."""
    commands = re.findall(r'^    \.venv/bin/python -m body_bridge (snapshot|info|convert) (.*)$',
                          README, re.M)
    return [(command, [a.replace('../shared/models', str(CORPUS)) for a in rest.split()])
            for command, rest in commands if ('../shared/models' in rest) == corpus]


def _run(command: str, args: list[str], cwd) -> None:
    proc = subprocess.run([sys.executable, '-m', 'body_bridge', command, *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_the_readme_commands_for_a_new_user_run(tmp_path):
    commands = _readme_commands(corpus=False)
    assert [c for c, _ in commands] == ['snapshot', 'snapshot', 'info', 'convert']
    for command, args in commands:
        _run(command, args, tmp_path)
    assert (tmp_path / 'arm.png').is_file() and (tmp_path / 'arm.urdf').is_file()
    assert (tmp_path / 'camera.png').is_file()


@pytest.mark.corpus
def test_the_readme_commands_on_a_real_model_run(tmp_path):
    commands = _readme_commands(corpus=True)
    assert [c for c, _ in commands] == ['info', 'convert']
    for command, args in commands:
        _run(command, args, tmp_path)
    assert (tmp_path / 'SR1.urdf').is_file()


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
    from body_bridge.ros.devices.graph import device_topics
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
