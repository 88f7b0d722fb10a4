"""Argo Rollouts analysis runs and experiments (argoproj.io; the Rollout check is Lua, in
resource_customizations). Both report `status.phase`: Pending and Running are at work,
Successful is Healthy, Failed and Error are Degraded, and Inconclusive waits for a person
to judge it (the rollout pauses), so it is Suspended.
"""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

_BY_PHASE = {
    "": HealthStatusCode.PROGRESSING,
    "Pending": HealthStatusCode.PROGRESSING,
    "Running": HealthStatusCode.PROGRESSING,
    "Successful": HealthStatusCode.HEALTHY,
    "Failed": HealthStatusCode.DEGRADED,
    "Error": HealthStatusCode.DEGRADED,
    "Inconclusive": HealthStatusCode.SUSPENDED,
}


def health(obj: KubeObject) -> HealthStatus:
    """AnalysisRun and Experiment health from `status.phase` and `status.message`."""
    phase = fields.string(obj, "status.phase")
    message = fields.string(obj, "status.message")
    code = _BY_PHASE.get(phase)
    if code is None:
        return HealthStatus(HealthStatusCode.UNKNOWN, f"unknown phase {phase!r}")
    if not message and not phase:
        message = "Waiting for the rollout controller to start it"
    return HealthStatus(code, message)
