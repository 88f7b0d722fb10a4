"""KEDA (keda.sh ScaledObject, ScaledJob), from the conditions KEDA documents.

Paused (the `Paused` condition, or the `autoscaling.keda.sh/paused` /
`paused-replicas` annotations before KEDA has reacted) is Suspended; `Ready` False (the
scaler cannot be built or its target is missing) is Degraded; `Fallback` True (metrics
fail and the fallback replica count is in force) is Degraded; Ready True is Healthy.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

_PAUSE_ANNOTATIONS = ("autoscaling.keda.sh/paused", "autoscaling.keda.sh/paused-replicas")


def health(obj: KubeObject) -> HealthStatus:
    paused = conditions.condition(obj, "Paused")
    if paused is not None and paused.true:
        return HealthStatus(HealthStatusCode.SUSPENDED, conditions.text(paused))
    annotations = fields.mapping(obj, "metadata.annotations")
    if annotations.get(_PAUSE_ANNOTATIONS[0]) == "true" or _PAUSE_ANNOTATIONS[1] in annotations:
        return HealthStatus(HealthStatusCode.SUSPENDED, "Scaling is paused by annotation")
    ready = conditions.condition(obj, "Ready")
    if ready is not None and ready.false:
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(ready))
    fallback = conditions.condition(obj, "Fallback")
    if fallback is not None and fallback.true:
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(fallback))
    return conditions.by_condition(obj, "Ready", waiting="Waiting for KEDA to set up scaling")
