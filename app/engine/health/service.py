"""Service health: only a LoadBalancer waits, for its external address."""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    """LoadBalancer without `status.loadBalancer.ingress` → Progressing; else Healthy."""
    if fields.string(obj, "spec.type") == "LoadBalancer" and not fields.items(
        obj, "status.loadBalancer.ingress"
    ):
        return HealthStatus(HealthStatusCode.PROGRESSING)
    return HealthStatus(HealthStatusCode.HEALTHY)
