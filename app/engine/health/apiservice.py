"""APIService health, from its Available condition."""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    """Available=True → Healthy; any other Available → Progressing, with its reason."""
    available = fields.find(fields.conditions(obj), "Available")
    if available is None:
        return HealthStatus(HealthStatusCode.PROGRESSING, "Waiting to be processed")
    code = HealthStatusCode.HEALTHY if available.true else HealthStatusCode.PROGRESSING
    return HealthStatus(code, f"{available.reason}: {available.message}")
