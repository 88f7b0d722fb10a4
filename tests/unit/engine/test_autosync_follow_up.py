"""What the compare stage does after an auto-sync decision: start, re-check, announce once."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.engine.autosync import (
    REASON_KEPT,
    AutoSyncDecision,
    AutoSyncOutcome,
    FollowUp,
    Recheck,
    RecheckCause,
    follow_up,
    remembered_reason,
)
from app.model.operation import Operation, OperationInitiator
from app.model.sync import RefreshLevel

NOW = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
REVISIONS = ("a" * 40, "b" * 40)
OPERATION = Operation(initiated_by=OperationInitiator(automated=True))
WINDOW = "Skipping auto-sync: blocked by sync window deny 0 22 * * *"
HEAL = "Skipping auto-sync: already attempted sync with timeout 5s (retrying in 3s)"


def decision(outcome: AutoSyncOutcome, reason: str, **fields: Any) -> AutoSyncDecision:
    return AutoSyncDecision(outcome, reason, **fields)


def announced(reason: str) -> dict[str, str]:
    return {"reason": reason, "revision": ", ".join(REVISIONS)}


CASES = [
    pytest.param(
        decision(AutoSyncOutcome.START, "Initiated automated sync", operation=OPERATION),
        "",
        FollowUp(start=OPERATION),
        id="start-the-operation",
    ),
    pytest.param(
        decision(
            AutoSyncOutcome.RECHECK,
            WINDOW,
            recheck_after=90.0,
            recheck_level=RefreshLevel.RECENT,
            recheck_cause=RecheckCause.SYNC_WINDOW,
        ),
        "",
        FollowUp(
            recheck=Recheck(
                RecheckCause.SYNC_WINDOW, NOW + timedelta(seconds=90), RefreshLevel.RECENT
            ),
            skipped=announced(WINDOW),
        ),
        id="a-blocking-window-rechecks-when-it-changes-and-says-so",
    ),
    pytest.param(
        decision(
            AutoSyncOutcome.RECHECK,
            WINDOW,
            recheck_after=90.0,
            recheck_level=RefreshLevel.RECENT,
            recheck_cause=RecheckCause.SYNC_WINDOW,
        ),
        WINDOW,
        FollowUp(
            recheck=Recheck(
                RecheckCause.SYNC_WINDOW, NOW + timedelta(seconds=90), RefreshLevel.RECENT
            )
        ),
        id="the-same-window-reason-is-not-announced-again",
    ),
    pytest.param(
        decision(AutoSyncOutcome.RECHECK, HEAL, recheck_after=3.0, notable=False),
        "",
        FollowUp(
            recheck=Recheck(RecheckCause.SELF_HEAL, NOW + timedelta(seconds=3), RefreshLevel.LATEST)
        ),
        id="a-self-heal-backoff-rechecks-on-its-own-timer-silently",
    ),
    pytest.param(
        decision(AutoSyncOutcome.SKIPPED, "Skipping auto-sync: deletion in progress"),
        "Skipping auto-sync: application status is Synced",
        FollowUp(skipped=announced("Skipping auto-sync: deletion in progress")),
        id="a-new-skip-reason-is-announced",
    ),
    pytest.param(
        decision(AutoSyncOutcome.SKIPPED, "Skipping auto-sync: deletion in progress"),
        "Skipping auto-sync: deletion in progress",
        FollowUp(),
        id="the-same-skip-reason-is-announced-once",
    ),
    pytest.param(
        decision(
            AutoSyncOutcome.SKIPPED,
            "Skipping auto-sync: another operation is in progress",
            notable=False,
        ),
        "",
        FollowUp(),
        id="a-routine-skip-is-not-announced",
    ),
    pytest.param(
        decision(AutoSyncOutcome.SYNC_ERROR, "Skipping auto-sync: failed previous sync"),
        "",
        FollowUp(),
        id="a-sync-error-is-a-condition-not-an-event",
    ),
    pytest.param(
        decision(AutoSyncOutcome.DISABLED, "auto-sync is not enabled", notable=False),
        "",
        FollowUp(),
        id="disabled-does-nothing",
    ),
]


@pytest.mark.parametrize(("made", "last_reason", "expected"), CASES)
def test_follow_up(made: AutoSyncDecision, last_reason: str, expected: FollowUp) -> None:
    assert follow_up(made, NOW, last_reason=last_reason, revisions=REVISIONS) == expected


def test_a_long_reason_remembered_cut_still_counts_as_the_same() -> None:
    reason = "Skipping auto-sync: " + "x" * REASON_KEPT
    made = decision(AutoSyncOutcome.SKIPPED, reason)
    last = remembered_reason(reason)
    assert len(last) == REASON_KEPT
    assert follow_up(made, NOW, last_reason=last, revisions=REVISIONS).skipped is None
