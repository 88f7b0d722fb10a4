"""Kubernetes protobuf request bodies, decoded into the JSON form of the same object.

A body is the 4-byte magic `k8s\\0` and a `runtime.Unknown` message: the object's
apiVersion and kind, and the object itself as its typed message. The typed message is
read with the generated table (`schema`), and every field comes out as the real API
server's JSON encoding would write it: JSON names, inlined structs flattened, zero
values of `omitempty` fields left out (a pointer's zero, such as `replicas: 0`, kept),
Time as RFC 3339, IntOrString as a number or a string, Quantity as its string, bytes
as base64, raw JSON fields (RawExtension, FieldsV1) parsed.
"""

import base64
import json
import time
from typing import Any

from app.localcluster.protobuf import schema as tables
from app.localcluster.protobuf import wire
from app.localcluster.protobuf.schema import Field, Schema

MAGIC = b"k8s\x00"
MAX_DEPTH = 64
"""Deepest nesting of messages accepted (a pod template is about 12 deep)."""
_INTEGERS = frozenset({"int32", "int64"})
_NUMBERS = _INTEGERS | {"bool", "double", "float"}


class ProtobufError(ValueError):
    """The body is not a Kubernetes protobuf object the local cluster can read."""


class UnknownKind(ProtobufError):
    """The envelope names a kind the table does not hold (a custom resource, say)."""


def decode(raw: bytes, table: Schema | None = None) -> dict[str, Any]:
    """The object a protobuf body carries, as a JSON-compatible dict."""
    table = table or tables.load()
    if not raw.startswith(MAGIC):
        raise ProtobufError("it does not start with the Kubernetes protobuf magic bytes k8s\\0")
    try:
        envelope = _envelope(memoryview(raw)[len(MAGIC) :])
        api_version, kind, body = envelope
        message = table.message_of(api_version, kind)
        if message is None:
            raise UnknownKind(
                f"{api_version} {kind} is not a built-in kind the local cluster decodes from "
                f"protobuf (its table is from {table.source})"
            )
        obj = _Reader(table).message(message, body, 1)
    except wire.WireError as e:
        raise ProtobufError(str(e)) from None
    return {"apiVersion": api_version, "kind": kind, **obj}


def _envelope(data: memoryview) -> tuple[str, str, memoryview]:
    api_version = kind = ""
    body = memoryview(b"")
    for number, wire_type, value in wire.fields(data):
        if wire_type != wire.LENGTH or not isinstance(value, memoryview):
            continue
        if number == 1:
            for inner, inner_type, text in wire.fields(value):
                if inner_type == wire.LENGTH and isinstance(text, memoryview):
                    if inner == 1:
                        api_version = _text(text, "apiVersion")
                    elif inner == 2:
                        kind = _text(text, "kind")
        elif number == 2:
            body = value
        elif number == 3 and len(value):
            raise ProtobufError(
                f"content encoding {_text(value, 'contentEncoding')!r} is not supported"
            )
    if not api_version or not kind:
        raise ProtobufError("the envelope names no apiVersion and kind")
    return api_version, kind, body


def _text(data: memoryview, what: str) -> str:
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise ProtobufError(f"{what} is not valid UTF-8") from None


def _zero(value: Any) -> bool:
    return value is None or value in ("", 0, {}) or value is False


Item = tuple[int, int | memoryview]
"""One field's wire type and raw value."""


class _Reader:
    """Typed messages read with one table."""

    def __init__(self, table: Schema) -> None:
        self.table = table

    def message(self, name: str, data: memoryview, depth: int) -> dict[str, Any]:
        if depth > MAX_DEPTH:
            raise ProtobufError(f"messages are nested more than {MAX_DEPTH} deep")
        fields = self.table.messages[name]
        out: dict[str, Any] = {}
        inlined: list[dict[str, Any]] = []
        for number, wire_type, raw in wire.fields(data):
            field = fields.get(number)
            if field is None:
                if raw in (0, b""):
                    continue
                raise ProtobufError(
                    f"{name} has a field {number} the local cluster does not know (its table "
                    f"is from {self.table.source}); send the object as JSON or YAML instead"
                )
            item = (wire_type, raw)
            if field.map_key:
                key, value = self.map_entry(field, _bytes(field, item), depth)
                out.setdefault(field.name, {})[key] = value
            elif field.repeated:
                out.setdefault(field.name, []).extend(self.repeated(field, item, depth))
            elif field.inline:
                inlined.append(self.message(field.type, _bytes(field, item), depth + 1))
            else:
                out[field.name] = self.value(field.type, field, item, depth)
        for field in fields.values():
            if field.omit_zero and field.name in out and _zero(out[field.name]):
                del out[field.name]
        for extra in inlined:
            out.update(extra)
        return out

    def repeated(self, field: Field, item: Item, depth: int) -> list[Any]:
        if field.type not in _NUMBERS or item[0] != wire.LENGTH:
            return [self.value(field.type, field, item, depth)]
        data = _bytes(field, item)
        if field.type in ("double", "float"):
            width, fixed = (8, wire.FIXED64) if field.type == "double" else (4, wire.FIXED32)
            if len(data) % width:
                raise ProtobufError(f"field {field.name} holds a cut-short list of numbers")
            words = (
                int.from_bytes(data[i : i + width], "little") for i in range(0, len(data), width)
            )
            return [self.value(field.type, field, (fixed, word), depth) for word in words]
        return [
            self.value(field.type, field, (wire.VARINT, v), depth)
            for v in wire.packed_varints(data)
        ]

    def map_entry(self, field: Field, data: memoryview, depth: int) -> tuple[str, Any]:
        key: Any = ""
        value: Any = None
        for number, wire_type, raw in wire.fields(data):
            if number == 1:
                key = self.value(field.map_key, field, (wire_type, raw), depth)
            elif number == 2:
                value = self.value(field.map_value, field, (wire_type, raw), depth)
        if value is None:
            value = _empty(field.map_value)
        return str(key), value

    def value(self, kind: str, field: Field, item: Item, depth: int) -> Any:
        wire_type, raw = item
        if kind in _INTEGERS or kind == "bool":
            if wire_type != wire.VARINT or not isinstance(raw, int):
                raise ProtobufError(f"field {field.name} should be a varint")
            return bool(raw) if kind == "bool" else wire.signed(raw)
        if kind == "double" and wire_type == wire.FIXED64 and isinstance(raw, int):
            return wire.as_double(raw)
        if kind == "float" and wire_type == wire.FIXED32 and isinstance(raw, int):
            return wire.as_float(raw)
        data = _bytes(field, item)
        if kind == "string":
            return _text(data, field.name)
        if kind == "bytes":
            return base64.b64encode(data).decode()
        if kind in tables.SPECIAL:
            return _special(kind, field, data)
        if kind in self.table.messages:
            return self.message(kind, data, depth + 1)
        raise ProtobufError(f"field {field.name} has type {kind}, which the table does not define")


def _bytes(field: Field, item: Item) -> memoryview:
    wire_type, raw = item
    if wire_type != wire.LENGTH or not isinstance(raw, memoryview):
        raise ProtobufError(f"field {field.name} should be length-delimited")
    return raw


def _empty(kind: str) -> Any:
    if kind in ("string", "bytes", tables.QUANTITY):
        return ""
    if kind in _NUMBERS or kind == tables.INT_OR_STRING:
        return False if kind == "bool" else 0
    return {}


def _scalars(data: memoryview) -> dict[int, int | memoryview]:
    return {number: value for number, _, value in wire.fields(data)}


def _special(kind: str, field: Field, data: memoryview) -> Any:
    parts = _scalars(data)
    if kind in (tables.TIME, tables.MICRO_TIME):
        seconds = wire.signed(_int(parts.get(1, 0)))
        nanos = _int(parts.get(2, 0))
        if not seconds and not nanos:
            return None
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
        return f"{stamp}.{nanos // 1000:06d}Z" if kind == tables.MICRO_TIME else f"{stamp}Z"
    if kind == tables.DURATION:
        return go_duration(wire.signed(_int(parts.get(1, 0))))
    if kind == tables.INT_OR_STRING:
        if _int(parts.get(1, 0)) == 1:
            return _text(_view(parts.get(3)), field.name)
        return wire.signed(_int(parts.get(2, 0)))
    if kind == tables.QUANTITY:
        return _text(_view(parts.get(1)), field.name)
    raw = bytes(_view(parts.get(1)))
    if not raw:
        return {} if kind == tables.FIELDS_V1 else None
    try:
        return json.loads(raw)
    except ValueError:
        raise ProtobufError(f"field {field.name} does not hold JSON") from None


def _int(value: int | memoryview) -> int:
    if not isinstance(value, int):
        raise ProtobufError("a number field is length-delimited")
    return value


def _view(value: int | memoryview | None) -> memoryview:
    if value is None:
        return memoryview(b"")
    if not isinstance(value, memoryview):
        raise ProtobufError("a string field is a number")
    return value


def go_duration(nanoseconds: int) -> str:
    """Go's time.Duration.String(): `1h2m3.5s`, `1.5ms`, `0s`."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    left = abs(nanoseconds)
    if left < 1_000_000_000:
        for unit, scale, digits in (("ms", 1_000_000, 6), ("µs", 1_000, 3), ("ns", 1, 0)):
            if left >= scale:
                whole, frac = divmod(left, scale)
                fraction = f".{frac:0{digits}d}".rstrip("0") if frac else ""
                return f"{sign}{whole}{fraction}{unit}"
    seconds, frac = divmod(left, 1_000_000_000)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs}{f'.{frac:09d}'.rstrip('0') if frac else ''}s"
    if hours:
        return f"{sign}{hours}h{minutes}m{text}"
    if minutes:
        return f"{sign}{minutes}m{text}"
    return sign + text
