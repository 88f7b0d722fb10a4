"""DaemonSet health: kubectl's rollout status, as Argo CD reads it."""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    """Progressing until the spec is observed and every scheduled pod is updated and
    available; OnDelete daemon sets are Healthy once observed."""
    if fields.integer(obj, "metadata.generation") > fields.integer(
        obj, "status.observedGeneration"
    ):
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            "Waiting for rollout to finish: "
            "observed daemon set generation less than desired generation",
        )
    desired = fields.integer(obj, "status.desiredNumberScheduled")
    updated = fields.integer(obj, "status.updatedNumberScheduled")
    if fields.string(obj, "spec.updateStrategy.type") == "OnDelete":
        return HealthStatus(
            HealthStatusCode.HEALTHY,
            f"daemon set {updated} out of {desired} new pods have been updated",
        )
    name = fields.name(obj)
    if updated < desired:
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            f'Waiting for daemon set "{name}" rollout to finish: '
            f"{updated} out of {desired} new pods have been updated...",
        )
    available = fields.integer(obj, "status.numberAvailable")
    if available < desired:
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            f'Waiting for daemon set "{name}" rollout to finish: '
            f"{available} of {desired} updated pods are available...",
        )
    return HealthStatus(HealthStatusCode.HEALTHY)
