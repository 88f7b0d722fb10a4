"""Deployment health: kubectl's rollout status, as Argo CD reads it."""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    """Suspended when paused; Progressing until the rollout is observed, updated and
    available; Degraded once the progress deadline is exceeded; else Healthy."""
    if fields.flag(obj, "spec.paused"):
        return HealthStatus(HealthStatusCode.SUSPENDED, "Deployment is paused")
    if fields.integer(obj, "metadata.generation") > fields.integer(
        obj, "status.observedGeneration"
    ):
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            "Waiting for rollout to finish: "
            "observed deployment generation less than desired generation",
        )
    progressing = fields.find(fields.conditions(obj), "Progressing")
    if progressing is not None and progressing.reason == "ProgressDeadlineExceeded":
        return HealthStatus(
            HealthStatusCode.DEGRADED,
            f'Deployment "{fields.name(obj)}" exceeded its progress deadline',
        )
    desired = fields.opt_integer(obj, "spec.replicas")
    replicas = fields.integer(obj, "status.replicas")
    updated = fields.integer(obj, "status.updatedReplicas")
    available = fields.integer(obj, "status.availableReplicas")
    if desired is not None and updated < desired:
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            f"Waiting for rollout to finish: {updated} out of {desired} "
            "new replicas have been updated...",
        )
    if replicas > updated:
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            f"Waiting for rollout to finish: {replicas - updated} "
            "old replicas are pending termination...",
        )
    if available < updated:
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            f"Waiting for rollout to finish: {available} of {updated} "
            "updated replicas are available...",
        )
    return HealthStatus(HealthStatusCode.HEALTHY)
