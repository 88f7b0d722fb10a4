"""Health of a child Argo CD Application (app of apps): the child's own `status.health`.

Argo CD ships no built-in check for Applications and documents a Lua snippet instead;
Sluice builds it in. App aggregation skips a child that is Missing or Unknown (see
`aggregate`), so a child that has not been reconciled yet does not hold its parent.
"""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

_CODES = {code.value: code for code in HealthStatusCode}


def health(obj: KubeObject) -> HealthStatus:
    """The child's `status.health`; Progressing until the child has been assessed."""
    status = fields.string(obj, "status.health.status")
    message = fields.string(obj, "status.health.message")
    if not status:
        return HealthStatus(
            HealthStatusCode.PROGRESSING, "Waiting for the application to be reconciled"
        )
    code = _CODES.get(status)
    if code is None:
        expected = ", ".join(_CODES)
        return HealthStatus(
            HealthStatusCode.UNKNOWN,
            f"status.health.status {status!r} is not a health status (expected one of {expected})",
        )
    return HealthStatus(code, message)
