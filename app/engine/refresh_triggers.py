"""What the cluster watcher asks of the compare stage, and for which Applications.

The watcher turns what it sees into refresh requests (SEMANTICS §7):

- an Application created, or its spec changed: `force` (the contract of
  docs/pipeline.md: a new source may point anywhere, so nothing cached is trusted);
- the `argocd.argoproj.io/refresh` annotation: `hard` → `force`, any other value →
  `latest` (Argo CD reads every value but `hard` as a normal refresh);
- a managed object changed: `recent`; an object it owns (a ReplicaSet, a Pod) changed:
  `nothing` (the tree and health move, the revision does not);
- an AppProject's spec changed: `latest` for each of its apps (what the project permits
  decides their conditions and what they may sync).

Requests that meet merge by the highest level; their reasons are kept together so the
user sees every cause. Applications are reconciled in the control-plane namespace and in
namespaces matching one of the `application_namespaces` globs.
"""

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from app.engine.levels import Trigger, level_for
from app.model.annotations import REFRESH
from app.model.sync import RefreshLevel

MAX_VALUE_SHOWN = 40
"""Characters of a user-written annotation value repeated in a reason."""


@dataclass(frozen=True, slots=True)
class RefreshAsk:
    """A refresh to request: the level and the reason the user will see."""

    level: RefreshLevel
    reason: str


APP_CREATED = RefreshAsk(RefreshLevel.FORCE, "Application created")
SPEC_CHANGED = RefreshAsk(RefreshLevel.FORCE, "Application spec changed")
SPEC_INVALID = RefreshAsk(RefreshLevel.RECENT, "Application spec is invalid")
"""The resource stopped parsing: compare shows InvalidSpecError on the last valid version."""


def reconciled_namespace(
    namespace: str, *, control_namespace: str, application_namespaces: Sequence[str]
) -> bool:
    """True for the control-plane namespace and namespaces matching one of the globs."""
    if namespace == control_namespace:
        return True
    return any(fnmatch.fnmatchcase(namespace, glob) for glob in application_namespaces)


def registry_refresh(*, created: bool, spec_changed: bool) -> RefreshAsk | None:
    """The refresh a registry write calls for: a new app or a new spec → force."""
    if created:
        return APP_CREATED
    if spec_changed:
        return SPEC_CHANGED
    return None


def annotation_refresh(annotations: Mapping[str, str]) -> RefreshAsk | None:
    """The refresh the `argocd.argoproj.io/refresh` annotation asks for, if present."""
    value = annotations.get(REFRESH)
    if value is None:
        return None
    trigger = Trigger.HARD_REFRESH_REQUESTED if value == "hard" else Trigger.REFRESH_REQUESTED
    shown = value if len(value) <= MAX_VALUE_SHOWN else value[: MAX_VALUE_SHOWN - 3] + "..."
    return RefreshAsk(level_for(trigger), f"{trigger.value} (annotation {REFRESH}: {shown!r})")


def object_change(kind: str, name: str, *, managed: bool) -> RefreshAsk:
    """A managed object changed → recent; a descendant of one → nothing."""
    trigger = Trigger.MANAGED_OBJECT_CHANGED if managed else Trigger.NON_ROOT_OBJECT_CHANGED
    return RefreshAsk(level_for(trigger), f"{kind}/{name} changed")


def project_changed(name: str) -> RefreshAsk:
    """An app's AppProject changed: compare again (latest)."""
    return RefreshAsk(RefreshLevel.LATEST, f"AppProject {name} changed")


def merge_asks(asks: Iterable[RefreshAsk | None]) -> RefreshAsk | None:
    """One request for several: the highest level, the distinct reasons joined in order."""
    present = [ask for ask in asks if ask is not None]
    if not present:
        return None
    reasons = "; ".join(dict.fromkeys(ask.reason for ask in present))
    return RefreshAsk(max(ask.level for ask in present), reasons)
