"""The InvalidSpecError condition: set once, replaced when the problem changes, removed after."""

from app.engine.spec_conditions import MAX_MESSAGE, with_invalid_spec, without_invalid_spec

NOW = "2026-11-29T12:00:00Z"
SYNC_ERROR = {"type": "SyncError", "message": "failed"}


def test_added_beside_other_conditions() -> None:
    assert with_invalid_spec([SYNC_ERROR], "spec.destination: needed", NOW) == [
        SYNC_ERROR,
        {"type": "InvalidSpecError", "message": "spec.destination: needed",
         "lastTransitionTime": NOW},
    ]  # fmt: skip


def test_unchanged_problem_writes_nothing() -> None:
    first = with_invalid_spec(None, "spec: bad", NOW)
    assert first is not None
    assert with_invalid_spec(first, "spec: bad", "later") is None


def test_a_new_problem_replaces_the_old_condition() -> None:
    first = with_invalid_spec([SYNC_ERROR], "spec: bad", NOW)
    second = with_invalid_spec(first, "spec: worse", "later")
    assert second is not None
    assert [c["message"] for c in second] == ["failed", "spec: worse"]


def test_long_messages_are_bounded() -> None:
    conditions = with_invalid_spec([], "x" * 10_000, NOW)
    assert conditions is not None and len(conditions[0]["message"]) == MAX_MESSAGE


def test_removed_once_the_spec_parses_and_only_then() -> None:
    invalid = with_invalid_spec([SYNC_ERROR], "spec: bad", NOW)
    assert without_invalid_spec(invalid) == [SYNC_ERROR]
    assert without_invalid_spec([SYNC_ERROR]) is None
    assert without_invalid_spec("garbage") is None
