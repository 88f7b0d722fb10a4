"""Job health, from the Job's terminal conditions.

A condition counts only when its status is "True". Kubernetes only ever sets Complete
and Failed to True, but Suspended turns "False" when a suspended Job is resumed; Argo CD
then reports the running Job Healthy, Sluice keeps it Progressing until it ends.
"""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    """Failed → Degraded, Suspended → Suspended, Complete → Healthy, else Progressing."""
    found = fields.conditions(obj)
    failed = fields.find(found, "Failed")
    if failed is not None and failed.true:
        return HealthStatus(HealthStatusCode.DEGRADED, failed.message)
    suspended = fields.find(found, "Suspended")
    if suspended is not None and suspended.true:
        return HealthStatus(HealthStatusCode.SUSPENDED, suspended.message)
    complete = fields.find(found, "Complete")
    if complete is not None and complete.true:
        return HealthStatus(HealthStatusCode.HEALTHY, complete.message)
    return HealthStatus(HealthStatusCode.PROGRESSING)
