"""The protobuf wire format: tagged fields of four wire types, nothing schema-specific.

A reader over one message's bytes yields (field number, wire type, value): an int for
varint and fixed-width fields, a memoryview for length-delimited ones (a string, bytes,
a nested message or a packed list). Every length is checked against what remains, so
malformed input fails with `WireError` instead of reading past the end.
"""

import struct
from collections.abc import Iterator

VARINT = 0
FIXED64 = 1
LENGTH = 2
FIXED32 = 5
_MAX_VARINT_BYTES = 10


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


def varint(data: memoryview, pos: int) -> tuple[int, int]:
    """The unsigned varint at `pos` and the position after it."""
    value = shift = 0
    for i in range(_MAX_VARINT_BYTES):
        if pos + i >= len(data):
            raise WireError("a varint runs past the end of the message")
        byte = data[pos + i]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos + i + 1
        shift += 7
    raise WireError("a varint is longer than 10 bytes")


def signed(value: int) -> int:
    """A varint read as Go's int32/int64 (two's complement over 64 bits)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def fields(data: memoryview) -> Iterator[tuple[int, int, int | memoryview]]:
    """Every field of one message, in wire order."""
    pos = 0
    end = len(data)
    while pos < end:
        key, pos = varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0 is not allowed")
        if wire_type == VARINT:
            value, pos = varint(data, pos)
            yield number, wire_type, value
        elif wire_type == LENGTH:
            size, pos = varint(data, pos)
            if size > end - pos:
                raise WireError(f"field {number} claims {size} bytes, {end - pos} remain")
            yield number, wire_type, data[pos : pos + size]
            pos += size
        elif wire_type in (FIXED64, FIXED32):
            width = 8 if wire_type == FIXED64 else 4
            if width > end - pos:
                raise WireError(f"field {number} is cut short")
            yield number, wire_type, int.from_bytes(data[pos : pos + width], "little")
            pos += width
        else:
            raise WireError(f"field {number} has wire type {wire_type}, unused by Kubernetes")


def packed_varints(data: memoryview) -> Iterator[int]:
    pos = 0
    while pos < len(data):
        value, pos = varint(data, pos)
        yield value


def as_double(bits: int) -> float:
    return float(struct.unpack("<d", bits.to_bytes(8, "little"))[0])


def as_float(bits: int) -> float:
    return float(struct.unpack("<f", bits.to_bytes(4, "little"))[0])
