"""Pod health, as Argo CD reads it.

Pods that restart on their own (restartPolicy Always, the Kubernetes default when the
field is absent) are Degraded as soon as a container waits on an error such as
ImagePullBackOff or CrashLoopBackOff. Pods that run to completion (Never, OnFailure) are
usually hooks: they are Progressing while they run and judged only by how they end, so
a transient pull error does not fail a hook that would still succeed.

A pod annotated `argocd.argoproj.io/ignore-restart-policy` (any value but "false") is
judged as a restarting pod whatever its restartPolicy: a long-running pod that happens
to use Never or OnFailure is Healthy once Ready, Degraded on an error wait, instead of
Progressing for as long as it runs.
"""

from typing import Any

from app.engine.health import fields
from app.model.annotations import IGNORE_RESTART_POLICY
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def _is_error_wait(reason: str) -> bool:
    return reason.startswith("Err") or reason.endswith(("Error", "BackOff"))


def _failure_message(where: str, container: dict[str, Any]) -> str:
    """Why a terminated container failed: its message, OOMKilled, or its exit code."""
    if fields.value(container, "state.terminated", at=where) is None:
        return ""
    message = fields.string(container, "state.terminated.message", at=where)
    if message:
        return message
    if fields.string(container, "state.terminated.reason", at=where) == "OOMKilled":
        return "OOMKilled"
    exit_code = fields.integer(container, "state.terminated.exitCode", at=where)
    if exit_code != 0:
        name = fields.string(container, "name", at=where)
        return f'container "{name}" failed with exit code {exit_code}'
    return ""


def _error_waits(containers: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Messages of containers waiting on an error (ErrImagePull, CrashLoopBackOff...)."""
    messages = []
    for where, container in containers:
        if fields.value(container, "state.waiting", at=where) is None:
            continue
        if _is_error_wait(fields.string(container, "state.waiting.reason", at=where)):
            messages.append(fields.string(container, "state.waiting.message", at=where))
    return messages


def _failed(
    obj: KubeObject, message: str, containers: list[tuple[str, dict[str, Any]]]
) -> HealthStatus:
    """A Failed pod: its own message, else the first container's failure."""
    if message:
        return HealthStatus(HealthStatusCode.DEGRADED, message)
    for where, container in fields.entries(obj, "status.initContainerStatuses") + containers:
        failure = _failure_message(where, container)
        if failure:
            return HealthStatus(HealthStatusCode.DEGRADED, failure)
    return HealthStatus(HealthStatusCode.DEGRADED)


def _running(
    obj: KubeObject, restart_policy: str, message: str, containers: list[tuple[str, dict[str, Any]]]
) -> HealthStatus:
    """A Running pod: a run-to-completion pod is still at work; a restarting one is Healthy
    once Ready, Degraded while not Ready after a container ended."""
    if restart_policy in ("OnFailure", "Never"):
        return HealthStatus(HealthStatusCode.PROGRESSING, message)
    if restart_policy != "Always":
        return HealthStatus(HealthStatusCode.UNKNOWN, message)
    ready = fields.find(fields.conditions(obj), "Ready")
    if ready is not None and ready.true:
        return HealthStatus(HealthStatusCode.HEALTHY, message)
    if any(fields.value(c, "lastState.terminated", at=w) is not None for w, c in containers):
        return HealthStatus(HealthStatusCode.DEGRADED, message)
    return HealthStatus(HealthStatusCode.PROGRESSING, message)


def health(obj: KubeObject) -> HealthStatus:
    """Health from the pod phase, container states and readiness."""
    restart_policy = fields.string(obj, "spec.restartPolicy") or "Always"
    ignored = fields.mapping(obj, "metadata.annotations").get(IGNORE_RESTART_POLICY)
    if ignored is not None and str(ignored).lower() != "false":
        restart_policy = "Always"
    message = fields.string(obj, "status.message")
    containers = fields.entries(obj, "status.containerStatuses")
    if restart_policy == "Always":
        waiting = _error_waits(containers)
        if waiting:
            return HealthStatus(HealthStatusCode.DEGRADED, ", ".join(waiting))
    phase = fields.string(obj, "status.phase")
    if phase == "Pending":
        return HealthStatus(HealthStatusCode.PROGRESSING, message)
    if phase == "Succeeded":
        return HealthStatus(HealthStatusCode.HEALTHY, message)
    if phase == "Failed":
        return _failed(obj, message, containers)
    if phase == "Running":
        return _running(obj, restart_policy, message, containers)
    return HealthStatus(HealthStatusCode.UNKNOWN, message)
