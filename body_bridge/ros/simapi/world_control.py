"""The world as the simulator API changes it: its entities, spawning and deleting models.

An *entity* is one model of the world with its bridge node. The models the bridge started
with are entities named after their namespace (one model alone: after the model); spawned
models get a node of their own in their namespace, with ``frame_prefix`` ``<name>/`` and
MuJoCo names under the prefix ``<name>/``. Every change of the world runs on the stepping
thread between two control periods (``SimulationRunner.call``): the models already there keep
their state, simulated time goes on.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from dataclasses import dataclass, field

from ...errors import BodyBridgeError
from ...model import Pose

__all__ = ['Entity', 'WorldControl', 'SpawnRefused', 'NAME']

#: A valid entity name (it becomes a ROS namespace token and a frame prefix).
NAME = re.compile(r'[A-Za-z][A-Za-z0-9_]*$')


class SpawnRefused(Exception):
    """A spawn that cannot be done: ``code`` (a SpawnEntity result code name) and a line."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass
class Entity:
    """One model of the world, as the simulator API names and describes it."""

    name: str
    node: object
    spawned: bool
    category: int = 0
    description: str = ''
    tags: list[str] = field(default_factory=list)
    source: str = ''

    @property
    def sim(self):
        return self.node.sim


class WorldControl:
    """The entities of a running world, and the changes the simulator API makes to it.

    Args:
        runner: the world's SimulationRunner.
        add_node, retire_node: put a new node into the process's executor; take one out
            of it and destroy it (safely: the executor may be waiting on its entities).
        namespace: the process namespace, under which spawned models get theirs.
        robot_category: the category number of a robot (EntityCategory.CATEGORY_ROBOT).
    """

    def __init__(self, runner, add_node, retire_node, namespace: str = '/',
                 robot_category: int = 1):
        self.runner = runner
        self._add_node, self._retire_node = add_node, retire_node
        self.namespace = namespace.rstrip('/')
        self.lock = threading.Lock()
        self.entities: dict[str, Entity] = {}
        self._files = tempfile.TemporaryDirectory(prefix='body_bridge_spawn_')
        for node in runner.nodes:
            name = node.get_namespace().rstrip('/').rsplit('/', 1)[-1] or node.model.name
            category = robot_category if node.model.movable_joints else 0
            self.entities[self._unique(name)] = Entity(
                self._unique(name), node, False, category, source=node.params['model'])

    def _unique(self, name: str) -> str:
        unique, count = name, 1
        while unique in self.entities:
            count += 1
            unique = f'{name}_{count}'
        return unique

    def entity(self, name: str) -> Entity:
        """The entity of that name. Raises KeyError with a line naming it."""
        try:
            return self.entities[name]
        except KeyError:
            raise KeyError(f'no entity named {name!r} (entities: '
                           f'{", ".join(self.entities) or "none"})') from None

    # --- spawning and deleting -----------------------------------------------------------

    def name_for(self, name: str, allow_renaming: bool, fallback: str) -> str:
        """The name a spawned entity gets.

        Raises:
            SpawnRefused: NAME_INVALID or NAME_NOT_UNIQUE.
        """
        if not name:
            if not allow_renaming:
                raise SpawnRefused('NAME_INVALID', 'no name given and allow_renaming is false')
            name = re.sub(r'[^A-Za-z0-9_]', '_', fallback) or 'entity'
            name = name if NAME.match(name) else f'entity_{name}'
        elif not NAME.match(name):
            raise SpawnRefused('NAME_INVALID', f'{name!r} is not a valid entity name: a letter, '
                               'then letters, digits, underscores')
        if name in self.entities:
            if not allow_renaming:
                raise SpawnRefused('NAME_NOT_UNIQUE', f'the name {name!r} is taken')
            name = self._unique(name)
        return name

    def resource_file(self, text: str, fmt: str) -> str:
        """A file holding a spawned model given as text, with the extension ``fmt``."""
        handle, path = tempfile.mkstemp(suffix=fmt, dir=self._files.name)
        with os.fdopen(handle, 'w', encoding='utf-8') as out:
            out.write(text)
        return path

    def spawn(self, name: str, path: str, pose: Pose, namespace: str, make_node) -> Entity:
        """Load ``path`` into a new node and add its model to the running world at ``pose``.

        Args:
            make_node: (model path, namespace, frame prefix) -> a BridgeNode not yet
                simulating (the model loaded and checked: this may fail with the loader's
                one-line error).

        Raises:
            BodyBridgeError: the model does not load or cannot join the world.
        """
        from dataclasses import replace
        from ...sim.simulation import Simulation
        ns = namespace or f'{self.namespace}/{name}'
        node = make_node(path, ns, f'{name}/')
        try:
            options = replace(node.sim_options(), initial_pose=pose)

            def join():
                world = self.runner.world
                known = set(world.notes)
                world.add(node.model, options, f'{name}/')
                for line in world.notes:  # contact pairs the new model's materials left out
                    if line not in known:
                        node.get_logger().warning(line)
                sim = Simulation(node.model, options, world=world)
                self.runner.add_node(node, sim)
                node.publish_period()
            self.runner.call(join)
        except BaseException:
            node.destroy_node()
            raise
        entity = Entity(name, node, True, 1 if node.model.movable_joints else 0, source=path)
        with self.lock:
            self.entities[name] = entity
        self._add_node(node)
        return entity

    def delete(self, name: str) -> None:
        """Take an entity out of the world; its node, topics and frames go.

        Raises:
            KeyError: no such entity. ValueError: it is the world's first model.
        """
        entity = self.entity(name)
        sim = entity.sim
        if sim is None or sim.prefix == '':
            raise ValueError(f'{name} holds the world (its first model): it cannot be deleted')

        def leave():
            self.runner.world.remove(sim.prefix)
            self.runner.remove_node(entity.node)
        self.runner.call(leave)
        with self.lock:
            del self.entities[name]
        self._retire_node(entity.node)

    def delete_spawned(self) -> list[str]:
        """Every spawned entity deleted; their names."""
        names = [e.name for e in list(self.entities.values()) if e.spawned]
        for name in names:
            self.delete(name)
        return names

    def close(self) -> None:
        self._files.cleanup()


def load_error_code(err: BodyBridgeError) -> str:
    """The SpawnEntity result code of a loader's error: a missing file or mesh is
    MISSING_ASSETS (the model file itself: NO_RESOURCE is for an empty request), the rest a
    parse error."""
    text = str(err)
    if 'no such file' in text or 'not found' in text or 'does not exist' in text:
        return 'MISSING_ASSETS'
    return 'RESOURCE_PARSE_ERROR'
