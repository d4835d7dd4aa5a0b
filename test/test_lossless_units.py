"""What ``record`` needs for identical runs to give identical bags: a lossless image encoder
(every frame, in order, stamped with its own time), a lossless recorder (waits for the disk,
drops nothing), and channels that hand the sinks bytes whose padding is zero."""

from __future__ import annotations

import threading
import time
import types

import numpy as np
import pytest

from conftest import ROS_MISSING  # noqa: E402

pytestmark = pytest.mark.ros
pytest.importorskip('rclpy', reason=ROS_MISSING)

from builtin_interfaces.msg import Time  # noqa: E402

from body_bridge.ros.stream import encoder as encoder_mod  # noqa: E402
from body_bridge.ros.stream import qos  # noqa: E402
from body_bridge.ros.stream.encoder import BackgroundEncoder  # noqa: E402
from body_bridge.ros.stream.recorder import Recorder  # noqa: E402

NODE = types.SimpleNamespace(context=types.SimpleNamespace(ok=lambda: True),
                             get_logger=lambda: types.SimpleNamespace(error=print))


class Publisher:
    """A channel of the outlets (ros/stream/outlets.py), as the bridge's publishers are:
    it takes each message's stamp for its sinks."""

    topic_name = '/cam/image_raw/compressed'
    sinks = ()

    def __init__(self):
        self.sent = []

    def publish(self, msg, time_ns=None):
        self.sent.append((msg.header.stamp.sec, bytes(msg.data), time_ns))

    def get_subscription_count(self):
        return 1


def until(condition, timeout=10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


def test_encoders_are_live_until_record_makes_them_lossless():
    """(First in this file: no test has changed the process's mode yet.)"""
    assert BackgroundEncoder(NODE, Publisher(), 'f', None).lossless is False
    assert encoder_mod.WAITING == 4  # the number docs/recording-and-foxglove.md gives


@pytest.fixture
def lossless():
    encoder_mod.set_lossless(True)
    yield
    encoder_mod.set_lossless(False)


def test_a_lossless_encoder_publishes_every_frame_in_order_and_holds_the_stepper(lossless):
    gate = threading.Event()
    pub = Publisher()

    def encode(array, settings):
        gate.wait(10.0)
        return 'x', array.tobytes()
    enc = BackgroundEncoder(NODE, pub, 'f', encode)
    assert enc.lossless
    frame = np.zeros(2, np.uint8)
    # the worker takes frame 0 and waits on the gate; frames 1..WAITING then fill the queue
    for sec in range(encoder_mod.WAITING + 1):
        frame[:] = sec
        enc.submit(Time(sec=sec, nanosec=7), frame, {})
        if sec == 0:
            assert until(lambda: not enc._pending)
    assert encoder_mod.flush_all(0.05) is False  # this encoder has frames waiting
    held = threading.Thread(target=enc.submit, args=(Time(sec=9, nanosec=7), frame + 1, {}))
    held.start()  # one too many: the stepping thread waits for room
    time.sleep(0.3)
    assert held.is_alive() and enc.submitted == encoder_mod.WAITING + 1
    gate.set()
    held.join(10.0)
    assert not held.is_alive() and enc.flush() and encoder_mod.flush_all()
    secs = list(range(encoder_mod.WAITING + 1)) + [9]
    assert [sent[0] for sent in pub.sent] == secs and enc.replaced == 0
    # the bag's time of each frame is its own stamp, not when its compression ended
    assert [sent[2] for sent in pub.sent] == [s * 1_000_000_000 + 7 for s in secs]
    # each frame as it was handed over (a copy: the caller reused its array)
    assert [sent[1] for sent in pub.sent] == [bytes([s, s]) for s in secs[:-1]] + \
        [bytes([encoder_mod.WAITING + 1] * 2)]
    enc.close()


def test_a_live_encoder_lets_the_newest_waiting_frame_win():
    gate = threading.Event()
    pub = Publisher()

    def encode(array, settings):
        gate.wait(10.0)
        return 'x', array.tobytes()
    enc = BackgroundEncoder(NODE, pub, 'f', encode)
    assert not enc.lossless
    enc.submit(Time(sec=1), np.zeros(1, np.uint8), {})
    assert until(lambda: not enc._pending)  # the worker is on frame 1
    for sec in (2, 3, 4):
        enc.submit(Time(sec=sec), np.full(1, sec, np.uint8), {})  # never waits
    assert enc.replaced == 2
    gate.set()
    assert enc.flush()
    assert [sent[0] for sent in pub.sent] == [1, 4]
    assert pub.sent[-1] == (4, bytes([4]), 4_000_000_000)
    enc.close()


def test_a_lossless_encoder_whose_worker_died_does_not_hold_the_stepper(lossless):
    enc = BackgroundEncoder(NODE, Publisher(), 'f', lambda a, s: 1 / 0)
    enc.submit(Time(), np.zeros(1, np.uint8), {})
    enc._thread.join(5.0)
    started = time.monotonic()
    for sec in range(encoder_mod.WAITING + 2):  # nobody takes them: submit must not wait
        enc.submit(Time(sec=sec), np.zeros(1, np.uint8), {})
    assert time.monotonic() - started < 1.0
    assert not enc.flush(0.05)


def channel(topic):
    return types.SimpleNamespace(topic=topic, type='std_msgs/msg/String', qos=qos.JOINT_STATES)


def slow_disk(recorder):
    """Make the recorder's bag write only once released (a disk that does not keep up);
    returns (the release, the stamps written so far)."""
    real, release, written = recorder.bag.write, threading.Event(), []

    def slow(key, data, stamp):
        release.wait(10.0)
        written.append(stamp)
        real(key, data, stamp)
    recorder.bag.write = slow
    return release, written


def test_a_lossless_recorder_waits_for_room_instead_of_dropping(tmp_path):
    recorder = Recorder(str(tmp_path / 'r'), max_queue=10, lossless=True)
    release, written = slow_disk(recorder)
    workers = []
    try:
        for stamp in range(3):  # 6 + 6 + 6 bytes: the second and third wait for room
            worker = threading.Thread(target=recorder.write,
                                      args=(channel('/a'), b'x' * 6, stamp))
            workers.append(worker)
            worker.start()
            worker.join(0.3)
            if stamp == 2:
                assert worker.is_alive()  # the bound holds the publishing thread
                release.set()
                for waiting in workers:  # the second may take its room after the third
                    waiting.join(10.0)
            assert not worker.is_alive() or stamp == 1
        recorder.write(channel('/a'), b'y' * 25, 3)  # bigger than the bound: taken alone
    finally:
        release.set()
        recorder.close()
    assert recorder.dropped == 0 and sorted(written) == [0, 1, 2, 3]
    assert recorder.bag.message_count == 4


def test_a_lossless_write_waiting_when_the_recorder_closes_is_counted_dropped(tmp_path):
    warnings = []
    recorder = Recorder(str(tmp_path / 'r'), max_queue=10, lossless=True,
                        warn=warnings.append)
    release, written = slow_disk(recorder)
    closer = threading.Thread(target=recorder.close)
    try:
        recorder.write(channel('/a'), b'x' * 6, 0)
        waiting = threading.Thread(target=recorder.write, args=(channel('/a'), b'x' * 6, 1))
        waiting.start()
        waiting.join(0.3)
        assert waiting.is_alive()  # no room: it waits
        closer.start()
        waiting.join(5.0)
        assert not waiting.is_alive()  # the close let it go while the disk still writes
    finally:
        release.set()
        closer.join(10.0)
    assert written == [0] and recorder.bag.message_count == 1
    assert recorder.dropped == 1
    assert len(warnings) == 1 and ': 1 messages dropped' in warnings[0]
    recorder.write(channel('/a'), b'z', 2)  # after the close: counted, not queued
    assert recorder.dropped == 2 and not recorder._queue


def test_a_recorder_that_is_not_lossless_still_drops(tmp_path):
    recorder = Recorder(str(tmp_path / 'r'), max_queue=10)
    try:
        recorder.write(channel('/a'), b'x' * 11, 0)
    finally:
        recorder.close()
    assert recorder.dropped == 1 and not recorder.lossless
    assert recorder.bag.message_count == 0  # dropped: not written


def test_a_channel_hands_the_sinks_zero_padding_and_the_time_it_is_given(monkeypatch):
    from rclpy.serialization import deserialize_message, serialize_message
    from sensor_msgs.msg import Imu

    from body_bridge.ros.stream import outlets as outlets_mod
    msg = Imu()
    msg.header.frame_id = 'base_imu'  # 3 bytes of padding after its name
    msg.orientation.w = 1.0
    clean = serialize_message(msg)
    dirty = bytearray(clean)
    dirty[25:28] = b'\xde\xad\xbe'  # stale memory where the serializer skipped
    dirty += b'\xef' * 4  # and a tail it never wrote
    monkeypatch.setattr(outlets_mod, 'serialize_message', lambda m: bytes(dirty))
    written, dds = [], []
    sink = types.SimpleNamespace(wants=lambda c: True, subscribers=lambda c: 1,
                                 add_channel=lambda c: None,
                                 write=lambda c, data, t: written.append((data, t)))
    raw = types.SimpleNamespace(topic_name='/imu', msg_type=Imu, qos_profile=qos.JOINT_STATES,
                                publish=dds.append, get_subscription_count=lambda: 0)
    outlets = outlets_mod.Outlets()
    outlets.attach(sink)
    ch = outlets.channel(raw, qos.JOINT_STATES, lambda: 2.5)
    ch.publish(msg)
    ch.publish(msg, time_ns=7)
    expected = bytes(clean[:25]) + bytes(3) + bytes(clean[28:]) + bytes(4)
    assert written == [(expected, 2_500_000_000), (expected, 7)] and dds == [expected] * 2
    assert deserialize_message(expected, Imu) == msg
