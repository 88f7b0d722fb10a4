"""JSON values as Python holds them, compared and ordered the way Go's code does.

Kubernetes decodes JSON into Go interfaces: every number is one kind (1 and 1.0 are
equal), booleans are never numbers, and strategic merge sorts scalars by their `%v`
text. Python's `==` treats `True == 1`, so equality here is written out; everything
else is plain dict/list/str/int/float/bool/None.
"""

import enum
from typing import Any, Final


class Missing(enum.Enum):
    """A key that is absent, as opposed to present with the value null."""

    MISSING = enum.auto()


MISSING: Final = Missing.MISSING

_CONTAINERS: Final = (dict, list)


def kind_of(value: Any) -> type:
    """The JSON kind: dict, list, str, bool, float (every number) or NoneType."""
    t = type(value)
    return float if t is int else t


def json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values: numbers by value, booleans never equal to numbers."""
    if a is b:
        return True
    ta = type(a)
    tb = type(b)
    if ta is dict:
        if tb is not dict or len(a) != len(b):
            return False
        for key, value in a.items():
            other = b.get(key, MISSING)
            if other is MISSING or not json_equal(value, other):
                return False
        return True
    if ta is list:
        if tb is not list or len(a) != len(b):
            return False
        return all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if ta is str or tb is str or ta is bool or tb is bool:
        return ta is tb and a == b
    if tb is dict or tb is list:
        return False
    return bool(a == b)


def scalar_key(value: Any) -> tuple[str, Any]:
    """A hashable identity of a scalar that keeps 1 == 1.0 and True != 1."""
    t = type(value)
    if t is bool:
        return ("b", value)
    if t is int or t is float:
        return ("n", float(value))
    return ("s", value) if t is str else ("z", None)


def go_text(value: Any) -> str:
    """Go's `%v` text of a scalar: how strategic merge sorts scalars and merge keys."""
    t = type(value)
    if t is str:
        return str(value)
    if t is bool:
        return "true" if value else "false"
    if value is None:
        return "<nil>"
    if t is float and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def drop_nulls(value: Any) -> Any:
    """`value` without null map entries at any depth; the same object if it has none."""
    t = type(value)
    if t is dict:
        changed = False
        out: dict[str, Any] = {}
        for key, item in value.items():
            if item is None:
                changed = True
                continue
            new = drop_nulls(item) if type(item) in _CONTAINERS else item
            changed = changed or new is not item
            out[key] = new
        return out if changed else value
    if t is list:
        items = [drop_nulls(item) if type(item) in _CONTAINERS else item for item in value]
        if any(new is not old for new, old in zip(items, value, strict=True)):
            return items
    return value
