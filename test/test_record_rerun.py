"""A recorded bag opened by Rerun: its own MCAP importer (``rerun mcap convert``, what its viewer
runs on a dropped ``.mcap``) turns each topic into what Rerun draws, and the URDF on
``/robot_description`` into the robot's shapes. The command line is the rerun-sdk wheel's
binary, which tools/setup.sh puts in ``tools/rerun_cli``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.ros
pytest.importorskip('rosbags', reason='rosbags (tools/requirements.txt) is missing')

from bag_reading import read_bag  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
RERUN = REPO / 'tools' / 'rerun_cli' / 'rerun_cli' / 'rerun'
if not RERUN.exists():
    pytest.skip("Rerun's command line is missing (tools/setup.sh installs it into "
                'tools/rerun_cli)', allow_module_level=True)

#: ``rerun rrd print``: one line a chunk, its rows, its entity and its columns.
CHUNK = re.compile(r'^Chunk\(\w+\) with (\d+) rows \([^)]*\) - (\S+) - data columns: \[(.*)\]$')


def _rerun(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(RERUN), *args], capture_output=True, text=True, timeout=120)


def _chunks(rrd: Path) -> dict[str, dict[str, int]]:
    """entity -> archetype (the part of a column's name before ':') -> rows."""
    printed = _rerun('rrd', 'print', str(rrd))
    assert printed.returncode == 0, printed.stderr
    entities: dict[str, dict[str, int]] = {}
    for line in printed.stdout.splitlines():
        match = CHUNK.match(line)
        if match:
            rows, entity, columns = int(match[1]), match[2], match[3].split()
            kinds = entities.setdefault(entity, {})
            for kind in {c.split(':')[0] for c in columns}:
                kinds[kind] = kinds.get(kind, 0) + rows
    return entities


@pytest.fixture(scope='module')
def recorded(tmp_path_factory):
    """The sample arm recorded for a second (every device), and the bag as Rerun imports it."""
    tmp = tmp_path_factory.mktemp('rerun')
    done = subprocess.run([sys.executable, '-m', 'body_bridge', 'record', 'sample_arm', '-o',
                           str(tmp / 'bag'), '--duration', '1.0'], cwd=REPO,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    mcap = next((tmp / 'bag').glob('*.mcap'))
    converted = _rerun('mcap', 'convert', str(mcap), '-o', str(tmp / 'run.rrd'))
    assert converted.returncode == 0, converted.stderr
    return read_bag(tmp / 'bag'), _chunks(tmp / 'run.rrd'), mcap


def test_rerun_finds_the_bag_sound(recorded):
    _, _, mcap = recorded
    checked = _rerun('mcap', 'check', str(mcap))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_rerun_draws_each_topic_as_what_it_is(recorded):
    topics, entities, _ = recorded
    count = {topic: len(messages) for topic, (_, messages, _) in topics.items()}
    # every message of these topics becomes one row of what Rerun draws
    drawn = {
        '/hand_camera/image_raw': 'Image', '/hand_camera/depth/image': 'DepthImage',
        '/hand_camera/camera_info': 'Pinhole', '/hand_camera/image_raw/compressed':
        'EncodedImage', '/base_imu': 'Scalars', '/joint_states/position': 'Scalars',
        '/joint_states/velocity': 'Scalars',
    }
    for entity, kind in drawn.items():
        topic = entity.removesuffix('/position').removesuffix('/velocity')
        assert count[topic] > 0, topic
        assert entities[entity].get(kind) == count[topic], (entity, entities.get(entity))
    # a row for each transform of each message
    for topic in ('/tf', '/tf_static'):
        transforms = sum(len(m.transforms) for _, m in topics[topic][1])
        assert transforms >= 4 and entities[topic]['Transform3D'] == transforms, topic


def test_rerun_builds_the_robot_from_its_urdf(recorded):
    """Each visual of the URDF on /robot_description becomes a shape of the robot's entity."""
    from urdf_parser_py.urdf import URDF
    topics, entities, _ = recorded
    robot = URDF.from_xml_string(topics['/robot_description'][1][0][1].data)
    visuals = {f'/{robot.name}/visual_geometries/{link.name}/visual_{k}'
               for link in robot.links for k in range(len(link.visuals))}
    assert len(visuals) >= 6
    shapes = {entity for entity, kinds in entities.items()
              if '/visual_geometries/' in entity and
              any(kind.endswith('3D') and kind != 'InstancePoses3D' for kind in kinds)}
    assert shapes == visuals
