"""Ingress health (networking.k8s.io and the old extensions group)."""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    """Healthy once the controller publishes an address, else Progressing."""
    if fields.items(obj, "status.loadBalancer.ingress"):
        return HealthStatus(HealthStatusCode.HEALTHY)
    return HealthStatus(HealthStatusCode.PROGRESSING)
