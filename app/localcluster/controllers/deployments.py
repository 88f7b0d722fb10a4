"""The Deployment controller: one ReplicaSet per pod template, status from them.

The ReplicaSet of the current template (`<deployment>-<pod-template-hash>`) is created
or scaled to spec.replicas; older ones are scaled to 0 (a rollout without surge).
Status: replicas, updatedReplicas, readyReplicas, availableReplicas,
unavailableReplicas, observedGeneration, and the conditions Available
(MinimumReplicasAvailable) and Progressing: ReplicaSetUpdated while rolling out,
NewReplicaSetAvailable when done, and ProgressDeadlineExceeded when the `fail` lever is
set and the delay has passed (standing in for progressDeadlineSeconds).
"""

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from app.localcluster.api import writes
from app.localcluster.api.options import WriteOptions
from app.localcluster.api.server import ApiServer
from app.localcluster.controllers.common import (
    CONTROLLER_MANAGER,
    DEPLOYMENTS,
    REPLICASETS,
    Clock,
    Timing,
    condition,
    omit_zeros,
    owned,
    owner_ref,
    owner_reference,
    set_status,
)
from app.localcluster.controllers.events import EventSink
from app.localcluster.eventlog import Change
from app.localcluster.levers import lever_annotations, levers_of
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef
from app.model.resource import KubeObject

HASH_LABEL = "pod-template-hash"
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def template_hash(template: Any) -> str:
    """A stable 10-character hash of a pod template, in Kubernetes' safe alphabet."""
    digest = hashlib.sha256(json.dumps(template, sort_keys=True).encode()).digest()
    return "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:10])


def _new_replicaset(deployment: KubeObject, hash_: str, replicas: int) -> dict[str, Any]:
    spec = deployment.get("spec") or {}
    template = dict(spec.get("template") or {})
    template_meta = dict(template.get("metadata") or {})
    template_meta["labels"] = {**(template_meta.get("labels") or {}), HASH_LABEL: hash_}
    levers = lever_annotations(deployment)
    if levers:
        template_meta["annotations"] = {**(template_meta.get("annotations") or {}), **levers}
    template["metadata"] = template_meta
    selector = dict(spec.get("selector") or {})
    selector["matchLabels"] = {**(selector.get("matchLabels") or {}), HASH_LABEL: hash_}
    meta = deployment["metadata"]
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": f"{meta['name']}-{hash_}",
            "namespace": meta.get("namespace", ""),
            "labels": template_meta["labels"],
            "ownerReferences": [owner_reference("apps/v1", "Deployment", deployment)],
        },
        "spec": {"replicas": replicas, "selector": selector, "template": template},
    }


class DeploymentController:
    name = "deployment"
    resources: tuple[GroupResource | None, ...] = (DEPLOYMENTS, REPLICASETS)

    def __init__(self, api: ApiServer, timing: Timing, events: EventSink) -> None:
        self.api = api
        self.clock = Clock(timing)
        self.recorder = events.recorder("deployment-controller")

    def _scaled(self, deployment: KubeObject, rs: KubeObject, replicas: int) -> KubeObject:
        """`rs` at `replicas`, recording ScalingReplicaSet on the Deployment when it changes."""
        before = int((rs.get("spec") or {}).get("replicas", 1))
        if before == replicas:
            return rs
        new = {**rs, "metadata": dict(rs["metadata"]), "spec": {**rs["spec"], "replicas": replicas}}
        stored = self.api.replace(self.api.type_of(REPLICASETS), rs, new, CONTROLLER_MANAGER)
        self._scaling_event(deployment, stored, before, replicas)
        return stored

    def _scaling_event(
        self, deployment: KubeObject, rs: KubeObject, before: int, after: int
    ) -> None:
        direction = "up" if after > before else "down"
        name = rs["metadata"]["name"]
        self.recorder.event(
            deployment,
            "ScalingReplicaSet",
            f"Scaled {direction} replica set {name} from {before} to {after}",
        )

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        if change.resource == DEPLOYMENTS:
            self.clock.forget(change)
            yield ObjectRef(DEPLOYMENTS, change.namespace, str(change.obj["metadata"]["name"])), 0.0
        else:
            yield from ((ref, 0.0) for ref in owner_ref(change, "Deployment", DEPLOYMENTS))

    def reconcile(self, ref: ObjectRef) -> float | None:
        deployment = self.api.store.get(DEPLOYMENTS, ref.namespace, ref.name)
        if deployment is None or deployment["metadata"].get("deletionTimestamp"):
            return None
        spec = deployment.get("spec") or {}
        wanted = int(spec.get("replicas", 1))
        hash_ = template_hash(spec.get("template"))
        current = owned(self.api, deployment, REPLICASETS)
        newest = next(
            (rs for rs in current if rs["metadata"].get("labels", {}).get(HASH_LABEL) == hash_),
            None,
        )
        if not spec.get("paused"):
            if newest is None:
                rs = _new_replicaset(deployment, hash_, wanted)
                opts = WriteOptions(field_manager=CONTROLLER_MANAGER)
                newest = writes.create(
                    self.api, self.api.type_of(REPLICASETS), rs, namespace=ref.namespace, opts=opts
                )
                current.append(newest)
                if wanted:
                    self._scaling_event(deployment, newest, 0, wanted)
            else:
                newest = self._scaled(deployment, newest, wanted)
            current = [
                newest
                if rs["metadata"]["uid"] == newest["metadata"]["uid"]
                else self._scaled(deployment, rs, 0)
                for rs in current
            ]
        return self._report(deployment, current, newest, wanted)

    def _report(
        self, deployment: KubeObject, sets: list[KubeObject], newest: KubeObject | None, wanted: int
    ) -> float | None:
        def count(rs: KubeObject | None, key: str) -> int:
            return int(((rs or {}).get("status") or {}).get(key) or 0)

        replicas = sum(count(rs, "replicas") for rs in sets)
        updated = count(newest, "replicas")
        ready = sum(count(rs, "readyReplicas") for rs in sets)
        available = sum(count(rs, "availableReplicas") for rs in sets)
        previous = (deployment.get("status") or {}).get("conditions") or []
        rs_name = (
            newest["metadata"]["name"] if newest is not None else deployment["metadata"]["name"]
        )
        available_ok = available >= wanted
        levers = levers_of(deployment)
        requeue = None
        if levers.fail:
            wait = self.clock.remaining(deployment, levers.delay)
            if wait > 0:
                progressing = condition(
                    "Progressing",
                    True,
                    "ReplicaSetUpdated",
                    f'ReplicaSet "{rs_name}" is progressing.',
                    previous,
                )
                requeue = wait
            else:
                progressing = condition(
                    "Progressing",
                    False,
                    "ProgressDeadlineExceeded",
                    f'ReplicaSet "{rs_name}" has timed out progressing.',
                    previous,
                )
        elif updated == wanted and available >= wanted and replicas == wanted:
            progressing = condition(
                "Progressing",
                True,
                "NewReplicaSetAvailable",
                f'ReplicaSet "{rs_name}" has successfully progressed.',
                previous,
            )
        else:
            progressing = condition(
                "Progressing",
                True,
                "ReplicaSetUpdated",
                f'ReplicaSet "{rs_name}" is progressing.',
                previous,
            )
        conditions = [
            condition(
                "Available",
                available_ok,
                "MinimumReplicasAvailable" if available_ok else "MinimumReplicasUnavailable",
                "Deployment has minimum availability."
                if available_ok
                else "Deployment does not have minimum availability.",
                previous,
            ),
            progressing,
        ]
        status = omit_zeros(
            {
                "observedGeneration": deployment["metadata"].get("generation", 1),
                "replicas": replicas,
                "updatedReplicas": updated,
                "readyReplicas": ready,
                "availableReplicas": available,
                "unavailableReplicas": max(wanted - available, 0),
                "conditions": conditions,
            }
        )
        set_status(self.api, DEPLOYMENTS, deployment, status, CONTROLLER_MANAGER)
        return requeue
