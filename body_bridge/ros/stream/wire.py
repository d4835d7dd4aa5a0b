"""Messages serialized once and patched in place: what the node publishes every period.

Converting a Python message to its C form costs tens of microseconds per nested message (a
TFMessage of 30 transforms: about 0.25 ms), every period, for a message whose layout never
changes: the same frames, the same joint names, only numbers differ. A :class:`PackedMessage`
is serialized once; each period the numbers are written into its bytes (numpy, no Python
loop) and the bytes are published as they are (``Publisher.publish(bytes)``, in rclpy since
Humble).

The byte offsets of the numbers are found, not assumed: the message is built with a unique
sentinel value in every number to be patched, serialized, and each sentinel located in the
bytes; the result is checked against the serialization of the same message built with other
values (deserialized, it must equal that message). Whatever the middleware's serialization,
a patched message reads back as the message with its numbers. The bytes between the fields
(CDR's padding) are zeroed once (:mod:`.cdr`) and never written after: two runs that publish
the same numbers publish the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from rclpy.serialization import deserialize_message, serialize_message

from .cdr import zero_padding

__all__ = ['Marks', 'PackedMessage', 'stamp_parts', 'mark_stamp', 'joint_state_message',
           'tf_message', 'clock_message']

_KINDS = {'float64': np.dtype('=f8'), 'int32': np.dtype('=i4'), 'uint32': np.dtype('=u4')}


class Marks:
    """Hands out sentinel values while a message is built, recording which slot each fills.

    Args:
        seed: seeds the sentinels (a different seed, different values).
    """

    def __init__(self, seed: int):
        self._rng = np.random.default_rng(seed)
        #: slot -> (kind, values handed out, in order)
        self.slots: dict[str, tuple[str, list]] = {}

    def _next(self, slot: str, kind: str):
        entry = self.slots.setdefault(slot, (kind, []))
        if entry[0] != kind:
            raise ValueError(f'slot {slot!r} holds {entry[0]}, not {kind}')
        if kind == 'float64':  # a random 52-bit mantissa: its 8 bytes appear nowhere else
            value = float(self._rng.uniform(1e5, 1e6))
        elif kind == 'int32':
            value = int(self._rng.integers(1 << 29, 1 << 31))
        else:
            value = int(self._rng.integers(1 << 30, 1 << 32))
        entry[1].append(value)
        return value

    def float64(self, slot: str) -> float:
        """A float64 field of ``slot`` (its next element)."""
        return self._next(slot, 'float64')

    def int32(self, slot: str) -> int:
        return self._next(slot, 'int32')

    def uint32(self, slot: str) -> int:
        return self._next(slot, 'uint32')


class PackedMessage:
    """A serialized message whose numeric fields (slots) are rewritten in place.

    Args:
        build: builds the message, taking every number to be patched from the
            :class:`Marks` it is given (``marks.float64('position')``...). It is called
            twice, with different marks; everything else must not depend on them.

    Raises:
        ValueError: a sentinel is not found exactly once, or the patched bytes do not read
            back as the message (neither happens with a correct ``build``).
    """

    def __init__(self, build: Callable[[Marks], object]):
        for seed in range(5):  # another seed in the unlikely case of a sentinel collision
            marks = Marks(seed)
            message = build(marks)
            data = zero_padding(serialize_message(message), type(message))
            offsets = self._locate(data, marks)
            if offsets is not None:
                break
        else:
            raise ValueError('message sentinels are not unique in its serialized bytes')
        self._buffer = bytearray(data)
        #: slot -> (a view of the buffer as the slot's type, the slot's indices in it)
        self._slots = {}
        self._offsets = {slot: np.asarray(offsets[slot]) for slot in marks.slots}
        #: slot -> (its entry of _slots, whether aligned, the view, a slice or the indices)
        self._fast: dict = {}
        for slot, (kind, _) in marks.slots.items():
            self._slots[slot] = self._view(_KINDS[kind], np.asarray(offsets[slot]))
        check = Marks(99)
        expected = build(check)
        for slot, (_, values) in check.slots.items():
            self.set(slot, values)
        if deserialize_message(self.payload(), type(message)) != expected:
            raise ValueError('the patched message does not read back as the message')

    @staticmethod
    def _locate(data: bytes, marks: Marks) -> dict[str, list[int]] | None:
        offsets = {}
        for slot, (kind, values) in marks.slots.items():
            dtype = _KINDS[kind]
            found = []
            for value in values:
                pattern = np.array([value], dtype=dtype).tobytes()
                at = data.find(pattern)
                if at < 0 or data.find(pattern, at + 1) >= 0:
                    return None
                found.append(at)
            offsets[slot] = found
        return offsets

    def _view(self, dtype: np.dtype, offsets: np.ndarray) -> tuple:
        """(dtype, the buffer seen as ``dtype`` from the offsets' common remainder, the
        offsets as indices into it). Serializations align numbers to their size, so there
        is a common remainder; without one, the buffer is seen as bytes."""
        start = int(offsets[0]) % dtype.itemsize
        if np.any(offsets % dtype.itemsize != start):
            raw = np.frombuffer(self._buffer, dtype=np.uint8)
            return dtype, raw, offsets[:, None] + np.arange(dtype.itemsize)
        view = np.frombuffer(self._buffer, dtype=dtype, offset=start,
                             count=(len(self._buffer) - start) // dtype.itemsize)
        return dtype, view, (offsets - start) // dtype.itemsize

    def set(self, slot: str, values) -> None:
        """Write a slot's numbers: as many as the build handed out for it, in that order
        (an array of any shape, flattened), or one number for all of them. A slot the build
        never filled takes no numbers."""
        entry = self._slots.get(slot)
        if entry is None:
            if np.size(values):
                raise KeyError(slot)
            return
        fast = self._fast.get(slot)
        if fast is None or fast[0] is not entry:  # the slot's way of writing, found once
            dtype, view, index = entry
            aligned = view.dtype == dtype
            fast = self._fast[slot] = (entry, aligned, view, _as_slice(index) if aligned
                                       else index)
        _, aligned, view, index = fast
        if isinstance(values, np.ndarray) and values.ndim > 1:
            values = values.reshape(-1)
        if aligned:
            view[index] = values
        else:  # unaligned numbers, byte by byte
            typed = np.broadcast_to(np.asarray(values, dtype=entry[0]), (len(index),))
            view[index] = np.ascontiguousarray(typed).view(np.uint8).reshape(index.shape)

    def join(self, slot: str, slots) -> None:
        """Add ``slot``: the numbers of ``slots``, in that order, written with one
        assignment (they must hold the same kind of number; a slot the build never filled
        takes none)."""
        parts = [s for s in slots if s in self._slots]
        kinds = {self._slots[s][0] for s in parts}
        if len(kinds) != 1:
            raise ValueError(f'slots {parts} do not hold one kind of number')
        offsets = np.concatenate([self._offsets[s] for s in parts])
        self._offsets[slot] = offsets
        self._slots[slot] = self._view(kinds.pop(), offsets)

    def set_stamp(self, sec: int, nanosec: int) -> None:
        """Write the stamp a build marked with ``mark_stamp``."""
        self.set('sec', sec)
        self.set('nanosec', nanosec)

    def payload(self) -> bytes:
        """The serialized message, to publish."""
        return bytes(self._buffer)


def _as_slice(index: np.ndarray):
    """The same positions as a slice where they are evenly spaced and increasing (writing
    through a slice costs less than through an index array), else the index array."""
    if len(index) == 1:
        return slice(int(index[0]), int(index[0]) + 1)
    step = int(index[1] - index[0])
    if step > 0 and np.array_equal(index, index[0] + step * np.arange(len(index))):
        return slice(int(index[0]), int(index[-1]) + 1, step)
    return index


# --- the node's per-period messages ------------------------------------------------------


def stamp_parts(seconds: float) -> tuple[int, int]:
    """(sec, nanosec) of a time [s], as builtin_interfaces/Time holds it."""
    sec = math.floor(seconds)
    return int(sec), min(int(round((seconds - sec) * 1e9)), 999_999_999)


def mark_stamp(marks: Marks, stamp) -> None:
    """Mark a builtin_interfaces/Time of a build (``PackedMessage.set_stamp`` writes it)."""
    stamp.sec, stamp.nanosec = marks.int32('sec'), marks.uint32('nanosec')


def joint_state_message(names: list[str]) -> PackedMessage:
    """sensor_msgs/JointState of these joints: slots sec, nanosec, position, velocity,
    effort (one value per joint)."""
    from sensor_msgs.msg import JointState

    def build(marks: Marks) -> JointState:
        msg = JointState(name=list(names))
        mark_stamp(marks, msg.header.stamp)
        for field in ('position', 'velocity', 'effort'):
            setattr(msg, field, [marks.float64(field) for _ in names])
        return msg
    return PackedMessage(build)


def tf_message(frames: list[tuple[str, str]]) -> PackedMessage:
    """tf2_msgs/TFMessage of these (parent, child) frames: slots sec, nanosec (one per
    transform), translation (x, y, z each), rotation (w, x, y, z each)."""
    from geometry_msgs.msg import TransformStamped
    from tf2_msgs.msg import TFMessage

    def build(marks: Marks) -> TFMessage:
        msg = TFMessage()
        for parent, child in frames:
            t = TransformStamped()
            t.header.frame_id, t.child_frame_id = parent, child
            mark_stamp(marks, t.header.stamp)
            tr, rot = t.transform.translation, t.transform.rotation
            tr.x, tr.y, tr.z = (marks.float64('translation') for _ in range(3))
            rot.w, rot.x, rot.y, rot.z = (marks.float64('rotation') for _ in range(4))
            msg.transforms.append(t)
        return msg
    return PackedMessage(build)


def clock_message() -> PackedMessage:
    """rosgraph_msgs/Clock: slots sec, nanosec."""
    from rosgraph_msgs.msg import Clock

    def build(marks: Marks) -> Clock:
        msg = Clock()
        mark_stamp(marks, msg.clock)
        return msg
    return PackedMessage(build)
