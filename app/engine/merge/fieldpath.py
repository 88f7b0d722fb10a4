"""Path elements of field sets, spelled as managedFields' FieldsV1 spells them.

A FieldsV1 key names one step down an object: `f:replicas` (a field), `k:{"name":"web"}`
(the item of a list merged by key, its key fields sorted by name), `v:"finalizer"` (an
item of a set of scalars) or `i:3` (a list index). `.` marks that the node itself, not
only what is below it, belongs to the set. Keys and values are canonical JSON (compact,
sorted, integral numbers without a fraction) so sets read from an API server and sets
computed here compare equal.

Conflicts and errors print paths the way the API server does: `.spec.replicas`,
`.spec.containers[name="web"].image`, `.metadata.finalizers[="x"]`.
"""

import functools
import json
from typing import Any, Final

from app.engine.merge.errors import Fault, shown
from app.engine.merge.schema import ListType, Node

MEMBER: Final = "."
FIELD: Final = "f:"
KEY: Final = "k:"
VALUE: Final = "v:"
INDEX: Final = "i:"
_RANK: Final = {FIELD: 0, KEY: 1, VALUE: 2, INDEX: 3}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _plain(value: Any) -> Any:
    if type(value) is float and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


def value_element(value: Any) -> str:
    """The element of a set item: `v:"x"`."""
    return VALUE + _json(_plain(value))


def key_element(item: dict[str, Any], node: Node) -> str:
    """The element of an item of a list merged by key: `k:{"name":"x"}`.

    A Fault if a key field is missing and has no schema default, as the API server says.
    """
    fields: dict[str, Any] = {}
    for name in node.keys:
        value = item.get(name, node.key_defaults.get(name))
        if value is None:
            raise Fault(
                f"the item omits key field {name!r} (and it has no default); "
                f"items of this list are identified by {', '.join(node.keys)}"
            )
        if type(value) in (dict, list):
            raise Fault(f"key field {name!r} must be a string or number, got {shown(value)}")
        fields[name] = value
    return keyed(fields)


def keyed(fields: dict[str, Any]) -> str:
    """The `k:` element of the given key field values."""
    return KEY + _json({name: _plain(value) for name, value in fields.items()})


def item_element(item: Any, node: Node, index: int) -> str:
    """The element of a list item for comparing live objects: by key, by value, else by
    index (live lists may hold items a strict apply would refuse)."""
    if node.list_type is ListType.SET and type(item) not in (dict, list):
        return value_element(item)
    if node.list_type is ListType.MAP and type(item) is dict:
        try:
            return key_element(item, node)
        except Fault:
            return INDEX + str(index)
    return INDEX + str(index)


@functools.lru_cache(maxsize=8192)
def canonical_element(element: str) -> str:
    """A FieldsV1 key in canonical form; a Fault if it is not one."""
    prefix = element[:2]
    if prefix == FIELD:
        return element
    body = element[2:]
    try:
        if prefix == KEY:
            fields = json.loads(body)
            if type(fields) is not dict or not fields:
                raise ValueError("not an object")
            if any(type(v) in (dict, list) for v in fields.values()):
                raise ValueError("key values must be scalars")
            return KEY + _json({k: _plain(v) for k, v in fields.items()})
        if prefix == VALUE:
            return VALUE + _json(_plain(json.loads(body)))
        if prefix == INDEX and body.isdigit():
            return INDEX + str(int(body))
    except ValueError:
        pass
    raise Fault(
        f"{shown(element)} is not a field path element: expected f:<name>, k:<json object>, "
        "v:<json value>, i:<index> or '.'"
    )


def sort_key(element: str) -> tuple[int, str]:
    """The API server's order: fields, then keyed items, then values, then indexes."""
    prefix = element[:2]
    if prefix == INDEX:
        return (3, element[2:].rjust(20, "0"))
    return (_RANK.get(prefix, 4), element[2:])


def describe(element: str) -> str:
    """The API server's spelling of one step: `.name`, `[name="x"]`, `[="x"]`, `[3]`."""
    prefix, body = element[:2], element[2:]
    if prefix == FIELD:
        return "." + body
    if prefix == KEY:
        fields = json.loads(body)
        return "[" + ",".join(f"{k}={_json(v)}" for k, v in fields.items()) + "]"
    if prefix == VALUE:
        return f"[={body}]"
    return f"[{body}]"


@functools.lru_cache(maxsize=1024)
def key_names(element: str) -> tuple[str, ...]:
    """The key field names a canonical `k:` element uses."""
    return tuple(json.loads(element[2:]))
