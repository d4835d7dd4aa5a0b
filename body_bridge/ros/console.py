"""What the bridge tells its user while it runs.

On start, each node logs a table of what it publishes, subscribes and serves (topic, type,
rate, QoS); then the world logs one status line every :data:`STATUS_PERIOD` seconds of wall
time: simulated time, the real-time factor measured over the last interval, commands received
per second and warnings raised while running. Both are INFO messages of the node's logger, so
``--ros-args --log-level warn`` (or ``python -m body_bridge sim --quiet``) leaves only
warnings and errors.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from rclpy.qos import DurabilityPolicy, ReliabilityPolicy

__all__ = ['Row', 'interface_rows', 'format_table', 'StatusReporter', 'announce',
           'STATUS_PERIOD']

#: Seconds of wall time between two status lines.
STATUS_PERIOD = 5.0
#: Interface packages of ROS's own services and topics, left out of the table.
_INFRASTRUCTURE = ('rcl_interfaces', 'type_description_interfaces')
_LATCHED = ('robot_description', '/tf_static')
_PER_PERIOD = ('/tf', 'joint_states', '/clock')


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
    """The node's topics and services, ROS's own infrastructure left out."""
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
        name = srv.srv_name
        if name.startswith('~'):
            name = node.get_fully_qualified_name() + name[1:]
        rows.append(Row('serves', name, _type_name(srv.srv_type, 'srv')))
    return rows


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


class StatusReporter:
    """Logs one status line of a world every ``period`` seconds of wall time, in a thread.

    Args:
        nodes: the world's bridge nodes (the first one logs).
        runner: the :class:`~body_bridge.ros.runner.SimulationRunner` stepping them.
        period: seconds of wall time between lines.
    """

    def __init__(self, nodes: list, runner, period: float = STATUS_PERIOD):
        self.nodes, self.runner, self.period = list(nodes), runner, period
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last = (time.monotonic(), runner.world.time, self._commands())

    def _commands(self) -> int:
        return sum(getattr(getattr(n, 'commands', None), 'received', 0) for n in self.nodes)

    def line(self) -> str:
        """The status now, measured since the previous line."""
        wall, sim_time, commands = time.monotonic(), self.runner.world.time, self._commands()
        wall0, sim0, commands0 = self._last
        self._last = (wall, sim_time, commands)
        elapsed = max(wall - wall0, 1e-9)
        speed = 'paused' if self.runner.paused else \
            f'real-time factor {(sim_time - sim0) / elapsed:.2f}'
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


def announce(nodes: list, runner) -> StatusReporter | None:
    """Log every node's table; start the status lines of the world (when it simulates)."""
    for node in nodes:
        node.get_logger().info('topics and services:\n' + format_table(interface_rows(node)))
    if runner is None:
        return None
    reporter = StatusReporter(nodes, runner)
    reporter.start()
    return reporter
