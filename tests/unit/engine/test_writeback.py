"""Status write-back: only compare's fields, removals as nulls, and when a write is skipped."""

import json

import pytest

from app.engine.merge import apply_merge_patch
from app.engine.writeback import (
    OWNED_FIELDS,
    decide_write,
    owned_fields,
    same_content,
    status_patch,
)
from app.model import codec
from app.model.app_spec import ApplicationSource, ApplicationSourceDirectory
from app.model.operation import Operation, OperationState, RevisionHistory
from app.model.status import ApplicationCondition, ApplicationStatus, ComparedTo
from app.model.sync import OperationPhase, SyncStatusCode


def status(
    *, at: str = "2026-11-29T12:00:00Z", conditions: int = 0, recurse: bool = False
) -> ApplicationStatus:
    out = ApplicationStatus(reconciled_at=at, observed_at=at)
    out.sync.status = SyncStatusCode.SYNCED
    out.sync.revision = "a" * 40
    out.sync.compared_to = ComparedTo(
        source=ApplicationSource(
            repo_url="https://git.example/shop.git",
            path="deploy",
            directory=ApplicationSourceDirectory(recurse=True) if recurse else None,
        )
    )
    out.conditions = [ApplicationCondition("SyncError", f"m{i}", at) for i in range(conditions)]
    return out


def test_owned_fields_leave_the_sync_workers_fields_out() -> None:
    full = status()
    full.operation_state = OperationState(operation=Operation(), phase=OperationPhase.RUNNING)
    full.history = [RevisionHistory(id=1, revision="x")]
    owned = owned_fields(full)
    assert set(owned) <= set(OWNED_FIELDS)
    assert "operationState" not in owned and "history" not in owned
    assert owned["sync"]["status"] == "Synced"


def test_the_patch_makes_the_resource_equal_the_new_status_and_keeps_other_writers_fields() -> None:
    previous = owned_fields(status(conditions=2, recurse=True))
    assert previous["sync"]["comparedTo"]["source"]["directory"] == {"recurse": True}
    new = owned_fields(status(at="2026-11-29T12:05:00Z"))
    resource = {
        "spec": {"project": "default"},
        "status": {**previous, "operationState": {"phase": "Succeeded"}, "history": [{"id": 1}]},
    }
    patched = apply_merge_patch(resource, status_patch(previous, new))
    assert patched["spec"] == resource["spec"]
    assert patched["status"]["operationState"] == {"phase": "Succeeded"}
    assert patched["status"]["history"] == [{"id": 1}]
    mine = {k: v for k, v in patched["status"].items() if k in OWNED_FIELDS}
    assert mine == new
    assert "conditions" not in patched["status"]


def test_the_patch_is_json_serializable_and_names_only_owned_fields() -> None:
    patch = status_patch(None, owned_fields(status()))
    assert set(patch) == {"status"} and set(patch["status"]) == set(OWNED_FIELDS)
    json.dumps(patch)


def test_same_content_ignores_reconcile_times_only() -> None:
    first = status(at="2026-11-29T12:00:00Z")
    assert same_content(first, status(at="2026-11-29T12:30:00Z"))
    assert not same_content(first, status(conditions=1))
    assert not same_content(None, first)


def test_same_content_holds_across_a_round_trip_through_json() -> None:
    original = status(conditions=2, recurse=True)
    decoded = codec.decode(ApplicationStatus, json.loads(json.dumps(codec.encode(original))))
    assert same_content(decoded, original)


@pytest.mark.parametrize(
    ("changed", "age", "period", "write", "reason"),
    [
        pytest.param(
            False,
            None,
            120.0,
            True,
            "the Application does not hold the previous status",
            id="previous-not-on-the-resource",
        ),
        pytest.param(True, 1.0, 120.0, True, "the status changed", id="status-changed"),
        pytest.param(
            False,
            30.0,
            120.0,
            False,
            "only the reconcile time changed, last written 30s ago (within the 120s resync period)",
            id="reconcile-time-only-recent",
        ),
        pytest.param(
            False,
            150.0,
            120.0,
            True,
            "reconcile time last written 150s ago",
            id="reconcile-time-stale",
        ),
        pytest.param(
            False,
            10_000.0,
            0.0,
            False,
            "only the reconcile time changed (periodic resync is off)",
            id="resync-off-never-writes-times-alone",
        ),
    ],
)
def test_write_decision(
    *, changed: bool, age: float | None, period: float, write: bool, reason: str
) -> None:
    now = 1_800_000_000.0
    decision = decide_write(changed, 0.0 if age is None else now - age, now, period)
    assert (decision.write, decision.reason) == (write, reason)
