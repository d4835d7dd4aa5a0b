"""The outlets a running bridge's parameters ask for (``record``, ``foxglove_port``), started and
stopped as the launcher does, with the recorder and the Foxglove server stood in for."""

import types

import pytest

from conftest import ROS_MISSING

pytestmark = pytest.mark.ros
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.errors import ParameterError  # noqa: E402
from body_bridge.ros.stream import live_outlets  # noqa: E402
from body_bridge.ros.stream.live_outlets import LiveOutlets  # noqa: E402


class Log:
    def __init__(self):
        self.lines = []

    def info(self, text):
        self.lines.append(text)

    warning = info


def bridge_node(record='', port=0):
    log = Log()
    return types.SimpleNamespace(params={'record': record, 'foxglove_port': port},
                                 get_logger=lambda: log, log=log)


class Server:
    """Stands in for the Foxglove server."""

    made = []

    def __init__(self, nodes, port):
        self.nodes, self.port, self.stopped, self.added = list(nodes), port, False, []
        Server.made.append(self)

    def stop(self):
        self.stopped = True

    def add_node(self, node):
        self.added.append(node)


class Recorder:
    """Stands in for the recorder: the outlets' sink that writes the bag."""

    def __init__(self, directory, topics, warn):
        self.directory, self.topics, self.warn = directory, topics, warn
        self.bag = types.SimpleNamespace(directory=directory)
        self.closed = False

    def close(self):
        self.closed = True


@pytest.fixture
def stand_ins(monkeypatch):
    from body_bridge.ros.stream import foxglove
    from body_bridge.ros.stream.outlets import OUTLETS
    Server.made = []
    monkeypatch.setattr(foxglove, 'FoxgloveServer', Server)
    monkeypatch.setattr(live_outlets, 'Recorder', Recorder)
    yield OUTLETS
    for sink in list(OUTLETS.sinks):
        if isinstance(sink, Recorder):
            OUTLETS.detach(sink)


def test_nothing_asked_nothing_started(stand_ins):
    outlets = LiveOutlets()
    outlets.start([])
    outlets.start([bridge_node()])
    assert outlets.recorder is None and outlets.foxglove is None and Server.made == []
    outlets.stop()  # nothing to stop


def test_a_recording_starts_once_and_lasts_until_the_end(stand_ins, tmp_path):
    outlets = LiveOutlets()
    first = bridge_node(record=str(tmp_path / 'bag'))
    outlets.start([first])
    recorder = outlets.recorder
    assert isinstance(recorder, Recorder) and recorder.directory == str(tmp_path / 'bag')
    assert recorder in stand_ins.sinks
    assert first.log.lines == [f'recording into {tmp_path / "bag"}']
    recorder.warn('a warning')
    assert first.log.lines[-1] == 'a warning'
    outlets.start([bridge_node(record=str(tmp_path / 'other'))])  # a reload: the same bag
    assert outlets.recorder is recorder
    outlets.stop_server()  # the session's nodes go; the recording goes on
    assert outlets.recorder is recorder and not recorder.closed
    outlets.stop()
    assert recorder.closed and outlets.recorder is None and recorder not in stand_ins.sinks


def test_the_foxglove_server_serves_each_session_s_nodes(stand_ins):
    outlets = LiveOutlets()
    nodes = [bridge_node(port=8765), bridge_node()]
    outlets.start(nodes)
    (server,) = Server.made
    assert outlets.foxglove is server and server.nodes == nodes and server.port == 8765
    outlets.stop_server()
    assert server.stopped and outlets.foxglove is None
    outlets.start([bridge_node(port=8765)])  # after a reload: a new server
    assert len(Server.made) == 2 and outlets.foxglove is Server.made[1]
    outlets.stop()
    assert Server.made[1].stopped and outlets.foxglove is None


@pytest.mark.parametrize('port', [-1, 65536, 100000])
def test_a_port_out_of_range_is_one_line(stand_ins, port):
    with pytest.raises(ParameterError) as err:
        LiveOutlets().start([bridge_node(port=port)])
    assert str(err.value) == (f'parameter foxglove_port: must be a TCP port (1..65535), not '
                              f'{port}')
    assert Server.made == []


@pytest.mark.parametrize('port', [1, 65535])
def test_the_ends_of_the_port_range_are_served(stand_ins, port):
    outlets = LiveOutlets()
    outlets.start([bridge_node(port=port)])
    assert outlets.foxglove.port == port
    outlets.stop()


def test_the_simulator_api_and_its_models_are_served_until_the_server_stops(stand_ins):
    outlets = LiveOutlets()
    api = types.SimpleNamespace(node=object(), watchers=[])
    outlets.serve_world(api)  # no server: nothing to serve
    assert api.watchers == []
    outlets.start([bridge_node(port=8765)])
    server = outlets.foxglove
    outlets.serve_world(None)  # no simulator API
    outlets.serve_world(api)
    assert server.added == [api.node] and api.watchers == [server]
    other = object()
    api.watchers.append(other)
    outlets.stop_server()
    assert api.watchers == [other] and server.stopped
    outlets.start([bridge_node(port=8765)])  # a new session, its world not served yet
    outlets.stop_server()
    assert api.watchers == [other]
    outlets.start([bridge_node(port=8765)])
    later = outlets.foxglove
    api.watchers.remove(other)
    outlets.serve_world(api)
    api.watchers.clear()  # the world went first
    outlets.stop_server()
    assert later.stopped and api.watchers == []
