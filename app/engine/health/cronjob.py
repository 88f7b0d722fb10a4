"""batch CronJob health.

`spec.suspend` → Suspended. A CronJob whose last scheduled run is later than its last
successful one, with no Job running, has a last run that failed → Degraded (its Job
holds the details). Else Healthy, saying when it last ran; a CronJob that has not run
yet is Healthy too: waiting for its schedule is what it is meant to do.
"""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def health(obj: KubeObject) -> HealthStatus:
    if fields.flag(obj, "spec.suspend"):
        return HealthStatus(HealthStatusCode.SUSPENDED, "CronJob is suspended")
    scheduled = fields.string(obj, "status.lastScheduleTime")
    succeeded = fields.string(obj, "status.lastSuccessfulTime")
    active = fields.items(obj, "status.active")
    if active:
        return HealthStatus(HealthStatusCode.HEALTHY, f"{len(active)} job(s) running")
    # RFC 3339 UTC timestamps from the API server compare correctly as text.
    if scheduled and (not succeeded or succeeded < scheduled):
        return HealthStatus(
            HealthStatusCode.DEGRADED, f"the job scheduled at {scheduled} did not succeed"
        )
    if scheduled:
        return HealthStatus(HealthStatusCode.HEALTHY, f"last run at {scheduled}")
    return HealthStatus(HealthStatusCode.HEALTHY)
