"""Kyverno policies (kyverno.io ClusterPolicy, Policy, CleanupPolicy,
ClusterCleanupPolicy): the `Ready` condition says whether the policy is compiled and its
webhooks are in place; Kyverno before 1.9 reported only the boolean `status.ready`."""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    if conditions.condition(obj, "Ready") is None and fields.value(obj, "status.ready") is not None:
        if fields.flag(obj, "status.ready"):
            return HealthStatus(HealthStatusCode.HEALTHY)
        return HealthStatus(HealthStatusCode.PROGRESSING, "Waiting for the policy to be ready")
    return conditions.by_condition(obj, "Ready", waiting="Waiting for the policy to be ready")
