"""Comparison levels and timing (SEMANTICS §7): how hard to look, and when to look again.

Each trigger asks for a level on Argo CD's ladder (`nothing` < `recent` < `latest` <
`force`); requests that meet while one is queued merge by max, so none is lost and the
strongest wins (when an app is compared again on its own: `app.engine.resync`). A
repository error is ignored for a grace period of 180 s from its first sighting, leaving
the previous status in place, unless the comparison was a `force` one; after that it
becomes a ComparisonError.
"""

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from app.model.sync import RefreshLevel

DEFAULT_REPO_ERROR_GRACE_SECONDS = 180.0


class Trigger(enum.Enum):
    """Why a comparison is requested."""

    NON_ROOT_OBJECT_CHANGED = "a non-root object of the app changed"
    MANAGED_OBJECT_CHANGED = "a managed object changed"
    RESYNC_DUE = "the resync period expired"
    REFRESH_REQUESTED = "a refresh was requested"
    REVISION_MOVED = "the target revision moved (webhook or poll)"
    DESTINATION_CHANGED = "spec.destination changed"
    IGNORE_DIFFERENCES_CHANGED = "spec.ignoreDifferences changed"
    AUTOSYNC_ENABLED = "automated sync was enabled"
    AUTOMATED_OPERATION_FINISHED = "an automated operation finished"
    SELF_HEAL_BACKOFF_ELAPSED = "the self-heal backoff elapsed"
    HARD_REFRESH_REQUESTED = "a hard refresh was requested"
    SOURCE_CHANGED = "spec.source changed"
    MANUAL_OPERATION_FINISHED = "a manual operation finished"


_LEVELS = {
    Trigger.NON_ROOT_OBJECT_CHANGED: RefreshLevel.NOTHING,
    Trigger.MANAGED_OBJECT_CHANGED: RefreshLevel.RECENT,
    Trigger.RESYNC_DUE: RefreshLevel.LATEST,
    Trigger.REFRESH_REQUESTED: RefreshLevel.LATEST,
    Trigger.REVISION_MOVED: RefreshLevel.LATEST,
    Trigger.DESTINATION_CHANGED: RefreshLevel.LATEST,
    Trigger.IGNORE_DIFFERENCES_CHANGED: RefreshLevel.LATEST,
    Trigger.AUTOSYNC_ENABLED: RefreshLevel.LATEST,
    Trigger.AUTOMATED_OPERATION_FINISHED: RefreshLevel.LATEST,
    Trigger.SELF_HEAL_BACKOFF_ELAPSED: RefreshLevel.LATEST,
    Trigger.HARD_REFRESH_REQUESTED: RefreshLevel.FORCE,
    Trigger.SOURCE_CHANGED: RefreshLevel.FORCE,
    Trigger.MANUAL_OPERATION_FINISHED: RefreshLevel.FORCE,
}


def level_for(trigger: Trigger) -> RefreshLevel:
    """The comparison level a trigger asks for."""
    return _LEVELS[trigger]


def operation_finished_level(automated: bool) -> RefreshLevel:
    """After an operation: `latest` if automation started it, `force` if a person did."""
    return level_for(
        Trigger.AUTOMATED_OPERATION_FINISHED if automated else Trigger.MANUAL_OPERATION_FINISHED
    )


def merge_levels(levels: Iterable[RefreshLevel]) -> RefreshLevel:
    """Requests merged: the highest level asked for (ValueError if none was)."""
    merged = max(levels, default=None)
    if merged is None:
        raise ValueError("merge_levels needs at least one requested level")
    return merged


@dataclass(frozen=True)
class RepoErrorVerdict:
    """What to do with a comparison that failed on a repository error."""

    keep_previous: bool
    """True: leave the previous status untouched; False: report a ComparisonError."""
    first_seen: datetime | None
    """When this run of errors began; store it for the next comparison (clear it on success)."""
    reason: str


def repo_error_verdict(
    first_seen: datetime | None,
    now: datetime,
    level: RefreshLevel,
    grace: float = DEFAULT_REPO_ERROR_GRACE_SECONDS,
) -> RepoErrorVerdict:
    """Apply the grace period to a repository error first seen at `first_seen` (or now)."""
    if level is RefreshLevel.FORCE:
        return RepoErrorVerdict(
            False, first_seen, "a hard refresh reports repository errors at once"
        )
    if first_seen is None:
        return RepoErrorVerdict(
            True, now, f"first repository error; status kept for up to {grace:g}s"
        )
    elapsed = (now - first_seen).total_seconds()
    if elapsed <= grace:
        return RepoErrorVerdict(
            True,
            first_seen,
            f"repository failing for {elapsed:.0f}s; status kept for up to {grace:g}s",
        )
    return RepoErrorVerdict(
        False,
        first_seen,
        f"repository failing for {elapsed:.0f}s, longer than the {grace:g}s grace period",
    )
