"""Argo Workflows `Workflow` health, from `status.phase` (any API version).

Workflows are common hooks; their phase maps directly onto hook health.
"""

from app.engine.health import fields
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
