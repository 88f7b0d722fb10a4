"""Strimzi (kafka.strimzi.io Kafka, KafkaNodePool, KafkaConnect, KafkaMirrorMaker2,
KafkaBridge, KafkaTopic, KafkaUser), from the conditions Strimzi documents.

- `ReconciliationPaused` True (the `strimzi.io/pause-reconciliation` annotation) →
  Suspended;
- `status.observedGeneration` behind the spec → Progressing;
- `Ready` True → Healthy, False → Degraded;
- `NotReady` True: reason `Creating` (a first deployment) → Progressing; any other
  reason is the exception that ended the reconcile → Degraded;
- `Warning` conditions (deprecated fields) do not change health.
"""

from app.engine.health import conditions
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    paused = conditions.condition(obj, "ReconciliationPaused")
    if paused is not None and paused.true:
        return HealthStatus(HealthStatusCode.SUSPENDED, conditions.text(paused))
    pending = conditions.observing(obj)
    if pending is not None:
        return pending
    not_ready = conditions.condition(obj, "NotReady")
    if not_ready is not None and not_ready.true:
        code = (
            HealthStatusCode.PROGRESSING
            if not_ready.reason == "Creating"
            else HealthStatusCode.DEGRADED
        )
        return HealthStatus(code, conditions.text(not_ready))
    return conditions.by_condition(obj, "Ready", waiting="Waiting for Strimzi to reconcile it")
