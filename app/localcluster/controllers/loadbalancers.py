"""Load balancers: a Service of type LoadBalancer and an Ingress get an address.

After the delay, `status.loadBalancer.ingress` holds one IP from 192.0.2.0/24 (TEST-NET-1,
a documentation range: nothing answers there, and it is obviously not a real address).
`never-ready` and `fail` leave the address pending, as a real cloud that cannot
provision one does.
"""

import itertools
from collections.abc import Iterable

from app.localcluster.api.server import ApiServer
from app.localcluster.controllers.common import Clock, Timing, set_status
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.levers import levers_of
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef
from app.model.resource import KubeObject

SERVICES = GroupResource("", "services")
INGRESSES = GroupResource("networking.k8s.io", "ingresses")
MANAGER = "cloud-controller-manager"
_addresses = itertools.count(1)


def _wants_address(resource: GroupResource, obj: KubeObject) -> bool:
    if resource == SERVICES and (obj.get("spec") or {}).get("type") != "LoadBalancer":
        return False
    status = obj.get("status") or {}
    return not (status.get("loadBalancer") or {}).get("ingress")


class LoadBalancerController:
    name = "loadbalancer"
    resources: tuple[GroupResource | None, ...] = (SERVICES, INGRESSES)

    def __init__(self, api: ApiServer, timing: Timing) -> None:
        self.api = api
        self.clock = Clock(timing)

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        self.clock.forget(change)
        if change.type != DELETED and _wants_address(change.resource, change.obj):
            meta = change.obj["metadata"]
            yield ObjectRef(change.resource, change.namespace, str(meta["name"])), 0.0

    def reconcile(self, ref: ObjectRef) -> float | None:
        obj = self.api.store.get(ref.resource, ref.namespace, ref.name)
        if obj is None or obj["metadata"].get("deletionTimestamp"):
            return None
        if not _wants_address(ref.resource, obj):
            return None
        levers = levers_of(obj)
        if levers.never_ready or levers.fail:
            return None
        wait = self.clock.remaining(obj, levers.delay)
        if wait > 0:
            return wait
        n = next(_addresses) % 254 + 1
        status = {
            **(obj.get("status") or {}),
            "loadBalancer": {"ingress": [{"ip": f"192.0.2.{n}"}]},
        }
        set_status(self.api, ref.resource, obj, status, MANAGER)
        return None
