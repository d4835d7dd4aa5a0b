"""The outlets a running bridge's parameters ask for: ``record`` (a bag) and ``foxglove_port``.

The launcher starts them once its nodes exist and stops them when it ends. The recording lasts
as long as the process: a reload (new nodes) goes on recording into the same bag, its new
channels joining the outlets as they are made. The Foxglove server serves the nodes of one
session (their parameters and services), the simulator API's node, and the models the API
spawns or deletes while it runs; a reload restarts it with the new nodes.
"""

from __future__ import annotations

from ...errors import ParameterError
from .outlets import OUTLETS
from .recorder import Recorder

__all__ = ['LiveOutlets', 'start_recording', 'stop_recording']


def start_recording(nodes, directory: str, topics=()) -> Recorder:
    """Record what ``nodes`` (and nodes made later) publish into a new bag at ``directory``.

    Raises:
        BagError: the bag's directory cannot be made.
    """
    log = nodes[0].get_logger()
    recorder = Recorder(directory, topics, warn=log.warning)
    OUTLETS.attach(recorder)
    log.info(f'recording into {recorder.bag.directory}')
    return recorder


def stop_recording(recorder: Recorder | None) -> None:
    """Detach a recorder and finish its bag (None: nothing to do)."""
    if recorder is not None:
        OUTLETS.detach(recorder)
        recorder.close()


class LiveOutlets:
    """The recorder and the Foxglove server of a running bridge process."""

    def __init__(self):
        # the bag's recorder, the Foxglove server, the simulator API the server serves
        self.recorder = self.foxglove = self._world = None

    def start(self, nodes: list) -> None:
        """Start what the first node's parameters ask for (a recording only once).

        Raises:
            ParameterError: a ``foxglove_port`` out of range, or a ``record`` directory that
                cannot be made.
            BagError: the bag's directory exists or cannot be created.
        """
        if not nodes:
            return
        params = nodes[0].params
        if params['record'] and self.recorder is None:
            self.recorder = start_recording(nodes, params['record'])
        port = params['foxglove_port']
        if port:
            if not 1 <= port <= 65535:
                raise ParameterError('foxglove_port', f'must be a TCP port (1..65535), not '
                                     f'{port}')
            from .foxglove import FoxgloveServer
            self.foxglove = FoxgloveServer(nodes, port)

    def serve_world(self, world_api) -> None:
        """Have the Foxglove server (if any) serve the simulator API's node and every model
        the API spawns, loads or deletes from now on (None: no API)."""
        if self.foxglove is None or world_api is None:
            return
        self.foxglove.add_node(world_api.node)
        world_api.watchers.append(self.foxglove)
        self._world = world_api

    def stop_server(self) -> None:
        """Stop the Foxglove server (the session's nodes go)."""
        if self.foxglove is not None:
            if self._world is not None and self.foxglove in self._world.watchers:
                self._world.watchers.remove(self.foxglove)
            self._world = None
            self.foxglove.stop()
            self.foxglove = None

    def stop(self) -> None:
        """Stop everything; the bag is finished."""
        self.stop_server()
        stop_recording(self.recorder)
        self.recorder = None
