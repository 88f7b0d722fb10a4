"""PersistentVolumeClaim health, from the claim's phase."""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

_BY_PHASE = {
    "Bound": HealthStatusCode.HEALTHY,
    "Pending": HealthStatusCode.PROGRESSING,
    "Lost": HealthStatusCode.DEGRADED,
}


def health(obj: KubeObject) -> HealthStatus:
    """Bound → Healthy, Pending → Progressing, Lost → Degraded, anything else Unknown."""
    phase = fields.string(obj, "status.phase")
    return HealthStatus(_BY_PHASE.get(phase, HealthStatusCode.UNKNOWN))
