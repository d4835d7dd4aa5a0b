"""The Foxglove server's logic in one process: what it serves, counts, sends, refuses.

The server is the SDK's (started on a free port, no client connects); the callbacks a client
would trigger are called directly with the client's and channel's attributes, and what the
server would send (a channel's messages, the time, status messages) is watched by recording
stand-ins put where the SDK's objects were. ``test/test_foxglove.py`` drives the same server
from another process with Foxglove's own client.
"""

from __future__ import annotations

import types

import pytest

pytestmark = pytest.mark.ros
pytest.importorskip('foxglove', reason='foxglove-sdk (tools/requirements.txt) is missing')

import foxglove  # noqa: E402
from ros_standins import Log  # noqa: E402


class Sent:
    """Stands in for an SDK channel or the server: records what would go to clients."""

    def __init__(self, server=None):
        self.logged, self.times, self.status = [], [], []
        self._server = server

    def log(self, data, log_time):
        self.logged.append((bytes(data), log_time))

    def broadcast_time(self, time_ns):
        self.times.append(time_ns)

    def publish_status(self, text, level):
        self.status.append((text, level))

    def stop(self):
        self.stopped = True
        self._server.stop()

    def add_services(self, services):
        self.status.append(('add', sorted(s.name for s in services)))

    def remove_services(self, names):
        self.status.append(('remove', sorted(names)))


URDF = ('<robot name="r"><link name="a"><visual><geometry>'
        '<mesh filename="file://{mesh}" scale="1 1 1"/></geometry></visual>'
        '<collision><geometry><mesh  filename="package://r/m.stl"/></geometry></collision>'
        '</link></robot>')


@pytest.fixture
def ros():
    import rclpy
    context = rclpy.Context()
    rclpy.init(context=context)
    yield context
    rclpy.shutdown(context=context)


@pytest.fixture
def node(ros, tmp_path):
    from rcl_interfaces.msg import ParameterEvent, SetParametersResult
    from rclpy.node import Node
    from sensor_msgs.msg import JointState
    from std_srvs.srv import SetBool
    node = Node('fox', context=ros)
    (tmp_path / 'mesh.stl').write_bytes(b'solid m\nendsolid m\n')
    node.urdf = URDF.format(mesh=tmp_path / 'mesh.stl')
    node.heard = []
    node.create_subscription(JointState, 'joint_commands', node.heard.append, 10)
    node.create_subscription(ParameterEvent, '/parameter_events', node.heard.append, 10)

    def switch(request, response):
        response.success = request.data
        response.message = 'on' if request.data else 'off'
        return response
    node.create_service(SetBool, '~/switch', switch)
    node.declare_parameter('rate', 1.5)
    node.declare_parameter('count', 3)
    node.declare_parameter('names', ['a', 'b'])
    node.declare_parameter('gains', [1.0, 2.5])
    node.declare_parameter('flag', True)

    def check(parameters):
        for p in parameters:
            if p.name == 'rate' and p.value > 100:
                return SetParametersResult(successful=False, reason='rate too high')
        return SetParametersResult(successful=True)
    node.add_on_set_parameters_callback(check)
    yield node
    node.destroy_node()


@pytest.fixture
def server(node):
    from body_bridge.ros.stream.foxglove import FoxgloveServer
    from body_bridge.ros.stream.outlets import OUTLETS
    log = Log()
    node.get_logger = lambda: log
    fox = FoxgloveServer([node], port=0)
    assert fox in OUTLETS.sinks and fox.port > 0
    from body_bridge.ros.stream.foxglove import SDK_LOG
    assert SDK_LOG.target is log  # the SDK's own lines are said by the bridge's logger
    assert any('ws://127.0.0.1:' + str(fox.port) in text for _, text in log.lines)
    fox.sent = fox.server = Sent(fox.server)
    fox.log_lines = log.lines
    yield fox
    fox.stop()
    assert fox not in OUTLETS.sinks and fox.sent.stopped


def channel(topic, type_='sensor_msgs/msg/JointState'):
    return types.SimpleNamespace(topic=topic, type=type_)


def test_channels_are_advertised_with_their_complete_definition(server):
    server.add_channel(channel('/joint_states'))
    served = server._channels['/joint_states']
    assert served.topic() == '/joint_states' and served.message_encoding == 'cdr'
    schema = served.schema()
    assert (schema.name, schema.encoding) == ('sensor_msgs/msg/JointState', 'ros2msg')
    assert schema.data.startswith(b'# This is a message') or b'string[] name' in schema.data
    assert b'\nMSG: std_msgs/Header\n' in schema.data
    server.add_channel(channel('/joint_states'))  # told again: the same channel
    assert server._channels['/joint_states'] is served
    server.add_channel(channel('/odd', 'nope_msgs/msg/X'))
    assert '/odd' not in server._channels
    assert server.log_lines[-1][0] == 'warning'
    assert server.log_lines[-1][1].startswith('Foxglove: /odd is not served: nope_msgs/msg/X')
    assert server.wants(channel('/anything'))


def test_a_subscription_counts_and_gets_the_latched_message(server, monkeypatch):
    from body_bridge.ros.stream.outlets import OUTLETS
    latched, other = Sent(), Sent()
    server._channels.update({'/robot_description': latched, '/joint_states': other})
    monkeypatch.setattr(OUTLETS, 'channels', [
        types.SimpleNamespace(topic='/joint_states', last=None),
        types.SimpleNamespace(topic='/robot_description', last=(b'<robot/>', 7))])
    description = channel('/robot_description')
    assert server.subscribers(description) == 0
    assert server.subscribers(channel('/clock')) == 1  # the server's time: always
    client1, client2 = types.SimpleNamespace(id=1), types.SimpleNamespace(id=2)
    server.on_subscribe(client1, types.SimpleNamespace(topic='/robot_description', id=4))
    assert latched.logged == [(b'<robot/>', 7)] and other.logged == []
    assert server.subscribers(description) == 1
    server.on_subscribe(client2, types.SimpleNamespace(topic='/robot_description', id=4))
    server.on_subscribe(client2, types.SimpleNamespace(topic='/robot_description', id=4))
    assert server.subscribers(description) == 2 and len(latched.logged) == 3
    server.on_subscribe(client2, types.SimpleNamespace(topic='/joint_states', id=5))
    assert other.logged == [] and server.subscribers(channel('/joint_states')) == 1
    server.on_unsubscribe(client1, types.SimpleNamespace(topic='/robot_description', id=4))
    assert server.subscribers(description) == 1
    server.on_unsubscribe(client1, types.SimpleNamespace(topic='/nothing', id=9))
    assert server.subscribers(channel('/nothing')) == 0


def test_messages_go_to_their_channel_and_clock_sets_the_time(server):
    js = Sent()
    server._channels['/joint_states'] = js
    server._channels['/clock'] = clock = Sent()
    server.write(channel('/joint_states'), b'abc', 5_000)
    assert js.logged == [(b'abc', 5_000)] and server.sent.times == []
    server.write(channel('/clock'), b'tick', 7_000)
    assert clock.logged == [(b'tick', 7_000)] and server.sent.times == [7_000]
    server.write(channel('/not_served'), b'x', 1)  # a channel not advertised: nothing
    assert server.sent.times == [7_000] and len(js.logged) == 1


def advertise(server, topic, encoding='cdr', schema='sensor_msgs/msg/JointState', client=1,
              ident=3):
    server.on_client_advertise(types.SimpleNamespace(id=client),
                               types.SimpleNamespace(topic=topic, encoding=encoding,
                                                     schema_name=schema, id=ident))


def test_a_client_publishes_only_where_the_bridge_listens(server):
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState
    advertise(server, '/cmd_vel', ident=11)
    text = server.sent.status[-1][0]
    assert text == ('/cmd_vel: the bridge does not subscribe to this topic (it does to '
                    '/joint_commands)')
    assert server.sent.status[-1][1] == foxglove.StatusLevel.Error
    assert server.log_lines[-1] == ('warning', 'Foxglove: ' + text)
    advertise(server, '/parameter_events', schema='rcl_interfaces/msg/ParameterEvent')
    assert server.sent.status[-1][0].startswith('/parameter_events: the bridge does not')
    advertise(server, '/joint_commands', encoding='json', ident=12)
    assert server.sent.status[-1][0] == ("/joint_commands: encoding 'json' is not accepted "
                                         '(cdr only)')
    advertise(server, '/joint_commands', schema='sensor_msgs/msg/Imu', ident=13)
    assert server.sent.status[-1][0] == ('/joint_commands: type sensor_msgs/msg/Imu is not '
                                         'sensor_msgs/msg/JointState')
    for ident in (11, 12, 13):  # refused channels take no messages
        server.on_message_data(types.SimpleNamespace(id=1), ident, b'\x00\x01\x00\x00')
        assert server.sent.status[-1][0] == (f'client channel {ident} was not advertised (or '
                                             'was refused)')
    assert '/joint_commands' not in server._publishers
    refused = len(server.sent.status)
    advertise(server, 'joint_commands', schema='sensor_msgs/JointState')  # ROS 1 style, relative
    advertise(server, '/joint_commands', schema='', client=2, ident=3)  # no schema named
    assert len(server.sent.status) == refused
    publisher = server._publishers['/joint_commands']
    assert publisher.topic_name == '/joint_commands'
    assert set(server._client_channels) == {(1, 3), (2, 3)}
    sent = []
    server._publishers['/joint_commands'] = types.SimpleNamespace(publish=sent.append)
    advertise(server, '/joint_commands', client=1, ident=8)  # a publisher exists: kept
    assert server._publishers['/joint_commands'].publish == sent.append
    message = JointState(name=['a'], effort=[1.5])
    server.on_message_data(types.SimpleNamespace(id=1), 3, serialize_message(message))
    assert sent == [message] and len(server.sent.status) == refused
    server.on_message_data(types.SimpleNamespace(id=2), 3, b'\x00\x01\x00\x00\xff')
    assert server.sent.status[-1][0].startswith(
        '/joint_commands: rejected: not a sensor_msgs/msg/JointState in cdr (')
    from body_bridge.ros.stream.foxglove import MAX_MESSAGE
    big = serialize_message(JointState(name=['x' * (MAX_MESSAGE - 100)]))
    assert len(big) <= MAX_MESSAGE
    server.on_message_data(types.SimpleNamespace(id=1), 3, big)
    assert len(sent) == 2
    too_big = serialize_message(JointState(name=['x' * MAX_MESSAGE]))
    server.on_message_data(types.SimpleNamespace(id=1), 3, too_big)
    assert server.sent.status[-1][0] == (f'/joint_commands: rejected: a message of '
                                         f'{len(too_big)} bytes (at most {MAX_MESSAGE})')
    assert len(sent) == 2
    server.on_client_unadvertise(types.SimpleNamespace(id=1), 3)
    server.on_client_unadvertise(types.SimpleNamespace(id=1), 99)  # unknown: nothing
    server.on_message_data(types.SimpleNamespace(id=1), 3, serialize_message(message))
    assert server.sent.status[-1][0] == 'client channel 3 was not advertised (or was refused)'
    assert len(sent) == 2 and (2, 3) in server._client_channels


def test_parameters_are_named_by_node_and_set_through_its_checks(server, node):
    got = {p.name: p.get_value() for p in server.on_get_parameters(None, [])}
    assert got['/fox.rate'] == 1.5 and got['/fox.count'] == 3 and got['/fox.flag'] is True
    assert got['/fox.names'] == ['a', 'b'] and got['/fox.gains'] == [1.0, 2.5]
    assert type(got['/fox.gains']) is list
    assert '/fox.use_sim_time' in got and all(name.startswith('/fox.') for name in got)
    assert [p.name for p in server.on_get_parameters(None, ['/fox.count', '/x.rate'])] == \
        ['/fox.count']
    result = server.on_set_parameters(None, [foxglove.Parameter('/fox.rate', value=4)])
    assert node.get_parameter('rate').value == 4.0
    assert isinstance(node.get_parameter('rate').value, float)
    assert [(p.name, p.get_value()) for p in result] == [('/fox.rate', 4.0)]
    assert server.sent.status == []
    server.on_set_parameters(None, [foxglove.Parameter('/fox.count', value=5)])
    assert node.get_parameter('count').value == 5
    server.on_set_parameters(None, [foxglove.Parameter('/fox.flag', value=False)])
    assert node.get_parameter('flag').value is False
    server.on_set_parameters(None, [foxglove.Parameter('/fox.gains', value=[3.0, 4.0])])
    assert list(node.get_parameter('gains').value) == [3.0, 4.0]
    server.on_set_parameters(None, [foxglove.Parameter('/fox.rate', value=500.0)])
    assert server.sent.status[-1][0] == 'parameter /fox.rate: rejected: rate too high'
    server.on_set_parameters(None, [foxglove.Parameter('/fox.count', value='many')])
    assert server.sent.status[-1][0].startswith('parameter /fox.count: rejected: ')
    server.on_set_parameters(None, [foxglove.Parameter('/fox.nope', value=1.0),
                                    foxglove.Parameter('/other.rate', value=1.0)])
    assert [s[0] for s in server.sent.status[-2:]] == ['parameter /fox.nope: no such parameter',
                                                        'parameter /other.rate: no such parameter']
    assert node.get_parameter('rate').value == 4.0 and node.get_parameter('count').value == 5


def test_the_nodes_services_are_served_and_answered_by_their_callbacks(server, node,
                                                                      monkeypatch):
    from rclpy.serialization import deserialize_message, serialize_message
    from std_srvs.srv import SetBool
    services = server._services(node)
    assert [s.name for s in services] == ['/fox/switch']  # the parameter services are ROS's
    schema = services[0].schema
    assert schema.name == 'std_srvs/srv/SetBool'
    assert (schema.request.encoding, schema.request.schema.name) == \
        ('cdr', 'std_srvs/srv/SetBool_Request')
    assert schema.request.schema.data.split(b'#')[0].split() == [b'bool', b'data']
    assert schema.response.schema.name == 'std_srvs/srv/SetBool_Response'
    assert b'string message' in schema.response.schema.data
    answer = services[0].handler(types.SimpleNamespace(
        payload=serialize_message(SetBool.Request(data=True))))
    response = deserialize_message(answer, SetBool.Response)
    assert response.success is True and response.message == 'on'
    from body_bridge.ros.stream import foxglove as module
    from body_bridge.ros.stream.msgdefs import DefinitionError

    def missing(name):
        raise DefinitionError(f'{name}: not installed')
    monkeypatch.setattr(module, 'service_definitions', missing)
    assert server._services(node) == []
    assert server.log_lines[-1] == ('warning', 'Foxglove: service ~/switch is not served: '
                                               'std_srvs/srv/SetBool: not installed')


def test_only_the_meshes_the_urdf_names_are_served(server, tmp_path):
    mesh = f'file://{tmp_path / "mesh.stl"}'
    assert server._assets == {mesh, 'package://r/m.stl'}
    assert server._asset(mesh) == b'solid m\nendsolid m\n'
    assert server._asset('package://r/m.stl') is None  # named, but not a file URI
    assert server._asset(f'file://{tmp_path / "other.stl"}') is None
    (tmp_path / 'mesh.stl').unlink()
    assert server._asset(mesh) is None  # named but gone: nothing, no error


def test_parameter_values_become_plain_lists():
    import array

    from body_bridge.ros.stream.foxglove import _native
    assert _native(array.array('d', [1.0, 2.0])) == [1.0, 2.0]
    assert type(_native(array.array('q', [1]))) is list
    assert _native((1, [2, 3])) == [1, [2, 3]]
    assert _native('text') == 'text' and _native(2.5) == 2.5


def test_nodes_made_and_deleted_while_it_runs_are_served_then_dropped(server, node, ros,
                                                                       tmp_path):
    """A model spawned later: its parameters, services, meshes and client publishing are
    served; deleted: its services are removed and the channels only it had are closed,
    those another node shares stay."""
    from rclpy.node import Node
    from rclpy.qos import QoSProfile
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String
    from std_srvs.srv import Trigger

    from body_bridge.ros.stream.outlets import OUTLETS
    other = Node('fox2', context=ros)
    try:
        (tmp_path / 'arm.stl').write_bytes(b'solid arm\nendsolid arm\n')
        other.urdf = URDF.format(mesh=tmp_path / 'arm.stl')
        other.declare_parameter('gain', 2.0)
        other.create_service(Trigger, '~/poke', lambda request, response: response)
        other.create_subscription(JointState, 'commands2', lambda m: None, 10)
        mine = OUTLETS.channel(other.create_publisher(String, "only_mine", 1), QoSProfile(depth=1),
                               lambda: 0.0, other)
        shared = [OUTLETS.channel(n.create_publisher(String, '/both', 1), QoSProfile(depth=1),
                                  lambda: 0.0, n) for n in (node, other)]
        assert {'/only_mine', '/both'} <= set(server._channels)
        mesh = f'file://{tmp_path / "arm.stl"}'
        assert server._asset(mesh) is None  # not served before the node is
        server.remove_node(other)  # not served yet: nothing of its is touched
        assert '/only_mine' in server._channels and server.sent.status == []
        server.add_node(other)
        server.add_node(other)  # told twice: served once
        assert [s for s in server.sent.status if s[0] == 'add'] == [('add', ['/fox2/poke'])]
        assert server._asset(mesh) == b'solid arm\nendsolid arm\n'
        got = {p.name: p.get_value() for p in server.on_get_parameters(None, [])}
        assert got['/fox2.gain'] == 2.0 and got['/fox.rate'] == 1.5
        server.on_set_parameters(None, [foxglove.Parameter('/fox2.gain', value=3.0)])
        assert other.get_parameter('gain').value == 3.0
        advertise(server, '/commands2', client=4, ident=1)
        assert server._publishers['/commands2'].topic_name == '/commands2'
        server._publishers['/commands2'].owner = other  # as a bridge node's channel is
        closed = []
        server._channels['/only_mine'] = types.SimpleNamespace(
            close=lambda: closed.append('/only_mine'))
        server.on_subscribe(types.SimpleNamespace(id=4), types.SimpleNamespace(
            topic='/only_mine', id=6))
        assert server.subscribers(channel('/only_mine')) == 1
        server.remove_node(other)
        server.remove_node(other)  # told twice: removed once
        assert [s for s in server.sent.status if s[0] == 'remove'] == \
            [('remove', ['/fox2/poke'])]
        assert closed == ['/only_mine'] and '/only_mine' not in server._channels
        assert server.subscribers(channel('/only_mine')) == 0  # a model of that name later
        assert '/both' in server._channels  # the first node still publishes it
        assert server._asset(mesh) is None
        assert not any(p.name.startswith('/fox2.')
                       for p in server.on_get_parameters(None, []))
        server.on_message_data(types.SimpleNamespace(id=4), 1,
                               serialize_message(JointState(name=['a'])))
        assert server.sent.status[-1][0] == ('/commands2: the bridge no longer subscribes to '
                                             'this topic (its model was deleted)')
        advertise(server, '/commands2', client=4, ident=2)
        assert server.sent.status[-1][0].startswith('/commands2: the bridge does not subscribe')
    finally:
        for owner in (node, other):
            OUTLETS.forget(owner)
        other.destroy_node()
    assert mine.owner is other and len(shared) == 2


def test_a_node_whose_services_the_sdk_refuses_is_served_without_them(server, ros):
    from rclpy.node import Node
    from std_srvs.srv import Trigger
    other = Node('fox3', context=ros)
    try:
        other.create_service(Trigger, '~/poke', lambda request, response: response)

        def refuse(services):
            raise RuntimeError('service name is not unique')
        server.server.add_services = refuse
        server.add_node(other)
        assert server.log_lines[-1] == ('warning', 'Foxglove: the services of /fox3 are not '
                                                   'served: service name is not unique')
        assert any(n is other for n in server.nodes)
        server.remove_node(other)  # nothing of its was served: nothing to remove
        assert not [s for s in server.sent.status if s[0] == 'remove']
        quiet = Node('fox4', context=ros)  # no services: none added
        try:
            del server.sent.add_services  # the recording stand-in's own again
            server.add_node(quiet)
            assert any(n is quiet for n in server.nodes)
            assert not [s for s in server.sent.status if s[0] == 'add']
        finally:
            quiet.destroy_node()
    finally:
        other.destroy_node()


def test_the_live_outlets_serve_the_simulator_api_and_its_models(server, ros):
    from rclpy.node import Node
    from body_bridge.ros.stream.live_outlets import LiveOutlets
    from body_bridge.ros.stream.outlets import OUTLETS
    api = types.SimpleNamespace(node=Node('sim', context=ros), watchers=[])
    try:
        outlets = LiveOutlets()
        outlets.serve_world(api)  # no server: nothing to serve
        assert api.watchers == []
        outlets.foxglove = server
        outlets.serve_world(None)  # no simulator API
        outlets.serve_world(api)
        assert api.watchers == [server] and any(n is api.node for n in server.nodes)
        outlets.stop_server()
        assert api.watchers == [] and outlets.foxglove is None
        assert server.sent.stopped and server not in OUTLETS.sinks
    finally:
        api.node.destroy_node()
