"""Argo Workflows health (any API version).

- Workflow, from `status.phase`: workflows are common hooks, and their phase maps
  directly onto hook health.
- CronWorkflow: `spec.suspend` is Suspended; a `SubmissionError` condition (the
  controller could not start a run from the template) is Degraded; else Healthy, with
  the time of the last run.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

_BY_PHASE = {
    "": HealthStatusCode.PROGRESSING,
    "Pending": HealthStatusCode.PROGRESSING,
    "Running": HealthStatusCode.PROGRESSING,
    "Succeeded": HealthStatusCode.HEALTHY,
    "Failed": HealthStatusCode.DEGRADED,
    "Error": HealthStatusCode.DEGRADED,
}


def health(obj: KubeObject) -> HealthStatus:
    """ ""/Pending/Running → Progressing, Succeeded → Healthy, Failed/Error → Degraded."""
    phase = fields.string(obj, "status.phase")
    message = fields.string(obj, "status.message")
    return HealthStatus(_BY_PHASE.get(phase, HealthStatusCode.UNKNOWN), message)


def cron_workflow(obj: KubeObject) -> HealthStatus:
    """Suspended, Degraded on a submission error, else Healthy."""
    if fields.flag(obj, "spec.suspend"):
        return HealthStatus(HealthStatusCode.SUSPENDED, "CronWorkflow is suspended")
    failed = conditions.condition(obj, "SubmissionError")
    if failed is not None and failed.true:
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(failed))
    last = fields.string(obj, "status.lastScheduledTime")
    return HealthStatus(HealthStatusCode.HEALTHY, f"last run at {last}" if last else "")
