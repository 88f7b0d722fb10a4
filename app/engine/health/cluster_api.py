"""Cluster API (cluster.x-k8s.io Cluster, Machine, MachineDeployment, MachineSet), from
`status.phase`, the failure fields and the `Ready` condition.

- `spec.paused` (Cluster, MachineDeployment) → Suspended;
- `status.failureReason`/`failureMessage` set, or the phase Failed → Degraded (Cluster
  API stops reconciling: a person must act);
- Cluster: Pending, Provisioning, Deleting → Progressing; Provisioned → Healthy once
  `Ready` is not False (False: the control plane or infrastructure is not ready yet →
  Progressing);
- Machine: Running → Healthy (its node joined); Pending, Provisioning, Provisioned
  (waiting for the node), Deleting → Progressing;
- MachineDeployment, MachineSet: Progressing until the updated and available replicas
  reach `spec.replicas`, with the counts; ScalingUp/ScalingDown → Progressing.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

_AT_WORK = ("Pending", "Provisioning", "Deleting", "ScalingUp", "ScalingDown", "")


def _failed(obj: KubeObject) -> HealthStatus | None:
    message = fields.string(obj, "status.failureMessage") or fields.string(
        obj, "status.failureReason"
    )
    if message or fields.string(obj, "status.phase") == "Failed":
        return HealthStatus(HealthStatusCode.DEGRADED, message or "Failed")
    return None


def _paused(obj: KubeObject) -> HealthStatus | None:
    if fields.flag(obj, "spec.paused"):
        return HealthStatus(HealthStatusCode.SUSPENDED, "Reconciliation is paused")
    return None


def cluster(obj: KubeObject) -> HealthStatus:
    decided = _paused(obj) or _failed(obj) or conditions.observing(obj)
    if decided is not None:
        return decided
    phase = fields.string(obj, "status.phase")
    if phase != "Provisioned":
        return HealthStatus(HealthStatusCode.PROGRESSING, phase or conditions.WAITING)
    ready = conditions.condition(obj, "Ready")
    if ready is not None and not ready.true:
        return HealthStatus(HealthStatusCode.PROGRESSING, conditions.text(ready))
    return HealthStatus(HealthStatusCode.HEALTHY, phase)


def machine(obj: KubeObject) -> HealthStatus:
    decided = _failed(obj)
    if decided is not None:
        return decided
    phase = fields.string(obj, "status.phase")
    if phase == "Running":
        return HealthStatus(HealthStatusCode.HEALTHY, phase)
    if phase == "Provisioned":
        return HealthStatus(HealthStatusCode.PROGRESSING, "Waiting for the node to join")
    if phase in _AT_WORK:
        return HealthStatus(HealthStatusCode.PROGRESSING, phase or conditions.WAITING)
    return HealthStatus(HealthStatusCode.UNKNOWN, f"unknown phase {phase!r}")


def machine_deployment(obj: KubeObject) -> HealthStatus:
    decided = _paused(obj) or _failed(obj) or conditions.observing(obj)
    if decided is not None:
        return decided
    wanted = fields.opt_integer(obj, "spec.replicas")
    wanted = 1 if wanted is None else wanted
    updated = fields.integer(obj, "status.updatedReplicas")
    available = fields.integer(obj, "status.availableReplicas")
    if updated < wanted:
        return HealthStatus(HealthStatusCode.PROGRESSING, f"{updated} of {wanted} machines updated")
    if available < wanted:
        return HealthStatus(
            HealthStatusCode.PROGRESSING, f"{available} of {wanted} machines available"
        )
    return HealthStatus(HealthStatusCode.HEALTHY, f"{available} of {wanted} machines available")
