"""JSON for `Operation` and `SyncOperation`, the two model types a sync state stores.

`app.model.codec` resolves field types with `typing.get_type_hints`, which cannot see the
types `app/model/operation.py` imports only under TYPE_CHECKING (ApplicationSource,
RetryStrategy...), so it cannot encode or decode these two classes. This module walks
their fields itself and hands every other type to the model codec, with the same JSON
(camelCase keys, empty values omitted, unknown keys kept in `extra`).
"""

import dataclasses
from typing import Any, TypeVar

from app.model import codec
from app.model.application import ApplicationSource, RetryStrategy
from app.model.operation import (
    Operation,
    OperationInitiator,
    SyncOperation,
    SyncOperationResource,
    SyncStrategySpec,
)

T = TypeVar("T")

_CHILDREN: dict[type, dict[str, type]] = {
    Operation: {"sync": SyncOperation, "initiated_by": OperationInitiator, "retry": RetryStrategy},
    SyncOperation: {
        "sync_strategy": SyncStrategySpec,
        "resources": SyncOperationResource,
        "source": ApplicationSource,
        "sources": ApplicationSource,
    },
}


def _encode_value(value: Any) -> Any:
    if isinstance(value, list):
        return [_encode_value(v) for v in value]
    if isinstance(value, SyncStrategySpec):
        # `{apply: {}}` must survive: an empty strategy object still chooses the strategy.
        out = codec.encode(value)
        for key, chosen in (("apply", value.apply), ("hook", value.hook)):
            if chosen is not None:
                out.setdefault(key, chosen)
        return out
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode(value) if type(value) in _CHILDREN else codec.encode(value)
    return value


def encode(obj: Any) -> dict[str, Any]:
    """The JSON of an Operation or SyncOperation."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        if f.name == codec.EXTRA:
            continue
        value = getattr(obj, f.name)
        if value is None or value is False or value in ("", [], {}):
            continue
        if type(value) is int and value == 0:
            continue
        out[codec.json_name(f)] = _encode_value(value)
    for key, value in getattr(obj, codec.EXTRA, {}).items():
        out.setdefault(key, value)
    return out


def _decode_value(cls: type, value: Any, path: str) -> Any:
    if cls in _CHILDREN:
        return decode(cls, value, path)
    return codec.decode(cls, value, path)


def decode(cls: type[T], data: Any, path: str = "operation") -> T:
    """An Operation or SyncOperation from its JSON; SpecError names the bad field."""
    if not isinstance(data, dict):
        return codec.decode(cls, data, path)
    children = _CHILDREN[cls]
    kwargs: dict[str, Any] = {}
    known: set[str] = set()
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        key = codec.json_name(f)
        known.add(key)
        if f.name == codec.EXTRA or data.get(key) is None:
            continue
        value = data[key]
        child = children.get(f.name)
        if child is None:
            kwargs[f.name] = value
        elif isinstance(value, list):
            kwargs[f.name] = [
                _decode_value(child, v, f"{path}.{key}[{i}]") for i, v in enumerate(value)
            ]
        else:
            kwargs[f.name] = _decode_value(child, value, f"{path}.{key}")
    kwargs[codec.EXTRA] = {k: v for k, v in data.items() if k not in known}
    return cls(**kwargs)
