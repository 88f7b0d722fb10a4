"""PodDisruptionBudget (policy) health.

The disruption controller counts the pods the budget covers: fewer healthy pods than
`status.desiredHealthy` (or the `DisruptionAllowed` condition False for
InsufficientPods) → Degraded, since the pods it protects are already down; a budget
the controller has not counted since its last change → Progressing; else Healthy. A
budget that allows no disruption while all its pods are healthy (maxUnavailable 0) is
Healthy: that is what it asks for.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    pending = conditions.observing(obj)
    if pending is not None:
        return pending
    if fields.value(obj, "status") is None:
        return HealthStatus(HealthStatusCode.PROGRESSING, "Waiting for the pods to be counted")
    current = fields.integer(obj, "status.currentHealthy")
    desired = fields.integer(obj, "status.desiredHealthy")
    if current < desired:
        return HealthStatus(
            HealthStatusCode.DEGRADED, f"{current} healthy pod(s), the budget needs {desired}"
        )
    allowed = conditions.condition(obj, "DisruptionAllowed")
    if allowed is not None and allowed.false and allowed.reason == "InsufficientPods":
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(allowed))
    return HealthStatus(HealthStatusCode.HEALTHY, f"{current} healthy pod(s)")
