"""Dataclass <-> JSON-shaped dict conversion for the Argo CD-compatible model.

A model class is a dataclass whose fields are annotated with str, int, bool, float,
`Any`, lists and dicts of those, nested model classes, enums or `X | None`. Field names
are snake_case; their JSON names are camelCase unless a field says otherwise with
`metadata={"json": "repoURL"}`. A field without a default is required.

Every model class has an `extra: dict[str, Any]` field that receives the keys the class
does not know; `encode` writes them back, so unknown fields survive a round trip.
A class may define `validate(self, path: str) -> None` for rules beyond types; it runs
after decoding and raises `SpecError`.
"""

import dataclasses
import enum
import types
import typing
from typing import Any, TypeVar, get_args, get_origin

from app.model.errors import SpecError

T = TypeVar("T")

EXTRA = "extra"
_NONE_TYPE = type(None)


def json_name(f: dataclasses.Field[Any]) -> str:
    """The JSON key of a dataclass field."""
    explicit = f.metadata.get("json")
    if explicit:
        return str(explicit)
    head, *rest = f.name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


_FieldSpec = tuple[dataclasses.Field[Any], str, Any]
_FIELDS: dict[type, tuple[_FieldSpec, ...]] = {}


def _model_namespace(cls: type) -> dict[str, Any]:
    """Names visible to the model's annotations, including the ones modules import only
    for type checking (the model's modules refer to each other's classes)."""
    import importlib
    import sys

    namespace: dict[str, Any] = {}
    for module in ("operation", "status", "application", "project", "meta"):
        namespace.update(vars(importlib.import_module(f"app.model.{module}")))
    namespace.update(vars(sys.modules[cls.__module__]))
    return namespace


def _fields(cls: type) -> tuple[_FieldSpec, ...]:
    """(field, JSON key, resolved type) of a model class, computed once per class."""
    specs = _FIELDS.get(cls)
    if specs is None:
        hints = typing.get_type_hints(cls, globalns=_model_namespace(cls))
        specs = tuple(
            (f, json_name(f), hints[f.name])
            for f in dataclasses.fields(typing.cast(Any, cls))
            if f.name != EXTRA
        )
        _FIELDS[cls] = specs
    return specs


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _expected(tp: Any) -> str:
    origin = get_origin(tp)
    if origin is list:
        return "a list"
    if origin is dict or dataclasses.is_dataclass(tp):
        return "an object"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return "one of " + ", ".join(repr(m.value) for m in tp)
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}.get(
        tp, str(tp)
    )


def _mismatch(path: str, tp: Any, value: Any) -> SpecError:
    shown = repr(value)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    return SpecError(path, f"expected {_expected(tp)}, got {_type_name(value)} {shown}")


def _decode_value(tp: Any, value: Any, path: str) -> Any:
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not _NONE_TYPE]
        if value is None:
            return None
        return _decode_value(args[0], value, path)
    if tp is Any:
        return value
    if origin is list:
        if not isinstance(value, list):
            raise _mismatch(path, tp, value)
        (item,) = get_args(tp)
        return [_decode_value(item, v, f"{path}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise _mismatch(path, tp, value)
        _, item = get_args(tp)
        return {str(k): _decode_value(item, v, f"{path}.{k}") for k, v in value.items()}
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise _mismatch(path, tp, value)
        return decode(typing.cast(type, tp), value, path)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(value)
        except ValueError:
            raise _mismatch(path, tp, value) from None
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise _mismatch(path, tp, value)
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lstrip("-").isdigit():
            return int(value)
        raise _mismatch(path, tp, value)
    if tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        raise _mismatch(path, tp, value)
    if tp is str:
        if isinstance(value, str):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        raise _mismatch(path, tp, value)
    raise TypeError(f"unsupported model type {tp!r} at {path}")


def decode(cls: type[T], data: Any, path: str = "") -> T:
    """Build `cls` from a JSON-shaped dict, raising SpecError with the field path."""
    if not isinstance(data, dict):
        raise _mismatch(path or "(document)", cls, data)
    kwargs: dict[str, Any] = {}
    known: set[str] = set()
    for f, key, tp in _fields(cls):
        known.add(key)
        sub = f"{path}.{key}" if path else key
        if key in data and data[key] is not None:
            kwargs[f.name] = _decode_value(tp, data[key], sub)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise SpecError(sub, "is required")
    if any(f.name == EXTRA for f in dataclasses.fields(typing.cast(Any, cls))):
        kwargs[EXTRA] = {k: v for k, v in data.items() if k not in known}
    obj = cls(**kwargs)
    validate = getattr(obj, "validate", None)
    if validate is not None:
        validate(path)
    return obj


def _encode_value(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return encode(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list):
        return [_encode_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode_value(v) for k, v in value.items()}
    return value


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, list | dict | str) and not value)


def encode(obj: Any) -> dict[str, Any]:
    """The JSON-shaped dict of a model object, omitting what Go's `omitempty` would omit.

    Empty strings, lists and maps, false, 0 and nested objects still at their defaults are
    left out; unknown keys are written back.

    A field marked `metadata={"keep_empty": True}` is written even when empty or false
    (for the few places where Argo CD distinguishes "set to false" from "unset").
    """
    out: dict[str, Any] = {}
    for f, key, _ in _fields(type(obj)):
        value = getattr(obj, f.name)
        if _is_empty(value) and not (f.metadata.get("keep_empty") and value is not None):
            continue
        if (value is False or (type(value) is int and value == 0)) and not f.metadata.get(
            "keep_empty"
        ):
            continue
        encoded = _encode_value(value)
        if (
            f.default_factory is not dataclasses.MISSING
            and dataclasses.is_dataclass(value)
            and encoded == _encode_value(f.default_factory())
        ):
            continue
        out[key] = encoded
    for key, value in getattr(obj, EXTRA, {}).items():
        out.setdefault(key, value)
    return out
