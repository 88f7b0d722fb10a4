"""Server-side apply: merging a manager's configuration and recording who owns what.

One apply, in the API server's order:
1. The configuration's field set (from `FieldSet.from_object`) becomes the manager's
   Apply entry: it owns exactly what it applies, no more.
2. The configuration is merged into the live object (`typed_merge`).
3. Fields the manager applied last time and no longer applies are removed, unless
   another manager (or this configuration) owns them or something below them.
4. Fields other managers own whose value this apply adds or changes are conflicts:
   without force the apply fails with all of them (`ApplyConflict`, the API server's
   409 causes); with force they move to this manager. Applying a value equal to the
   live one is no conflict: both managers then share the field.
5. Fields the apply removed leave every other manager's set.

An object that exists but has no managedFields is first given a `before-first-apply`
Update entry owning all its fields, so applying to an object that another tool created
conflicts instead of silently taking it over.
"""

from typing import Any, Final

from app.engine.merge.compare import compare_objects
from app.engine.merge.errors import ApplyConflict, Conflict, Fault, PatchError, depth_guarded
from app.engine.merge.fieldpath import FIELD, MEMBER
from app.engine.merge.fieldset import FieldSet, Tree, fields_of, is_member, remove_paths
from app.engine.merge.gvk import GroupVersionKind
from app.engine.merge.jsonvalue import drop_nulls
from app.engine.merge.managed_fields import (
    APPLY,
    BEFORE_FIRST_APPLY,
    NEVER_OWNED,
    UPDATE,
    Entry,
    Identity,
    Managers,
    read,
    take_ownership,
    with_managed_fields,
    without_managed_fields,
)
from app.engine.merge.patch_strategies import root_for
from app.engine.merge.schema import Node
from app.engine.merge.typed_merge import Nulls, merge_object

_PATCH_TYPE: Final = "server-side apply"


@depth_guarded(_PATCH_TYPE)
def server_side_apply(
    live: dict[str, Any] | None,
    applied: dict[str, Any],
    *,
    manager: str,
    force: bool,
    gvk: GroupVersionKind,
    now: str,
    subresource: str = "",
    reset: FieldSet | None = None,
) -> dict[str, Any]:
    """The object after `manager` applies `applied` to `live` (None: create it).

    `now` is the RFC 3339 time recorded on changed entries. `subresource` names the
    endpoint (`status`) as part of the manager's identity. `reset` are fields this
    endpoint never takes from a configuration (the API server's reset fields, such as
    `status` on the main resource of a kind with a status subresource): they keep their
    live values and nobody gains them. Raises ApplyConflict (see the module docstring)
    and PatchError for a configuration the API server would refuse.
    """
    _check(applied, manager)
    node = root_for(gvk)
    if reset:
        applied = reset.remove_from(applied)
    claimed = fields_of(applied, node) - NEVER_OWNED
    body, raw = without_managed_fields(live) if live is not None else ({}, None)
    managers = read(raw)
    if live is not None and not managers:
        _before_first_apply(managers, body, node, gvk, now)
    nulls = Nulls()
    try:
        merged = merge_object(body, applied, node, nulls)
    except Fault as fault:
        raise fault.error(_PATCH_TYPE) from None
    identity = (manager, APPLY, "", subresource)
    previous = managers.get(identity)
    managers[identity] = Entry(
        manager, APPLY, gvk.api_version, claimed, previous.time if previous else None, subresource
    )
    if previous is not None and previous.fields:
        merged = _prune(merged, previous.fields, managers, node)
    changes = compare_objects(body, merged, node)
    changed = changes.changed
    _settle_conflicts(managers, identity, changed, force=force)
    for key, entry in managers.items():
        if key != identity:
            entry.fields = entry.fields - changes.removed
    for key in [key for key, entry in managers.items() if not entry.fields]:
        del managers[key]
    if identity in managers and (previous is None or changes or previous.fields != claimed):
        managers[identity].time = now
    if nulls.seen:
        merged = drop_nulls(merged)
    return with_managed_fields(merged, managers)


def _check(applied: Any, manager: str) -> None:
    if not isinstance(applied, dict):
        raise PatchError("", "the configuration must be a JSON object", patch_type=_PATCH_TYPE)
    if not manager:
        raise PatchError(
            "",
            "a field manager is required: name the applier (fieldManager)",
            patch_type=_PATCH_TYPE,
        )
    meta = applied.get("metadata")
    if isinstance(meta, dict) and meta.get("managedFields") is not None:
        raise PatchError(
            "metadata.managedFields",
            "must be nil in an applied configuration; remove it",
            patch_type=_PATCH_TYPE,
        )


def _before_first_apply(
    managers: Managers, body: dict[str, Any], node: Node, gvk: GroupVersionKind, now: str
) -> None:
    existing = compare_objects({}, body, node)
    identity = (BEFORE_FIRST_APPLY, UPDATE, gvk.api_version, "")
    take_ownership(managers, identity, existing.changed - NEVER_OWNED, FieldSet())
    if identity in managers:
        managers[identity].time = now


def _prune(
    merged: dict[str, Any], last: FieldSet, managers: Managers, node: Node
) -> dict[str, Any]:
    """Remove what the manager applied before and nobody owns now."""
    owned = FieldSet()
    for entry in managers.values():
        owned = owned | entry.fields
    stale = FieldSet(_named_fields_as_members(last.tree)) - FieldSet(
        _named_fields_as_members(owned.tree)
    )
    return remove_paths(merged, stale.tree, node) if stale else merged


def _named_fields_as_members(tree: Tree) -> Tree:
    """The set plus every field that has members below it: owning `spec.a.b` keeps
    `spec.a` (a field) from being pruned, but not a list item around it."""
    out: Tree = {}
    for element, sub in tree.items():
        child = _named_fields_as_members(sub) if sub else sub
        if element.startswith(FIELD) and child and not is_member(child):
            child = {MEMBER: {}, **child}
        out[element] = child
    return out


def _settle_conflicts(
    managers: Managers,
    identity: Identity,
    changed: FieldSet,
    *,
    force: bool,
) -> None:
    conflicts: list[Conflict] = []
    taken: list[tuple[Entry, FieldSet]] = []
    for key, entry in managers.items():
        if key == identity:
            continue
        overlap = entry.fields & changed
        if overlap:
            taken.append((entry, overlap))
            conflicts.extend(
                Conflict(entry.manager, path, entry.operation, entry.api_version, entry.subresource)
                for path in overlap.paths()
            )
    if not conflicts:
        return
    if not force:
        conflicts.sort(key=lambda c: (c.manager, c.operation, c.subresource))
        raise ApplyConflict(conflicts)
    for entry, overlap in taken:
        entry.fields = entry.fields - overlap
