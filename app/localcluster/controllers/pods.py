"""The kubelet, simulated: a pod runs after the delay, then is Ready, or fails.

Pods that run to completion (owned by a Job, or restartPolicy Never/OnFailure) end
Succeeded, or Failed (exit code 1) with the `fail` lever. Other pods become Running and
Ready; with `never-ready` they run but never pass readiness; with `fail` their container
is in CrashLoopBackOff.
"""

import itertools
from collections.abc import Iterable
from typing import Any

from app.localcluster.api.server import ApiServer
from app.localcluster.controllers.common import PODS, Clock, Timing, controller_of, set_status
from app.localcluster.controllers.events import NODE, WARNING, EventSink
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.levers import FAIL, NEVER_READY, Levers, levers_of
from app.localcluster.objectmeta import now
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef
from app.model.resource import KubeObject

MANAGER = "kubelet"
HOST_IP = "10.0.0.1"
_pod_ips = itertools.count(2)


def _runs_to_completion(pod: KubeObject) -> bool:
    ctrl = controller_of(pod)
    if ctrl is not None and ctrl.get("kind") == "Job":
        return True
    return (pod.get("spec") or {}).get("restartPolicy") in ("Never", "OnFailure")


def _conditions(ready: bool, stamp: str, reason: str = "") -> list[dict[str, Any]]:
    def cond(kind: str, ok: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": kind,
            "status": "True" if ok else "False",
            "lastTransitionTime": stamp,
        }
        if not ok and reason:
            out["reason"] = reason
        return out

    return [
        cond("PodReadyToStartContainers", True),
        cond("Initialized", True),
        cond("Ready", ready),
        cond("ContainersReady", ready),
        cond("PodScheduled", True),
    ]


def _container_status(
    container: dict[str, Any], state: dict[str, Any], ready: bool, restarts: int
) -> dict[str, Any]:
    image = str(container.get("image", ""))
    return {
        "name": container.get("name", ""),
        "image": image,
        "imageID": f"localcluster://{image}",
        "containerID": f"localcluster://{container.get('name', '')}",
        "ready": ready,
        "started": "running" in state,
        "restartCount": restarts,
        "state": state,
    }


def pod_status(pod: KubeObject, levers: Levers) -> dict[str, Any]:
    """The status the kubelet would report once the pod's delay has passed."""
    stamp = now()
    previous = pod.get("status") or {}
    containers = (pod.get("spec") or {}).get("containers") or []
    completes = _runs_to_completion(pod)
    if completes and not levers.never_ready:
        code, reason = (1, "Error") if levers.fail else (0, "Completed")
        state = {
            "terminated": {
                "exitCode": code,
                "reason": reason,
                "startedAt": stamp,
                "finishedAt": stamp,
            }
        }
        phase, ready, cond_reason = (
            ("Failed" if levers.fail else "Succeeded"),
            False,
            "PodCompleted",
        )
        restarts = 0
    elif levers.fail:
        state = {
            "waiting": {
                "reason": "CrashLoopBackOff",
                "message": f"back-off restarting failed container (lever {FAIL})",
            }
        }
        phase, ready, cond_reason, restarts = "Running", False, "ContainersNotReady", 3
    else:
        state = {"running": {"startedAt": stamp}}
        ready = not levers.never_ready
        phase, cond_reason, restarts = "Running", "ContainersNotReady", 0
    status: dict[str, Any] = {
        "phase": phase,
        "conditions": _conditions(ready, stamp, cond_reason),
        "hostIP": HOST_IP,
        "hostIPs": [{"ip": HOST_IP}],
        "podIP": previous.get("podIP") or _next_ip(),
        "startTime": previous.get("startTime") or stamp,
        "containerStatuses": [
            _container_status(c, state, ready, restarts) for c in containers if isinstance(c, dict)
        ],
        "qosClass": previous.get("qosClass", "BestEffort"),
    }
    status["podIPs"] = [{"ip": status["podIP"]}]
    return status


def _next_ip() -> str:
    n = next(_pod_ips)
    return f"10.244.{(n >> 8) % 256}.{n % 256}"


def is_ready(pod: KubeObject) -> bool:
    for cond in (pod.get("status") or {}).get("conditions") or ():
        if cond.get("type") == "Ready":
            return bool(cond.get("status") == "True")
    return False


class Kubelet:
    name = "kubelet"
    resources: tuple[GroupResource | None, ...] = (PODS,)

    def __init__(self, api: ApiServer, timing: Timing, events: EventSink) -> None:
        self.api = api
        self.clock = Clock(timing)
        self.scheduler = events.recorder("default-scheduler")
        self.recorder = events.recorder("kubelet", NODE)

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        self.clock.forget(change)
        if change.type == DELETED:
            return
        phase = (change.obj.get("status") or {}).get("phase")
        if phase == "Pending" and not change.obj["metadata"].get("deletionTimestamp"):
            meta = change.obj["metadata"]
            yield ObjectRef(PODS, change.namespace, str(meta["name"])), 0.0

    def reconcile(self, ref: ObjectRef) -> float | None:
        pod = self.api.store.get(PODS, ref.namespace, ref.name)
        if pod is None or pod["metadata"].get("deletionTimestamp"):
            return None
        if (pod.get("status") or {}).get("phase") != "Pending":
            return None
        if not (pod.get("spec") or {}).get("nodeName"):
            pod = self._schedule(pod)
        levers = levers_of(pod)
        wait = self.clock.remaining(pod, levers.delay)
        if wait > 0:
            return wait
        set_status(self.api, PODS, pod, pod_status(pod, levers), MANAGER)
        self._started(pod, levers)
        return None

    def _schedule(self, pod: KubeObject) -> KubeObject:
        """Bind the pod to the one node, as the scheduler would, and say so."""
        new = {**pod, "spec": {**(pod.get("spec") or {}), "nodeName": NODE}}
        bound = self.api.replace(self.api.type_of(PODS), pod, new, "default-scheduler")
        meta = pod["metadata"]
        self.scheduler.event(
            bound,
            "Scheduled",
            f"Successfully assigned {meta.get('namespace')}/{meta['name']} to {NODE}",
        )
        return bound

    def _started(self, pod: KubeObject, levers: Levers) -> None:
        """The kubelet's events for each container it started (and how it is doing)."""
        meta = pod["metadata"]
        for container in (pod.get("spec") or {}).get("containers") or ():
            name = container.get("name", "")
            path = f"spec.containers{{{name}}}"
            image = container.get("image", "")
            for reason, message in (
                ("Pulled", f'Container image "{image}" already present on machine'),
                ("Created", f"Created container {name}"),
                ("Started", f"Started container {name}"),
            ):
                self.recorder.event(pod, reason, message, field_path=path)
            if _runs_to_completion(pod):
                continue
            if levers.fail:
                pod_id = f"{meta['name']}_{meta.get('namespace')}({meta.get('uid')})"
                message = f"Back-off restarting failed container {name} in pod {pod_id}"
                self.recorder.event(pod, "BackOff", message, type_=WARNING, field_path=path)
            elif levers.never_ready:
                message = (
                    f"Readiness probe failed: the container never becomes ready ({NEVER_READY})"
                )
                self.recorder.event(pod, "Unhealthy", message, type_=WARNING, field_path=path)
