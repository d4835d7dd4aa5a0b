"""The padding of serialized messages zeroed (ros/stream/cdr.py), checked against ``rosbags``'
own CDR serializer, which writes zeros between the fields: a padding byte is one that
``rosbags`` reads past (changing it changes nothing it decodes), found here by changing each
byte in turn, without our walker's help."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.ros
pytest.importorskip('rosbags', reason='rosbags (tools/requirements.txt) is missing')

from rclpy.serialization import deserialize_message, serialize_message  # noqa: E402
from rosbags.typesys import Stores, get_typestore  # noqa: E402

from body_bridge.ros.stream.cdr import LayoutError, padding_of, zero_padding  # noqa: E402

STORE = get_typestore(Stores.ROS2_HUMBLE)


def _name(msg_type) -> str:
    return f'{msg_type.__module__.split(".")[0]}/msg/{msg_type.__name__}'


def _clean(data: bytes, name: str, little: bool = True) -> bytes:
    """rosbags' serialization of what rosbags reads from ``data`` (its own length found by
    trying the lengths the serializer's tail may add)."""
    for size in range(len(data), len(data) - 9, -1):
        try:
            message = STORE.deserialize_cdr(bytes(data[:size]), name)
        except Exception:  # noqa: BLE001 - not this length
            continue
        return bytes(STORE.serialize_cdr(message, name, little_endian=little))
    raise AssertionError(f'rosbags cannot read {name}')


def _messages():
    from geometry_msgs.msg import TransformStamped
    from sensor_msgs.msg import (CameraInfo, CompressedImage, Image, Imu, JointState,
                                 JoyFeedback, LaserScan, PointCloud2, PointField)
    from std_msgs.msg import (ByteMultiArray, Empty, Float64MultiArray, Int8MultiArray,
                              Int16MultiArray, Int64MultiArray, MultiArrayDimension, String,
                              UInt64MultiArray)
    from tf2_msgs.msg import TFMessage
    imu = Imu()
    imu.header.frame_id = 'base_imu'  # 9 bytes with its NUL: 3 of padding before a float64
    imu.orientation.w = 1.0
    frames = [TransformStamped(child_frame_id='a' * k) for k in range(4)]
    for k, frame in enumerate(frames):
        frame.header.frame_id = 'w' * (k + 1)
        frame.transform.rotation.w = 0.5 + k
    dims = [MultiArrayDimension(label='rows', size=2, stride=6),
            MultiArrayDimension(label='c', size=3, stride=3)]
    info = CameraInfo(distortion_model='plumb_bob', d=[0.1] * 5, k=[1.0] * 9)
    info.header.frame_id = 'cam'
    info.roi.do_rectify = True
    return [
        imu, JointState(name=['a', 'bb', 'ccc'], position=[1.0, 2.0, 3.0]),
        JointState(name=['a', 'bb']),  # empty float64 sequences: no alignment for them
        Empty(), String(data='xy'),
        Image(encoding='rgb8', height=1, width=2, step=6, data=bytes(range(6))),
        PointCloud2(fields=[PointField(name='x', offset=0, datatype=7, count=1),
                            PointField(name='rgb', offset=4, datatype=7, count=1)],
                    point_step=8, data=bytes(16), is_dense=True),
        info, LaserScan(ranges=[1.0, 2.0, 3.0], intensities=[0.5]),
        TFMessage(transforms=frames), CompressedImage(format='jpeg', data=b'\xff\xd8'),
        Float64MultiArray(data=[1.5, -2.5]),
        Int16MultiArray(data=[-3, 4, 5]),
        ByteMultiArray(data=[b'\x01', b'\x02', b'\x03']),  # octets
        UInt64MultiArray(data=[7]), Int64MultiArray(data=[-7, 8]), Int8MultiArray(data=[-1, 2]),
        JoyFeedback(type=1, id=2, intensity=0.25),
    ]


def _padding(data: bytes, name: str, clean: bytes) -> set[int]:
    """The bytes of ``data`` whose change rosbags does not see (independent of cdr.py)."""
    out = set()
    for at in range(4, len(clean)):
        same = True
        for flip in (0xA5, 0x01):  # 0x01: a bool's byte, which any other non-zero keeps true
            changed = bytearray(clean)
            changed[at] ^= flip
            try:
                same &= _clean(bytes(changed) + bytes(len(data) - len(clean)), name) == clean
            except AssertionError:  # unreadable: a length that matters
                same = False
        if same:
            out.add(at)
    return out


@pytest.mark.parametrize('msg', _messages(), ids=lambda m: type(m).__name__)
def test_the_bytes_between_the_fields_are_zeroed_and_nothing_else_changes(msg):
    name = _name(type(msg))
    data = serialize_message(msg)  # the middleware's bytes: padding and tail unwritten
    clean = _clean(data, name)
    padding = _padding(data, name, clean)
    dirty = bytearray(data)
    for at in padding | set(range(len(clean), len(data))):
        dirty[at] = 0x5A  # stale memory in every byte that is not a field
    zeroed = zero_padding(bytes(dirty), type(msg))
    assert zeroed == clean + bytes(len(data) - len(clean))
    assert deserialize_message(zeroed, type(msg)) == msg
    gaps = {at for start, end in padding_of(dirty, type(msg)) for at in range(start, end)}
    assert gaps == padding | set(range(len(clean), len(data)))


def test_big_endian_bytes_are_walked_in_their_order():
    from sensor_msgs.msg import JointState
    name = 'sensor_msgs/msg/JointState'
    msg = STORE.deserialize_cdr(_clean(serialize_message(
        JointState(name=['ab'] * 3, velocity=[1.0])), name), name)
    big = bytes(STORE.serialize_cdr(msg, name, little_endian=False))
    assert big[:2] == b'\x00\x00'
    dirty = bytearray(big)
    # after the frame id (4 + 8 + 4 + 1 bytes): 3 of padding before the sequence's length
    dirty[17:20] = b'\x01\x02\x03'
    assert padding_of(dirty, JointState)[0] == (17, 20)
    assert zero_padding(bytes(dirty), JointState) == big


def test_an_idl_char_is_one_byte_and_a_double_after_it_aligns_to_eight():
    """A type whose description holds an IDL ``char`` (no .msg file makes one: rosbags cannot
    serialize it; the layout is CDR's, written by hand)."""
    from rosidl_parser.definition import BasicType

    class Letter:
        SLOT_TYPES = (BasicType('char'), BasicType('double'), BasicType('uint16'))
    data = b'\x00\x01\x00\x00' + b'A' + b'\xee' * 7 + b'\x00' * 7 + b'\x3f' + b'\x02\x00'
    assert padding_of(data, Letter) == [(5, 12)]
    assert zero_padding(data, Letter) == data[:5] + bytes(7) + data[12:]
    for name in ('long', 'short', 'long double', 'wchar'):  # IDL types not walked: left as is
        class Other:
            SLOT_TYPES = (BasicType(name),)
        assert zero_padding(data, Other) == data


def test_bytes_that_are_not_the_types_layout_are_handed_back_as_they_are():
    from sensor_msgs.msg import Imu, JointState
    data = serialize_message(JointState(name=['a', 'bb'], position=[1.0, 2.0]))
    for other in (data[:30],  # cut short inside a sequence
                  b'\x00\x03' + data[2:],  # not plain CDR (version 2 headers)
                  b'\x00',  # not even a header
                  b'\x00\x01\x00'):  # a header cut short
        assert zero_padding(other, JointState) == other
        with pytest.raises(LayoutError):
            padding_of(other, JointState)
    imu = bytearray(zero_padding(serialize_message(Imu()), Imu))  # clean already
    assert zero_padding(imu, Imu) == bytes(imu) and isinstance(zero_padding(imu, Imu), bytes)
    assert isinstance(zero_padding(bytearray(b'\x00\x09'), Imu), bytes)

    class Wide:  # a type whose description holds what CDR here does not carry
        from rosidl_parser.definition import UnboundedWString
        SLOT_TYPES = (UnboundedWString(),)

    class Mute:
        pass
    for msg_type in (Wide, Mute):
        with pytest.raises(LayoutError, match='not supported|does not describe'):
            padding_of(b'\x00\x01\x00\x00' + bytes(8), msg_type)
        assert zero_padding(b'\x00\x01\x00\x00\x07', msg_type) == b'\x00\x01\x00\x00\x07'


def test_a_packed_message_is_serialized_with_zero_padding():
    """PackedMessage serializes once and patches numbers: its padding stays zero."""
    from sensor_msgs.msg import Imu

    from body_bridge.ros.stream import wire

    def build(marks):
        msg = Imu()
        msg.header.frame_id = 'base_imu'
        wire.mark_stamp(marks, msg.header.stamp)
        msg.angular_velocity.x = marks.float64('w')
        return msg
    packed = wire.PackedMessage(build)
    packed.set_stamp(3, 5)
    packed.set('w', 0.5)
    payload = packed.payload()
    expected = Imu()
    expected.header.frame_id = 'base_imu'
    expected.header.stamp.sec, expected.header.stamp.nanosec = 3, 5
    expected.angular_velocity.x = 0.5
    clean = _clean(payload, 'sensor_msgs/msg/Imu')
    assert payload[:len(clean)] == clean and not any(payload[len(clean):])
    assert deserialize_message(payload, Imu) == expected
