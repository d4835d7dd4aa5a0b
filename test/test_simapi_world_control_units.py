"""ros/simapi/world_control.py without a running ROS graph: the entities a world starts with, and a spawn that
joins the world or fails to, on stand-in nodes and runner (the real ones are in
test_simapi_handlers.py)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # the simulator API's package imports rclpy
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.errors import BodyBridgeError  # noqa: E402
from body_bridge.model import Pose  # noqa: E402
from body_bridge.ros.simapi.world_control import WorldControl  # noqa: E402

ROBOT = 7  # the category number the caller gives a robot


class Node:
    """What WorldControl reads of a bridge node."""

    def __init__(self, namespace, model, moving=True):
        self.namespace = namespace
        self.model = SimpleNamespace(name=model, movable_joints=['j'] if moving else [])
        self.params = {'model': f'/models/{model}.body'}
        self.periods, self.destroyed, self.said = 0, False, []

    def get_namespace(self):
        return self.namespace

    def sim_options(self):
        return Options()

    def publish_period(self):
        self.periods += 1

    def destroy_node(self):
        self.destroyed = True

    def get_logger(self):
        return SimpleNamespace(warning=self.said.append)


@dataclass
class Options:
    initial_pose: Pose | None = None


class World:
    def __init__(self):
        self.notes, self.added = ['an old note'], []

    def add(self, model, options, prefix):
        self.added.append((model.name, options.initial_pose, prefix))
        self.notes.append(f'{prefix}: a pair left out')


class Runner:
    def __init__(self, nodes, fail=None):
        self.nodes, self.fail, self.world, self.simulated = nodes, fail, World(), []

    def call(self, job):
        if self.fail:
            raise self.fail
        job()

    def add_node(self, node, sim):
        self.simulated.append((node, sim))


def control(nodes, fail=None):
    return WorldControl(Runner(nodes, fail), lambda node: None, lambda node: None, '/lab',
                        robot_category=ROBOT)


def test_the_models_started_with_are_named_by_namespace_or_model_and_sorted_by_joints():
    nodes = [Node('/', 'walker'), Node('/lab/arm', 'arm7'), Node('/other/arm', 'arm7', False),
             Node('', 'table', False)]
    entities = control(nodes).entities
    assert [(e.name, e.category, e.spawned, e.source) for e in entities.values()] == [
        ('walker', ROBOT, False, '/models/walker.body'), ('arm', ROBOT, False, '/models/arm7.body'),
        ('arm_2', 0, False, '/models/arm7.body'), ('table', 0, False, '/models/table.body')]


@pytest.fixture
def simulation(monkeypatch):
    from body_bridge.sim import simulation
    monkeypatch.setattr(simulation, 'Simulation', lambda model, options, world: ('sim', model.name))


def test_a_spawned_model_joins_and_publishes_its_first_period_at_once(simulation):
    world = control([Node('/lab/arm', 'arm7')])
    box = Node('/lab/box', 'box', moving=False)
    pose = Pose((1.0, 2.0, 0.5))
    entity = world.spawn('box', '/tmp/box.body', pose, '', lambda path, ns, prefix: box)
    assert (entity.name, entity.spawned, entity.category, entity.source) == (
        'box', True, 0, '/tmp/box.body')
    assert world.entities['box'] is entity
    assert world.runner.world.added == [('box', pose, 'box/')]
    assert world.runner.simulated == [(box, ('sim', 'box'))]
    assert box.periods == 1 and not box.destroyed
    assert box.said == ['box/: a pair left out']  # only the notes the new model made


def test_a_spawn_that_cannot_join_raises_and_leaves_the_world_as_it_was(simulation):
    world = control([Node('/lab/arm', 'arm7')], fail=BodyBridgeError('no room'))
    box = Node('/lab/box', 'box')
    with pytest.raises(BodyBridgeError, match='no room'):
        world.spawn('box', '/tmp/box.body', Pose(), '', lambda path, ns, prefix: box)
    assert list(world.entities) == ['arm'] and box.destroyed
