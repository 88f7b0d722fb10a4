"""HorizontalPodAutoscaler health, from its scaling conditions.

autoscaling/v1 carries the conditions JSON-encoded in the annotation
`autoscaling.alpha.kubernetes.io/conditions`; v2 (and the v2beta versions) in
`status.conditions`. A failure to read the scale target or a metric is Degraded, wherever
it appears in the list; otherwise AbleToScale or ScalingLimited True is Healthy; anything
else is still "Waiting to Autoscale". Argo CD degrades on FailedGetScale,
FailedUpdateScale, FailedGetResourceMetric and InvalidSelector, and stops at the first
decisive condition in list order; Sluice also degrades on the other metric-fetch failures
(object, pods, external, container resource metrics) and lets a failure win over an
earlier healthy condition, so an HPA that cannot read its metric is never Healthy.
"""

import json

from app.engine.health import fields
from app.model.errors import SpecError
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject, split_api_version

V1_CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions"

_DEGRADED_REASONS = {
    "AbleToScale": {"FailedGetScale", "FailedUpdateScale"},
    "ScalingActive": {
        "FailedGetResourceMetric",
        "FailedGetContainerResourceMetric",
        "FailedGetObjectMetric",
        "FailedGetPodsMetric",
        "FailedGetExternalMetric",
        "InvalidSelector",
    },
}
_HEALTHY_TYPES = {"AbleToScale", "ScalingLimited"}
_WAITING = HealthStatus(HealthStatusCode.PROGRESSING, "Waiting to Autoscale")


def _conditions(obj: KubeObject) -> list[fields.Condition]:
    _, version = split_api_version(str(obj.get("apiVersion", "")))
    if version != "v1":
        return fields.conditions(obj)
    where = f"metadata.annotations.{V1_CONDITIONS}"
    encoded = fields.mapping(obj, "metadata.annotations").get(V1_CONDITIONS)
    if encoded is None:
        return []
    if not isinstance(encoded, str):
        raise SpecError(where, "expected a string holding a JSON array of conditions")
    try:
        decoded = json.loads(encoded)
    except ValueError as e:
        raise SpecError(where, f"is not valid JSON: {e}") from e
    if not isinstance(decoded, list):
        raise SpecError(where, "expected a JSON array of conditions")
    return fields.condition_list(decoded, where)


def health(obj: KubeObject) -> HealthStatus:
    """Degraded on a scale or metric failure, Healthy when able to scale, else waiting."""
    found = _conditions(obj)
    for condition in found:
        if condition.reason in _DEGRADED_REASONS.get(condition.type, ()):
            return HealthStatus(HealthStatusCode.DEGRADED, condition.message)
    for condition in found:
        if condition.type in _HEALTHY_TYPES and condition.true:
            return HealthStatus(HealthStatusCode.HEALTHY, condition.message)
    return _WAITING
