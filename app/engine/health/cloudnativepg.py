"""CloudNativePG Cluster (postgresql.cnpg.io), from its documented status.

- hibernated (the `cnpg.io/hibernation: "on"` annotation, or the `cnpg.io/hibernation`
  condition True) → Suspended;
- `Ready` True, or the phase "Cluster in healthy state" → Healthy;
- a phase saying the operator cannot go on (it needs a person: "Unable to create
  required cluster objects", "Cluster cannot proceed...", an unrecoverable primary) →
  Degraded;
- any other phase (setting up the primary, creating replicas, upgrading, failing over,
  switching over) → Progressing, with the phase and its reason.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

HEALTHY_PHASE = "Cluster in healthy state"
HIBERNATION = "cnpg.io/hibernation"
_STUCK_WORDS = ("unable", "cannot", "unrecoverable", "failed", "invalid")


def health(obj: KubeObject) -> HealthStatus:
    annotations = fields.mapping(obj, "metadata.annotations")
    hibernated = conditions.condition(obj, HIBERNATION)
    if annotations.get(HIBERNATION) == "on" or (hibernated is not None and hibernated.true):
        return HealthStatus(HealthStatusCode.SUSPENDED, "Cluster is hibernated")
    phase = fields.string(obj, "status.phase")
    reason = fields.string(obj, "status.phaseReason")
    message = f"{phase}: {reason}" if phase and reason else phase
    ready = conditions.condition(obj, "Ready")
    if phase == HEALTHY_PHASE or (ready is not None and ready.true and not phase):
        return HealthStatus(HealthStatusCode.HEALTHY, message)
    if any(word in phase.lower() for word in _STUCK_WORDS):
        return HealthStatus(HealthStatusCode.DEGRADED, message)
    return HealthStatus(HealthStatusCode.PROGRESSING, message or "Waiting for the operator")
