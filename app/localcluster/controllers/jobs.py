"""The Job controller: pods run to completion, then the Job is Complete or Failed.

One pod per required completion is created from the template (lever annotations
copied onto it, so `fail` makes the pod fail); when as many pods succeeded as
spec.completions asks, the Job gets SuccessCriteriaMet and Complete; when one fails, it
gets FailureTarget and Failed (BackoffLimitExceeded): the simulation does not retry.
"""

from collections.abc import Iterable
from typing import Any

from app.localcluster.api.server import ApiServer
from app.localcluster.controllers.common import (
    CONTROLLER_MANAGER,
    PODS,
    condition,
    omit_zeros,
    owned,
    owner_ref,
    set_status,
)
from app.localcluster.controllers.events import NORMAL, WARNING, EventSink
from app.localcluster.controllers.replicasets import create_pod
from app.localcluster.eventlog import Change
from app.localcluster.levers import lever_annotations
from app.localcluster.objectmeta import now
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef
from app.model.resource import KubeObject

JOBS = GroupResource("batch", "jobs")
MAX_PODS = 100
_FINISHED = ("Complete", "Failed")


def _finished(job: KubeObject) -> bool:
    for cond in (job.get("status") or {}).get("conditions") or ():
        if cond.get("type") in _FINISHED and cond.get("status") == "True":
            return True
    return False


def _with_levers(job: KubeObject) -> KubeObject:
    """The job with its lever annotations on its pod template, for the pods it creates."""
    levers = lever_annotations(job)
    spec = job.get("spec") or {}
    template = dict(spec.get("template") or {})
    meta = dict(template.get("metadata") or {})
    meta["labels"] = {
        **(meta.get("labels") or {}),
        "batch.kubernetes.io/job-name": job["metadata"]["name"],
        "job-name": job["metadata"]["name"],
    }
    if levers:
        meta["annotations"] = {**(meta.get("annotations") or {}), **levers}
    template["metadata"] = meta
    return {**job, "spec": {**spec, "template": template}}


class JobController:
    name = "job"
    resources: tuple[GroupResource | None, ...] = (JOBS, PODS)

    def __init__(self, api: ApiServer, events: EventSink) -> None:
        self.api = api
        self.recorder = events.recorder("job-controller")

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        if change.resource == JOBS:
            yield ObjectRef(JOBS, change.namespace, str(change.obj["metadata"]["name"])), 0.0
        else:
            yield from ((ref, 0.0) for ref in owner_ref(change, "Job", JOBS))

    def reconcile(self, ref: ObjectRef) -> float | None:
        job = self.api.store.get(JOBS, ref.namespace, ref.name)
        if job is None or job["metadata"].get("deletionTimestamp") or _finished(job):
            return None
        spec = job.get("spec") or {}
        if spec.get("suspend"):
            return None
        completions = min(int(spec.get("completions") or 1), MAX_PODS)
        pods = owned(self.api, job, PODS)
        if not pods:
            template = _with_levers(job)
            pods = [create_pod(self.api, template, "batch/v1", "Job") for _ in range(completions)]
            for pod in pods:
                name = pod["metadata"]["name"]
                self.recorder.event(job, "SuccessfulCreate", f"Created pod: {name}")
        phases = [(p.get("status") or {}).get("phase") for p in pods]
        succeeded, failed = phases.count("Succeeded"), phases.count("Failed")
        previous = job.get("status") or {}
        status: dict[str, Any] = {
            "startTime": previous.get("startTime") or now(),
            "active": len(pods) - succeeded - failed,
            "succeeded": succeeded,
            "failed": failed,
            "ready": 0,
            "terminating": 0,
        }
        conditions = previous.get("conditions") or []
        if failed:
            message = "Job has reached the specified backoff limit"
            status["conditions"] = [
                condition("FailureTarget", True, "BackoffLimitExceeded", message, conditions),
                condition("Failed", True, "BackoffLimitExceeded", message, conditions),
            ]
            outcome: tuple[str, str, str] | None = ("BackoffLimitExceeded", message, WARNING)
        elif succeeded >= completions:
            message = "Reached expected number of succeeded pods"
            status["conditions"] = [
                condition("SuccessCriteriaMet", True, "CompletionsReached", message, conditions),
                condition("Complete", True, "CompletionsReached", message, conditions),
            ]
            status["completionTime"] = now()
            outcome = ("Completed", "Job completed", NORMAL)
        else:
            outcome = None
        set_status(
            self.api,
            JOBS,
            job,
            omit_zeros(status, keep=("ready", "terminating")),
            CONTROLLER_MANAGER,
        )
        if outcome is not None:
            reason, text, kind = outcome
            self.recorder.event(job, reason, text, type_=kind)
        return None
