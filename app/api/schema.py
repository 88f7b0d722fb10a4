"""Request and response shapes as dataclasses: their JSON Schema and their strict decoding.

The OpenAPI document (`openapi.py`) is generated from the same dataclasses the handlers
decode requests into and encode responses from, so the document cannot drift from what
the server accepts. JSON names are the camelCase of the field names (or a field's
`metadata={"json": ...}`), exactly as `app.model.codec` spells the Argo CD model.

Field metadata the schema and the decoder both honour: `doc` (description), `max_length`,
`pattern`, `max_items`, `minimum`, `maximum`. A model class with an `extra` field accepts
unknown keys (Argo CD's forward compatibility); the API's own request types do not:
an unknown field is an error naming it, so a typo never passes as "not set".
"""

import dataclasses
import enum
import functools
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar, get_args, get_origin

from app.model.codec import EXTRA, json_name

T = TypeVar("T")
_NONE = type(None)


class DecodeError(ValueError):
    """A request that does not fit its shape: `field` is the JSON path, `problem` what to fix."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


@functools.cache
def fields_of(cls: type) -> tuple[tuple[dataclasses.Field[Any], str, Any], ...]:
    """(field, JSON name, resolved type) of a dataclass, `extra` left out."""
    hints = typing.get_type_hints(cls)
    return tuple(
        (f, json_name(f), hints[f.name])
        for f in dataclasses.fields(typing.cast(Any, cls))
        if f.name != EXTRA
    )


def open_ended(cls: type) -> bool:
    """Whether the class keeps unknown keys (model classes with `extra`)."""
    return any(f.name == EXTRA for f in dataclasses.fields(typing.cast(Any, cls)))


def required(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def _optional(tp: Any) -> tuple[Any, bool]:
    if get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not _NONE]
        return args[0], len(args) < len(get_args(tp))
    return tp, False


class SchemaBuilder:
    """JSON Schema (OpenAPI 3.0 dialect) of types, dataclasses collected as components."""

    def __init__(self) -> None:
        self.components: dict[str, dict[str, Any]] = {}
        self._names: dict[type, str] = {}

    def schema(self, tp: Any, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
        inner, nullable = _optional(tp)
        out = self._schema(inner, meta or {})
        if nullable:
            out = {"allOf": [out], "nullable": True} if "$ref" in out else {**out, "nullable": True}
        doc = (meta or {}).get("doc")
        if doc:
            out = (
                {"allOf": [out], "description": doc}
                if "$ref" in out
                else {**out, "description": doc}
            )
        return out

    def _schema(self, tp: Any, meta: Mapping[str, Any]) -> dict[str, Any]:
        origin = get_origin(tp)
        if tp is Any:
            return {}
        if origin is Literal:
            return {"type": "string", "enum": list(get_args(tp))}
        if origin is list:
            (item,) = get_args(tp)
            out: dict[str, Any] = {"type": "array", "items": self.schema(item)}
            if "max_items" in meta:
                out["maxItems"] = meta["max_items"]
            return out
        if origin is dict:
            _, value = get_args(tp)
            return {"type": "object", "additionalProperties": self.schema(value)}
        if dataclasses.is_dataclass(tp):
            return {"$ref": f"#/components/schemas/{self._component(typing.cast(type, tp))}"}
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return {"type": "string", "enum": [m.value for m in tp]}
        return _scalar_schema(tp, meta)

    def _component(self, cls: type) -> str:
        name = self._names.get(cls)
        if name is not None:
            return name
        name = cls.__name__
        if name in self.components:
            name = f"{cls.__module__.rsplit('.', 1)[-1]}.{name}"
        self._names[cls] = name
        self.components[name] = {}
        properties = {key: self.schema(tp, f.metadata) for f, key, tp in fields_of(cls)}
        body: dict[str, Any] = {"type": "object", "properties": properties}
        needed = [key for f, key, _ in fields_of(cls) if required(f)]
        if needed:
            body["required"] = needed
        if not open_ended(cls):
            body["additionalProperties"] = False
        if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}("):
            body["description"] = cls.__doc__.strip().splitlines()[0]
        self.components[name] = body
        return name


def _scalar_schema(tp: Any, meta: Mapping[str, Any]) -> dict[str, Any]:
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return _limits({"type": "integer"}, meta)
    if tp is float:
        return _limits({"type": "number"}, meta)
    if tp is str:
        out: dict[str, Any] = {"type": "string"}
        if "max_length" in meta:
            out["maxLength"] = meta["max_length"]
        if "pattern" in meta:
            out["pattern"] = meta["pattern"]
        return out
    raise TypeError(f"no JSON Schema for {tp!r}")


def _limits(out: dict[str, Any], meta: Mapping[str, Any]) -> dict[str, Any]:
    if "minimum" in meta:
        out["minimum"] = meta["minimum"]
    if "maximum" in meta:
        out["maximum"] = meta["maximum"]
    return out


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_number(value: float, meta: Mapping[str, Any], path: str) -> None:
    if "minimum" in meta and value < meta["minimum"]:
        raise DecodeError(path, f"must be at least {meta['minimum']}, got {value}")
    if "maximum" in meta and value > meta["maximum"]:
        raise DecodeError(path, f"must be at most {meta['maximum']}, got {value}")


def _value(tp: Any, value: Any, path: str, meta: Mapping[str, Any]) -> Any:
    inner, nullable = _optional(tp)
    if value is None:
        if nullable:
            return None
        raise DecodeError(path, "must not be null")
    origin = get_origin(inner)
    if inner is Any:
        return value
    if origin is Literal:
        if value not in get_args(inner):
            raise DecodeError(path, f"expected one of {', '.join(map(repr, get_args(inner)))}")
        return value
    if origin is list:
        return _list_value(inner, value, path, meta)
    if origin is dict:
        if not isinstance(value, dict):
            raise DecodeError(path, f"expected an object, got {_shown(value)}")
        _, item = get_args(inner)
        return {str(k): _value(item, v, f"{path}.{k}", {}) for k, v in value.items()}
    if dataclasses.is_dataclass(inner):
        return decode(typing.cast(type, inner), value, path)
    if isinstance(inner, type) and issubclass(inner, enum.Enum):
        return _enum_value(inner, value, path)
    scalar = _SCALARS.get(inner)
    if scalar is None:
        raise TypeError(f"cannot decode {inner!r} at {path}")
    return scalar(value, path, meta)


def _list_value(tp: Any, value: Any, path: str, meta: Mapping[str, Any]) -> list[Any]:
    if not isinstance(value, list):
        raise DecodeError(path, f"expected a list, got {_shown(value)}")
    if "max_items" in meta and len(value) > meta["max_items"]:
        raise DecodeError(path, f"at most {meta['max_items']} items, got {len(value)}")
    (item,) = get_args(tp)
    return [_value(item, v, f"{path}[{i}]", {}) for i, v in enumerate(value)]


def _enum_value(tp: type[enum.Enum], value: Any, path: str) -> enum.Enum:
    try:
        return tp(value)
    except ValueError:
        names = ", ".join(repr(m.value) for m in tp)
        raise DecodeError(path, f"expected one of {names}, got {_shown(value)}") from None


def _bool_value(value: Any, path: str, _meta: Mapping[str, Any]) -> bool:
    if isinstance(value, bool):
        return value
    raise DecodeError(path, f"expected true or false, got {_shown(value)}")


def _int_value(value: Any, path: str, meta: Mapping[str, Any]) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        _check_number(value, meta, path)
        return value
    raise DecodeError(path, f"expected an integer, got {_shown(value)}")


def _float_value(value: Any, path: str, meta: Mapping[str, Any]) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        _check_number(value, meta, path)
        return float(value)
    raise DecodeError(path, f"expected a number, got {_shown(value)}")


def _str_value(value: Any, path: str, meta: Mapping[str, Any]) -> str:
    if not isinstance(value, str):
        raise DecodeError(path, f"expected a string, got {_shown(value)}")
    if "max_length" in meta and len(value) > meta["max_length"]:
        raise DecodeError(path, f"at most {meta['max_length']} characters")
    if "pattern" in meta and not re.search(meta["pattern"], value):
        raise DecodeError(path, f"{_shown(value)} does not match {meta['pattern']}")
    return value


_SCALARS: dict[Any, Callable[[Any, str, Mapping[str, Any]], Any]] = {
    bool: _bool_value,
    int: _int_value,
    float: _float_value,
    str: _str_value,
}


def decode(cls: type[T], data: Any, path: str = "") -> T:
    """`data` (parsed JSON) as `cls`; DecodeError names the first field at fault."""
    where = path or "(body)"
    if not isinstance(data, dict):
        raise DecodeError(where, f"expected a JSON object, got {_shown(data)}")
    known = {key for _, key, _ in fields_of(typing.cast(type, cls))}
    for key in data:
        if key not in known and not open_ended(typing.cast(type, cls)):
            listed = ", ".join(sorted(known)) or "none"
            raise DecodeError(f"{path}.{key}" if path else key, f"unknown field (known: {listed})")
    kwargs: dict[str, Any] = {}
    for f, key, tp in fields_of(typing.cast(type, cls)):
        sub = f"{path}.{key}" if path else key
        if key in data:
            kwargs[f.name] = _value(tp, data[key], sub, f.metadata)
        elif required(f):
            raise DecodeError(sub, "is required")
    return cls(**kwargs)


def _query_value(tp: Any, text: str, name: str, meta: Mapping[str, Any]) -> Any:
    tp, _ = _optional(tp)
    if tp is bool:
        lowered = text.strip().lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no", ""):
            return False
        raise DecodeError(name, f"expected true or false, got {_shown(text)}")
    if tp is int:
        try:
            number = int(text)
        except ValueError:
            raise DecodeError(name, f"expected an integer, got {_shown(text)}") from None
        _check_number(number, meta, name)
        return number
    return _value(tp, text, name, meta)


def decode_query(
    cls: type[T], query: Mapping[str, str], getall: typing.Callable[[str], list[str]]
) -> T:
    """Query parameters as `cls` (unknown parameters are ignored, as HTTP caches add some)."""
    kwargs: dict[str, Any] = {}
    for f, key, tp in fields_of(typing.cast(type, cls)):
        if key not in query:
            if required(f):
                raise DecodeError(key, "query parameter is required")
            continue
        inner, _ = _optional(tp)
        if get_origin(inner) is list:
            (item,) = get_args(inner)
            values = getall(key)
            if "max_items" in f.metadata and len(values) > f.metadata["max_items"]:
                raise DecodeError(key, f"at most {f.metadata['max_items']} values")
            kwargs[f.name] = [_query_value(item, v, key, f.metadata) for v in values]
        else:
            kwargs[f.name] = _query_value(tp, query[key], key, f.metadata)
    return cls(**kwargs)
