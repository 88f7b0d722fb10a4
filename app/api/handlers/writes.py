"""Writing an Application or AppProject the API was given to the control-plane cluster.

What of a body is written: its spec, labels, annotations and finalizers. What the server
owns (status, uid, resourceVersion, creationTimestamp, generation, managedFields) is
dropped from a body before it is created, and on an update kept from the stored object,
except a `resourceVersion` the body names: the replace then fails with 409 when someone
else changed the object since it was read.
"""

from typing import Any

from app.api.errors import Conflict
from app.api.routes import Call
from app.cluster.errors import Conflict as ClusterConflict

_SERVER_SET = ("uid", "resourceVersion", "creationTimestamp", "generation", "managedFields")
_USER_METADATA = ("labels", "annotations", "finalizers")


def writable(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` (an encoded resource) without status and the metadata the server sets."""
    doc.pop("status", None)
    meta = doc.setdefault("metadata", {})
    for key in _SERVER_SET:
        meta.pop(key, None)
    return doc


async def replace(
    call: Call[Any, Any],
    current: dict[str, Any],
    wanted: dict[str, Any],
    resource_version: str,
    what: str,
) -> dict[str, Any]:
    """Replace `current` with `wanted`'s spec and user metadata; 409 naming `what` when it
    changed since `resource_version` (when given) was read."""
    meta = dict(current.get("metadata") or {})
    for key in _USER_METADATA:
        if key in wanted["metadata"]:
            meta[key] = wanted["metadata"][key]
    if resource_version:
        meta["resourceVersion"] = resource_version
    try:
        return await call.rt.control_plane.replace(
            {**current, "metadata": meta, "spec": wanted.get("spec", {})}
        )
    except ClusterConflict:
        raise Conflict(f"{what} was changed by someone else; read it again and retry") from None
