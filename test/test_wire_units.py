"""Packed messages (``ros/stream/wire.py``) unit by unit: sentinels, slots, unaligned numbers, stamps
and the clock, read back through rclpy's own deserialization."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROS_MISSING

pytestmark = pytest.mark.ros  # needs ROS 2 (rclpy, message packages)
pytest.importorskip('rclpy', reason=ROS_MISSING)

from builtin_interfaces.msg import Time
from rclpy.serialization import deserialize_message, serialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from body_bridge.ros.stream import wire
from body_bridge.ros.stream.cdr import zero_padding


def test_marks_hand_out_distinct_sentinels_of_each_kind():
    marks = wire.Marks(0)
    floats = [marks.float64('f') for _ in range(50)]
    ints = [marks.int32('i') for _ in range(50)]
    uints = [marks.uint32('u') for _ in range(50)]
    assert all(1e5 <= f < 1e6 and f != int(f) for f in floats)
    assert all(1 << 29 <= i < 1 << 31 for i in ints)
    assert all(1 << 30 <= u < 1 << 32 for u in uints)
    assert len(set(floats)) == len(set(ints)) == len(set(uints)) == 50
    assert marks.slots['f'] == ('float64', floats) and marks.slots['u'] == ('uint32', uints)
    assert wire.Marks(0).float64('f') == floats[0] and wire.Marks(1).float64('f') != floats[0]
    with pytest.raises(ValueError, match="slot 'f' holds float64, not int32"):
        marks.int32('f')


def test_a_build_whose_sentinels_repeat_is_refused():
    calls = []

    def same_twice(marks):
        calls.append(marks)
        msg = JointState(name=['a', 'b'])
        value = marks.float64('position')
        marks.float64('position')
        msg.position = [value, value]  # the second sentinel appears nowhere, the first twice
        return msg
    with pytest.raises(ValueError, match='message sentinels are not unique'):
        wire.PackedMessage(same_twice)
    assert len(calls) == 5  # five seeds tried


def test_a_build_whose_other_numbers_follow_the_marked_ones_is_refused():
    def derived(marks):  # effort is computed from the marked position: patching breaks it
        msg = JointState(name=['a'])
        msg.position = [marks.float64('position')]
        msg.effort = [msg.position[0] * 3.0]
        return msg
    with pytest.raises(ValueError, match='the patched message does not read back as the '
                                         'message'):
        wire.PackedMessage(derived)


def test_the_clock_and_stamps():
    clock = wire.clock_message()
    clock.set_stamp(*wire.stamp_parts(7.25))
    got = deserialize_message(clock.payload(), Clock)
    assert (got.clock.sec, got.clock.nanosec) == (7, 250_000_000)
    clock.set_stamp(2**31 - 1, 999_999_999)
    got = deserialize_message(clock.payload(), Clock)
    assert (got.clock.sec, got.clock.nanosec) == (2**31 - 1, 999_999_999)
    assert wire.stamp_parts(-0.25) == (-1, 750_000_000)
    assert wire.stamp_parts(3.0) == (3, 0)
    assert wire.stamp_parts(4.9999999996) == (4, 999_999_999)  # never a full second
    assert wire.stamp_parts(4.0000000004) == (4, 0)
    assert wire.stamp_parts(4.0000000006) == (4, 1)
    sec, nanosec = wire.stamp_parts(1234.5678)
    assert isinstance(sec, int) and isinstance(nanosec, int)


def test_slots_take_arrays_of_any_shape_or_one_number():
    packed = wire.joint_state_message(['a', 'b', 'c', 'd'])
    packed.set('position', np.arange(4.0).reshape(2, 2))
    packed.set('velocity', 2.5)
    packed.set('effort', [0.0, -1.0, 1e300, -0.0])
    got = deserialize_message(packed.payload(), JointState)
    assert list(got.position) == [0.0, 1.0, 2.0, 3.0]
    assert list(got.velocity) == [2.5] * 4
    assert list(got.effort) == [0.0, -1.0, 1e300, -0.0]
    packed.set('unknown', [])  # a slot the build never filled takes nothing
    with pytest.raises(KeyError):
        packed.set('unknown', 1.0)


def test_numbers_at_unaligned_offsets_are_written_byte_by_byte():
    packed = wire.joint_state_message(['a'])
    packed._buffer = bytearray(24)
    packed._slots['odd'] = packed._view(np.dtype('=f8'), np.array([1, 12]))
    packed._slots['even'] = packed._view(np.dtype('=f8'), np.array([0, 8]))
    assert packed._slots['odd'][1].dtype == np.uint8  # offsets 1 and 12: no common remainder
    packed.set('odd', [1.5, -2.25])
    data = bytes(packed._buffer)
    assert np.frombuffer(data[1:9], '=f8')[0] == 1.5
    assert np.frombuffer(data[12:20], '=f8')[0] == -2.25
    assert data[0] == 0 and data[9:12] == b'\0\0\0' and data[20:] == b'\0' * 4
    packed.set('odd', 4.0)
    data = bytes(packed._buffer)
    assert np.frombuffer(data[1:9], '=f8')[0] == np.frombuffer(data[12:20], '=f8')[0] == 4.0
    shifted = packed._view(np.dtype('=f8'), np.array([3, 11]))
    assert shifted[1].dtype == np.float64 and shifted[2].tolist() == [0, 1]


def test_a_packed_message_is_the_serialization_of_the_message():
    packed = wire.joint_state_message(['x', 'y'])
    for slot, values in (('position', [0.5, -0.5]), ('velocity', [1.0, 2.0]),
                         ('effort', [3.0, 4.0])):
        packed.set(slot, values)
    packed.set_stamp(5, 6)
    msg = JointState(name=['x', 'y'], position=[0.5, -0.5], velocity=[1.0, 2.0],
                     effort=[3.0, 4.0])
    msg.header.stamp = Time(sec=5, nanosec=6)
    # the middleware's serialization with its padding zeroed (ros/stream/cdr.py): the bytes
    # between the fields are zero in the packed message, whatever memory held
    assert packed.payload() == zero_padding(serialize_message(msg), JointState)
    assert deserialize_message(packed.payload(), JointState) == msg
    assert isinstance(packed.payload(), bytes)


def test_joined_slots_take_their_numbers_in_one_array_in_their_order():
    packed = wire.joint_state_message(['x', 'y', 'z'])
    packed.join('state', ['velocity', 'position', 'never_filled'])
    packed.set('state', np.arange(6.0).reshape(2, 3))  # velocities, then positions
    packed.set('effort', [-1.0, -2.0, -3.0])
    got = deserialize_message(packed.payload(), JointState)
    assert list(got.velocity) == [0.0, 1.0, 2.0] and list(got.position) == [3.0, 4.0, 5.0]
    assert list(got.effort) == [-1.0, -2.0, -3.0]
    packed.set('position', [7.0, 8.0, 9.0])  # the slots joined are still slots of their own
    got = deserialize_message(packed.payload(), JointState)
    assert list(got.position) == [7.0, 8.0, 9.0] and list(got.velocity) == [0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match='one kind of number'):
        packed.join('stamp', ['sec', 'nanosec'])  # int32 and uint32
    with pytest.raises(ValueError, match='one kind of number'):
        packed.join('nothing', ['never_filled'])


def test_evenly_spaced_numbers_are_written_through_a_slice():
    assert wire._as_slice(np.array([4])) == slice(4, 5)
    assert wire._as_slice(np.array([3, 5, 7])) == slice(3, 8, 2)
    for uneven in ([3, 5, 8], [5, 3, 1], [2, 2]):
        assert isinstance(wire._as_slice(np.array(uneven)), np.ndarray)
    view = np.zeros(10)
    view[wire._as_slice(np.array([1, 4, 7]))] = [1.0, 2.0, 3.0]
    assert view.tolist() == [0, 1, 0, 0, 2, 0, 0, 3, 0, 0]
