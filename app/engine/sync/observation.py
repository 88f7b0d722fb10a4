"""What the worker saw in the cluster just before asking for the next step.

For every key of `SyncState.observe_keys()`: the live object (None if it does not exist)
and its health as the health engine assesses it (None when the kind has no health check).
Read running tasks' objects from the API server, not from a cache that may lag behind:
a task whose object is missing is failed with "Resource ... is missing".

`prune_approved_at` is the time in the Application's `argocd.argoproj.io/deletion-approved`
annotation (see `approval_time`): Prune=confirm waits until it is at or after the start of
the operation.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from app.model.annotations import DELETION_APPROVED
from app.model.health import HealthStatus
from app.model.resource import KubeObject, ResourceKey, metadata
from app.model.timestamps import parse_time


@dataclass(frozen=True, slots=True)
class Observed:
    """One object as observed: live (or None) and its health (or None: no health check)."""

    live: KubeObject | None = None
    health: HealthStatus | None = None

    @property
    def deleting(self) -> bool:
        """The live object carries a deletionTimestamp."""
        return self.live is not None and bool(metadata(self.live).get("deletionTimestamp"))

    def has_finalizer(self, name: str) -> bool:
        finalizers = metadata(self.live).get("finalizers") if self.live is not None else None
        return isinstance(finalizers, list) and name in finalizers


ABSENT = Observed()


@dataclass(frozen=True)
class Observation:
    """The cluster as the worker saw it; keys it did not report are taken as absent."""

    objects: Mapping[ResourceKey, Observed] = field(default_factory=dict)
    prune_approved_at: datetime | None = None

    def of(self, key: ResourceKey) -> Observed:
        return self.objects.get(key, ABSENT)

    @classmethod
    def from_live(
        cls,
        live: Mapping[ResourceKey, KubeObject | None],
        health: Callable[[KubeObject], HealthStatus | None],
        prune_approved_at: datetime | None = None,
    ) -> "Observation":
        """Observation of live objects, each assessed with `health` (the health engine)."""
        return cls(
            {k: Observed(o, health(o)) if o is not None else ABSENT for k, o in live.items()},
            prune_approved_at,
        )


def approval_time(app_annotations: Mapping[str, str]) -> datetime | None:
    """The RFC3339 time in `argocd.argoproj.io/deletion-approved`, or None if absent or bad."""
    raw = app_annotations.get(DELETION_APPROVED)
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return parse_time(raw)
    except ValueError:
        return None
