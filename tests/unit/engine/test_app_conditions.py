"""The watcher's conditions: set once, replaced when the problem changes, removed after."""

import pytest

from app.engine.app_conditions import (
    DELETION_ERROR,
    INVALID_SPEC,
    MAX_MESSAGE,
    with_condition,
    without_condition,
)

NOW = "2026-11-29T12:00:00Z"
SYNC_ERROR = {"type": "SyncError", "message": "failed"}
KINDS = pytest.mark.parametrize("kind", [INVALID_SPEC, DELETION_ERROR])


@KINDS
def test_added_beside_other_conditions(kind: str) -> None:
    assert with_condition([SYNC_ERROR], kind, "spec.destination: needed", NOW) == [
        SYNC_ERROR,
        {"type": kind, "message": "spec.destination: needed", "lastTransitionTime": NOW},
    ]


@KINDS
def test_unchanged_problem_writes_nothing(kind: str) -> None:
    first = with_condition(None, kind, "spec: bad", NOW)
    assert first is not None
    assert with_condition(first, kind, "spec: bad", "later") is None


@KINDS
def test_a_new_problem_replaces_the_old_condition(kind: str) -> None:
    first = with_condition([SYNC_ERROR], kind, "spec: bad", NOW)
    second = with_condition(first, kind, "spec: worse", "later")
    assert second is not None
    assert [c["message"] for c in second] == ["failed", "spec: worse"]


def test_long_messages_are_bounded() -> None:
    conditions = with_condition([], INVALID_SPEC, "x" * 10_000, NOW)
    assert conditions is not None and len(conditions[0]["message"]) == MAX_MESSAGE


@KINDS
def test_removed_when_resolved_and_only_then(kind: str) -> None:
    invalid = with_condition([SYNC_ERROR], kind, "spec: bad", NOW)
    assert without_condition(invalid, kind) == [SYNC_ERROR]
    assert without_condition([SYNC_ERROR], kind) is None
    assert without_condition("garbage", kind) is None
