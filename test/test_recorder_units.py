"""The recorder's queue and writing thread: what is written while running, the bound, the
topics refused, a writer that does not finish (``test/test_recording.py`` reads its bags
back)."""

from __future__ import annotations

import threading
import time
import types

import pytest

from conftest import ROS_MISSING  # noqa: E402

pytestmark = pytest.mark.ros
pytest.importorskip('rclpy', reason=ROS_MISSING)

from body_bridge.ros.stream import qos  # noqa: E402
from body_bridge.ros.stream.recorder import PERIOD, Recorder  # noqa: E402


def channel(topic, type_='std_msgs/msg/String'):
    return types.SimpleNamespace(topic=topic, type=type_, qos=qos.JOINT_STATES)


def until(condition, timeout=10.0) -> bool:
    """Wait for a condition the writing thread brings about (at most ``timeout`` s)."""
    pause = threading.Event()
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.005)
    return True


def test_the_bound_and_the_writer_period_by_default(tmp_path):
    recorder = Recorder(str(tmp_path / 'r'))
    try:
        assert recorder.max_queue == 256 << 20 and PERIOD == 0.05  # as the docs say
        assert recorder.patterns == [] and recorder.wants(channel('/any'))
        recorder.write(channel('/a'), b'x' * 10, 0)  # no warn given: nothing to call
    finally:
        recorder.close()
    assert recorder.bag.closed and not recorder.wants(channel('/any'))


def test_messages_are_written_while_running_and_free_their_room(tmp_path):
    recorder = Recorder(str(tmp_path / 'r'), topics=['a', '/b*'], max_queue=100)
    try:
        a, b = channel('/a'), channel('/bc')
        assert recorder.patterns == ['/a', '/b*']
        assert recorder.wants(a) and recorder.wants(b) and not recorder.wants(channel('/c'))
        recorder.add_channel(a)
        recorder.write(a, b'x' * 100, 5)  # exactly the bound: taken
        assert until(lambda: recorder.bag.message_count == 1)
        recorder.write(a, b'y' * 60, 6)  # the room of the first is free again
        assert until(lambda: recorder.bag.message_count == 2)
        recorder.write(b, b'z' * 60, 7)  # a topic not announced is registered on the way
        assert until(lambda: recorder.bag.message_count == 3)
        assert recorder.dropped == 0 and recorder._queued == 0
        assert sorted(name for name, _ in recorder.bag.topics) == ['/a', '/bc']
    finally:
        recorder.close()


def test_the_writer_is_woken_early_when_a_quarter_of_the_bound_waits(tmp_path):
    recorder = Recorder(str(tmp_path / 'r'), max_queue=100)
    recorder._running = False  # hold the writer: nothing leaves the queue
    recorder._thread.join()
    recorder._running = True  # writes are taken again, and wait in the queue
    recorder._wake.clear()
    recorder.write(channel('/a'), b'x' * 25, 0)
    assert not recorder._wake.is_set()  # a quarter: it waits for its period
    recorder.write(channel('/a'), b'x', 0)
    assert recorder._wake.is_set()
    recorder._running = True
    recorder.close()
    assert recorder.bag.message_count == 2


def test_a_type_that_cannot_be_recorded_is_refused_once(tmp_path):
    warnings = []
    recorder = Recorder(str(tmp_path / 'r'), warn=warnings.append)
    try:
        odd, good = channel('/odd', 'nope_msgs/msg/X'), channel('/good')
        recorder.add_channel(odd)
        recorder.write(odd, b'1', 1)
        recorder.write(odd, b'2', 2)
        recorder.write(good, b'3', 3)
        assert until(lambda: recorder.bag.message_count == 1)
        assert not recorder.wants(odd) and recorder.wants(good)
        assert warnings == ['recording: /odd: nope_msgs/msg/X: package nope_msgs is not '
                            'installed; the topic is not recorded']
        recorder.write(good, b'4', 4)
        assert until(lambda: recorder.bag.message_count == 2)
    finally:
        recorder.close()
    assert ('/odd', 'nope_msgs/msg/X') not in recorder.bag.topics


def test_drops_are_reported_by_the_writer_while_running(tmp_path):
    import re
    warnings = []
    recorder = Recorder(str(tmp_path / 'r'), max_queue=10, warn=warnings.append)

    def reported() -> int:
        return sum(int(re.fullmatch(rf'recording {recorder.bag.directory}: (\d+) messages '
                                    r'dropped \(the disk does not keep up\)', w).group(1))
                   for w in warnings)
    try:
        recorder.write(channel('/a'), b'x' * 5, 0)
        assert until(lambda: recorder.bag.message_count == 1)
        recorder.write(channel('/a'), b'x' * 11, 1)
        recorder.write(channel('/a'), b'x' * 11, 2)
        assert until(lambda: reported() == 2)
        count = len(warnings)
        recorder.write(channel('/a'), b'x' * 11, 3)
        assert until(lambda: len(warnings) == count + 1)
        assert warnings[-1].endswith(': 1 messages dropped (the disk does not keep up)')
    finally:
        recorder.close()
    assert recorder.dropped == 3 and reported() == 3


def test_a_writer_that_does_not_finish_is_reported(tmp_path):
    warnings = []
    recorder = Recorder(str(tmp_path / 'r'), warn=warnings.append)
    release, closed = threading.Event(), []
    real = recorder.bag
    recorder.bag = types.SimpleNamespace(
        directory=real.directory, add_topic=lambda *a: None,
        write=lambda *a: release.wait(30), close=lambda: closed.append(True))
    try:
        recorder.write(channel('/a'), b'x', 0)
        assert until(lambda: not recorder._queue)  # the writer is in the first write
        recorder.write(channel('/a'), b'y', 1)
        recorder.write(channel('/a'), b'z', 2)
        recorder.close(timeout=0.2)
        assert warnings == [f'recording {real.directory}: the writer did not finish in 0.2 s; '
                            '2 messages are not written']
        assert closed == [True]
        recorder.close()  # again: nothing more
        assert closed == [True]
    finally:
        release.set()
        real.close()
