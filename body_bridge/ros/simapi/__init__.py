"""The world's simulator API: the simulation_interfaces 2.1.0 services and the SimulateSteps
action, served once for the whole world by the node ``sim`` in the process namespace, as
Isaac Sim names them (``/get_simulator_features``, ``/spawn_entity``, ``/simulate_steps``,
...; docs/simulator-api.md).

The node has its own executor thread (a long SimulateSteps must not hold the models' topics,
and its cancel requests must get through); models spawned into the world get their bridge
node in the process's executor.
"""

from __future__ import annotations

import threading
import time

from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter

from .world_control import WorldControl

__all__ = ['WorldApi', 'serve_world']


class WorldApi:
    """The node ``sim`` serving the simulator API of one running world.

    Args:
        runner: the world's SimulationRunner.
        executor: the process's executor (spawned models' nodes are added to it).
        namespace: the process namespace.
        context: the ROS context.
    """

    def __init__(self, runner, executor, namespace: str = '/', context=None, world=None,
                 started: str = ''):
        from simulation_interfaces.msg import EntityCategory
        from .control import TimeServices
        from .entities import EntityServices
        from .spawn import SpawnServices, spawn_formats
        from .worlds import WorldServices
        self.node = Node('sim', namespace=namespace, context=context,
                         use_global_arguments=False)
        self._main = executor
        #: Told of every node the API adds to the world or takes out of it (``add_node``,
        #: ``remove_node``): the Foxglove server serves them.
        self.watchers: list = []
        self.control = WorldControl(runner, self._add, self._retire,
                                    namespace, EntityCategory.CATEGORY_ROBOT)
        #: The bridge's own nodes (the models it started with): its launcher destroys them.
        self._given = {id(e.node) for e in self.control.entities.values()}
        self.time = TimeServices(self.node, self.control, spawn_formats())
        self.entities = EntityServices(self.node, self.control)
        self.spawn = SpawnServices(self.node, self.control, self._make_node)
        self.worlds = WorldServices(self.node, self.control, self.time, self._make_node,
                                    self._retire, world, started)
        self._executor = MultiThreadedExecutor(num_threads=2, context=context)
        self._executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, name='body_bridge_simapi',
                                        daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            self._executor.spin()
        except Exception:  # noqa: BLE001 - the context went down while it waited: stop quietly
            if self.node.context.ok():
                raise

    def _add(self, node) -> None:
        """Put a new model's node into the process's executor; tell the watchers."""
        self._main.add_node(node)
        for watcher in list(self.watchers):
            watcher.add_node(node)

    def _retire(self, node) -> None:
        """Take a deleted model's node out of the process's executor (and the watchers'
        view), then destroy it once the executor has begun waiting without it (two turns of
        it: a node destroyed while the executor waits on its entities would end the process)."""
        for watcher in list(self.watchers):
            watcher.remove_node(node)
        self._main.remove_node(node)
        for _ in range(2):
            turn = self._main.create_task(lambda: None)
            end = time.monotonic() + 2.0
            while not turn.done() and time.monotonic() < end:
                time.sleep(0.005)
        node.destroy_node()

    def _make_node(self, path: str, namespace: str, frame_prefix: str, overrides=()):
        from ..node import node as bridge
        return bridge.BridgeNode(
            shared=True, namespace=namespace, use_global_arguments=False,
            context=self.node.context,
            parameter_overrides=[Parameter('model', Parameter.Type.STRING, path), *overrides],
            defaults={'frame_prefix': frame_prefix})

    def stop(self) -> None:
        """Stop serving; the world stops stepping, the nodes the API made (spawned, or of a
        world it loaded) are destroyed with the others."""
        self._executor.shutdown(timeout_sec=1.0)
        self._thread.join(timeout=2.0)
        self.node.destroy_node()
        self.control.runner.stop()  # a loaded world's runner has no other owner
        for entity in self.control.entities.values():
            if id(entity.node) not in self._given:
                entity.node.destroy_node()
        self.control.close()


def serve_world(runner, executor, namespace: str, world=None,
                started: str = '') -> WorldApi | None:
    """The simulator API of the world ``runner`` steps (None: nothing simulates), started
    from the WorldFile ``world`` or from the model arguments ``started``.

    Raises:
        BodyBridgeError: the ``named_poses`` parameter is not a list of named poses.
    """
    if runner is None:
        return None
    try:
        import simulation_interfaces.srv  # noqa: F401 - present where the API can be served
    except ImportError:
        import rclpy.logging
        nodes = getattr(runner, 'nodes', None)  # said by the bridge node, as its own lines
        logger = nodes[0].get_logger() if nodes else rclpy.logging.get_logger('body_bridge')
        logger.warning('simulation_interfaces is not installed: the simulator API is not served')
        return None
    nodes = getattr(runner, 'nodes', None)  # the API's node in the context of the world's
    return WorldApi(runner, executor, namespace, nodes[0].context if nodes else None,
                    world=world, started=started)
