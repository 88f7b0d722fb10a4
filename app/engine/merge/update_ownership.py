"""Ownership after a write that is not an apply (create, update, patch): operation Update.

The fields the write added or modified become the writer's (merged into its existing
Update entry for that apiVersion and subresource) and leave every other manager's set;
fields it removed leave every set. The entry's time moves only when the write changed
something. As in the API server: managedFields sent with the write replace the stored
ones when they are valid and non-empty (except on a subresource), `[]` or `[{}]` clears
them and the write is not recorded, and an existing object that has no managedFields
stays untracked until its first apply.
"""

from typing import Any

from app.engine.merge.compare import compare_objects
from app.engine.merge.errors import ManagedFieldsError, PatchError, depth_guarded
from app.engine.merge.gvk import GroupVersionKind
from app.engine.merge.managed_fields import (
    NEVER_OWNED,
    UPDATE,
    Managers,
    is_reset,
    read,
    take_ownership,
    with_managed_fields,
    without_managed_fields,
)
from app.engine.merge.patch_strategies import root_for


@depth_guarded("update")
def record_update(
    old: dict[str, Any] | None,
    new: dict[str, Any],
    *,
    manager: str,
    gvk: GroupVersionKind,
    now: str,
    subresource: str = "",
) -> dict[str, Any]:
    """`new` with its managedFields updated for a write by `manager` (old None: create).

    `now` is the RFC 3339 time recorded when the write changed fields; `subresource`
    (`status`, `scale`) is part of the manager's identity. ManagedFieldsError if the
    stored object's managedFields cannot be read.
    """
    if not manager:
        raise PatchError("", "a field manager is required: name the writer", patch_type="update")
    body, sent = without_managed_fields(new)
    if is_reset(sent):
        return body
    old_body, stored = without_managed_fields(old) if old is not None else ({}, None)
    managers = _sent_managers(sent) if not subresource else None
    if managers is None:
        managers = read(stored)
        if old is not None and not managers:
            return body
    node = root_for(gvk)
    changes = compare_objects(old_body, body, node)
    identity = (manager, UPDATE, gvk.api_version, subresource)
    changed = changes.changed - NEVER_OWNED
    take_ownership(managers, identity, changed, changes.removed)
    if changed and identity in managers:
        managers[identity].time = now
    return with_managed_fields(body, managers)


def _sent_managers(sent: Any) -> Managers | None:
    """The managedFields a write carried, if they are usable (else the stored ones count)."""
    if sent is None:
        return None
    try:
        managers = read(sent)
    except ManagedFieldsError:
        return None
    return managers or None
