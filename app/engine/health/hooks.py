"""A hook's phase from its health (SEMANTICS §2), for the sync engine's hook tasks.

No health check (a ConfigMap, a Secret...) → Succeeded "<name> created": existing is
success. Healthy → Succeeded; Progressing or Suspended → Running; Degraded or Unknown →
Failed; each with the health message. Missing (only a custom check can say it of a live
object) is treated as Argo CD treats it: as no verdict, so Succeeded "<name> created".
The kind rules that matter for hooks (Job, Pod with restartPolicy Never/OnFailure,
Argo Workflow) live in their health checks.
"""

from dataclasses import dataclass

from app.engine.health.assess import assess
from app.engine.health.customizations import HealthCustomizations
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject, metadata
from app.model.sync import OperationPhase

_PHASES = {
    HealthStatusCode.HEALTHY: OperationPhase.SUCCEEDED,
    HealthStatusCode.PROGRESSING: OperationPhase.RUNNING,
    HealthStatusCode.SUSPENDED: OperationPhase.RUNNING,
    HealthStatusCode.DEGRADED: OperationPhase.FAILED,
    HealthStatusCode.UNKNOWN: OperationPhase.FAILED,
}


@dataclass(frozen=True, slots=True)
class HookStatus:
    """Where a hook stands: Running, Succeeded or Failed, and why."""

    phase: OperationPhase
    message: str


def hook_status_from_health(name: str, health: HealthStatus | None) -> HookStatus:
    """The hook phase for a live hook named `name` whose health was assessed as `health`."""
    if health is None or health.status not in _PHASES:
        return HookStatus(OperationPhase.SUCCEEDED, f"{name} created")
    return HookStatus(_PHASES[health.status], health.message)


def hook_status(
    live: KubeObject, *, customizations: HealthCustomizations | None = None
) -> HookStatus:
    """Assess a live hook object and map its health to a hook phase."""
    name = str(metadata(live).get("name") or "")
    return hook_status_from_health(name, assess(live, customizations=customizations))
