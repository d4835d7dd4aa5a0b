"""What the bridge tells its user while it runs.

On start, each node logs a table of what it publishes, subscribes and serves (topic, type,
rate, QoS), and the simulator API's node the services and action it serves; then the world
logs one status line every :data:`STATUS_PERIOD` seconds of wall time: simulated time, the
real-time factor measured over the last interval (simulated time stepped per wall-clock
second: resets do not count), commands received per second and warnings raised while running.
Both are INFO messages of the node's logger, so ``--ros-args --log-level warn`` (or ``python
-m body_bridge sim --quiet``) leaves only warnings and errors. A model's load warnings are said
once among the nodes alive (:func:`say_warnings`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from rclpy.action import ActionServer
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy

__all__ = ['Row', 'interface_rows', 'format_table', 'StatusReporter', 'announce',
           'count_command', 'action_server', 'STATUS_PERIOD', 'say_warnings', 'forget_warnings']

#: Seconds of wall time between two status lines.
STATUS_PERIOD = 5.0
#: Interface packages of ROS's own services and topics, left out of the table.
_INFRASTRUCTURE = ('rcl_interfaces', 'type_description_interfaces')
_LATCHED = ('robot_description', '/tf_static')
_PER_PERIOD = ('/tf', 'joint_states', '/clock')
#: The end of the name of an action server's goal service.
_SEND_GOAL = '/_action/send_goal'


#: Model warnings said by a node still alive: line -> (the node's id, its name).
_SAID: dict[str, tuple[int, str]] = {}


def say_warnings(node, lines) -> None:
    """Log a model's load warnings as ``node``'s, each once among the nodes alive: a world
    of two copies of one file (or a file two models include) says its warnings once, and the
    later node one line saying whose they are."""
    name = node.get_fully_qualified_name()
    repeated: dict[str, int] = {}
    for line in lines:
        said = _SAID.get(line)
        if said is None:
            _SAID[line] = (id(node), name)
            node.get_logger().warning(line)
        elif said[0] != id(node):
            repeated[said[1]] = repeated.get(said[1], 0) + 1
    for other, count in repeated.items():
        node.get_logger().warning(f'{count} {"warning" if count == 1 else "warnings"} of '
                                  f'its model: the same as {other} gave above')


def forget_warnings(node) -> None:
    """A node goes away: the warnings it said may be said again (a reload says them anew)."""
    for line in [line for line, said in _SAID.items() if said[0] == id(node)]:
        del _SAID[line]


@dataclass(frozen=True)
class Row:
    """One line of the table.

    Attributes:
        kind: 'publishes', 'subscribes' or 'serves'.
        name: the fully qualified topic or service name.
        type: the message or service type, ``package/msg/Name``.
        rate: how often it is published ('' for subscriptions and services).
        qos: reliability, durability and depth ('' for services).
    """

    kind: str
    name: str
    type: str
    rate: str = ''
    qos: str = ''


def _type_name(cls, kind: str) -> str:
    package = cls.__module__.split('.')[0]
    return f'{package}/{kind}/{cls.__name__}'


def _qos(profile) -> str:
    reliability = 'best effort' if profile.reliability == ReliabilityPolicy.BEST_EFFORT \
        else 'reliable'
    durability = 'transient local' \
        if profile.durability == DurabilityPolicy.TRANSIENT_LOCAL else 'volatile'
    return f'{reliability}, {durability}, depth {profile.depth}'


def _hz(rate: float) -> str:
    return f'{rate:g} Hz'


def _full(node, name: str) -> str:
    return name if name.startswith('/') else f'{node.get_namespace().rstrip("/")}/{name}'


def _resolved(node, name: str) -> str:
    """A service or action name as the graph shows it (relative and private names made
    absolute)."""
    if name.startswith('~'):
        return node.get_fully_qualified_name() + name[1:]
    return _full(node, name)


def _publisher_rates(node) -> dict[int, str]:
    """Rate text of the node's publishers, by id."""
    rates = {}
    sim = getattr(node, 'sim', None)
    per_period = _hz(1.0 / sim.period) if sim is not None else 'with joint_states'
    names = {_full(node, n): 'latched' for n in _LATCHED}
    names.update({_full(node, n): per_period for n in _PER_PERIOD})
    for pub in node.publishers:
        if pub.topic_name in names:
            rates[id(pub)] = names[pub.topic_name]
    sensors = getattr(node, 'sensors', None)
    for out in (sensors.outputs.values() if sensors is not None else ()):
        for pub in out.publishers:
            raw = getattr(pub, 'raw', pub)  # a channel of the outlets: its rclpy publisher
            rates[id(raw)] = _hz(out.sampler.rate) + ('' if out.sampler.enabled else ', off')
    return rates


def interface_rows(node) -> list[Row]:
    """The node's topics, services and action servers, ROS's own infrastructure left out."""
    rates = _publisher_rates(node)
    rows = []
    for pub in node.publishers:
        if pub.msg_type.__module__.split('.')[0] in _INFRASTRUCTURE:
            continue
        rows.append(Row('publishes', pub.topic_name, _type_name(pub.msg_type, 'msg'),
                        rates.get(id(pub), ''), _qos(pub.qos_profile)))
    for sub in node.subscriptions:
        if sub.msg_type.__module__.split('.')[0] in _INFRASTRUCTURE:
            continue
        rows.append(Row('subscribes', sub.topic_name, _type_name(sub.msg_type, 'msg'),
                        '', _qos(sub.qos_profile)))
    for srv in node.services:
        if srv.srv_type.__module__.split('.')[0] in _INFRASTRUCTURE:
            continue
        rows.append(Row('serves', _resolved(node, srv.srv_name),
                        _type_name(srv.srv_type, 'srv')))
    return rows + _action_rows(node)


def action_server(node, action_type, name: str, **callbacks) -> ActionServer:
    """An rclpy ActionServer that keeps its name for the start-up table (rclpy's keeps
    none), as ``served_as``."""
    server = ActionServer(node, action_type, name, **callbacks)
    server.served_as = name
    return server


def _action_rows(node) -> list[Row]:
    """The node's action servers: named as :func:`action_server` kept it, or else as the
    ROS graph knows the server's hidden goal service (``<action>/_action/send_goal``)."""
    rows, graph = [], None
    for server in node.waitables:
        if not isinstance(server, ActionServer):
            continue
        action_type = _type_name(server._action_type, 'action')  # rclpy 4 has no property
        name = getattr(server, 'served_as', None)
        if name is not None:
            name = _resolved(node, name)
        else:
            graph = _graph_actions(node) if graph is None else graph
            name = next((n for n, t in graph if t == action_type), '(not in the ROS graph)')
            if (name, action_type) in graph:
                graph.remove((name, action_type))
        rows.append(Row('serves', name, action_type))
    return rows


def _graph_actions(node) -> list[tuple[str, str]]:
    """(name, type) of the actions the ROS graph knows the node to serve."""
    return [(name[:-len(_SEND_GOAL)], types[0][:-len('_SendGoal')])
            for name, types in node.get_service_names_and_types_by_node(
                node.get_name(), node.get_namespace())
            if name.endswith(_SEND_GOAL) and types and types[0].endswith('_SendGoal')]


def format_table(rows: list[Row]) -> str:
    """The rows as an aligned text table, grouped by kind."""
    header = ('topic', 'type', 'rate', 'QoS')
    cells = [(r.name, r.type, r.rate, r.qos) for r in rows]
    widths = [max(len(c[i]) for c in [header, *cells]) for i in range(3)]
    lines = []
    for kind in ('publishes', 'subscribes', 'serves'):
        group = [r for r in rows if r.kind == kind]
        if not group:
            continue
        lines.append(f'{kind}:')
        for r in sorted(group, key=lambda r: r.name):
            text = (f'  {r.name:<{widths[0]}}  {r.type:<{widths[1]}}  {r.rate:<{widths[2]}}  '
                    f'{r.qos}')
            lines.append(text.rstrip())
    if any(r.kind == 'publishes' and 'sensor_msgs' in r.type and r.rate.endswith('Hz')
           for r in rows):
        lines.append('(sensor topics are computed and published only while someone '
                     'subscribes)')
    return '\n'.join(lines)


def count_command(node) -> None:
    """One command came to ``node``, accepted or not: a message on any command topic
    (joint_commands, group commands, trajectories, cmd_vel, controller inputs) or an action
    goal. The status line's ``commands N/s`` counts them all."""
    node.commands_received = getattr(node, 'commands_received', 0) + 1


class StatusReporter:
    """Logs one status line of a world every ``period`` seconds of wall time, in a thread.

    Args:
        nodes: the world's bridge nodes (the first one logs).
        runner: the :class:`~body_bridge.ros.node.runner.SimulationRunner` stepping them.
        period: seconds of wall time between lines.
    """

    def __init__(self, nodes: list, runner, period: float = STATUS_PERIOD):
        self.nodes, self.runner, self.period = list(nodes), runner, period
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last = (time.monotonic(), runner.stepped, self._commands())

    def _commands(self) -> int:
        return sum(getattr(n, 'commands_received', 0) for n in self.nodes)

    def line(self) -> str:
        """The status now, measured since the previous line."""
        wall, stepped, commands = time.monotonic(), self.runner.stepped, self._commands()
        wall0, stepped0, commands0 = self._last
        self._last = (wall, stepped, commands)
        elapsed = max(wall - wall0, 1e-9)
        # The simulated time stepped, not the difference of the world's times: a reset (by
        # ~/reset or after a divergence) sets those back, which made it negative.
        speed = 'paused' if self.runner.paused else \
            f'real-time factor {(stepped - stepped0) / elapsed:.2f}'
        if self.runner.world is None:  # unload_world (docs/simulator-api.md)
            return 'no world loaded'
        sim_time = self.runner.world.time
        warnings = sum(getattr(n, 'warning_count', 0) for n in self.nodes)
        return (f'sim time {sim_time:.2f} s, {speed}, commands '
                f'{(commands - commands0) / elapsed:.1f}/s, warnings {warnings}')

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name='body_bridge_status',
                                        daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        logger = self.nodes[0].get_logger()
        while not self._stop.wait(self.period):
            logger.info(self.line())

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None


def announce(nodes: list, runner, also=()) -> StatusReporter | None:
    """Log every node's table, and those of the nodes ``also`` (the simulator API's ``sim``
    node: its services and action); start the status lines of the world (when it
    simulates)."""
    for node in [*nodes, *also]:
        node.get_logger().info('topics and services:\n' + format_table(interface_rows(node)))
    if runner is None:
        return None
    reporter = StatusReporter(nodes, runner)
    reporter.start()
    return reporter
