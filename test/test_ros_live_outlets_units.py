"""The outlets a running bridge's parameters ask for (ros/live_outlets.py), in this process: a
recording into a bag made in the test, the Foxglove server replaced by a stand-in that records
how it is started and stopped (its own logic is in test_foxglove_logic.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.errors import ParameterError
from body_bridge.ros import foxglove
from body_bridge.ros.live_outlets import LiveOutlets, start_recording, stop_recording
from body_bridge.ros.outlets import OUTLETS


class Log:
    def __init__(self):
        self.infos, self.warnings = [], []

    def info(self, text):
        self.infos.append(text)

    def warning(self, text):
        self.warnings.append(text)


def _node(**params):
    log = Log()
    return SimpleNamespace(params={'record': '', 'foxglove_port': 0, **params},
                           get_logger=lambda: log, log=log)


class Server:
    made = []

    def __init__(self, nodes, port):
        self.nodes, self.port, self.stopped = nodes, port, 0
        Server.made.append(self)

    def stop(self):
        self.stopped += 1


@pytest.fixture
def server(monkeypatch):
    Server.made = []
    monkeypatch.setattr(foxglove, 'FoxgloveServer', Server)
    return Server


def test_a_recording_is_an_outlet_until_stopped(tmp_path):
    node = _node()
    recorder = start_recording([node], str(tmp_path / 'bag'), ['/camera/*'])
    try:
        assert recorder in OUTLETS.sinks and recorder.patterns == ['/camera/*']
        assert node.log.infos == [f'recording into {recorder.bag.directory}']
        assert recorder.warn == node.log.warning
    finally:
        stop_recording(recorder)
    assert recorder not in OUTLETS.sinks and not recorder._running
    assert (tmp_path / 'bag' / 'metadata.yaml').is_file()
    stop_recording(None)  # nothing to stop


def test_the_outlets_the_first_node_asks_for(tmp_path, server):
    first, second = _node(record=str(tmp_path / 'bag'), foxglove_port=8765), _node()
    outlets = LiveOutlets()
    outlets.start([first, second])
    try:
        recorder = outlets.recorder
        assert recorder in OUTLETS.sinks and first.log.infos
        (made,) = server.made
        assert (made.nodes, made.port) == ([first, second], 8765) and outlets.foxglove is made
        outlets.stop_server()  # a reload: the server goes with the nodes, the bag stays
        assert made.stopped == 1 and outlets.foxglove is None and outlets.recorder is recorder
        outlets.stop_server()
        assert made.stopped == 1
        outlets.start([first])  # the new nodes: a new server, the same recording
        assert outlets.recorder is recorder and len(server.made) == 2
    finally:
        outlets.stop()
    assert server.made[1].stopped == 1 and outlets.recorder is None
    assert recorder not in OUTLETS.sinks and not recorder._running


def test_nothing_asked_nothing_started(server):
    outlets = LiveOutlets()
    outlets.start([])
    outlets.start([_node()])
    assert (outlets.recorder, outlets.foxglove, server.made) == (None, None, [])
    outlets.stop()


@pytest.mark.parametrize('port', [-1, 65536, 70000])
def test_a_port_out_of_range_is_one_line(server, port):
    with pytest.raises(ParameterError) as err:
        LiveOutlets().start([_node(foxglove_port=port)])
    assert str(err.value) == f'parameter foxglove_port: must be a TCP port (1..65535), not {port}'
    assert server.made == []


@pytest.mark.parametrize('port', [1, 65535])
def test_the_ports_at_the_ends_of_the_range(server, port):
    outlets = LiveOutlets()
    outlets.start([_node(foxglove_port=port)])
    assert server.made[0].port == port
