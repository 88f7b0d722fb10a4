"""Writes to an Application resource, each as small and as guarded as it can be.

JSON patches with a `test` first: the refresh annotation and the `operation` field are
removed only if they still hold what was acted on, the finalizers replaced only if they
are still the list that was read (an app that had none gets its list unguarded), so a
user's newer write is never lost. A patch whose test fails, or whose Application is
gone, changed nothing and returns False: the watch brings the newer version, which is
handled in its turn. `status.conditions` goes through the status subresource when the
Application type has one (Argo CD's CRD has not: then through the main resource), as a
merge patch of that one field, and only when the condition shown would change
(`app.engine.app_conditions`). The watcher uses every one; the compare worker uses
`replace_finalizers` too, for the deletion hooks' finalizers.
"""

import datetime as dt
from typing import Any

from app.cluster import Cluster, Conflict, Invalid, NotFound, PatchType
from app.engine.app_conditions import with_condition, without_condition
from app.model.annotations import REFRESH
from app.model.application import API_VERSION, KIND
from app.model.resource import KubeObject, metadata
from app.model.timestamps import format_time

Operations = list[dict[str, Any]]


def _pointer(*parts: str) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


async def _patch(
    cluster: Cluster,
    obj: KubeObject,
    patch: KubeObject | Operations,
    patch_type: PatchType,
    subresource: str = "",
) -> bool:
    meta = metadata(obj)
    try:
        await cluster.patch(
            API_VERSION,
            KIND,
            str(meta.get("name")),
            patch,
            namespace=str(meta.get("namespace") or ""),
            patch_type=patch_type,
            subresource=subresource,
        )
    except (NotFound, Conflict, Invalid):
        return False
    return True


async def remove_refresh_annotation(cluster: Cluster, obj: KubeObject, value: str) -> bool:
    """Remove `argocd.argoproj.io/refresh` if it still holds `value`."""
    path = _pointer("metadata", "annotations", REFRESH)
    ops = [{"op": "test", "path": path, "value": value}, {"op": "remove", "path": path}]
    return await _patch(cluster, obj, ops, PatchType.JSON)


async def remove_operation(cluster: Cluster, obj: KubeObject, operation: Any) -> bool:
    """Remove the `operation` field if it is still the one that was started."""
    path = _pointer("operation")
    ops = [{"op": "test", "path": path, "value": operation}, {"op": "remove", "path": path}]
    return await _patch(cluster, obj, ops, PatchType.JSON)


async def replace_finalizers(
    cluster: Cluster, obj: KubeObject, current: list[str], finalizers: list[str]
) -> bool:
    """Set `metadata.finalizers` if it still is `current`. A JSON patch cannot test that a
    field is absent, so with no `current` finalizers the list is written unguarded."""
    path = _pointer("metadata", "finalizers")
    ops: Operations = [{"op": "test", "path": path, "value": current}] if current else []
    ops.append({"op": "add", "path": path, "value": finalizers})
    return await _patch(cluster, obj, ops, PatchType.JSON)


def _conditions(obj: KubeObject) -> Any:
    status = obj.get("status")
    return status.get("conditions") if isinstance(status, dict) else None


async def _set_conditions(cluster: Cluster, obj: KubeObject, conditions: list[Any]) -> bool:
    rt = await cluster.resource(API_VERSION, KIND)
    subresource = "status" if "status" in rt.subresources else ""
    patch = {"status": {"conditions": conditions}}
    return await _patch(cluster, obj, patch, PatchType.MERGE, subresource)


async def set_condition(cluster: Cluster, obj: KubeObject, kind: str, message: str) -> bool:
    """Show one `kind` condition with `message`; False if it is already shown (or the app
    is gone)."""
    now = format_time(dt.datetime.now(dt.UTC))
    conditions = with_condition(_conditions(obj), kind, message, now)
    return conditions is not None and await _set_conditions(cluster, obj, conditions)


async def clear_condition(cluster: Cluster, obj: KubeObject, kind: str) -> bool:
    """Remove the `kind` condition; False if there is none (or the app is gone)."""
    conditions = without_condition(_conditions(obj), kind)
    return conditions is not None and await _set_conditions(cluster, obj, conditions)
