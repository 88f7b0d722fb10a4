"""CustomResourceDefinition health, from the API server's conditions on the CRD.

Follows gitops-engine's check with one deliberate difference: a CRD that is not
Established yet (and whose names were not rejected) is Progressing, not Degraded. The API
server establishes a new CRD a moment after accepting its names; a sync that applies a
CRD and checks it at once must wait for that, not fail.
"""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    """Terminating or not yet established → Progressing; names rejected or a
    non-structural schema → Degraded; Established → Healthy."""
    found = fields.conditions(obj)
    if not found:
        return HealthStatus(HealthStatusCode.PROGRESSING, "Status conditions not found")
    terminating = fields.find(found, "Terminating")
    if terminating is not None and terminating.true:
        return HealthStatus(
            HealthStatusCode.PROGRESSING, f"CRD is being terminated: {terminating.message}"
        )
    names = fields.find(found, "NamesAccepted")
    if names is not None and names.false:
        return HealthStatus(
            HealthStatusCode.DEGRADED, f"CRD names have not been accepted: {names.message}"
        )
    established = fields.find(found, "Established")
    if established is None or not established.true:
        detail = established.message if established is not None else "no Established condition"
        return HealthStatus(HealthStatusCode.PROGRESSING, f"CRD is not established: {detail}")
    violations = fields.find(found, "NonStructuralSchema")
    if violations is not None and violations.true:
        return HealthStatus(
            HealthStatusCode.DEGRADED, f"Schema violations found: {violations.message}"
        )
    return HealthStatus(HealthStatusCode.HEALTHY, "CRD is healthy")
