"""PersistentVolumeClaims bind after the delay (no PersistentVolume objects are made).

A bound claim reports phase Bound with the requested access modes and capacity;
`never-ready` leaves it Pending and `fail` marks it Lost.
"""

from collections.abc import Iterable
from typing import Any

from app.localcluster.api.server import ApiServer
from app.localcluster.controllers.common import CONTROLLER_MANAGER, Clock, Timing, set_status
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.levers import levers_of
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef

CLAIMS = GroupResource("", "persistentvolumeclaims")


class ClaimBinder:
    name = "persistentvolume-binder"
    resources: tuple[GroupResource | None, ...] = (CLAIMS,)

    def __init__(self, api: ApiServer, timing: Timing) -> None:
        self.api = api
        self.clock = Clock(timing)

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        self.clock.forget(change)
        if change.type != DELETED and (change.obj.get("status") or {}).get("phase") == "Pending":
            yield ObjectRef(CLAIMS, change.namespace, str(change.obj["metadata"]["name"])), 0.0

    def reconcile(self, ref: ObjectRef) -> float | None:
        claim = self.api.store.get(CLAIMS, ref.namespace, ref.name)
        if claim is None or claim["metadata"].get("deletionTimestamp"):
            return None
        levers = levers_of(claim)
        if levers.never_ready:
            return None
        wait = self.clock.remaining(claim, levers.delay)
        if wait > 0:
            return wait
        spec = claim.get("spec") or {}
        status: dict[str, Any] = {"phase": "Lost" if levers.fail else "Bound"}
        if not levers.fail:
            status["accessModes"] = list(spec.get("accessModes") or ["ReadWriteOnce"])
            requested = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
            if requested:
                status["capacity"] = {"storage": requested}
        set_status(self.api, CLAIMS, claim, status, CONTROLLER_MANAGER)
        return None
