"""Kubernetes Events on the Application: which Sluice event becomes which core/v1 Event.

Argo CD records its decisions as core/v1 Events whose `involvedObject` is the
Application, with a small set of reasons (`StatusRefreshed`, `ResourceCreated`,
`ResourceUpdated`, `ResourceDeleted`, `ResourceActionRan`, `OperationStarted`,
`OperationCompleted`) and messages alerts match on. This module maps Sluice's own event
stream (`sluice.events.<app>.<type>`) onto those, word for word:

Sluice event -> reason (type): message

- out-of-sync, synced, sync-unknown -> ResourceUpdated (Normal):
  `Updated sync status: OutOfSync -> Synced`
- health-changed -> ResourceUpdated (Normal): `Updated health status: Progressing -> Healthy`
- operation-started -> OperationStarted (Normal): `Initiated automated sync to '<rev>'`, or
  `<user> initiated [partial ]sync to <rev>`
- operation-succeeded -> OperationCompleted (Normal):
  `Sync operation to <rev> succeeded` (`Partial sync operation ...` for a selective sync)
- operation-failed -> OperationCompleted (Warning): `Sync operation to <rev> failed: <msg>`
- created -> ResourceCreated (Normal): `created application`
- deletion-started, or deleted with no deletion seen first -> ResourceDeleted (Normal):
  `deleted application`

A status seen for the first time has an empty "from", as in Argo CD (`Updated health
status:  -> Healthy`). Other events (hook phases, skipped auto-syncs) have no Event.

Unlike Argo CD, which writes a new Event object per call, repeats are aggregated as
client-go's recorder does: one Event per (Application uid, type, reason, message), named
deterministically so every replica finds it, its `count` and `lastTimestamp` bumped
(`counted`). Messages are cut to the API server's 1 KiB note limit.
"""

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.model.resource import KubeObject

NORMAL = "Normal"
WARNING = "Warning"
MAX_MESSAGE = 1024
"""The API server refuses an Event message over 1 KiB."""
REPORTING_COMPONENT = "sluice"


@dataclass(frozen=True, slots=True)
class EventSpec:
    """What one Event says."""

    type: str
    reason: str
    message: str


@dataclass(frozen=True, slots=True)
class Involved:
    """The Application an Event is about."""

    name: str
    namespace: str
    uid: str
    resource_version: str = ""
    api_version: str = "argoproj.io/v1alpha1"
    kind: str = "Application"


_SYNC_STATUS = {"out-of-sync": "OutOfSync", "synced": "Synced", "sync-unknown": "Unknown"}


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def event_for(event_type: str, data: Mapping[str, Any]) -> EventSpec | None:
    """The Event a Sluice event becomes (by its type's value), or None if it has none."""
    if event_type in _SYNC_STATUS:
        message = f"Updated sync status: {_text(data, 'from')} -> {_SYNC_STATUS[event_type]}"
        return EventSpec(NORMAL, "ResourceUpdated", message)
    if event_type == "health-changed":
        message = f"Updated health status: {_text(data, 'from')} -> {_text(data, 'to')}"
        return EventSpec(NORMAL, "ResourceUpdated", message)
    if event_type == "operation-started":
        return EventSpec(NORMAL, "OperationStarted", _started(data))
    if event_type in ("operation-succeeded", "operation-failed"):
        return _completed(event_type == "operation-succeeded", data)
    if event_type == "created":
        return EventSpec(NORMAL, "ResourceCreated", "created application")
    if event_type == "deletion-started" or (event_type == "deleted" and _deleted_at_once(data)):
        return EventSpec(NORMAL, "ResourceDeleted", "deleted application")
    return None


def _started(data: Mapping[str, Any]) -> str:
    revision = _text(data, "revision")
    if data.get("automated") is True:
        return f"Initiated automated sync to '{revision}'"
    user = _text(data, "initiatedBy") or "Unknown user"
    partial = "partial " if data.get("selective") is True else ""
    return f"{user} initiated {partial}sync to {revision}"


def _completed(succeeded: bool, data: Mapping[str, Any]) -> EventSpec:
    words = ["Partial sync operation" if data.get("selective") is True else "Sync operation"]
    if revision := _text(data, "revision"):
        words += ["to", revision]
    if succeeded:
        return EventSpec(NORMAL, "OperationCompleted", " ".join([*words, "succeeded"]))
    words += ["failed:", _text(data, "message")]
    return EventSpec(WARNING, "OperationCompleted", " ".join(words))


def _deleted_at_once(data: Mapping[str, Any]) -> bool:
    """A `deleted` event stands for the deletion only when no `deletion-started` came
    first: the last registered Application was never seen with a deletionTimestamp (it
    held no finalizers, so it went at once)."""
    application = data.get("application")
    if not isinstance(application, dict):
        return False
    meta = application.get("metadata")
    return isinstance(meta, dict) and not meta.get("deletionTimestamp")


def involved_from(obj: Mapping[str, Any]) -> Involved | None:
    """The Involved of an Application document (None without name, namespace or uid)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return None
    name, namespace, uid = (str(meta.get(k) or "") for k in ("name", "namespace", "uid"))
    if not (name and namespace and uid):
        return None
    return Involved(name, namespace, uid, str(meta.get("resourceVersion") or ""))


def event_name(involved: Involved, spec: EventSpec) -> str:
    """`<app>.<16 hex>`: the same for every repeat of one message on one Application."""
    digest = hashlib.sha256(
        "\0".join((involved.uid, spec.type, spec.reason, spec.message)).encode()
    ).hexdigest()[:16]
    return f"{involved.name[:200]}.{digest}"


def new_event(involved: Involved, spec: EventSpec, *, component: str, now: str) -> KubeObject:
    """A first occurrence, as core/v1 (count 1, first and last timestamps `now`)."""
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": event_name(involved, spec), "namespace": involved.namespace},
        "involvedObject": {
            "apiVersion": involved.api_version,
            "kind": involved.kind,
            "name": involved.name,
            "namespace": involved.namespace,
            "uid": involved.uid,
            **({"resourceVersion": involved.resource_version} if involved.resource_version else {}),
        },
        "reason": spec.reason,
        "message": spec.message[:MAX_MESSAGE],
        "type": spec.type,
        "source": {"component": component},
        "reportingComponent": REPORTING_COMPONENT,
        "reportingInstance": component,
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
    }


def counted(existing: KubeObject, *, now: str) -> KubeObject:
    """`existing` once more: count + 1, lastTimestamp `now` (its resourceVersion kept, so
    writing it back fails on a concurrent bump instead of losing one)."""
    count = existing.get("count")
    return {
        **existing,
        "count": (count if isinstance(count, int) and count > 0 else 1) + 1,
        "lastTimestamp": now,
    }
