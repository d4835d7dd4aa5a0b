"""Recording: the outlets, the ros2msg definitions, the MCAP bag, the recorder, commands files.

Bags are read back with readers independent of the writer: ``rosbags`` (its own rosbag2 and
MCAP implementation and CDR decoder, with types built from the definitions in the bag) and
``mcap-ros2-support`` (decoders generated from the schemas).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.ros

rosbags = pytest.importorskip('rosbags', reason='rosbags (tools/requirements.txt) is missing')
pytest.importorskip('mcap_ros2', reason='mcap-ros2-support (tools/requirements.txt) is missing')

from bag_reading import read_bag  # noqa: E402
from mcap.reader import make_reader  # noqa: E402
from mcap_ros2.decoder import DecoderFactory  # noqa: E402


# --- message definitions ------------------------------------------------------------------------


def test_a_definition_holds_every_type_it_uses_once():
    from body_bridge.ros.stream.msgdefs import DELIMITER, definition, dependencies
    deps = dependencies('tf2_msgs/msg/TFMessage')
    # named as the fields name them, as rosbag2 writes them
    assert deps == ['geometry_msgs/TransformStamped', 'std_msgs/Header',
                    'builtin_interfaces/Time', 'geometry_msgs/Transform',
                    'geometry_msgs/Vector3', 'geometry_msgs/Quaternion']
    text = definition('tf2_msgs/msg/TFMessage')
    assert text.startswith('geometry_msgs/TransformStamped[] transforms')
    for dep in deps:
        assert text.count(f'{DELIMITER}\nMSG: {dep}\n') == 1
    # rosbag2's delimiter: a line of exactly 80 '='
    assert text.count('\n' + '=' * 80 + '\nMSG: ') == len(deps) and DELIMITER == '=' * 80
    # constants and bounded arrays are not types
    assert dependencies('sensor_msgs/msg/Range') == ['std_msgs/Header', 'builtin_interfaces/Time']
    # a type of the same package, named without its package
    assert 'sensor_msgs/PointField' in dependencies('sensor_msgs/msg/PointCloud2')
    # a type used at two depths (Vector3: in Transform, Twist and Wrench) is listed once
    deps = dependencies('sensor_msgs/msg/MultiDOFJointState')
    assert deps.count('geometry_msgs/Vector3') == 1 and len(deps) == len(set(deps))


def test_bounded_sequences_of_messages_are_dependencies_and_constants_are_not(monkeypatch):
    from body_bridge.ros.stream import msgdefs
    texts = {'a/msg/T': 'geometry_msgs/Point[<=4] points  # at most 4\n'
                        'int32 N = 3\nstring<=8 NAME="x=y"\nT2 own\nb/U[] us\n# b/V v\n'}
    monkeypatch.setattr(msgdefs, '_text', texts.__getitem__)
    assert msgdefs._field_types('a/msg/T') == ['geometry_msgs/Point', 'a/T2', 'b/U']


def test_a_type_is_known_by_both_of_its_names():
    from body_bridge.ros.stream.msgdefs import _canonical
    assert _canonical('std_msgs/Header') == 'std_msgs/msg/Header'
    assert _canonical('std_msgs/msg/Header') == 'std_msgs/msg/Header'


def test_a_missing_type_is_one_clear_error():
    from body_bridge.ros.stream.msgdefs import DefinitionError, definition
    with pytest.raises(DefinitionError, match=r'^nope_msgs/msg/X: package nope_msgs is not'):
        definition('nope_msgs/msg/X')
    with pytest.raises(DefinitionError, match=r'^std_msgs/msg/Nope: .*Nope.msg cannot be read'):
        definition('std_msgs/msg/Nope')
    # a name Python cannot even look up (its parent package missing) says the same
    with pytest.raises(DefinitionError, match=r'^no\.such/msg/X: package no\.such is not'):
        definition('no.such/msg/X')


def test_service_definitions_split_request_and_response():
    from body_bridge.ros.stream.msgdefs import service_definitions
    request, response = service_definitions('std_srvs/srv/SetBool')
    assert request.split('#')[0].split() == ['bool', 'data']
    assert [line.split()[:2] for line in response.splitlines() if line.strip()] == \
        [['bool', 'success'], ['string', 'message']]
    request, response = service_definitions('std_srvs/srv/Trigger')
    assert request.strip() == '' and 'bool success' in response


# --- the bag writer -----------------------------------------------------------------------------


def test_a_bag_reads_back_with_rosbags_and_mcap_ros2(tmp_path):
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import Imu
    from std_msgs.msg import String

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.bag import BagWriter
    bag = BagWriter(str(tmp_path / 'run'))
    latched = bag.add_topic('/robot_description', 'std_msgs/msg/String', qos.LATCHED)
    imu = bag.add_topic('/imu', 'sensor_msgs/msg/Imu', qos.SENSOR)
    assert bag.add_topic('/imu', 'sensor_msgs/msg/Imu', qos.SENSOR) == imu
    bag.write(latched, serialize_message(String(data='<robot name="r"/>')), 0)
    for i in range(5):
        msg = Imu()
        msg.header.frame_id = 'imu_link'
        msg.header.stamp.sec, msg.header.stamp.nanosec = 0, (i + 1) * 10_000_000
        msg.linear_acceleration.z = 9.81 + i
        bag.write(imu, serialize_message(msg), (i + 1) * 10_000_000)
    bag.close()
    assert sorted(p.name for p in (tmp_path / 'run').iterdir()) == ['metadata.yaml',
                                                                   'run_0.mcap']
    topics = read_bag(tmp_path / 'run')
    assert set(topics) == {'/robot_description', '/imu'}
    kind, messages, profiles = topics['/imu']
    assert kind == 'sensor_msgs/msg/Imu'
    assert [m.linear_acceleration.z for _, m in messages] == [9.81, 10.81, 11.81, 12.81, 13.81]
    assert [t for t, _ in messages] == [10_000_000 * (i + 1) for i in range(5)]
    assert messages[0][1].header.frame_id == 'imu_link'
    assert profiles[0].durability.name == 'VOLATILE'
    assert profiles[0].reliability.name == 'BEST_EFFORT'
    kind, messages, profiles = topics['/robot_description']
    assert messages[0][1].data == '<robot name="r"/>'
    assert profiles[0].durability.name == 'TRANSIENT_LOCAL' and profiles[0].depth == 1
    with open(tmp_path / 'run' / 'run_0.mcap', 'rb') as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        summary = reader.get_summary()
        assert summary.statistics.message_count == 6
        assert {s.encoding for s in summary.schemas.values()} == {'ros2msg'}
        assert {c.message_encoding for c in summary.channels.values()} == {'cdr'}
        assert sorted(c.topic for c in summary.channels.values()) == ['/imu',
                                                                      '/robot_description']
        assert {c.compression for c in summary.chunk_indexes} == {'zstd'}  # the default
        decoded = [(c.topic, m) for _, c, _, m in reader.iter_decoded_messages()]
    assert decoded[-1][0] == '/imu' and decoded[-1][1].linear_acceleration.z == 13.81
    assert decoded[0][1].data == '<robot name="r"/>'


def test_qos_profiles_as_rosbag2_lists_them():
    from rclpy.duration import Duration
    from rclpy.qos import (DurabilityPolicy, HistoryPolicy, LivelinessPolicy, QoSProfile,
                           ReliabilityPolicy)

    from body_bridge.ros.stream.bag import qos_profiles
    profile = QoSProfile(history=HistoryPolicy.KEEP_ALL, depth=3,
                         reliability=ReliabilityPolicy.BEST_EFFORT,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         deadline=Duration(seconds=1, nanoseconds=500_000_000),
                         lifespan=Duration(seconds=2),
                         liveliness=LivelinessPolicy.MANUAL_BY_TOPIC,
                         liveliness_lease_duration=Duration(nanoseconds=999_999_999),
                         avoid_ros_namespace_conventions=True)
    assert qos_profiles(profile) == [{
        'history': 'keep_all', 'depth': 3, 'reliability': 'best_effort',
        'durability': 'transient_local', 'deadline': {'sec': 1, 'nsec': 500_000_000},
        'lifespan': {'sec': 2, 'nsec': 0}, 'liveliness': 'manual_by_topic',
        'liveliness_lease_duration': {'sec': 0, 'nsec': 999_999_999},
        'avoid_ros_namespace_conventions': True}]
    other = qos_profiles(QoSProfile(depth=1, reliability=ReliabilityPolicy.SYSTEM_DEFAULT))[0]
    assert other['reliability'] == 'system_default' and other['history'] == 'keep_last'
    assert other['avoid_ros_namespace_conventions'] is False


def test_an_uncompressed_bag_and_a_second_close(tmp_path):
    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.bag import BagWriter
    bag = BagWriter(str(tmp_path / 'plain'), compress=False)
    bag.write(bag.add_topic('/a', 'std_msgs/msg/String', qos.JOINT_STATES),
              b'\x00\x01\x00\x00\x02\x00\x00\x00x\x00', 1)
    bag.close()
    bag.close()  # again: nothing
    assert bag.closed
    with open(tmp_path / 'plain' / 'plain_0.mcap', 'rb') as f:
        summary = make_reader(f).get_summary()
    assert {c.compression for c in summary.chunk_indexes} == {''}
    assert read_bag(tmp_path / 'plain')['/a'][1][0][1].data == 'x'


def test_a_bag_goes_into_a_new_directory(tmp_path):
    from body_bridge.ros.stream.bag import BagError, BagWriter
    (tmp_path / 'old').mkdir()
    with pytest.raises(BagError, match=r'old: already exists'):
        BagWriter(str(tmp_path / 'old'))


def test_the_metadata_counts_what_was_written(tmp_path):
    import yaml
    from rclpy.serialization import serialize_message
    from std_msgs.msg import String

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.bag import BagWriter
    bag = BagWriter(str(tmp_path / 'b'), distro='kilted')
    key = bag.add_topic('/a', 'std_msgs/msg/String', qos.JOINT_STATES)
    bag.add_topic('/empty', 'std_msgs/msg/String', qos.JOINT_STATES)
    for t in (2_000, 5_000, 9_000):
        bag.write(key, serialize_message(String(data='x')), t)
    bag.close()
    info = yaml.safe_load((tmp_path / 'b' / 'metadata.yaml').read_text())
    info = info['rosbag2_bagfile_information']
    assert info['version'] == 9 and info['storage_identifier'] == 'mcap'
    assert info['message_count'] == 3
    assert info['starting_time'] == {'nanoseconds_since_epoch': 2_000}
    assert info['duration'] == {'nanoseconds': 7_000}
    counts = {t['topic_metadata']['name']: t['message_count']
              for t in info['topics_with_message_count']}
    assert counts == {'/a': 3, '/empty': 0}
    assert info['files'][0]['message_count'] == 3 and info['ros_distro'] == 'kilted'


# --- outlets ------------------------------------------------------------------------------------


class FakePublisher:
    def __init__(self, topic, msg_type, qos, subscribers=0):
        self.topic_name, self.msg_type, self.qos_profile = topic, msg_type, qos
        self.sent, self.subscribers = [], subscribers

    def publish(self, msg):
        self.sent.append(msg)

    def get_subscription_count(self):
        return self.subscribers


class ListSink:
    def __init__(self, topics=None, consumers=1):
        self.topics, self.consumers = topics, consumers
        self.channels, self.written = [], []

    def wants(self, channel):
        return self.topics is None or channel.topic in self.topics

    def subscribers(self, channel):
        return self.consumers

    def add_channel(self, channel):
        self.channels.append(channel.topic)

    def write(self, channel, data, time_ns):
        self.written.append((channel.topic, data, time_ns))


def test_a_channel_hands_the_same_bytes_to_dds_and_the_sinks():
    from rclpy.serialization import deserialize_message
    from std_msgs.msg import String

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.outlets import Outlets
    outlets = Outlets()
    now = [1.5]
    dds = FakePublisher('/chatter', String, qos.JOINT_STATES)
    channel = outlets.channel(dds, qos.JOINT_STATES, lambda: now[0])
    assert channel.type == 'std_msgs/msg/String' and channel.topic_name == '/chatter'
    assert channel.qos is qos.JOINT_STATES and not channel.latched and channel.last is None
    channel.publish(String(data='a'))  # no sink: the message object goes to DDS as it is
    assert dds.sent == [String(data='a')] and channel.get_subscription_count() == 0
    sink = ListSink()
    outlets.attach(sink)
    assert sink.channels == ['/chatter'] and channel.get_subscription_count() == 1
    channel.publish(String(data='b'))
    assert isinstance(dds.sent[-1], bytes) and sink.written == [('/chatter', dds.sent[-1],
                                                                 1_500_000_000)]
    assert deserialize_message(dds.sent[-1], String).data == 'b'
    channel.publish(b'raw')  # already serialized (wire.py): passed on untouched
    assert dds.sent[-1] == b'raw' and sink.written[-1][1] == b'raw'
    outlets.detach(sink)
    assert outlets.sinks == [] and channel.sinks == ()
    channel.publish(String(data='c'))
    assert len(sink.written) == 2 and dds.sent[-1] == String(data='c')
    outlets.detach(sink)  # again: nothing happens
    later = outlets.channel(FakePublisher('/later', String, qos.JOINT_STATES), qos.JOINT_STATES,
                            lambda: 0.0)
    assert later.sinks == () and sink.channels == ['/chatter']


def test_sinks_get_what_they_want_and_latched_messages_when_late():
    from std_msgs.msg import String

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.outlets import Outlets
    outlets = Outlets()
    owner = object()
    latched = outlets.channel(FakePublisher('/robot_description', String, qos.LATCHED),
                              qos.LATCHED, lambda: 0.0, owner)
    other = outlets.channel(FakePublisher('/other', String, qos.JOINT_STATES),
                            qos.JOINT_STATES, lambda: 2.0, owner)
    latched.publish(String(data='urdf'))
    picky = ListSink(topics={'/robot_description'})
    outlets.attach(picky)
    assert picky.channels == ['/robot_description'] and len(picky.written) == 1
    assert picky.written[0][0] == '/robot_description' and picky.written[0][2] == 0
    other.publish(String(data='x'))
    assert len(picky.written) == 1 and other.get_subscription_count() == 0
    idle = ListSink(consumers=0)  # wants everything, consumes nothing now
    outlets.attach(idle)
    assert picky.channels == ['/robot_description']  # told once, not again for a new sink
    assert idle.channels == ['/robot_description', '/other'] and latched.latched
    assert other.get_subscription_count() == 0
    other.publish(String(data='y'))
    assert idle.written == [('/robot_description', picky.written[0][1], 0)]
    idle.consumers = 2
    assert other.get_subscription_count() == 2
    outlets.forget(owner)
    assert outlets.channels == []
    later = outlets.channel(FakePublisher('/new', String, qos.JOINT_STATES),
                            qos.JOINT_STATES, lambda: 0.0)
    assert 'new' not in picky.channels and idle.channels[-1] == '/new' and later.sinks == (idle,)


def test_a_node_publisher_is_a_channel_on_simulated_time_unless_infrastructure():
    import types

    from rcl_interfaces.msg import ParameterEvent
    from std_msgs.msg import String

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.outlets import Outlets
    outlets = Outlets()
    node = types.SimpleNamespace()  # no simulation yet: time 0
    raw = FakePublisher('/parameter_events', ParameterEvent, qos.JOINT_STATES)
    assert outlets.wrap(node, raw) is raw and outlets.channels == []
    channel = outlets.wrap(node, FakePublisher('/js', String, qos.JOINT_STATES))
    assert outlets.channels == [channel] and channel.owner is node
    assert channel.clock() == 0.0
    node.sim = types.SimpleNamespace(time=2.5)
    assert channel.clock() == 2.5
    sink = ListSink()
    outlets.attach(sink)
    channel.publish(String(data='x'))
    assert sink.written[-1][2] == 2_500_000_000


# --- the recorder -------------------------------------------------------------------------------


def test_the_recorder_drops_and_counts_what_its_queue_cannot_hold(tmp_path):
    from rclpy.serialization import serialize_message
    from std_msgs.msg import String

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.outlets import Outlets
    from body_bridge.ros.stream.recorder import Recorder
    warnings = []
    recorder = Recorder(str(tmp_path / 'r'), topics=['keep*'], max_queue=100,
                        warn=warnings.append)
    outlets = Outlets()
    keep = outlets.channel(FakePublisher('/keep', String, qos.JOINT_STATES), qos.JOINT_STATES,
                           lambda: 1.0)
    skip = outlets.channel(FakePublisher('/skip', String, qos.JOINT_STATES), qos.JOINT_STATES,
                           lambda: 1.0)
    outlets.attach(recorder)
    assert keep.sinks == (recorder,) and skip.sinks == ()
    recorder._running = False  # hold the writer: nothing leaves the queue while we fill it
    recorder._thread.join()
    recorder._running = True  # writes are taken again, and wait in the queue
    big = serialize_message(String(data='x' * 60))
    for _ in range(3):
        recorder.write(keep, big, 1_000)
    assert recorder.dropped == 2
    recorder.close()
    assert recorder.bag.message_count == 1 and recorder.bag.closed
    assert read_bag(tmp_path / 'r')['/keep'][1][0][1].data == 'x' * 60


def test_the_recorder_warns_about_drops_from_its_thread(tmp_path):
    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.outlets import Outlets
    from body_bridge.ros.stream.recorder import Recorder
    from std_msgs.msg import String
    warnings = []
    recorder = Recorder(str(tmp_path / 'r'), max_queue=10, warn=warnings.append)
    channel = Outlets().channel(FakePublisher('/a', String, qos.JOINT_STATES),
                                qos.JOINT_STATES, lambda: 0.0)
    recorder.write(channel, b'x' * 11, 0)
    recorder.close()
    assert recorder.dropped == 1
    assert any('1 messages dropped' in w for w in warnings), warnings


# --- the commands file --------------------------------------------------------------------------


def test_commands_from_yaml_and_csv(tmp_path):
    from body_bridge.ros.control.command_file import read_commands
    (tmp_path / 'c.yaml').write_text(
        'trajectory:\n  joints: [a, b]\n  points:\n'
        '    - {time: 1.0, positions: [0.5, -0.3]}\n'
        '    - {time: 2.0, positions: [0.0, 0.8]}\n'
        'cmd_vel:\n  - {time: 0.0, linear: 0.3}\n  - {time: 4.0, angular: 0.5}\n')
    commands = read_commands(str(tmp_path / 'c.yaml'))
    assert commands.trajectory.names == ('a', 'b')
    assert commands.trajectory.positions.tolist() == [[0.5, -0.3], [0.0, 0.8]]
    assert commands.trajectory.velocities is None  # positions only: linear segments
    (tmp_path / 'v.yaml').write_text(
        'trajectory:\n  joints: [a]\n  points:\n    - {time: 1.0, positions: [0.5]}\n'
        '    - {time: 2.0, positions: [0.0], velocities: [0.0]}\n')
    from body_bridge.errors import ModelError
    with pytest.raises(ModelError, match='point 0 has 0 velocities'):  # every point or none
        read_commands(str(tmp_path / 'v.yaml'))
    (tmp_path / 'w.yaml').write_text(
        'trajectory:\n  joints: [a]\n  points:\n'
        '    - {time: 1.0, positions: [0.5], velocities: [0.1]}\n')
    assert read_commands(str(tmp_path / 'w.yaml')).trajectory.velocities.tolist() == [[0.1]]
    assert commands.twist_at(-1.0) is None
    assert commands.twist_at(0.0).linear == 0.3 and commands.twist_at(3.99).angular == 0.0
    assert commands.twist_at(4.0).angular == 0.5 and commands.twist_at(4.0).linear == 0.0
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):  # records, not mutable state
        commands.twists = ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        commands.twists[0].linear = 1.0
    (tmp_path / 'c.csv').write_text('time,a,b\n1.0,0.5,-0.3\n\n2.0,0.0,0.8\n')
    csv_commands = read_commands(str(tmp_path / 'c.csv'))
    assert csv_commands.trajectory.names == ('a', 'b')
    assert csv_commands.trajectory.positions.tolist() == commands.trajectory.positions.tolist()
    assert csv_commands.trajectory.times.tolist() == [1.0, 2.0]
    assert csv_commands.twists == ()


@pytest.mark.parametrize('name, text, message', [
    ('a.yaml', 'trajectory: {joints: [a], points: [{time: 1, positions: [1, 2]}]}\n',
     r'a.yaml: point 0 has 2 positions for 1 joints'),
    ('b.yaml', 'cmd_vel: [{time: 1}, {time: 1}]\n', r'b.yaml: cmd_vel: times must increase'),
    ('c.yaml', 'cmd_vel: [{time: .nan}]\n', r'c.yaml: cmd_vel: a value is NaN'),
    ('d.yaml', 'drive: 1\n', r'd.yaml: expected a mapping with trajectory and/or cmd_vel'),
    ('e.yaml', 'trajectory: {joints: [a]}\n', r"e.yaml: missing key 'points'"),
    ('f.yaml', 'trajectory: [1\n', r'f.yaml:\d+: not YAML'),
    ('g.csv', 'time,a\n1,x\n', r'g.csv: line 2: a value is not a number'),
    ('h.csv', 'when,a\n1,2\n', r'h.csv: the header must be'),
    ('i.csv', 'time,a\n2,1\n1,1\n', r'i.csv: time_from_start is not strictly increasing'),
    ('j.csv', 'time,a\n1,2,3\n', r'j.csv: line 2: 3 values for 2 columns'),
    ('k.csv', '', r'k.csv: empty'),
    ('l.yaml', 'trajectory: {joints: [a], points: 5}\n', r'l.yaml: trajectory.points must be a'),
    ('m.yaml', 'cmd_vel:\n  - {time: 1}\n  - {time: : 2}\n', r'm.yaml:3: not YAML: expected'),
    ('n.yaml', 'cmd_vel: [{time: 1}, {time: 3}, {time: 2}]\n',
     r'n.yaml: cmd_vel: times must increase \(2 after 3\)'),
])
def test_a_bad_commands_file_is_one_line(tmp_path, name, text, message):
    from body_bridge.errors import ModelError
    from body_bridge.ros.control.command_file import read_commands
    (tmp_path / name).write_text(text)
    with pytest.raises(ModelError, match=message) as err:
        read_commands(str(tmp_path / name))
    assert '\n' not in str(err.value)


class RefusingPublisher(FakePublisher):
    def publish(self, msg):
        from rclpy.impl.implementation_singleton import rclpy_implementation
        raise rclpy_implementation.RCLError('failed to publish: timeout')


class Owner:
    def __init__(self, ok=True, throttled=True):
        self.warnings, self._ok = [], ok
        if throttled:
            self.warn_throttled = self.warnings.append
        self.context = self

    def ok(self):
        return self._ok

    def get_logger(self):
        return self

    def warning(self, text):
        self.warnings.append(('logger', text))


@pytest.mark.parametrize('throttled', [True, False])
@pytest.mark.parametrize('sink', [False, True])
def test_a_write_the_middleware_refuses_is_warned_about_and_the_world_goes_on(throttled, sink):
    from std_msgs.msg import String

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.outlets import Outlets
    outlets, owner = Outlets(), Owner(throttled=throttled)
    channel = outlets.channel(RefusingPublisher('/tf', String, qos.TF), qos.TF, lambda: 2.0,
                              owner)
    listening = ListSink()
    if sink:
        outlets.attach(listening)
    channel.publish(String(data='a'))  # no exception: the stepping thread goes on
    text = '/tf: a message could not be written (failed to publish: timeout); a reliable ' \
           'subscriber may not keep up'
    assert owner.warnings == [text if throttled else ('logger', text)]
    # The other outlets (a bag, Foxglove) still get it: one slow DDS reader held it up.
    assert len(listening.written) == (1 if sink else 0)


@pytest.mark.parametrize('owner', [None, Owner(ok=False)])
def test_a_refused_write_without_an_owner_or_once_ros_shuts_down_is_raised(owner):
    from rclpy.impl.implementation_singleton import rclpy_implementation
    from std_msgs.msg import String

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.outlets import Outlets
    channel = Outlets().channel(RefusingPublisher('/tf', String, qos.TF), qos.TF, lambda: 0.0,
                                owner)
    with pytest.raises(rclpy_implementation.RCLError):
        channel.publish(String(data='a'))
    if owner is not None:
        assert owner.warnings == []


def test_a_written_chunk_is_on_disk_whole_while_the_bag_is_open(tmp_path):
    # what a killed recorder leaves: every chunk written so far, with its message index,
    # out of the process's buffers (the file ends at a record's end)
    import io

    from mcap.exceptions import EndOfFile
    from mcap.stream_reader import StreamReader

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.bag import BagWriter
    bag = BagWriter(str(tmp_path / 'cut'), compress=False)
    key = bag.add_topic('/a', 'std_msgs/msg/String', qos.JOINT_STATES)
    path = tmp_path / 'cut' / 'cut_0.mcap'
    text = b'\x00\x01\x00\x00' + (100_000).to_bytes(4, 'little') + b'x' * 99_999 + b'\x00'
    for i in range(30):
        bag.write(key, text, i)
        kinds = []
        with pytest.raises(EndOfFile):  # the end of the file, not a record cut short
            for record in StreamReader(io.BytesIO(path.read_bytes())).records:
                kinds.append(type(record).__name__)
        if 'Message' in kinds:
            break
    assert kinds[-1] == 'MessageIndex' and kinds.count('Message') == i + 1 > 1
    bag.close()


def test_an_empty_bag_and_its_metadata_in_rosbag2s_order_inside_the_mcap_file_too(tmp_path):
    import yaml
    from mcap.reader import make_reader

    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.bag import BagWriter
    bag = BagWriter(str(tmp_path / 'none') + '/', distro='jazzy')  # a trailing slash
    bag.add_topic('/a', 'std_msgs/msg/String', qos.JOINT_STATES)
    bag.close()
    assert bag.directory == str(tmp_path / 'none')
    text = (tmp_path / 'none' / 'metadata.yaml').read_text()
    assert text.startswith('rosbag2_bagfile_information:\n  version: 9\n'
                           '  storage_identifier: mcap\n  duration:\n    nanoseconds: 0\n'
                           '  starting_time:\n    nanoseconds_since_epoch: 0\n'
                           '  message_count: 0\n')
    with open(tmp_path / 'none' / 'none_0.mcap', 'rb') as f:
        reader = make_reader(f)
        (record,) = list(reader.iter_metadata())
        (channel,) = reader.get_summary().channels.values()
    assert record.name == 'rosbag2'
    assert record.metadata == {'serialized_metadata': text, 'ROS_DISTRO': 'jazzy'}
    offered = channel.metadata['offered_qos_profiles']
    assert [line.split(':')[0] for line in offered.splitlines()[:4]] == [
        '- history', '  depth', '  reliability', '  durability']
    assert yaml.safe_load(offered)[0]['depth'] == 10


def test_a_bag_directory_that_cannot_be_made_or_a_type_not_installed_is_one_error(tmp_path):
    from body_bridge.ros.stream import qos
    from body_bridge.ros.stream.bag import BagError, BagWriter
    (tmp_path / 'file').write_text('')
    with pytest.raises(BagError, match=r'file/bag: cannot be created \(Not a directory\)$'):
        BagWriter(str(tmp_path / 'file' / 'bag'))
    bag = BagWriter(str(tmp_path / 'b'))
    with pytest.raises(BagError, match=r'^/x: .*no_pkg/msg/Nothing'):
        bag.add_topic('/x', 'no_pkg/msg/Nothing', qos.JOINT_STATES)
    bag.close()


def test_a_commands_file_of_cmd_vel_alone_and_a_csv_with_a_blank_row(tmp_path):
    from body_bridge.ros.control.command_file import read_commands
    (tmp_path / 'drive.yaml').write_text('cmd_vel: [{time: 0, linear: 0.2}, {time: 1.5}]\n')
    commands = read_commands(str(tmp_path / 'drive.yaml'))
    assert commands.trajectory is None
    assert [(t.time, t.linear, t.angular) for t in commands.twists] == [(0.0, 0.2, 0.0),
                                                                       (1.5, 0.0, 0.0)]
    (tmp_path / 'arm.csv').write_text('time,a\n0.5,1\n , \n1,2\n')  # a row of blank cells
    trajectory = read_commands(str(tmp_path / 'arm.csv')).trajectory
    assert list(trajectory.names) == ['a'] and list(trajectory.times) == [0.5, 1.0]
    assert trajectory.positions.tolist() == [[1.0], [2.0]]
