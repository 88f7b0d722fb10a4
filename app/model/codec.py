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
from collections.abc import Callable
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


def _fields(cls: type) -> tuple[_FieldSpec, ...]:
    """(field, JSON key, resolved type) of a model class, computed once per class."""
    specs = _FIELDS.get(cls)
    if specs is None:
        hints = typing.get_type_hints(cls)
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


_Decoder = Callable[[Any, str], Any]
_DECODERS: dict[Any, _Decoder] = {}


def _decoder(tp: Any) -> _Decoder:
    """The function decoding values of type `tp`, built once per type, so that decoding
    does no reflection (`get_origin`, `get_args`, `is_dataclass`) per value."""
    found = _DECODERS.get(tp)
    if found is None:
        found = _DECODERS[tp] = _build_decoder(tp)
    return found


def _build_decoder(tp: Any) -> _Decoder:
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        inner = _decoder(next(a for a in get_args(tp) if a is not _NONE_TYPE))
        return lambda value, path: None if value is None else inner(value, path)
    if tp is Any:
        return lambda value, path: value
    if origin is list:
        return _list_decoder(tp, _decoder(get_args(tp)[0]))
    if origin is dict:
        return _dict_decoder(tp, _decoder(get_args(tp)[1]))
    if dataclasses.is_dataclass(tp):
        return _model_decoder(typing.cast(type, tp))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_decoder(tp)
    scalar = _SCALARS.get(tp)
    if scalar is None:
        raise TypeError(f"unsupported model type {tp!r}")
    return scalar


def _list_decoder(tp: Any, item: _Decoder) -> _Decoder:
    def decode_list(value: Any, path: str) -> Any:
        if not isinstance(value, list):
            raise _mismatch(path, tp, value)
        return [item(v, f"{path}[{i}]") for i, v in enumerate(value)]

    return decode_list


def _dict_decoder(tp: Any, entry: _Decoder) -> _Decoder:
    def decode_dict(value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise _mismatch(path, tp, value)
        return {str(k): entry(v, f"{path}.{k}") for k, v in value.items()}

    return decode_dict


def _model_decoder(cls: type) -> _Decoder:
    def decode_model(value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise _mismatch(path, cls, value)
        return decode(cls, value, path)

    return decode_model


def _enum_decoder(tp: type[enum.Enum]) -> _Decoder:
    def decode_enum(value: Any, path: str) -> Any:
        try:
            return tp(value)
        except ValueError:
            raise _mismatch(path, tp, value) from None

    return decode_enum


def _decode_bool(value: Any, path: str) -> Any:
    if isinstance(value, bool):
        return value
    raise _mismatch(path, bool, value)


def _decode_int(value: Any, path: str) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    raise _mismatch(path, int, value)


def _decode_float(value: Any, path: str) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise _mismatch(path, float, value)


def _decode_str(value: Any, path: str) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise _mismatch(path, str, value)


_SCALARS: dict[Any, _Decoder] = {
    bool: _decode_bool,
    int: _decode_int,
    float: _decode_float,
    str: _decode_str,
}
_NO_DEFAULT = object()


@dataclasses.dataclass(frozen=True, slots=True)
class _Plan:
    """How to decode and encode one model class, worked out once per class."""

    decoding: tuple[tuple[str, str, _Decoder, bool], ...]
    """(attribute, JSON key, decoder, required) of every field but `extra`."""
    keys: frozenset[str]
    """The JSON keys of those fields (the rest of a document goes to `extra`)."""
    has_extra: bool
    encoding: tuple[tuple[str, str, bool, Any], ...]
    """(attribute, JSON key, keep_empty, what the field's default model encodes to, or
    _NO_DEFAULT when its default is not a model)."""


_PLANS: dict[type, _Plan] = {}


def _plan(cls: type) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        specs = _fields(cls)
        decoding = tuple(
            (
                f.name,
                key,
                _decoder(tp),
                f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
            )
            for f, key, tp in specs
        )
        encoding = tuple(
            (f.name, key, bool(f.metadata.get("keep_empty")), _encoded_default(f))
            for f, key, _ in specs
        )
        plan = _PLANS[cls] = _Plan(
            decoding,
            frozenset(key for _, key, _ in specs),
            any(f.name == EXTRA for f in dataclasses.fields(typing.cast(Any, cls))),
            encoding,
        )
    return plan


def _encoded_default(f: dataclasses.Field[Any]) -> Any:
    """What a field's default model encodes to (a value encoding the same is omitted)."""
    if f.default_factory is dataclasses.MISSING:
        return _NO_DEFAULT
    default = f.default_factory()
    if not dataclasses.is_dataclass(default):
        return _NO_DEFAULT
    return _encode_value(default)


def decode(cls: type[T], data: Any, path: str = "") -> T:
    """Build `cls` from a JSON-shaped dict, raising SpecError with the field path."""
    if not isinstance(data, dict):
        raise _mismatch(path or "(document)", cls, data)
    plan = _plan(cls)
    kwargs: dict[str, Any] = {}
    for name, key, decoder, required in plan.decoding:
        value = data.get(key)
        if value is not None:
            kwargs[name] = decoder(value, f"{path}.{key}" if path else key)
        elif required:
            raise SpecError(f"{path}.{key}" if path else key, "is required")
    if plan.has_extra:
        kwargs[EXTRA] = {k: v for k, v in data.items() if k not in plan.keys}
    obj = cls(**kwargs)
    validate = getattr(obj, "validate", None)
    if validate is not None:
        validate(path)
    return obj


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _encode_value(value: Any) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is list:
        return [_encode_value(v) for v in value]
    if kind is dict:
        return {k: _encode_value(v) for k, v in value.items()}
    if hasattr(kind, "__dataclass_fields__"):
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
    for name, key, keep_empty, default in _plan(type(obj)).encoding:
        value = getattr(obj, name)
        if _is_empty(value) and not (keep_empty and value is not None):
            continue
        if (value is False or (type(value) is int and value == 0)) and not keep_empty:
            continue
        encoded = _encode_value(value)
        if default is not _NO_DEFAULT and encoded == default:
            continue
        out[key] = encoded
    for key, value in getattr(obj, EXTRA, {}).items():
        out.setdefault(key, value)
    return out
