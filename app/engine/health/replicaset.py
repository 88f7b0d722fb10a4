"""ReplicaSet health, as Argo CD reads it."""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    """Degraded on ReplicaFailure=True; Progressing until observed and all available."""
    if fields.integer(obj, "metadata.generation") > fields.integer(
        obj, "status.observedGeneration"
    ):
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            "Waiting for rollout to finish: "
            "observed replica set generation less than desired generation",
        )
    failure = fields.find(fields.conditions(obj), "ReplicaFailure")
    if failure is not None and failure.true:
        return HealthStatus(HealthStatusCode.DEGRADED, failure.message)
    desired = fields.opt_integer(obj, "spec.replicas")
    available = fields.integer(obj, "status.availableReplicas")
    if desired is not None and available < desired:
        return HealthStatus(
            HealthStatusCode.PROGRESSING,
            f"Waiting for rollout to finish: {available} out of {desired} "
            "new replicas are available...",
        )
    return HealthStatus(HealthStatusCode.HEALTHY)
