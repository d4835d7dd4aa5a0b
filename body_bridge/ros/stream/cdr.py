"""Serialized messages with their padding zeroed: the same message, the same bytes.

CDR (the serialization DDS and rosbag2 carry, XCDR version 1 as ROS 2 writes it) aligns every
number to its size (a float64 to 8 bytes, counted from the end of the 4-byte encapsulation
header) and a string's or a sequence's length to 4; the bytes skipped are padding. The
middleware's serializer (Fast CDR) skips them without writing, and ``serialize_message``
hands back a buffer sized by an upper estimate whose tail is never written either: both carry
whatever memory was there before, so two identical messages, or two identical runs, gave
different bytes. :func:`zero_padding` walks a message's bytes as its type lays them out
(``SLOT_TYPES``, the type's own description) and zeroes every byte that is not a field: the
padding and the unwritten tail.

A message whose bytes do not follow that layout (another encapsulation, a wide string, bytes
that end before the fields do) is handed back as it is: never refused, never changed there.
"""

from __future__ import annotations

import functools
import importlib

__all__ = ['zero_padding', 'padding_of', 'LayoutError']

#: Bytes of each basic type (rosidl_parser's names); also its alignment. (An IDL file's
#: ``long``, ``short``... are not here: such a type is handed back as it is.)
_SIZES = {'boolean': 1, 'octet': 1, 'char': 1, 'int8': 1, 'uint8': 1, 'int16': 2, 'uint16': 2,
          'int32': 4, 'uint32': 4, 'float': 4, 'int64': 8, 'uint64': 8, 'double': 8}
#: Encapsulation headers of plain CDR (version 1), big and little endian.
_PLAIN_CDR = {b'\x00\x00': 'big', b'\x00\x01': 'little'}
_HEADER = 4  # the encapsulation header; alignment counts from its end


class LayoutError(ValueError):
    """Bytes that do not follow the message type's CDR layout."""


@functools.lru_cache(maxsize=None)
def _fields(msg_type) -> tuple:
    """The plan of a message type: one entry a field, each ``(kind, argument)``."""
    slots = getattr(msg_type, 'SLOT_TYPES', None)
    if slots is None:
        raise LayoutError(f'{msg_type.__name__} does not describe its fields')
    if not slots:  # an empty message holds one uint8 (structure_needs_at_least_one_member)
        return (('basic', 1),)
    return tuple(_entry(slot) for slot in slots)


def _entry(slot) -> tuple:
    kind = type(slot).__name__
    if kind == 'BasicType':
        size = _SIZES.get(slot.typename)
        if size is None:
            raise LayoutError(f'the basic type {slot.typename!r} is not supported')
        return 'basic', size
    if kind in ('UnboundedString', 'BoundedString'):
        return 'string', None
    if kind == 'NamespacedType':
        module = importlib.import_module('.'.join(slot.namespaces))
        return 'message', getattr(module, slot.name)
    if kind == 'Array':
        return 'array', (_entry(slot.value_type), slot.size)
    if kind in ('UnboundedSequence', 'BoundedSequence'):
        return 'sequence', _entry(slot.value_type)
    raise LayoutError(f'a field of kind {kind} is not supported')


class _Walk:
    """Positions in a message's bytes, the padding found on the way."""

    def __init__(self, data, order: str):
        self.data, self.order = data, order
        self.pos = _HEADER
        self.gaps: list[tuple[int, int]] = []

    def align(self, size: int) -> None:
        skip = -(self.pos - _HEADER) % size
        if skip:
            self.gaps.append((self.pos, self.pos + skip))
            self.pos += skip

    def take(self, size: int) -> None:
        self.pos += size
        if self.pos > len(self.data):
            raise LayoutError(f'the bytes end at {len(self.data)}, a field at {self.pos}')

    def count(self) -> int:
        self.align(4)
        start = self.pos
        self.take(4)
        return int.from_bytes(self.data[start:start + 4], self.order)

    def message(self, msg_type) -> None:
        for entry in _fields(msg_type):
            self.field(entry)

    def field(self, entry: tuple, repeat: int = 1) -> None:
        kind, arg = entry
        if kind == 'basic':
            if repeat:
                self.align(arg)
                self.take(arg * repeat)
        elif kind == 'string':
            for _ in range(repeat):
                self.take(self.count())
        elif kind == 'message':
            for _ in range(repeat):
                self.message(arg)
        elif kind == 'array':
            inner, size = arg
            for _ in range(repeat):
                self.field(inner, size)
        else:  # a sequence
            for _ in range(repeat):
                self.field(arg, self.count())


def padding_of(data, msg_type) -> list[tuple[int, int]]:
    """The ``[start, end)`` byte ranges of ``data`` (a serialized ``msg_type``) that hold no
    field: its padding, and its tail after the last field (if any).

    Raises:
        LayoutError: the bytes are not plain CDR of this type.
    """
    order = _PLAIN_CDR.get(bytes(data[:2]))
    if order is None:  # (bytes shorter than the header end before the first field)
        raise LayoutError('not plain CDR (version 1)')
    walk = _Walk(data, order)
    walk.message(msg_type)
    gaps = walk.gaps
    if walk.pos < len(data):
        gaps.append((walk.pos, len(data)))
    return gaps


def zero_padding(data, msg_type) -> bytes:
    """``data`` (a serialized ``msg_type``) with every byte that holds no field zeroed; as it
    is if it is not plain CDR of this type."""
    try:
        gaps = padding_of(data, msg_type)
    except LayoutError:  # not plain CDR of this type: no byte is known to be padding
        gaps = []
    if not any(any(data[start:end]) for start, end in gaps):
        return data if isinstance(data, bytes) else bytes(data)
    out = bytearray(data)
    for start, end in gaps:
        out[start:end] = bytes(end - start)
    return bytes(out)
