"""An application's health: the worst health among the resources that count.

A fold with `HealthStatusCode.worse_than` over the app's resources, starting at Healthy
(Argo CD v3, controller/health.go). What does not count:
- hooks, Skip targets and ignored objects (hook annotations with no valid type): they
  are not part of the app's state at all;
- resources whose live object is missing: OutOfSync already says so;
- live objects annotated `argocd.argoproj.io/ignore-healthcheck: "true"`, objects without
  a health check, and the app's own Application object (an app that manages itself);
- child Applications that are Missing or Unknown (app of apps: a child that is not
  reconciled yet must not hold its parent).
If the app has resources that count but none of them exists live, it is Missing.

Argo CD v3 no longer writes an app health message (the field is deprecated). Sluice says
why: "Caused by <group>/<Kind>:<namespace>/<name>, ... and N more", naming up to three
of the resources that have the app's status, in key order. Healthy has no message.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from app.model.annotations import IGNORE_HEALTHCHECK
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject, ResourceKey, annotations

SHOWN_CAUSES = 3
_CHILD_APP = ("argoproj.io", "Application")
_CHILD_APP_SKIPPED = (HealthStatusCode.MISSING, HealthStatusCode.UNKNOWN)


@dataclass(frozen=True, slots=True)
class ResourceHealthInput:
    """One managed resource as the compare engine sees it, for app health."""

    key: ResourceKey
    health: HealthStatus | None = None
    """`assess(live)`; None when the kind has no health check (or the live object is missing)."""
    live_exists: bool = True
    """A live object exists in the cluster for this key."""
    hook: bool = False
    """The resource is a hook (by its target or its live object)."""
    skip: bool = False
    """The target's only hook type is Skip: never applied."""
    ignored: bool = False
    """Hook annotations with no valid hook type (e.g. a Helm test hook): dropped."""
    ignore_healthcheck: bool = False
    """The live object carries `argocd.argoproj.io/ignore-healthcheck: "true"`."""
    self_reference: bool = False
    """The live object is the Application being assessed (it manages itself)."""


@dataclass(frozen=True, slots=True)
class AppHealth:
    """The app's health, why, and every resource that has that status."""

    status: HealthStatusCode
    message: str = ""
    causes: tuple[ResourceKey, ...] = ()


def ignores_healthcheck(live: KubeObject) -> bool:
    """True if the live object opts out of app health (`ignore-healthcheck: "true"`)."""
    return annotations(live).get(IGNORE_HEALTHCHECK) == "true"


def caused_by(keys: Iterable[ResourceKey]) -> str:
    """ "Caused by a, b, c and N more" for the given resources, in key order."""
    ordered = sorted(keys)
    if not ordered:
        return ""
    shown = ", ".join(str(key) for key in ordered[:SHOWN_CAUSES])
    more = len(ordered) - SHOWN_CAUSES
    return f"Caused by {shown} and {more} more" if more > 0 else f"Caused by {shown}"


def _counted_health(resource: ResourceHealthInput) -> HealthStatusCode | None:
    """The status this live resource adds to the fold, or None if it adds none."""
    if resource.ignore_healthcheck or resource.self_reference or resource.health is None:
        return None
    code = resource.health.status
    if (resource.key.group, resource.key.kind) == _CHILD_APP and code in _CHILD_APP_SKIPPED:
        return None
    return code


def aggregate(resources: Iterable[ResourceHealthInput]) -> AppHealth:
    """Fold the resources' health into the app's health, with its cause."""
    status = HealthStatusCode.HEALTHY
    by_status: dict[HealthStatusCode, list[ResourceKey]] = {}
    missing: list[ResourceKey] = []
    any_live = False
    for resource in resources:
        if resource.hook or resource.skip or resource.ignored:
            continue
        if not resource.live_exists:
            missing.append(resource.key)
            continue
        any_live = True
        code = _counted_health(resource)
        if code is None:
            continue
        by_status.setdefault(code, []).append(resource.key)
        if code.worse_than(status):
            status = code
    if missing and not any_live:
        return AppHealth(HealthStatusCode.MISSING, caused_by(missing), tuple(sorted(missing)))
    if status is HealthStatusCode.HEALTHY:
        return AppHealth(status)
    causes = tuple(sorted(by_status[status]))
    return AppHealth(status, caused_by(causes), causes)
