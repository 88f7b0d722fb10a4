"""Helm's `--set` placed into the values the way `helm template --set` places it.

Helm parses each `--set name=value` into the values it has so far (value files first):
`a.b=x` keeps `a`'s other keys; `a[1]=x` replaces one element of an existing list and
keeps the others (a shorter list grows, with nulls); `a[0].b=y` sets a key of that
element (a fresh map when the element is not one); `a[1][0]=z` reaches into a nested
list. The parsing stays Helm's own (the `helm-python-sdk` parser, in the render child);
this module only places what it parsed.

That parser parses into an empty map, where an index the assignment skips and an
explicit `null` both come back as None. So where an assignment lands comes from a
second parse of `name=x` (its `shape`): its leaves are the strings the assignment sets,
its None the indexes it skips; the value at each leaf comes from the real parse.

Where Helm's parser fails on the values it is given (`a.b=x` when `a` is a string or
null, `a[0]=x` when `a` is not a list) `SetError` names the parameter and the key, as
`helm template` refuses it too.
"""

from typing import Any

_MISSING = object()


class SetError(ValueError):
    """An assignment reaches inside a value that is not a map or list."""


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    return "a map"


def _refuse(what: str, path: str, value: Any, wanted: str) -> SetError:
    return SetError(
        f"{what}: the values hold {path!r} as {_kind(value)}, not {wanted}, so the "
        f"assignment cannot reach inside it; set {path!r} itself, or make it {wanted} "
        "in the values"
    )


def set_into(
    values: dict[str, Any], shape: dict[str, Any], parsed: dict[str, Any], what: str
) -> None:
    """Place the assignment Helm parsed as `parsed` (and as `shape` from `name=x`) into
    `values`, in place; `what` names the parameter in a SetError."""
    _into_map(values, shape, parsed, what, "")


def _into_map(
    target: dict[str, Any], shape: dict[str, Any], parsed: dict[str, Any], what: str, path: str
) -> None:
    for key, sub in shape.items():
        here = f"{path}.{key}" if path else key
        current = target.get(key, _MISSING)
        if isinstance(sub, dict):
            if current is _MISSING:
                current = target[key] = {}
            elif not isinstance(current, dict):
                raise _refuse(what, here, current, "a map")
            _into_map(current, sub, parsed[key], what, here)
        elif isinstance(sub, list):
            if current is _MISSING:
                current = target[key] = []
            elif not isinstance(current, list):
                raise _refuse(what, here, current, "a list")
            _into_list(current, sub, parsed[key], what, here)
        else:
            target[key] = parsed[key]


def _into_list(
    target: list[Any], shape: list[Any], parsed: list[Any], what: str, path: str
) -> None:
    for index, sub in enumerate(shape):
        if sub is None:
            continue
        here = f"{path}[{index}]"
        if len(target) <= index:
            target.extend([None] * (index + 1 - len(target)))
        current = target[index]
        if isinstance(sub, dict):
            if not isinstance(current, dict):
                current = target[index] = {}
            _into_map(current, sub, parsed[index], what, here)
        elif isinstance(sub, list):
            if current is None:
                current = target[index] = []
            elif not isinstance(current, list):
                raise _refuse(what, here, current, "a list")
            _into_list(current, sub, parsed[index], what, here)
        else:
            target[index] = parsed[index]
