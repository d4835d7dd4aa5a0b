"""Watching live: a Foxglove WebSocket server as one more outlet of the bridge's messages.

Served with the Foxglove SDK (PyPI ``foxglove-sdk``), on ``127.0.0.1`` by default. Every
channel of the bridge nodes is advertised as its ROS 2 type (schema ``ros2msg``, the complete
definition of :mod:`.msgdefs`; encoding ``cdr``: the bytes DDS carries), so Foxglove decodes
them as it decodes foxglove_bridge's. A client's subscription counts as a subscriber of the
channel (:mod:`.outlets`), so only what a client watches is computed; a latched channel
(``robot_description``, ``/tf_static``) sends its last message to a client that subscribes.

Capabilities:

* Time: the simulated time, with every ``/clock`` message.
* Assets: the mesh files the URDF names (its ``file://`` URIs), and nothing else.
* Parameters: every parameter of the nodes, named ``<node>.<parameter>``
  (``/body_bridge.real_time_factor``), get and set through the node (its checks apply).
* Services: the nodes' own services (``~/reset``, ``~/set_paused``, ``~/step``, ``~/reload``,
  and the simulation API's where present), called with ``cdr`` requests.
* Nodes come and go: a model spawned while the world runs (or a world loaded) is served
  from then on (:meth:`FoxgloveServer.add_node`: its parameters, services and meshes; its
  topics come through the outlets), and a model deleted stops being served
  (:meth:`FoxgloveServer.remove_node`: its services removed, the channels only it had
  closed).
* ClientPublish: a client may publish on the topics the nodes subscribe to (``joint_commands``,
  ``cmd_vel``, ...) with encoding ``cdr``; the message goes to the node over DDS.

Bad client input (a topic the bridge does not subscribe, another encoding, a message that does
not deserialize, a message over :data:`MAX_MESSAGE` bytes) is answered with the protocol's
status message and dropped; the bridge goes on.

The SDK's own log lines (Python logging, logger ``foxglove``) are said by the bridge's logger
(:class:`SdkLog`): a client that went away without closing (the SDK's ``Broken pipe``,
``Connection reset by peer`` for every message it could not send) is one line of ours per
client; its other warnings and errors are prefixed ``Foxglove:``.
"""

from __future__ import annotations

import logging
import re
import threading

import foxglove
from foxglove.websocket import Capability
from rclpy.parameter import Parameter as RosParameter
from rclpy.serialization import deserialize_message, serialize_message

from .cdr import zero_padding
from .msgdefs import DefinitionError, definition, service_definitions
from .outlets import INFRASTRUCTURE as _INFRASTRUCTURE
from .outlets import OUTLETS, type_name

__all__ = ['FoxgloveServer', 'MAX_MESSAGE', 'SdkLog']

#: The largest message a client may publish [bytes].
MAX_MESSAGE = 1 << 20
_MESH = re.compile(r'<mesh\s[^>]*filename="([^"]+)"')


class SdkLog(logging.Handler):
    """The handler of the SDK's logger: its lines said by a bridge logger (``target``).

    A line about a client's connection failing (``... client ADDRESS: IO error: WHY (os error
    N)``, or the connection reset without a closing handshake) is said once per client, at
    info level: ``Foxglove: client ADDRESS went away (WHY)``;
    any other warning or error as ``Foxglove: <its text>``.
    """

    GONE = re.compile(r'client (?P<client>\S+): (?:IO error: (?P<why>.+?)(?: \(os error \d+\))?'
                      r'|WebSocket protocol error: (?P<reset>Connection reset without closing '
                      r'handshake))$')
    #: Clients remembered (each said once); beyond this many the memory starts over.
    REMEMBERED = 1000

    def __init__(self):
        super().__init__(logging.WARNING)
        self.target = None
        self._gone: set[str] = set()

    def install(self, target) -> None:
        """Say the SDK's lines with ``target`` (a logger with ``info`` and ``warning``)."""
        self.target = target
        sdk = logging.getLogger('foxglove')
        if self not in sdk.handlers:
            sdk.addHandler(self)
        sdk.setLevel(logging.WARNING)  # the SDK's info and debug lines are not asked for
        sdk.propagate = False  # nor printed again by a handler of the root logger

    def emit(self, record: logging.LogRecord) -> None:
        target = self.target
        if target is None:
            return
        text = ' '.join(record.getMessage().split())
        gone = self.GONE.search(text)
        if gone is None:
            target.warning(f'Foxglove: {text}')
            return
        client = gone['client']
        if client in self._gone:
            return
        if len(self._gone) >= self.REMEMBERED:
            self._gone.clear()
        self._gone.add(client)
        why = gone['why'] or gone['reset']
        target.info(f'Foxglove: client {client} went away ({why.lower()})')


#: The process's handler of the SDK's log (one logger, one handler).
SDK_LOG = SdkLog()


def _schema(type_name_: str, text: str) -> foxglove.Schema:
    return foxglove.Schema(name=type_name_, encoding='ros2msg', data=text.encode())


class FoxgloveServer:
    """The Foxglove WebSocket server of a running bridge (a sink of :data:`OUTLETS`).

    Args:
        nodes: the bridge nodes (their parameters, services, subscriptions, URDFs).
        port: the TCP port (0: any free one, see :attr:`port`).
        host: the address to listen on.
    """

    def __init__(self, nodes: list, port: int = 8765, host: str = '127.0.0.1'):
        self.nodes = list(nodes)
        self.log = self.nodes[0].get_logger()
        SDK_LOG.install(self.log)  # before the server starts: its lines are ours from then on
        self._lock = threading.Lock()
        self._context = foxglove.Context()
        self._channels: dict[str, foxglove.Channel] = {}   # topic -> SDK channel
        self._watching: dict[str, set] = {}                 # topic -> {(client, channel id)}
        self._client_channels: dict[tuple[int, int], tuple] = {}
        self._publishers: dict[str, object] = {}            # topic -> rclpy publisher
        self._assets = self._meshes()
        served = {id(node): self._services(node) for node in self.nodes}
        self._served = {key: [s.name for s in found] for key, found in served.items()}
        services = [s for found in served.values() for s in found]
        self.server = foxglove.start_server(
            name='body_bridge', host=host, port=port, context=self._context,
            capabilities=[Capability.ClientPublish, Capability.Parameters,
                          Capability.Services, Capability.Time],
            supported_encodings=['cdr'], server_listener=self, services=services,
            asset_handler=self._asset)
        #: The port the server listens on.
        self.port = self.server.port
        OUTLETS.attach(self)
        self.log.info(f'Foxglove WebSocket server on ws://{host}:{self.port} '
                      '(subprotocol foxglove.sdk.v1)')

    def stop(self) -> None:
        OUTLETS.detach(self)
        self.server.stop()

    def _meshes(self) -> set[str]:
        return {uri for node in self.nodes for uri in _MESH.findall(getattr(node, 'urdf', ''))}

    def add_node(self, node) -> None:
        """Serve one more node, made after the server started (a model spawned, the
        simulator API's node): its parameters, its services, the meshes its URDF names."""
        with self._lock:
            if any(known is node for known in self.nodes):
                return
            self.nodes.append(node)
            self._assets = self._meshes()
        services = self._services(node)
        if not services:
            return
        try:
            self.server.add_services(services)
        except Exception as err:  # noqa: BLE001 - the SDK refuses a name already served
            self.log.warning(f'Foxglove: the services of {node.get_fully_qualified_name()} '
                             f'are not served: {err}')
            return
        self._served[id(node)] = [s.name for s in services]

    def remove_node(self, node) -> None:
        """Stop serving a node that is going away: its services, the channels of topics no
        other node publishes, what clients publish through it."""
        with self._lock:
            if not any(known is node for known in self.nodes):
                return
            self.nodes = [known for known in self.nodes if known is not node]
            self._assets = self._meshes()
            others = {c.topic for c in OUTLETS.channels if c.owner is not node}
            gone = [c.topic for c in OUTLETS.channels
                    if c.owner is node and c.topic not in others and c.topic in self._channels]
            closing = [self._channels.pop(topic) for topic in dict.fromkeys(gone)]
            for topic in gone:
                self._watching.pop(topic, None)
            self._publishers = {topic: pub for topic, pub in self._publishers.items()
                                if getattr(pub, 'owner', None) is not node}
        names = self._served.pop(id(node), [])
        if names:
            self.server.remove_services(names)
        for channel in closing:
            channel.close()

    # --- the sink ----------------------------------------------------------------------------

    def wants(self, channel) -> bool:
        return True

    def add_channel(self, channel) -> None:
        if channel.topic in self._channels:
            return
        try:
            schema = _schema(channel.type, definition(channel.type))
        except DefinitionError as err:
            self.log.warning(f'Foxglove: {channel.topic} is not served: {err}')
            return
        self._channels[channel.topic] = foxglove.Channel(
            channel.topic, message_encoding='cdr', schema=schema, context=self._context)

    def subscribers(self, channel) -> int:
        if channel.topic == '/clock':
            return 1  # the server's time comes from it, watched or not
        return len(self._watching.get(channel.topic, ()))

    def write(self, channel, data: bytes, time_ns: int) -> None:
        target = self._channels.get(channel.topic)
        if target is not None:
            target.log(data, log_time=time_ns)
        if channel.topic == '/clock':
            self.server.broadcast_time(time_ns)

    # --- subscriptions -----------------------------------------------------------------------

    def on_subscribe(self, client, channel) -> None:
        with self._lock:
            self._watching.setdefault(channel.topic, set()).add((client.id, channel.id))
        for ours in OUTLETS.channels:
            if ours.topic == channel.topic and ours.last is not None:
                self._channels[channel.topic].log(ours.last[0], log_time=ours.last[1])

    def on_unsubscribe(self, client, channel) -> None:
        with self._lock:
            self._watching.get(channel.topic, set()).discard((client.id, channel.id))

    # --- client publishing ------------------------------------------------------------------

    def _subscribed(self) -> dict[str, tuple]:
        """topic -> (node, message type) of every subscription of the nodes."""
        out = {}
        for node in self.nodes:
            for sub in node.subscriptions:
                if sub.msg_type.__module__.split('.')[0] not in _INFRASTRUCTURE:
                    out.setdefault(sub.topic_name, (node, sub.msg_type))
        return out

    def _refuse(self, text: str) -> None:
        self.server.publish_status(text, foxglove.StatusLevel.Error)
        self.log.warning(f'Foxglove: {text}')

    def on_client_advertise(self, client, channel) -> None:
        topics = self._subscribed()
        topic = channel.topic if channel.topic.startswith('/') else '/' + channel.topic
        if topic not in topics:
            self._refuse(f'{channel.topic}: the bridge does not subscribe to this topic '
                         f'(it does to {", ".join(sorted(topics))})')
            return
        if channel.encoding != 'cdr':
            self._refuse(f'{channel.topic}: encoding {channel.encoding!r} is not accepted '
                         '(cdr only)')
            return
        node, msg_type = topics[topic]
        if channel.schema_name and channel.schema_name.replace('/msg/', '/') != \
                type_name(msg_type).replace('/msg/', '/'):
            self._refuse(f'{channel.topic}: type {channel.schema_name} is not '
                         f'{type_name(msg_type)}')
            return
        with self._lock:
            if topic not in self._publishers:
                from . import qos
                self._publishers[topic] = node.create_publisher(msg_type, topic, qos.COMMANDS)
            self._client_channels[(client.id, channel.id)] = (topic, msg_type)

    def on_client_unadvertise(self, client, client_channel_id: int) -> None:
        with self._lock:
            self._client_channels.pop((client.id, client_channel_id), None)

    def on_message_data(self, client, client_channel_id: int, data: bytes) -> None:
        entry = self._client_channels.get((client.id, client_channel_id))
        if entry is None:
            self._refuse(f'client channel {client_channel_id} was not advertised (or was '
                         'refused)')
            return
        topic, msg_type = entry
        if len(data) > MAX_MESSAGE:
            self._refuse(f'{topic}: rejected: a message of {len(data)} bytes (at most '
                         f'{MAX_MESSAGE})')
            return
        try:
            msg = deserialize_message(bytes(data), msg_type)
        except Exception as err:  # noqa: BLE001 - the middleware's error for bad bytes
            self._refuse(f'{topic}: rejected: not a {type_name(msg_type)} in cdr '
                         f'({type(err).__name__})')
            return
        publisher = self._publishers.get(topic)
        if publisher is None:
            self._refuse(f'{topic}: the bridge no longer subscribes to this topic (its model '
                         'was deleted)')
            return
        publisher.publish(msg)

    # --- parameters --------------------------------------------------------------------------

    def _node_of(self, name: str):
        for node in self.nodes:
            prefix = node.get_fully_qualified_name() + '.'
            if name.startswith(prefix):
                return node, name[len(prefix):]
        return None, name

    def on_get_parameters(self, client, param_names: list[str], request_id=None) -> list:
        out = []
        for node in self.nodes:
            fqn = node.get_fully_qualified_name()
            for name, param in sorted(node.get_parameters_by_prefix('').items()):
                full = f'{fqn}.{name}'
                if param_names and full not in param_names:
                    continue
                value = param.value
                if value is None or isinstance(value, (bytes, bytearray)):
                    continue
                out.append(foxglove.Parameter(full, value=_native(value)))
        return out

    def on_set_parameters(self, client, parameters: list, request_id=None) -> list:
        for given in parameters:
            node, name = self._node_of(given.name)
            if node is None or not node.has_parameter(name):
                self._refuse(f'parameter {given.name}: no such parameter')
                continue
            value = _native(given.get_value())
            current = node.get_parameter(name).value
            if isinstance(current, float) and isinstance(value, int) \
                    and not isinstance(value, bool):
                value = float(value)
            try:
                result = node.set_parameters([RosParameter(name, value=value)])[0]
            except Exception as err:  # noqa: BLE001 - rclpy's type errors for the value
                self._refuse(f'parameter {given.name}: rejected: {err}')
                continue
            if not result.successful:
                self._refuse(f'parameter {given.name}: rejected: {result.reason}')
        names = [p.name for p in parameters]
        return self.on_get_parameters(client, names)

    # --- services ----------------------------------------------------------------------------

    def _services(self, node) -> list:
        out = []
        for service in node.services:
            srv_type = service.srv_type
            package = srv_type.__module__.split('.')[0]
            if package in _INFRASTRUCTURE:
                continue
            name = f'{package}/srv/{srv_type.__name__}'
            try:
                request, response = service_definitions(name)
            except DefinitionError as err:
                self.log.warning(f'Foxglove: service {service.srv_name} is not served: {err}')
                continue
            schema = foxglove.ServiceSchema(
                name, request=foxglove.MessageSchema(
                    encoding='cdr', schema=_schema(f'{name}_Request', request)),
                response=foxglove.MessageSchema(
                    encoding='cdr', schema=_schema(f'{name}_Response', response)))
            full = node.resolve_service_name(service.srv_name)  # '~/step', 'spawn_entity'
            out.append(foxglove.Service(full, schema=schema, handler=_handler(service)))
        return out

    # --- assets ------------------------------------------------------------------------------

    def _asset(self, uri: str) -> bytes | None:
        """A mesh file the URDF names (None: not one of them, or unreadable)."""
        if uri not in self._assets or not uri.startswith('file://'):
            return None
        try:
            with open(uri[len('file://'):], 'rb') as f:
                return f.read()
        except OSError:
            return None


def _native(value):
    """A parameter value as a plain Python value (lists for arrays)."""
    if isinstance(value, (list, tuple)) or hasattr(value, 'tolist'):
        return [_native(v) for v in value]
    return value


def _handler(service):
    """A Foxglove service handler calling the node's own callback for ``service``."""
    def handle(request) -> bytes:
        message = deserialize_message(bytes(request.payload), service.srv_type.Request)
        response = service.callback(message, service.srv_type.Response())
        return zero_padding(serialize_message(response), type(response))
    return handle
