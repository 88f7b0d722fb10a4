"""Tekton runs (tekton.dev PipelineRun, TaskRun, CustomRun), from the `Succeeded`
condition Tekton documents.

- `spec.status` PipelineRunPending / TaskRunPending: not started, held until someone
  clears it → Suspended;
- no `Succeeded` condition yet → Progressing; Unknown (Started, Running, cancelling) →
  Progressing; True → Healthy; False (a failed task, a timeout, a cancellation) →
  Degraded, with Tekton's message.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

_PENDING = ("PipelineRunPending", "TaskRunPending")


def health(obj: KubeObject) -> HealthStatus:
    succeeded = conditions.condition(obj, "Succeeded")
    if fields.string(obj, "spec.status") in _PENDING and succeeded is None:
        return HealthStatus(HealthStatusCode.SUSPENDED, "The run is pending")
    if succeeded is None:
        return HealthStatus(HealthStatusCode.PROGRESSING, "Waiting for the run to start")
    if succeeded.true:
        return HealthStatus(HealthStatusCode.HEALTHY, conditions.text(succeeded))
    if succeeded.false:
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(succeeded))
    return HealthStatus(HealthStatusCode.PROGRESSING, conditions.text(succeeded))
