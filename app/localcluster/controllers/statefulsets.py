"""StatefulSets and DaemonSets, simulated by status alone (no pods are created).

After the delay a StatefulSet reports all replicas ready, current and updated at one
revision; a DaemonSet reports one node scheduled, ready and available. `never-ready`
and `fail` keep them unready (Progressing), which is what health assessment sees of a
real set whose pods do not come up.
"""

from collections.abc import Iterable
from typing import Any

from app.localcluster.api.server import ApiServer
from app.localcluster.controllers.common import (
    CONTROLLER_MANAGER,
    Clock,
    Timing,
    omit_zeros,
    set_status,
)
from app.localcluster.controllers.deployments import template_hash
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.levers import levers_of
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef
from app.model.resource import KubeObject

STATEFULSETS = GroupResource("apps", "statefulsets")
DAEMONSETS = GroupResource("apps", "daemonsets")


def statefulset_status(sts: KubeObject, ready: bool) -> dict[str, Any]:
    spec = sts.get("spec") or {}
    wanted = int(spec.get("replicas", 1))
    revision = f"{sts['metadata']['name']}-{template_hash(spec.get('template'))}"
    up = wanted if ready else 0
    return omit_zeros(
        {
            "observedGeneration": sts["metadata"].get("generation", 1),
            "replicas": wanted,
            "readyReplicas": up,
            "currentReplicas": wanted,
            "updatedReplicas": wanted,
            "availableReplicas": up,
            "currentRevision": revision,
            "updateRevision": revision,
            "collisionCount": 0,
        },
        keep=("replicas", "availableReplicas"),
    )


def daemonset_status(ds: KubeObject, ready: bool) -> dict[str, Any]:
    up = 1 if ready else 0
    return omit_zeros(
        {
            "observedGeneration": ds["metadata"].get("generation", 1),
            "currentNumberScheduled": 1,
            "desiredNumberScheduled": 1,
            "numberMisscheduled": 0,
            "numberReady": up,
            "updatedNumberScheduled": 1,
            "numberAvailable": up,
            "numberUnavailable": 1 - up,
        },
        keep=(
            "currentNumberScheduled",
            "desiredNumberScheduled",
            "numberMisscheduled",
            "numberReady",
        ),
    )


class SetController:
    """One controller per kind (StatefulSet or DaemonSet): status after the delay."""

    def __init__(self, api: ApiServer, resource: GroupResource, timing: Timing) -> None:
        self.api = api
        self.resource = resource
        self.name = resource.resource
        self.resources: tuple[GroupResource | None, ...] = (resource,)
        self.clock = Clock(timing)

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        self.clock.forget(change)
        if change.type != DELETED:
            yield (
                ObjectRef(self.resource, change.namespace, str(change.obj["metadata"]["name"])),
                0.0,
            )

    def reconcile(self, ref: ObjectRef) -> float | None:
        obj = self.api.store.get(self.resource, ref.namespace, ref.name)
        if obj is None or obj["metadata"].get("deletionTimestamp"):
            return None
        levers = levers_of(obj)
        wait = self.clock.remaining(obj, levers.delay)
        ready = wait == 0 and not levers.never_ready and not levers.fail
        make = statefulset_status if self.resource == STATEFULSETS else daemonset_status
        set_status(self.api, self.resource, obj, make(obj, ready), CONTROLLER_MANAGER)
        return wait if wait > 0 else None
