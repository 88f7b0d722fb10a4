"""Events expire: each is deleted `ttl_seconds` after it was last recorded.

The real API server stores Events with a one-hour lease (`--event-ttl`); without it a
long-running `sluice up` would keep every ScalingReplicaSet and Started ever recorded.
An Event counted again (a repeat) lives on from its new lastTimestamp.
"""

import time
from collections.abc import Iterable

from app.localcluster.api import deletes
from app.localcluster.api.options import DeleteOptions
from app.localcluster.api.server import ApiServer
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.objectmeta import epoch
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef

EVENTS = GroupResource("", "events")


class EventExpiry:
    """Deletes each Event `ttl_seconds` after it was last recorded."""

    name = "event-ttl"
    resources: tuple[GroupResource | None, ...] = (EVENTS,)

    def __init__(self, api: ApiServer, ttl_seconds: float) -> None:
        self.api = api
        self.ttl_seconds = ttl_seconds

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        if change.type != DELETED:
            meta = change.obj["metadata"]
            yield ObjectRef(EVENTS, change.namespace, str(meta["name"])), self.ttl_seconds

    def reconcile(self, ref: ObjectRef) -> float | None:
        event = self.api.store.get(EVENTS, ref.namespace, ref.name)
        if event is None:
            return None
        last = event.get("lastTimestamp") or event["metadata"].get("creationTimestamp") or ""
        age = time.time() - (epoch(str(last)) or 0.0)
        if age < self.ttl_seconds:
            return self.ttl_seconds - age
        deletes.delete(self.api, self.api.type_of(EVENTS), ref.namespace, ref.name, DeleteOptions())
        return None
