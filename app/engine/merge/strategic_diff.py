"""The patch `kubectl apply` (client-side) sends: a three-way strategic merge patch.

Two diffs are combined. Deletions come from the last-applied configuration (`original`)
to the new one (`modified`): only fields that this configuration once set and no longer
sets are deleted, so fields added to the live object by controllers or other tools
survive. Changes and additions come from the live object (`current`) to `modified`. A
field of the new configuration that already has its value in the live object is not in
the patch.

Lists merged by key carry `$setElementOrder/<list>` with the configuration's order and
`$patch: delete` items for removed entries; lists of scalars with the merge strategy
carry `$deleteFromPrimitiveList/<list>`; maps with the retainKeys strategy carry
`$retainKeys`. An empty patch means the live object already matches: kubectl then sends
nothing. Kinds without a strategic schema get kubectl's JSON merge patch instead.
"""

from typing import Any, Final

from app.engine.merge.directives import (
    DELETE,
    DELETE_FROM_PRIMITIVE_LIST,
    DIRECTIVE,
    RETAIN_KEYS,
    SET_ORDER,
    element_kind,
    item_key,
)
from app.engine.merge.errors import Fault, PatchError
from app.engine.merge.gvk import GroupVersionKind
from app.engine.merge.jsonvalue import MISSING, go_text, json_equal, kind_of, scalar_key
from app.engine.merge.merge_patch import create_three_way_merge_patch
from app.engine.merge.patch_strategies import root_for, supports_strategic_merge
from app.engine.merge.schema import UNTYPED, Node, PatchStrategy

_PATCH_TYPE: Final = "strategic merge patch"


def create_three_way_strategic_patch(
    original: dict[str, Any] | None,
    modified: dict[str, Any],
    current: dict[str, Any],
    gvk: GroupVersionKind,
) -> dict[str, Any]:
    """The patch that takes `current` to `modified` and deletes what `original` set and
    `modified` dropped; `original` None means there is no last-applied configuration."""
    if not supports_strategic_merge(gvk):
        return create_three_way_merge_patch(original, modified, current)
    for name, value in (("original", original or {}), ("modified", modified), ("current", current)):
        if not isinstance(value, dict):
            raise PatchError("", f"{name} must be a JSON object", patch_type=_PATCH_TYPE)
    root = root_for(gvk)
    try:
        changes = _diff_maps(current, modified, root, changes=True, deletions=False, retain=False)
        deletions = _diff_maps(
            original or {}, modified, root, changes=False, deletions=True, retain=False
        )
        return _combine(deletions, changes, root)
    except Fault as fault:
        raise fault.error(_PATCH_TYPE) from None
    except RecursionError:
        raise PatchError("", "the objects nest too deeply", patch_type=_PATCH_TYPE) from None


def _diff_maps(
    original: dict[str, Any],
    modified: dict[str, Any],
    node: Node,
    *,
    changes: bool,
    deletions: bool,
    retain: bool,
) -> dict[str, Any]:
    patch: dict[str, Any] = {}
    fields = node.fields
    for key, new in modified.items():
        old = original.get(key, MISSING)
        kind = type(new)
        if old is MISSING or kind_of(old) is not kind_of(new):
            if changes:
                patch[key] = new
            continue
        if kind is dict:
            child = fields.get(key, UNTYPED)
            _diff_map_field(key, old, new, child, patch, changes=changes, deletions=deletions)
        elif old is new:
            continue
        elif kind is list and fields.get(key, UNTYPED).strategy is PatchStrategy.MERGE:
            try:
                _diff_list(key, old, new, fields[key], patch, changes=changes, deletions=deletions)
            except Fault as fault:
                raise fault.at(key) from None
        elif changes and not json_equal(old, new):
            patch[key] = new
    if deletions:
        for key in original:
            if key not in modified:
                patch[key] = None
    if retain:
        _retain_keys(patch, original, modified)
    return patch


def _diff_map_field(
    key: str,
    old: dict[str, Any],
    new: dict[str, Any],
    node: Node,
    patch: dict[str, Any],
    *,
    changes: bool,
    deletions: bool,
) -> None:
    """The patch of one map field: the whole map when its strategy is replace, else key by
    key (nothing when unchanged)."""
    if node.strategy is PatchStrategy.REPLACE:
        if changes:
            patch[key] = new
        return
    if old is new:
        return
    try:
        sub = _diff_maps(
            old, new, node, changes=changes, deletions=deletions, retain=node.retain_keys
        )
    except Fault as fault:
        raise fault.at(key) from None
    if sub:
        patch[key] = sub


def _retain_keys(patch: dict[str, Any], original: dict[str, Any], modified: dict[str, Any]) -> None:
    """`$retainKeys` for a map whose strategy retains keys, when the patch changes it."""
    keep = [key for key, value in modified.items() if value is not None]
    if keep and (patch or any(v is not None and k not in modified for k, v in original.items())):
        patch[RETAIN_KEYS] = sorted(keep)


def _diff_list(
    key: str,
    old: list[Any],
    new: list[Any],
    node: Node,
    patch: dict[str, Any],
    *,
    changes: bool,
    deletions: bool,
) -> None:
    if not old:
        if new and changes:
            patch[key] = new
        return
    if element_kind(old, new) is dict:
        items, order = _diff_objects(old, new, node, changes=changes, deletions=deletions)
        removed: list[Any] = []
    else:
        items, removed, order = _diff_scalars(old, new, changes=changes, deletions=deletions)
    if items:
        patch[key] = items
    if removed:
        patch[DELETE_FROM_PRIMITIVE_LIST + key] = removed
    if order is not None:
        patch[SET_ORDER + key] = order


def _diff_objects(
    old: list[Any], new: list[Any], node: Node, *, changes: bool, deletions: bool
) -> tuple[list[Any], list[Any] | None]:
    merge_key = node.merge_key
    if not merge_key:
        raise Fault("this list merges scalars; its items cannot be objects")
    live: dict[tuple[str, Any], dict[str, Any]] = {}
    old_keys: list[tuple[str, Any]] = []
    for index, item in enumerate(old):
        identity = item_key(item, merge_key, index)
        old_keys.append(identity)
        live.setdefault(identity, item)
    items: list[Any] = []
    new_keys: list[tuple[str, Any]] = []
    element = node.element
    for index, item in enumerate(new):
        identity = item_key(item, merge_key, index)
        new_keys.append(identity)
        before = live.get(identity)
        if before is None:
            if changes:
                items.append(item)
        elif before is not item:
            try:
                sub = _diff_maps(
                    before,
                    item,
                    element,
                    changes=changes,
                    deletions=deletions,
                    retain=node.retain_keys,
                )
            except Fault as fault:
                raise fault.at(index) from None
            if sub:
                sub[merge_key] = item[merge_key]
                items.append(sub)
    if deletions:
        kept = set(new_keys)
        gone = {k: item[merge_key] for k, item in live.items() if k not in kept}
        for value in sorted(gone.values(), key=go_text):
            items.append({merge_key: value, DIRECTIVE: DELETE})
    same_order = old_keys == new_keys
    if new and ((changes and (items or not same_order)) or (deletions and items)):
        return items, [{merge_key: item[merge_key]} for item in new]
    return items, None


def _diff_scalars(
    old: list[Any], new: list[Any], *, changes: bool, deletions: bool
) -> tuple[list[Any], list[Any], list[Any] | None]:
    old_keys = {scalar_key(v) for v in old}
    new_keys = {scalar_key(v) for v in new}
    added: dict[tuple[str, Any], Any] = {}
    if changes:
        for value in new:
            identity = scalar_key(value)
            if identity not in old_keys:
                added.setdefault(identity, value)
    removed: dict[tuple[str, Any], Any] = {}
    if deletions:
        for value in old:
            identity = scalar_key(value)
            if identity not in new_keys:
                removed.setdefault(identity, value)
    gone = sorted(removed.values(), key=go_text)
    if new and ((deletions and gone) or (changes and not json_equal(old, new))):
        return list(added.values()), gone, new
    return list(added.values()), gone, None


def _combine(base: dict[str, Any], top: dict[str, Any], node: Node) -> dict[str, Any]:
    """The deletions patch with the changes patch merged in (they touch disjoint items)."""
    out = dict(base)
    for key, value in top.items():
        below = out.get(key, MISSING)
        child = node.child(key)
        if below is MISSING or key[:1] == "$":
            out[key] = value
        elif type(below) is dict and type(value) is dict:
            replace = child.strategy is PatchStrategy.REPLACE
            out[key] = value if replace else _combine(below, value, child)
        elif type(below) is list and type(value) is list and child.strategy is PatchStrategy.MERGE:
            order = top.get(SET_ORDER + key) or base.get(SET_ORDER + key) or []
            out[key] = _combine_lists(below, value, order, child)
        else:
            out[key] = value
    return out


def _combine_lists(below: list[Any], top: list[Any], order: list[Any], node: Node) -> list[Any]:
    """Items of both halves, one per key: patched items in the configuration's order,
    then the `$patch: delete` items."""
    merge_key = node.merge_key
    if not merge_key or element_kind(below, top) is not dict:
        present = {scalar_key(v) for v in top}
        return top + [v for v in below if scalar_key(v) not in present]
    merged: dict[tuple[str, Any], Any] = {}
    for index, item in enumerate(below):
        merged[item_key(item, merge_key, index)] = item
    for index, item in enumerate(top):
        identity = item_key(item, merge_key, index)
        earlier = merged.get(identity)
        merged[identity] = item if earlier is None else _combine(earlier, item, node.element)
    rank = {item_key(item, merge_key, index): index for index, item in enumerate(order)}
    ranked = sorted((identity for identity in merged if identity in rank), key=rank.__getitem__)
    unranked = [item for identity, item in merged.items() if identity not in rank]
    return [merged[identity] for identity in ranked] + unranked
