"""A rosbag2 bag in MCAP storage, written from serialized (CDR) messages.

The directory holds ``<name>_0.mcap`` and ``metadata.yaml``, as ``ros2 bag record -s mcap``
writes them (rosbag2 metadata version 9). What rosbag2's MCAP reader requires: a Statistics
record (the ``mcap`` writer's summary), a schema for every channel named ``pkg/msg/Type``
with encoding ``ros2msg`` (the complete definition, :mod:`.msgdefs`), channel encoding
``cdr``, and the channel metadata ``offered_qos_profiles`` (YAML), so that latched topics
(``robot_description``, ``/tf_static``) play back latched. Times are simulated time [ns].

The MCAP container is written by the ``mcap`` package; the messages are the bytes DDS
carries, written as they are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import yaml
from mcap.writer import CompressionType, Writer
from rclpy.qos import DurabilityPolicy, HistoryPolicy, LivelinessPolicy, ReliabilityPolicy

from ...errors import BodyBridgeError
from .msgdefs import DefinitionError, definition

__all__ = ['BagWriter', 'BagError', 'qos_profiles']

_VERSION = 9
_NAMES = {HistoryPolicy: {HistoryPolicy.KEEP_LAST: 'keep_last',
                          HistoryPolicy.KEEP_ALL: 'keep_all'},
          ReliabilityPolicy: {ReliabilityPolicy.RELIABLE: 'reliable',
                              ReliabilityPolicy.BEST_EFFORT: 'best_effort'},
          DurabilityPolicy: {DurabilityPolicy.TRANSIENT_LOCAL: 'transient_local',
                             DurabilityPolicy.VOLATILE: 'volatile'},
          LivelinessPolicy: {LivelinessPolicy.AUTOMATIC: 'automatic',
                             LivelinessPolicy.MANUAL_BY_TOPIC: 'manual_by_topic'}}


class BagError(BodyBridgeError):
    """A bag that cannot be written (the text says where and why)."""


def _policy(kind, value) -> str:
    return _NAMES[kind].get(value, 'system_default')


def _duration(d) -> dict:
    ns = int(d.nanoseconds)
    return {'sec': ns // 1_000_000_000, 'nsec': ns % 1_000_000_000}


def qos_profiles(qos) -> list[dict]:
    """An rclpy QoS profile as rosbag2 lists the offered profiles of a topic."""
    return [{'history': _policy(HistoryPolicy, qos.history), 'depth': int(qos.depth),
             'reliability': _policy(ReliabilityPolicy, qos.reliability),
             'durability': _policy(DurabilityPolicy, qos.durability),
             'deadline': _duration(qos.deadline), 'lifespan': _duration(qos.lifespan),
             'liveliness': _policy(LivelinessPolicy, qos.liveliness),
             'liveliness_lease_duration': _duration(qos.liveliness_lease_duration),
             'avoid_ros_namespace_conventions': bool(qos.avoid_ros_namespace_conventions)}]


@dataclass
class _Topic:
    name: str
    type: str
    qos: list
    channel_id: int
    count: int = 0


class BagWriter:
    """Writes one bag; not thread safe (one writing thread).

    Args:
        directory: the bag's directory; it must not exist yet (as ``ros2 bag record -o``).
        distro: the ROS distribution named in the metadata.
        compress: zstd-compressed chunks (rosbag2's default for MCAP).

    Raises:
        BagError: the directory exists or cannot be created.
    """

    def __init__(self, directory: str, distro: str | None = None, compress: bool = True):
        directory = os.path.abspath(directory)
        if os.path.exists(directory):
            raise BagError(f'{directory}: already exists (a bag goes into a new directory)')
        try:
            os.makedirs(directory)
        except OSError as err:
            raise BagError(f'{directory}: cannot be created ({err.strerror})') from err
        self.directory = directory
        self.file_name = f'{os.path.basename(directory)}_0.mcap'
        self.distro = distro or os.environ.get('ROS_DISTRO', 'kilted')
        self._stream = open(os.path.join(directory, self.file_name), 'wb')
        self._mcap = Writer(self._stream, compression=CompressionType.ZSTD if compress
                            else CompressionType.NONE)
        self._mcap.start(profile='ros2', library='body_bridge')
        self._written = self._stream.tell()
        self._schemas: dict[str, int] = {}
        self.topics: dict[tuple[str, str], _Topic] = {}
        self.first = self.last = None
        self.closed = False

    def add_topic(self, name: str, type_name: str, qos) -> tuple[str, str]:
        """Register a topic (once; again is harmless); returns its key for :meth:`write`.

        Raises:
            BagError: the message type's definition is not installed.
        """
        key = (name, type_name)
        if key in self.topics:
            return key
        schema = self._schemas.get(type_name)
        if schema is None:
            try:
                text = definition(type_name)
            except DefinitionError as err:
                raise BagError(f'{name}: {err}') from err
            schema = self._schemas[type_name] = self._mcap.register_schema(
                name=type_name, encoding='ros2msg', data=text.encode())
        profiles = qos_profiles(qos)
        channel = self._mcap.register_channel(
            topic=name, message_encoding='cdr', schema_id=schema,
            metadata={'offered_qos_profiles': yaml.safe_dump(profiles, sort_keys=False)})
        self.topics[key] = _Topic(name, type_name, profiles, channel)
        return key

    def write(self, key: tuple[str, str], data: bytes, time_ns: int) -> None:
        """One message of a registered topic at ``time_ns`` (simulated time) [ns]."""
        topic = self.topics[key]
        self._mcap.add_message(channel_id=topic.channel_id, log_time=time_ns, data=data,
                               publish_time=time_ns, sequence=topic.count)
        topic.count += 1
        if self._stream.tell() != self._written:  # a chunk was written: out of our buffer,
            self._stream.flush()                  # so a killed process leaves it whole
            self._written = self._stream.tell()
        if self.first is None or time_ns < self.first:
            self.first = time_ns
        if self.last is None or time_ns > self.last:
            self.last = time_ns

    @property
    def message_count(self) -> int:
        return sum(t.count for t in self.topics.values())

    def metadata(self) -> dict:
        """The content of ``metadata.yaml``."""
        start = self.first or 0
        duration = (self.last - self.first) if self.first is not None else 0
        count = self.message_count
        return {'rosbag2_bagfile_information': {
            'version': _VERSION, 'storage_identifier': 'mcap',
            'duration': {'nanoseconds': duration},
            'starting_time': {'nanoseconds_since_epoch': start},
            'message_count': count,
            'topics_with_message_count': [
                {'topic_metadata': {'name': t.name, 'type': t.type,
                                    'serialization_format': 'cdr',
                                    'offered_qos_profiles': t.qos,
                                    'type_description_hash': ''},
                 'message_count': t.count} for t in self.topics.values()],
            'compression_format': '', 'compression_mode': '',
            'relative_file_paths': [self.file_name],
            'files': [{'path': self.file_name,
                       'starting_time': {'nanoseconds_since_epoch': start},
                       'duration': {'nanoseconds': duration}, 'message_count': count}],
            'custom_data': {}, 'ros_distro': self.distro}}

    def close(self) -> None:
        """Finish the MCAP file (summary, statistics) and write ``metadata.yaml``."""
        if self.closed:
            return
        self.closed = True
        text = yaml.safe_dump(self.metadata(), sort_keys=False)
        self._mcap.add_metadata('rosbag2', {'serialized_metadata': text,
                                            'ROS_DISTRO': self.distro})
        self._mcap.finish()
        self._stream.close()
        with open(os.path.join(self.directory, 'metadata.yaml'), 'w', encoding='utf-8') as f:
            f.write(text)
