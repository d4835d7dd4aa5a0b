"""Models of one world that start inside each other are warned about (``sim/building/overlap.py``);
models placed apart, or only touching, are not; the documented parameter file places two arms
apart."""

import math
import re
from dataclasses import replace

import numpy as np
import pytest
import yaml

from body_bridge.formats import load_model
from body_bridge.model import Pose
from body_bridge.sim.building.options import SimOptions
from body_bridge.sim.building.overlap import TOLERANCE, start_overlaps
from body_bridge.sim.simulation import simulate_together

from conftest import REPO, SAMPLE_ARM

#: A floor slab of our own: its top face at z = top.
SLAB = """format: ChoreonoidBody
name: slab
links:
  - name: slab
    jointType: fixed
    translation: [ 0, 0, {centre} ]
    mass: 10.0
    inertia: [ 1, 0, 0, 1, 0, 1 ]
    elements: {{ type: Shape, geometry: {{ type: Box, size: [ 2, 2, 0.1 ] }} }}
"""


def world(*placed, ground='off'):
    """A world of (model, pose) pairs (the first model's ground plane as ``ground``)."""
    entries = [(model, SimOptions(initial_pose=pose)) for model, pose in placed]
    first = entries[0][1]
    entries[0] = (entries[0][0], replace(first, build=replace(first.build, ground_plane=ground)))
    prefixes = [''] + [f'm{i}/' for i in range(1, len(entries))]
    return simulate_together(entries, prefixes)[0].world


@pytest.fixture(scope='module')
def arm():
    return load_model(SAMPLE_ARM)


def slab(tmp_path, top: float):
    path = tmp_path / 'slab.body'
    path.write_text(SLAB.format(centre=top - 0.05))
    return load_model(path)


def test_two_robots_at_the_origin_are_warned_about(arm):
    lines = start_overlaps(world((arm, Pose()), (arm, Pose())))
    assert len(lines) == 1
    match = re.fullmatch(r"models sample_arm and sample_arm \(m1\) start inside each other "
                         r"\(link '(\w+)' of sample_arm is ([\d.e-]+) m deep in link '(\w+)' of "
                         r"sample_arm \(m1\)\): place them apart with their initial_pose "
                         r"parameters", lines[0])
    assert match, lines[0]
    # two links of the arm, deepest (with MuJoCo 4 the same link of each; MuJoCo 3's shape
    # distance can find a neighbouring pair as deep)
    links = {link.name for link in arm.links}
    assert match[1] in links and match[3] in links
    assert float(match[2]) > 0.01  # metres inside: far past the 1 mm tolerance (MuJoCo 3: 0.04)


def test_a_world_file_s_models_are_told_of_their_pose_key(arm):
    lines = start_overlaps(world((arm, Pose()), (arm, Pose())), ['arm a', 'arm b'],
                           'their pose in lab.world.yaml')
    assert len(lines) == 1 and lines[0].startswith('models arm a and arm b start inside')
    assert lines[0].endswith('): place them apart with their pose in lab.world.yaml')


def test_the_names_given_are_used(arm):
    lines = start_overlaps(world((arm, Pose()), (arm, Pose())), ['arm in /a', 'arm in /b'])
    assert lines[0].startswith('models arm in /a and arm in /b start inside each other')


def test_robots_placed_apart_are_not(arm):
    assert start_overlaps(world((arm, Pose()), (arm, Pose.from_rpy((0, 0, 0), (0.6, 0, 0))))) \
        == []
    assert start_overlaps(world((arm, Pose()))) == []  # one model: nothing to overlap


def test_a_robot_standing_on_a_floor_model_is_not(arm, tmp_path):
    assert start_overlaps(world((slab(tmp_path, 0.0), Pose()), (arm, Pose()))) == []
    assert start_overlaps(world((arm, Pose()), (slab(tmp_path, 0.0), Pose()))) == []
    # the ground plane is no model
    assert start_overlaps(world((arm, Pose()), (arm, Pose.from_rpy((0, 0, 0), (0.6, 0, 0))),
                                ground='on')) == []


@pytest.mark.parametrize('top, warned', [(0.5 * TOLERANCE, False), (0.02, True)])
def test_the_tolerance_is_a_millimetre(arm, tmp_path, top, warned):
    """A floor whose top is above the robot's feet: inside it by more than the tolerance is an
    overlap, less is touching."""
    assert TOLERANCE == 1e-3
    lines = start_overlaps(world((slab(tmp_path, top), Pose()), (arm, Pose())))
    assert bool(lines) == warned, lines
    if warned:
        depth = float(re.search(r'is ([\d.e-]+) m deep', lines[0])[1])
        assert depth == pytest.approx(top, abs=2e-3)
        assert "of slab is" in lines[0] or "of sample_arm (m1) is" in lines[0]


def test_every_pair_is_said_once_deepest_first(arm, tmp_path):
    far = Pose.from_rpy((0, 0, 0), (5.0, 0, 0))
    lines = start_overlaps(world((arm, Pose()), (arm, Pose()), (arm, far),
                                 (arm, Pose.from_rpy((0, 0, 0), (5.05, 0, 0)))))
    assert len(lines) == 2
    assert 'sample_arm and sample_arm (m1) ' in lines[0] or 'sample_arm (m2) and' in lines[0]
    assert {('(m1)' in line, '(m2)' in line and '(m3)' in line) for line in lines} == \
        {(True, False), (False, True)}
    depths = [float(re.search(r'is ([\d.e-]+) m deep', line)[1]) for line in lines]
    assert depths == sorted(depths, reverse=True)


def test_the_documented_parameter_file_places_two_arms_apart(arm):
    page = (REPO / 'docs' / 'commands-and-simulation.md').read_text()
    block = re.search(r'```yaml\n(/arm/body_bridge:.*?)```', page, re.S)[1]
    poses = [Pose.from_rpy(v[3:], v[:3]) for v in (
        section['ros__parameters']['initial_pose'] for section in yaml.safe_load(block).values())]
    assert len(poses) == 2
    assert start_overlaps(world((arm, poses[0]), (arm, poses[1]))) == []
    command = re.search(r'^    \.venv/bin/python -m body_bridge sim (.*)$', page[page.index(block):],
                        re.M)[1]
    assert command.startswith('arm=sample_arm arm2=sample_arm --ros-args --params-file ')


#: A floor whose link is the world itself (MuJoCo's world body holds its shape, unnamed).
WORLD_SLAB = """format: ChoreonoidBody
name: ground_slab
links:
  - name: world
    jointType: fixed
    mass: 10.0
    inertia: [ 1, 0, 0, 1, 0, 1 ]
    elements:
      - type: Transform
        translation: [ 0, 0, {centre} ]
        elements: {{ type: Shape, geometry: {{ type: Box, size: [ 2, 2, 0.1 ] }} }}
"""


@pytest.mark.parametrize('first', [True, False])
def test_a_model_whose_link_is_the_world_is_told_apart(arm, tmp_path, first):
    path = tmp_path / 'ground_slab.body'
    path.write_text(WORLD_SLAB.format(centre=-0.03))  # its top 2 cm above the arm's feet
    floor = load_model(path)
    placed = [(floor, Pose()), (arm, Pose())]
    lines = start_overlaps(world(*(placed if first else placed[::-1])))
    assert len(lines) == 1 and "link 'world' of ground_slab" in lines[0]
    assert float(re.search(r'is ([\d.e-]+) m deep', lines[0])[1]) == pytest.approx(0.02, abs=2e-3)
    path.write_text(WORLD_SLAB.format(centre=-0.05))  # touching
    placed[0] = (load_model(path), Pose())
    assert start_overlaps(world(*(placed if first else placed[::-1]))) == []


def test_two_models_of_one_shape_each(tmp_path):
    """The smallest world that can overlap: two shapes, one per model."""
    box = slab(tmp_path, 0.5)
    assert len(start_overlaps(world((box, Pose()), (box, Pose.from_rpy((0, 0, 0), (1.5, 0, 0)))))) \
        == 1  # 2 m wide slabs 1.5 m apart
    assert start_overlaps(world((box, Pose()), (box, Pose.from_rpy((0, 0, 0), (2.5, 0, 0))))) == []


def test_pairs_are_said_deepest_first_whatever_their_models_order(arm, tmp_path):
    """An arm 5 cm deep in a slab, and far away a slab 2 cm deep in another arm."""
    deep = slab(tmp_path, 0.05)
    path = tmp_path / 'thin.body'
    path.write_text(SLAB.format(centre=0.02 - 0.05).replace('name: slab', 'name: thin'))
    away = Pose.from_rpy((0, 0, 0), (3.0, 0, 0))
    lines = start_overlaps(world((arm, Pose()), (deep, Pose()), (load_model(path), away),
                                 (arm, away)))
    assert len(lines) == 2
    assert lines[0].startswith('models sample_arm and slab (m1) start inside each other')
    assert lines[1].startswith('models thin (m2) and sample_arm (m3) start inside each other')
    depths = [float(re.search(r'is ([\d.e-]+) m deep', line)[1]) for line in lines]
    assert depths == pytest.approx([0.05, 0.02], abs=2e-3)


BALL = """format: ChoreonoidBody
name: ball
links:
  - name: ball
    jointType: fixed
    mass: 1.0
    inertia: [ 0.004, 0, 0, 0.004, 0, 0.004 ]
    elements: { type: Shape, geometry: { type: Sphere, radius: 0.1 } }
"""


@pytest.mark.parametrize('gap, warned', [(-0.0005, False), (-0.003, True)])
def test_boxes_that_overlap_are_measured_by_the_shapes(tmp_path, gap, warned):
    """Two balls side by side along a diagonal: their bounding boxes overlap by centimetres,
    the balls themselves by ``-gap`` (within the tolerance: no warning)."""
    path = tmp_path / 'ball.body'
    path.write_text(BALL)
    ball = load_model(path)
    centre = (0.2 + gap) / math.sqrt(2.0)
    lines = start_overlaps(world((ball, Pose()), (ball, Pose.from_rpy((0, 0, 0),
                                                                      (centre, centre, 0)))))
    assert bool(lines) == warned, lines


def test_a_mesh_is_boxed_where_it_is_and_models_of_any_shape_counts_are_paired():
    """A tetrahedron mesh (its bounding box off its centroid, where MuJoCo puts its frame)
    with a second shape, and a probe of three balls, one 2 cm ball in its far corner (within
    the box around the mesh, outside the same box put at its centroid)."""
    from body_bridge.model import Box, Link, Mesh, Model, Shape, Sphere
    corner = Mesh(np.array([[0, 0, 0], [0.3, 0, 0], [0, 0.3, 0], [0, 0, 0.3]], float),
                  np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]), 'corner')
    tetra = Model('tetra', (Link('t', collisions=(Shape(corner), Shape(
        Box((0.1, 0.1, 0.1)), Pose((0, 0, -2.0))))),), (), 't')
    balls = tuple(Shape(Sphere(0.02), Pose((0, y, 0))) for y in (0.0, 3.0, 6.0))
    probe = Model('probe', (Link('p', collisions=balls),), (), 'p')
    lines = start_overlaps(world((tetra, Pose()), (probe, Pose.from_rpy((0, 0, 0),
                                                                       (0.28, 0.004, 0.004)))))
    assert len(lines) == 1 and "link 't' of tetra is" in lines[0], lines
