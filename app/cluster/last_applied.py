"""Client-side apply as kubectl does it: the last-applied annotation and the three-way patch.

The manifest applied last time is kept on the object, as JSON, in the
`kubectl.kubernetes.io/last-applied-configuration` annotation. The next apply sends a
patch computed from three versions: that previous manifest (what Sluice set before), the
new manifest, and the live object. Fields the previous manifest had and the new one lacks
are deleted; fields others added (defaults, controllers) are left alone. Built-in kinds
get a strategic merge patch, custom resources a JSON merge patch, like kubectl.
"""

import json
from typing import Any

from app.cluster.options import PatchType
from app.engine.merge import (
    GroupVersionKind,
    create_three_way_strategic_patch,
    supports_strategic_merge,
)
from app.engine.sync.csa_migration import original_from_managers
from app.model.annotations import LAST_APPLIED
from app.model.resource import KubeObject, annotations


def _without_annotation(obj: KubeObject) -> KubeObject:
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or LAST_APPLIED not in annotations(obj):
        return obj
    kept = {k: v for k, v in annotations(obj).items() if k != LAST_APPLIED}
    new_meta = {k: v for k, v in meta.items() if k != "annotations"}
    if kept:
        new_meta["annotations"] = kept
    return {**obj, "metadata": new_meta}


def annotate(obj: KubeObject) -> KubeObject:
    """A copy of `obj` whose last-applied annotation holds `obj` itself as compact JSON.

    Keys are sorted and the text ends in a newline, as kubectl writes it; any
    last-applied annotation already in `obj` is replaced, never nested.
    """
    clean = _without_annotation(obj)
    text = json.dumps(clean, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
    meta: dict[str, Any] = dict(clean.get("metadata") or {})
    meta["annotations"] = {**annotations(clean), LAST_APPLIED: text}
    return {**clean, "metadata": meta}


def previous(current: KubeObject) -> KubeObject | None:
    """The manifest applied last time, from the live object's annotation (None if absent
    or unreadable: the patch then deletes nothing, as kubectl does)."""
    text = annotations(current).get(LAST_APPLIED)
    if not isinstance(text, str) or not text:
        return None
    try:
        original = json.loads(text)
    except ValueError:
        return None
    return original if isinstance(original, dict) else None


def three_way_patch(
    modified: KubeObject, current: KubeObject, *, migrate: bool = False
) -> tuple[dict[str, Any], PatchType]:
    """The patch taking `current` to `modified` (an `annotate`d manifest), and its type.

    With `migrate` (ClientSideApplyMigration), an object without the annotation that Argo
    CD server-side applied takes as original what Argo CD's manager owns
    (`app.engine.sync.csa_migration.original_from_managers`). An empty patch means the
    live object already matches: nothing needs sending. A manifest the patch cannot be
    computed for raises `PatchError` (a ValueError).
    """
    gvk = GroupVersionKind.of(modified)
    original = previous(current)
    if original is None and migrate:
        original = original_from_managers(current)
    patch = create_three_way_strategic_patch(original, modified, current, gvk)
    return patch, PatchType.STRATEGIC if supports_strategic_merge(gvk) else PatchType.MERGE
