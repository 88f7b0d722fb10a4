"""KubeVirt VirtualMachine (kubevirt.io), from `status.printableStatus`, the one-word
state `kubectl get vm` shows.

Running → Healthy; Stopped and Paused (a VM stopped on purpose: `runStrategy: Halted`,
`running: false`, or paused by a person) → Suspended; Provisioning, Starting, Stopping,
Terminating, Migrating, WaitingForVolumeBinding → Progressing; the error states
(CrashLoopBackOff, ErrorUnschedulable, ErrImagePull, ImagePullBackOff, ErrorPvcNotFound,
ErrorDataVolumeNotFound, DataVolumeError) → Degraded, with the `Failure` or `Ready`
condition's message when there is one.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

_BY_STATUS = {
    "Running": HealthStatusCode.HEALTHY,
    "Stopped": HealthStatusCode.SUSPENDED,
    "Paused": HealthStatusCode.SUSPENDED,
    "": HealthStatusCode.PROGRESSING,
    "Provisioning": HealthStatusCode.PROGRESSING,
    "Starting": HealthStatusCode.PROGRESSING,
    "Stopping": HealthStatusCode.PROGRESSING,
    "Terminating": HealthStatusCode.PROGRESSING,
    "Migrating": HealthStatusCode.PROGRESSING,
    "WaitingForVolumeBinding": HealthStatusCode.PROGRESSING,
    "WaitingForReceiver": HealthStatusCode.PROGRESSING,
    "CrashLoopBackOff": HealthStatusCode.DEGRADED,
    "ErrorUnschedulable": HealthStatusCode.DEGRADED,
    "ErrImagePull": HealthStatusCode.DEGRADED,
    "ImagePullBackOff": HealthStatusCode.DEGRADED,
    "ErrorPvcNotFound": HealthStatusCode.DEGRADED,
    "ErrorDataVolumeNotFound": HealthStatusCode.DEGRADED,
    "DataVolumeError": HealthStatusCode.DEGRADED,
}


def health(obj: KubeObject) -> HealthStatus:
    printable = fields.string(obj, "status.printableStatus")
    code = _BY_STATUS.get(printable, HealthStatusCode.UNKNOWN)
    if code is HealthStatusCode.DEGRADED:
        for kind in ("Failure", "Ready"):
            found = conditions.condition(obj, kind)
            if found is not None and conditions.text(found) and not found.true:
                return HealthStatus(code, f"{printable}: {conditions.text(found)}")
    if code is HealthStatusCode.PROGRESSING and not printable:
        return HealthStatus(code, "Waiting for KubeVirt to report status")
    return HealthStatus(code, printable)
