"""Readings shared by the checks of controllers that report through `status.conditions`.

Most operators follow the Kubernetes API conventions: a `Ready` (or `Available`,
`Programmed`...) condition that is True when the object does what it says, False with a
reason when it cannot, and `status.observedGeneration` telling whether the controller
has seen the latest spec. These helpers read them the same way for every such kind, so
the messages a user sees have one form: the condition's message, else its reason.
"""

from app.engine.health import fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject

WAITING = "Waiting for the controller to report status"


def text(condition: fields.Condition) -> str:
    """What a condition says: its message, else its reason."""
    return condition.message or condition.reason


def generation_pending(obj: KubeObject, path: str = "status.observedGeneration") -> bool:
    """The controller has not yet observed the object's latest spec."""
    observed = fields.opt_integer(obj, path)
    generation = fields.opt_integer(obj, "metadata.generation")
    return observed is not None and generation is not None and observed < generation


def observing(obj: KubeObject, path: str = "status.observedGeneration") -> HealthStatus | None:
    """Progressing while the latest spec is not observed, else None (go on deciding)."""
    if generation_pending(obj, path):
        return HealthStatus(
            HealthStatusCode.PROGRESSING, "Waiting for the spec update to be observed"
        )
    return None


def condition(
    obj: KubeObject, condition_type: str, path: str = "status.conditions"
) -> fields.Condition | None:
    """The condition of a type in the list at `path`, or None."""
    return fields.find(fields.conditions(obj, path), condition_type)


def by_condition(
    obj: KubeObject,
    condition_type: str = "Ready",
    *,
    waiting: str = WAITING,
    path: str = "status.conditions",
) -> HealthStatus:
    """True → Healthy, False → Degraded, Unknown → Progressing, absent → Progressing
    with `waiting`; all with the condition's own words. A pending spec update comes first."""
    pending = observing(obj)
    if pending is not None:
        return pending
    found = condition(obj, condition_type, path)
    if found is None:
        return HealthStatus(HealthStatusCode.PROGRESSING, waiting)
    if found.true:
        return HealthStatus(HealthStatusCode.HEALTHY, text(found))
    if found.false:
        return HealthStatus(HealthStatusCode.DEGRADED, text(found))
    return HealthStatus(HealthStatusCode.PROGRESSING, text(found) or waiting)


def ready(obj: KubeObject) -> HealthStatus:
    """`by_condition(obj, "Ready")`: a HealthCheck for the many kinds that need no more."""
    return by_condition(obj, "Ready")
