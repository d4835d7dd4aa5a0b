"""One stream of messages, several outlets: DDS, a bag being recorded, a Foxglove server.

Every publisher a bridge node creates is wrapped in a :class:`Channel`, which knows its
topic, its type name (``pkg/msg/Type``) and its QoS. Publishing on a channel hands the same
serialized bytes (CDR: what DDS, rosbag2's MCAP storage and Foxglove's ``cdr`` encoding all
carry) to DDS and to every *sink* that wants the topic. A message the node built as bytes
(:mod:`.wire`, its padding zeroed) is not serialized again; a message object is serialized
once, its padding zeroed (:mod:`.cdr`), and only when a sink wants it.

A channel is *watched* when DDS has a subscriber or a sink wants it
(``get_subscription_count`` counts both), so the sensor publishers compute what the bag or a
Foxglove client consumes exactly as they do for a DDS subscriber.

The sinks live in one :class:`Outlets` per process (:data:`OUTLETS`): a node created later (a
model spawned while running) attaches its channels to the sinks already there, and a sink
attached later is told of the channels already there and gets their latched message
(``robot_description``, ``/tf_static``).

A sink is any object with:

* ``wants(channel) -> bool``: whether it takes this channel's messages;
* ``add_channel(channel)``: a channel it wants now exists (before its first message);
* ``subscribers(channel) -> int``: how many consumers it has for the channel now (a bag: 1;
  a Foxglove server: the clients subscribed to it); a channel nobody consumes is not
  serialized for the sink;
* ``write(channel, data: bytes, time_ns: int)``: one message, stamped in simulated time.

``write`` is called from the publishing thread (the simulation's, or the executor's): a sink
must return at once (queue, never block).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile
from rclpy.serialization import serialize_message

from .cdr import zero_padding

__all__ = ['Channel', 'Outlets', 'OUTLETS', 'type_name', 'watched', 'INFRASTRUCTURE']

#: Interface packages of ROS's own infrastructure: their topics are not outlets' business.
INFRASTRUCTURE = ('rcl_interfaces', 'type_description_interfaces', 'lifecycle_msgs')


def watched(publisher) -> bool:
    """Whether anybody takes a publisher's messages (of a channel: DDS subscribers, or a sink's
    consumers); False for no publisher."""
    return publisher is not None and publisher.get_subscription_count() > 0


def type_name(msg_type) -> str:
    """``pkg/msg/Type`` of a message class (``sensor_msgs.msg.JointState``...)."""
    package = msg_type.__module__.split('.')[0]
    return f'{package}/msg/{msg_type.__name__}'


class Channel:
    """A publisher and the sinks that take its messages.

    Attributes of the publisher (``topic_name``, ``qos_profile``, ``msg_type``, ``handle``...)
    are reachable on the channel as well.

    Args:
        publisher: the rclpy publisher (DDS).
        qos: the publisher's QoS profile.
        clock: the simulated time now [s] (the stamp sinks record).
        owner: the node the publisher belongs to (its channels go when it goes).
    """

    def __init__(self, publisher, qos: QoSProfile, clock: Callable[[], float], owner=None):
        #: The rclpy publisher.
        self.raw = publisher
        self.topic: str = publisher.topic_name
        self.type: str = type_name(publisher.msg_type)
        self.qos = qos
        self.latched = qos.durability == DurabilityPolicy.TRANSIENT_LOCAL
        self.clock = clock
        self.owner = owner
        #: The sinks that want this channel (replaced as a whole, never changed in place).
        self.sinks: tuple = ()
        #: The last message of a latched channel: (bytes, time [ns]), for sinks that come
        #: later.
        self.last: tuple[bytes, int] | None = None

    def __getattr__(self, name):
        return getattr(self.raw, name)

    def get_subscription_count(self) -> int:
        """DDS subscribers plus the sinks' consumers of this channel."""
        count = self.raw.get_subscription_count()
        sinks = self.sinks
        return count + sum(s.subscribers(self) for s in sinks) if sinks else count

    def publish(self, msg, time_ns: int | None = None) -> None:
        """Publish a message (object or serialized bytes) on DDS and to the sinks, which
        record it at ``time_ns`` (simulated time [ns]; default: now).

        A message object that only DDS takes goes to the middleware as it is (serializing it
        here costs an image ten times its publishing); one a sink takes is serialized here,
        its padding zeroed (:mod:`.cdr`), and those bytes go to DDS and every sink."""
        sinks = [sink for sink in self.sinks if sink.subscribers(self)] if self.sinks else ()
        if not sinks and not self.latched:
            self._write(msg)
            return
        data = msg if isinstance(msg, bytes) else zero_padding(serialize_message(msg), type(msg))
        self._write(data)
        stamp = int(round(self.clock() * 1e9)) if time_ns is None else time_ns
        if self.latched:
            self.last = (data, stamp)
        for sink in sinks:
            sink.write(self, data, stamp)

    def _write(self, msg) -> None:
        """Write on DDS. A write the middleware refuses (Fast DDS fails a reliable write that
        a subscriber too slow to acknowledge holds up past its blocking time) is warned about
        by the owner, and the world goes on; once ROS is shutting down it is raised."""
        try:
            self.raw.publish(msg)
        except _rclpy.RCLError as err:
            owner = self.owner
            if owner is None or not owner.context.ok():
                raise
            warn = getattr(owner, 'warn_throttled', None) or owner.get_logger().warning
            warn(f'{self.topic}: a message could not be written ({err}); a reliable subscriber '
                 'may not keep up')


class Outlets:
    """The sinks of a process and the channels of its nodes."""

    def __init__(self):
        self._lock = threading.Lock()
        self.channels: list[Channel] = []
        self.sinks: list = []

    def channel(self, publisher, qos: QoSProfile, clock: Callable[[], float],
                owner=None) -> Channel:
        """Wrap a new publisher; the sinks that want it are told of it."""
        channel = Channel(publisher, qos, clock, owner)
        with self._lock:
            self.channels.append(channel)
            self._route(channel)
        return channel

    def wrap(self, node, publisher):
        """A node's new publisher as a channel stamped with the node's simulated time; ROS's
        own infrastructure (``/parameter_events``) stays a plain publisher."""
        if publisher.msg_type.__module__.split('.')[0] in INFRASTRUCTURE:
            return publisher
        return self.channel(publisher, publisher.qos_profile, lambda: _sim_time(node), node)

    def _route(self, channel: Channel) -> None:
        wanting = tuple(sink for sink in self.sinks if sink.wants(channel))
        for sink in wanting:
            if sink not in channel.sinks:
                sink.add_channel(channel)
        channel.sinks = wanting

    def attach(self, sink) -> None:
        """Add a sink: told of every channel it wants, given the latched messages."""
        with self._lock:
            self.sinks.append(sink)
            for channel in self.channels:
                self._route(channel)
                if sink in channel.sinks and channel.last is not None:
                    sink.write(channel, *channel.last)

    def detach(self, sink) -> None:
        """Remove a sink (it gets nothing more)."""
        with self._lock:
            if sink in self.sinks:
                self.sinks.remove(sink)
            for channel in self.channels:
                channel.sinks = tuple(s for s in channel.sinks if s is not sink)

    def forget(self, owner) -> None:
        """Drop the channels of a node that is going away."""
        with self._lock:
            self.channels = [c for c in self.channels if c.owner is not owner]


def _sim_time(node) -> float:
    """The simulated time of a bridge node [s]; 0 before its simulation starts."""
    sim = getattr(node, 'sim', None)
    return sim.time if sim is not None else 0.0


#: The process's outlets: every bridge node's channels, every sink.
OUTLETS = Outlets()
