"""Comparison levels, resync timing and the repository error grace period (SEMANTICS §7)."""

from datetime import UTC, datetime, timedelta

import pytest

from app.engine.levels import (
    Trigger,
    level_for,
    merge_levels,
    operation_finished_level,
    repo_error_verdict,
)
from app.model.sync import RefreshLevel as L

T = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)

LEVELS = [
    (Trigger.NON_ROOT_OBJECT_CHANGED, L.NOTHING),
    (Trigger.MANAGED_OBJECT_CHANGED, L.RECENT),
    (Trigger.RESYNC_DUE, L.LATEST),
    (Trigger.REFRESH_REQUESTED, L.LATEST),
    (Trigger.REVISION_MOVED, L.LATEST),
    (Trigger.DESTINATION_CHANGED, L.LATEST),
    (Trigger.IGNORE_DIFFERENCES_CHANGED, L.LATEST),
    (Trigger.AUTOSYNC_ENABLED, L.LATEST),
    (Trigger.AUTOMATED_OPERATION_FINISHED, L.LATEST),
    (Trigger.SELF_HEAL_BACKOFF_ELAPSED, L.LATEST),
    (Trigger.HARD_REFRESH_REQUESTED, L.FORCE),
    (Trigger.SOURCE_CHANGED, L.FORCE),
    (Trigger.MANUAL_OPERATION_FINISHED, L.FORCE),
]


@pytest.mark.parametrize(("trigger", "level"), LEVELS, ids=[t.name.lower() for t, _ in LEVELS])
def test_level_each_trigger_asks_for(trigger: Trigger, level: L) -> None:
    assert level_for(trigger) is level


def test_every_trigger_has_a_level() -> None:
    assert {t for t, _ in LEVELS} == set(Trigger)


def test_operation_finished_level_depends_on_who_started_it() -> None:
    assert (operation_finished_level(True), operation_finished_level(False)) == (L.LATEST, L.FORCE)


@pytest.mark.parametrize(
    ("levels", "merged"),
    [
        ([L.RECENT, L.NOTHING], L.RECENT),
        ([L.LATEST, L.FORCE, L.RECENT], L.FORCE),
        ([L.NOTHING], L.NOTHING),
    ],
    ids=["recent-beats-nothing", "force-beats-all", "single"],
)
def test_levels_merge_by_max(levels: list[L], merged: L) -> None:
    assert merge_levels(levels) is merged


def test_merging_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one"):
        merge_levels([])


GRACE = [
    ("first-error-keeps-status", None, 0, L.LATEST, True),
    ("within-grace-keeps-status", T, 180, L.RECENT, True),
    ("after-grace-reports-error", T, 181, L.LATEST, False),
    ("force-reports-at-once", None, 0, L.FORCE, False),
    ("force-within-grace-reports", T, 10, L.FORCE, False),
]


@pytest.mark.parametrize(
    ("first_seen", "elapsed", "level", "keep"), [c[1:] for c in GRACE], ids=[c[0] for c in GRACE]
)
def test_repo_error_grace_period(
    first_seen: datetime | None, elapsed: int, level: L, keep: bool
) -> None:
    now = T + timedelta(seconds=elapsed)
    verdict = repo_error_verdict(first_seen, now, level)
    assert verdict.keep_previous is keep
    assert verdict.reason
    if first_seen is None and level is not L.FORCE:
        assert verdict.first_seen == now
