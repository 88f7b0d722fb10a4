"""Prometheus Operator (monitoring.coreos.com Prometheus, PrometheusAgent, Alertmanager,
ThanosRuler), from the status the operator documents.

- `spec.paused` (also mirrored in `status.paused`): the operator leaves it alone →
  Suspended;
- `Reconciled` False: the operator could not apply the spec → Degraded;
- `Available`: True → Healthy; `Degraded` (the operator's third value: some replicas
  are not available) → Degraded; False (no replica is available yet: a new or rolling
  StatefulSet) → Progressing.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    if fields.flag(obj, "spec.paused") or fields.flag(obj, "status.paused"):
        return HealthStatus(HealthStatusCode.SUSPENDED, "Reconciliation is paused")
    reconciled = conditions.condition(obj, "Reconciled")
    if reconciled is not None and reconciled.false:
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(reconciled))
    available = conditions.condition(obj, "Available")
    if available is None:
        return HealthStatus(HealthStatusCode.PROGRESSING, "Waiting for the operator to deploy it")
    if available.true:
        return HealthStatus(HealthStatusCode.HEALTHY, conditions.text(available))
    if available.status == "Degraded":
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(available))
    return HealthStatus(HealthStatusCode.PROGRESSING, conditions.text(available))
