"""What the simulated controllers share: status writes, conditions, owner references,
the pods an owner controls, and the clock that delays readiness."""

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.localcluster.api.server import ApiServer
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.objectmeta import now
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef
from app.model.resource import KubeObject

PODS = GroupResource("", "pods")
REPLICASETS = GroupResource("apps", "replicasets")
DEPLOYMENTS = GroupResource("apps", "deployments")
CONTROLLER_MANAGER = "kube-controller-manager"


def ref_of(resource: GroupResource, obj: KubeObject) -> ObjectRef:
    meta = obj["metadata"]
    return ObjectRef(resource, str(meta.get("namespace") or ""), str(meta["name"]))


def owner_reference(rt_api_version: str, kind: str, owner: KubeObject) -> dict[str, Any]:
    """A controller ownerReference to `owner`, as controllers write it."""
    return {
        "apiVersion": rt_api_version,
        "kind": kind,
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def controller_of(obj: KubeObject) -> dict[str, Any] | None:
    for ref in obj["metadata"].get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return ref
    return None


def owned(api: ApiServer, owner: KubeObject, resource: GroupResource) -> list[KubeObject]:
    """Live objects of `resource` that `owner` controls, oldest first."""
    uid = owner["metadata"]["uid"]
    out = []
    for ref in api.store.dependents(str(uid)):
        if ref.resource != resource:
            continue
        obj = api.store.get(ref.resource, ref.namespace, ref.name)
        if obj is None or obj["metadata"].get("deletionTimestamp"):
            continue
        ctrl = controller_of(obj)
        if ctrl is not None and ctrl.get("uid") == uid:
            out.append(obj)
    out.sort(key=lambda o: (o["metadata"].get("creationTimestamp", ""), o["metadata"]["name"]))
    return out


def owner_ref(change: Change, kind: str, resource: GroupResource) -> Iterable[ObjectRef]:
    """The controlling owner of kind `kind` of the object `change` is about."""
    ctrl = controller_of(change.obj)
    if ctrl is not None and ctrl.get("kind") == kind:
        yield ObjectRef(resource, change.namespace, str(ctrl.get("name")))


def set_status(
    api: ApiServer, resource: GroupResource, obj: KubeObject, status: dict[str, Any], manager: str
) -> KubeObject:
    """Write `status` through the status subresource, unless it is what obj already has."""
    if obj.get("status") == status:
        return obj
    new = {**obj, "status": status, "metadata": dict(obj["metadata"])}
    return api.replace(api.type_of(resource), obj, new, manager, subresource="status")


def omit_zeros(status: dict[str, Any], keep: tuple[str, ...] = ()) -> dict[str, Any]:
    """`status` without zero counts, as the API types' `omitempty` drops them."""
    return {k: v for k, v in status.items() if k in keep or v != 0}


def condition(
    kind: str, ok: bool, reason: str, message: str, previous: Iterable[dict[str, Any]] = ()
) -> dict[str, Any]:
    """A status condition; lastTransitionTime kept from `previous` while status is unchanged."""
    status = "True" if ok else "False"
    stamp = now()
    transition = stamp
    update = stamp
    for before in previous:
        if before.get("type") == kind and before.get("status") == status:
            transition = before.get("lastTransitionTime", stamp)
            if before.get("reason") == reason and before.get("message") == message:
                update = before.get("lastUpdateTime", stamp)
    return {
        "type": kind,
        "status": status,
        "lastUpdateTime": update,
        "lastTransitionTime": transition,
        "reason": reason,
        "message": message,
    }


@dataclass(slots=True)
class Timing:
    """The simulated controllers' pace, shared by all of them and changeable at run time."""

    delay_seconds: float
    """How long a workload takes to become ready unless its delay-seconds lever says."""


class Clock:
    """When each object's current generation was first seen, to delay its readiness."""

    def __init__(self, timing: Timing) -> None:
        self.timing = timing
        self._seen: dict[str, tuple[int, float]] = {}

    def remaining(self, obj: KubeObject, override: float | None = None) -> float:
        """Seconds until this generation of obj is due: `override` seconds (its lever) or
        the shared delay after it was first seen."""
        meta = obj["metadata"]
        uid = str(meta.get("uid"))
        generation = int(meta.get("generation") or 0)
        seen = self._seen.get(uid)
        if seen is None or seen[0] != generation:
            seen = self._seen[uid] = (generation, time.monotonic())
        delay = self.timing.delay_seconds if override is None else override
        return max(0.0, seen[1] + delay - time.monotonic())

    def forget(self, change: Change) -> None:
        """Drop what is known about a deleted object."""
        if change.type == DELETED:
            self._seen.pop(str(change.obj["metadata"].get("uid")), None)
