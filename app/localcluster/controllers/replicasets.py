"""The ReplicaSet controller: keep spec.replicas pods from the template, report on them.

Pods are created from the template (named `<replicaset>-<5 random>`, owned by the
ReplicaSet) or deleted, newest first, to match spec.replicas; status counts replicas,
ready and available pods and records the observed generation.
"""

from collections.abc import Iterable
from typing import Any

from app.localcluster.api import deletes, writes
from app.localcluster.api.options import DeleteOptions, WriteOptions
from app.localcluster.api.server import ApiServer
from app.localcluster.controllers.common import (
    CONTROLLER_MANAGER,
    PODS,
    REPLICASETS,
    omit_zeros,
    owned,
    owner_ref,
    owner_reference,
    set_status,
)
from app.localcluster.controllers.events import EventSink
from app.localcluster.controllers.pods import is_ready
from app.localcluster.eventlog import Change
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef
from app.model.resource import KubeObject


def pod_from_template(owner: KubeObject, api_version: str, kind: str) -> dict[str, Any]:
    """A new pod for `owner`'s spec.template, owned by it."""
    template = (owner.get("spec") or {}).get("template") or {}
    template_meta = template.get("metadata") or {}
    meta: dict[str, Any] = {
        "generateName": f"{owner['metadata']['name']}-",
        "namespace": owner["metadata"].get("namespace", ""),
        "ownerReferences": [owner_reference(api_version, kind, owner)],
    }
    for key in ("labels", "annotations"):
        if template_meta.get(key):
            meta[key] = dict(template_meta[key])
    spec = dict(template.get("spec") or {})
    spec.setdefault("restartPolicy", "Always")
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def create_pod(api: ApiServer, owner: KubeObject, api_version: str, kind: str) -> KubeObject:
    pod = pod_from_template(owner, api_version, kind)
    opts = WriteOptions(field_manager=CONTROLLER_MANAGER)
    return writes.create(
        api, api.type_of(PODS), pod, namespace=pod["metadata"]["namespace"], opts=opts
    )


class ReplicaSetController:
    name = "replicaset"
    resources: tuple[GroupResource | None, ...] = (REPLICASETS, PODS)

    def __init__(self, api: ApiServer, events: EventSink) -> None:
        self.api = api
        self.recorder = events.recorder("replicaset-controller")

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        if change.resource == REPLICASETS:
            meta = change.obj["metadata"]
            yield ObjectRef(REPLICASETS, change.namespace, str(meta["name"])), 0.0
        else:
            for ref in owner_ref(change, "ReplicaSet", REPLICASETS):
                yield ref, 0.0

    def reconcile(self, ref: ObjectRef) -> float | None:
        rs = self.api.store.get(REPLICASETS, ref.namespace, ref.name)
        if rs is None or rs["metadata"].get("deletionTimestamp"):
            return None
        wanted = int((rs.get("spec") or {}).get("replicas", 1))
        pods = owned(self.api, rs, PODS)
        for _ in range(wanted - len(pods)):
            pod = create_pod(self.api, rs, "apps/v1", "ReplicaSet")
            self.recorder.event(rs, "SuccessfulCreate", f"Created pod: {pod['metadata']['name']}")
            pods.append(pod)
        if len(pods) > wanted:
            pod_type = self.api.type_of(PODS)
            for pod in pods[wanted:]:
                name = str(pod["metadata"]["name"])
                deletes.delete(self.api, pod_type, ref.namespace, name, DeleteOptions())
                self.recorder.event(rs, "SuccessfulDelete", f"Deleted pod: {name}")
            pods = pods[:wanted]
        ready = sum(1 for pod in pods if is_ready(pod))
        status = omit_zeros(
            {
                "replicas": len(pods),
                "fullyLabeledReplicas": len(pods),
                "readyReplicas": ready,
                "availableReplicas": ready,
                "observedGeneration": rs["metadata"].get("generation", 1),
            },
            keep=("replicas",),
        )
        set_status(self.api, REPLICASETS, rs, status, CONTROLLER_MANAGER)
        return None
