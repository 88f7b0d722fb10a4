"""Applying a strategic merge patch, as the API server does for `strategic-merge-patch+json`.

Maps merge key by key and null deletes a key. Lists follow the field's strategy from
`patch_strategies`: lists of objects merge by their merge key (containers by name, ports
by containerPort, conditions by type...), lists of scalars with the merge strategy
(finalizers) are unions, every other list is replaced. Order of a merged list: the
`$setElementOrder` directive if present, else items named by the patch in the patch's
order interleaved with the live items in their live order (a new item goes before the
live items that follow no patched item, as Kubernetes does).

Where Kubernetes takes a patch value verbatim (a key absent from the live object), the
value is merged into an empty value instead, so directives and nulls inside it are
honoured rather than stored. `$patch: merge`, which the API server rejects, is accepted
as the explicit default. Kinds without a strategic schema (custom resources) are patched
as JSON merge patches.

Results share unchanged subtrees with the inputs: treat both as read-only.
"""

from typing import Any, Final

from app.engine.merge.directives import (
    DELETE,
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    MERGE,
    REPLACE,
    RETAIN_KEYS,
    SET_ORDER,
    element_kind,
    item_key,
)
from app.engine.merge.errors import Fault, PatchError, shown
from app.engine.merge.gvk import GroupVersionKind
from app.engine.merge.jsonvalue import MISSING, drop_nulls, scalar_key
from app.engine.merge.merge_patch import apply_merge_patch
from app.engine.merge.patch_strategies import root_for, supports_strategic_merge
from app.engine.merge.schema import UNTYPED, Node, PatchStrategy

_PATCH_TYPE: Final = "strategic merge patch"
_EMPTY: Final[dict[str, Any]] = {}
_NO_ITEMS: Final[list[Any]] = []


def apply_strategic_patch(
    obj: dict[str, Any], patch: dict[str, Any], gvk: GroupVersionKind
) -> dict[str, Any]:
    """`obj` with the strategic merge `patch` applied; `obj` and `patch` are not modified."""
    if not supports_strategic_merge(gvk):
        return apply_merge_patch(obj, patch)
    if not isinstance(obj, dict) or not isinstance(patch, dict):
        raise PatchError(
            "", "the object and the patch must both be JSON objects", patch_type=_PATCH_TYPE
        )
    try:
        return _merge_map(obj, patch, root_for(gvk))
    except Fault as fault:
        raise fault.error(_PATCH_TYPE) from None
    except RecursionError:
        raise PatchError("", "the patch nests too deeply", patch_type=_PATCH_TYPE) from None


def _merge_map(original: dict[str, Any], patch: dict[str, Any], node: Node) -> dict[str, Any]:
    whole = _whole_map(patch, node)
    if whole is not None:
        return whole
    result = dict(original)
    ordered, deletions = _map_directives(result, patch, node)
    fields = node.fields
    for key, value in patch.items():
        if key[:1] == "$" or key in ordered:
            continue
        if value is None:
            result.pop(key, None)
            continue
        try:
            result[key] = _merge_value(result.get(key, MISSING), value, fields.get(key, UNTYPED))
        except Fault as fault:
            raise fault.at(key) from None
    for name, values in deletions:
        try:
            _delete_from_primitive_list(result, name, values)
        except Fault as fault:
            raise fault.at(name) from None
    return result


def _whole_map(patch: dict[str, Any], node: Node) -> dict[str, Any] | None:
    """The map `$patch: replace` or `$patch: delete` makes; None to merge key by key."""
    directive = patch.get(DIRECTIVE, MISSING)
    if directive is MISSING or directive == MERGE:
        return None
    if directive == REPLACE:
        rest = {k: v for k, v in patch.items() if k != DIRECTIVE}
        return _merge_map(_EMPTY, rest, node)
    if directive == DELETE:
        return {}
    raise Fault(f"unknown $patch directive {shown(directive)}; use merge, replace or delete").at(
        DIRECTIVE
    )


def _map_directives(
    result: dict[str, Any], patch: dict[str, Any], node: Node
) -> tuple[set[str], list[tuple[str, Any]]]:
    """Carry out `$retainKeys` and `$setElementOrder/<list>` on `result`: the lists put in
    order that way, and the `$deleteFromPrimitiveList/<list>` deletions left to make."""
    ordered: set[str] = set()
    deletions: list[tuple[str, Any]] = []
    directives = [key for key in patch if key[:1] == "$"]
    if not directives:
        return ordered, deletions
    if RETAIN_KEYS in patch:
        _retain_keys(result, patch)
    for key in directives:
        if key.startswith(SET_ORDER):
            name = _directive_target(key, SET_ORDER)
            try:
                _set_element_order(result, patch, name, patch[key], node.child(name))
            except Fault as fault:
                raise fault.at(name) from None
            ordered.add(name)
        elif key.startswith(DELETE_FROM_PRIMITIVE_LIST):
            deletions.append((_directive_target(key, DELETE_FROM_PRIMITIVE_LIST), patch[key]))
        elif key not in (DIRECTIVE, RETAIN_KEYS):
            raise Fault(
                f"unknown directive {shown(key)}; strategic merge patch knows $patch, "
                "$retainKeys, $setElementOrder/<list> and $deleteFromPrimitiveList/<list>"
            )
    return ordered, deletions


def _directive_target(key: str, prefix: str) -> str:
    name = key[len(prefix) :]
    if not name:
        raise Fault(f"{prefix}<list> must name the list it applies to")
    return name


def _merge_value(current: Any, value: Any, node: Node) -> Any:
    kind = type(value)
    if kind is dict:
        if type(current) is dict and node.strategy is not PatchStrategy.REPLACE:
            return _merge_map(current, value, node)
        return _merge_map(_EMPTY, value, node)
    if kind is list:
        if node.strategy is PatchStrategy.MERGE:
            return _merge_list(current if type(current) is list else _NO_ITEMS, value, node)
        return drop_nulls(value)
    return value


def _retain_keys(result: dict[str, Any], patch: dict[str, Any]) -> None:
    keep = patch[RETAIN_KEYS]
    if type(keep) is not list or any(type(name) is not str for name in keep):
        raise Fault("$retainKeys must be a list of field names").at(RETAIN_KEYS)
    allowed = set(keep)
    for key, value in patch.items():
        if value is not None and key[:1] != "$" and key not in allowed:
            raise Fault(
                f"{key!r} is set by the patch but missing from $retainKeys; list it there"
            ).at(RETAIN_KEYS)
    for key in [key for key in result if key not in allowed]:
        del result[key]


def _merge_list(original: list[Any], patch: list[Any], node: Node) -> list[Any]:
    if not original and not patch:
        return patch
    if element_kind(original, patch) is not dict:
        return _merge_scalars(original, patch)
    merge_key = node.merge_key
    if not merge_key:
        raise Fault("this list merges scalars; its items cannot be objects")
    items, deleted, replace = _list_directives(patch, merge_key)
    element = node.element
    if replace:
        return [_merge_map(_EMPTY, item, element) for item in items]
    positions: dict[tuple[str, Any], int] = {}
    live: dict[tuple[str, Any], dict[str, Any]] = {}
    for index, item in enumerate(original):
        key = item_key(item, merge_key, index)
        positions.setdefault(key, index)
        live.setdefault(key, item)
    merged: dict[tuple[str, Any], dict[str, Any]] = {}
    for index, item in enumerate(items):
        key = item_key(item, merge_key, index)
        base = merged.get(key, MISSING)
        if base is MISSING:
            base = _EMPTY if key in deleted else live.get(key, _EMPTY)
        try:
            merged[key] = _merge_map(base, item, element)
        except Fault as fault:
            raise fault.at(index) from None
    server_only = [
        (positions[key], item)
        for key, item in live.items()
        if key not in merged and key not in deleted
    ]
    patched = [
        (-1 if key in deleted else positions.get(key, -1), item) for key, item in merged.items()
    ]
    return _interleave(server_only, patched)


def _list_directives(
    patch: list[Any], merge_key: str
) -> tuple[list[dict[str, Any]], set[tuple[str, Any]], bool]:
    """The patch's items to merge, the keys its `$patch: delete` items delete, and whether
    a `$patch: replace` item replaces the whole list."""
    items: list[dict[str, Any]] = []
    deleted: set[tuple[str, Any]] = set()
    replace = False
    for index, item in enumerate(patch):
        directive = item.get(DIRECTIVE, MISSING)
        if directive is MISSING:
            items.append(item)
        elif directive == DELETE:
            deleted.add(item_key(item, merge_key, index))
        elif directive == REPLACE:
            replace = True
        elif directive == MERGE:
            items.append({k: v for k, v in item.items() if k != DIRECTIVE})
        else:
            raise Fault(
                f"unknown $patch directive {shown(directive)}; use merge, replace or delete"
            ).at(index)
    return items, deleted, replace


def _merge_scalars(original: list[Any], patch: list[Any]) -> list[Any]:
    patched: dict[tuple[str, Any], Any] = {}
    for value in patch:
        patched.setdefault(scalar_key(value), value)
    positions: dict[tuple[str, Any], int] = {}
    server_only: list[tuple[int, Any]] = []
    for index, value in enumerate(original):
        key = scalar_key(value)
        if key in positions:
            continue
        positions[key] = index
        if key not in patched:
            server_only.append((index, value))
    return _interleave(server_only, [(positions.get(k, -1), v) for k, v in patched.items()])


def _interleave(server_only: list[tuple[int, Any]], patched: list[tuple[int, Any]]) -> list[Any]:
    """Live-only items keep their live order; patched items keep the patch order; a live
    item goes first only when it stood before the patched item in the live list."""
    out: list[Any] = []
    i = j = 0
    while i < len(server_only) and j < len(patched):
        live_at, live_item = server_only[i]
        patched_at, patched_item = patched[j]
        if 0 <= live_at < patched_at:
            out.append(live_item)
            i += 1
        else:
            out.append(patched_item)
            j += 1
    out.extend(item for _, item in server_only[i:])
    out.extend(item for _, item in patched[j:])
    return out


def _set_element_order(
    result: dict[str, Any], patch: dict[str, Any], name: str, order: Any, node: Node
) -> None:
    if type(order) is not list:
        raise Fault(f"{SET_ORDER}{name} must be a list")
    current = result.get(name, MISSING)
    value = patch.get(name, MISSING)
    for what, found in (("the live value", current), ("the patch value", value)):
        if found is not MISSING and type(found) is not list:
            raise Fault(f"{SET_ORDER}{name} orders a list, but {what} is not a list")
    if current is MISSING and value is MISSING:
        return
    merged = current if value is MISSING else _merge_value(current, value, node)
    if not merged:
        result[name] = merged
        return
    identity = _identity(element_kind(merged, order), node)
    rank = {identity(item, index): index for index, item in enumerate(order)}
    if value is not MISSING:
        _check_order(value, rank, identity, name)
    live_at: dict[tuple[str, Any], int] = {}
    if current is not MISSING:
        for index, item in enumerate(current):
            live_at.setdefault(identity(item, index), index)
    named: list[tuple[int, int, Any]] = []
    server_only: list[tuple[int, Any]] = []
    for index, item in enumerate(merged):
        key = identity(item, index)
        at = live_at.get(key, -1)
        if key in rank:
            named.append((rank[key], at, item))
        else:
            server_only.append((at, item))
    named.sort(key=lambda entry: entry[0])
    result[name] = _interleave(server_only, [(at, item) for _, at, item in named])


def _identity(kind: type, node: Node) -> Any:
    if kind is not dict:
        return lambda item, index: scalar_key(item)
    if not node.merge_key:
        raise Fault("$setElementOrder can order only lists merged by a key or lists of scalars")
    merge_key = node.merge_key
    return lambda item, index: item_key(item, merge_key, index)


def _check_order(
    value: list[Any], rank: dict[tuple[str, Any], int], identity: Any, name: str
) -> None:
    last = -1
    for index, item in enumerate(value):
        if type(item) is dict and DIRECTIVE in item:
            continue
        at = rank.get(identity(item, index), -1)
        if at <= last:
            raise Fault(
                f"the patch lists items in an order (or with items) that {SET_ORDER}{name} "
                "does not; list every patched item there, in the same order"
            )
        last = at


def _delete_from_primitive_list(result: dict[str, Any], name: str, values: Any) -> None:
    if type(values) is not list or any(type(v) in (dict, list) for v in values):
        raise Fault(f"{DELETE_FROM_PRIMITIVE_LIST}{name} must be a list of scalars")
    current = result.get(name, MISSING)
    if type(current) is not list:
        return
    if any(type(item) in (dict, list) for item in current):
        raise Fault(f"{DELETE_FROM_PRIMITIVE_LIST}{name} applies only to lists of scalars")
    drop = {scalar_key(v) for v in values}
    result[name] = [item for item in current if scalar_key(item) not in drop]
