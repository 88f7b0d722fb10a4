"""Which Sluice event becomes which Kubernetes Event, in Argo CD's words, and aggregation."""

from typing import Any

import pytest

from app.engine.event_budget import EventBudget, EventBudgetSettings
from app.engine.kube_events import (
    MAX_MESSAGE,
    EventSpec,
    Involved,
    counted,
    event_for,
    event_name,
    involved_from,
    new_event,
)

REV = "4f1c2a9e0b7d"
APP = Involved("guestbook", "argocd", "uid-1", "42")


@pytest.mark.parametrize(
    ("event_type", "data", "expected"),
    [
        pytest.param(
            "synced",
            {"from": "OutOfSync"},
            EventSpec("Normal", "ResourceUpdated", "Updated sync status: OutOfSync -> Synced"),
            id="synced",
        ),
        pytest.param(
            "out-of-sync",
            {"from": ""},
            EventSpec("Normal", "ResourceUpdated", "Updated sync status:  -> OutOfSync"),
            id="first-status-has-an-empty-from",
        ),
        pytest.param(
            "sync-unknown",
            {"from": "Synced"},
            EventSpec("Normal", "ResourceUpdated", "Updated sync status: Synced -> Unknown"),
            id="unknown",
        ),
        pytest.param(
            "health-changed",
            {"from": "Progressing", "to": "Healthy"},
            EventSpec("Normal", "ResourceUpdated", "Updated health status: Progressing -> Healthy"),
            id="health",
        ),
        pytest.param(
            "operation-started",
            {"revision": REV, "automated": True},
            EventSpec("Normal", "OperationStarted", f"Initiated automated sync to '{REV}'"),
            id="automated-sync",
        ),
        pytest.param(
            "operation-started",
            {"revision": REV, "automated": False, "initiatedBy": "alice", "selective": True},
            EventSpec("Normal", "OperationStarted", f"alice initiated partial sync to {REV}"),
            id="a-users-partial-sync",
        ),
        pytest.param(
            "operation-started",
            {"revision": REV, "automated": False, "initiatedBy": ""},
            EventSpec("Normal", "OperationStarted", f"Unknown user initiated sync to {REV}"),
            id="an-unnamed-user",
        ),
        pytest.param(
            "operation-succeeded",
            {"revision": REV},
            EventSpec("Normal", "OperationCompleted", f"Sync operation to {REV} succeeded"),
            id="succeeded",
        ),
        pytest.param(
            "operation-succeeded",
            {"revision": REV, "selective": True},
            EventSpec("Normal", "OperationCompleted", f"Partial sync operation to {REV} succeeded"),
            id="partial-succeeded",
        ),
        pytest.param(
            "operation-failed",
            {"revision": "", "message": "one or more objects failed to apply"},
            EventSpec(
                "Warning",
                "OperationCompleted",
                "Sync operation failed: one or more objects failed to apply",
            ),
            id="failed-without-a-revision",
        ),
        pytest.param(
            "created",
            {},
            EventSpec("Normal", "ResourceCreated", "created application"),
            id="created",
        ),
        pytest.param(
            "deletion-started",
            {},
            EventSpec("Normal", "ResourceDeleted", "deleted application"),
            id="deletion-started",
        ),
        pytest.param(
            "deleted",
            {"application": {"metadata": {"name": "a"}}},
            EventSpec("Normal", "ResourceDeleted", "deleted application"),
            id="deleted-at-once",
        ),
        pytest.param(
            "deleted",
            {
                "application": {
                    "metadata": {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z"}
                }
            },
            None,
            id="deleted-after-deletion-started-is-said-once",
        ),
        pytest.param("hook-phase-changed", {}, None, id="hooks-have-no-event"),
        pytest.param("auto-sync-skipped", {}, None, id="skips-have-no-event"),
    ],
)
def test_event_for(event_type: str, data: dict[str, Any], expected: EventSpec | None) -> None:
    assert event_for(event_type, data) == expected


def test_a_new_event_is_about_the_application() -> None:
    spec = EventSpec("Normal", "ResourceUpdated", "x" * 5000)
    event = new_event(APP, spec, component="sluice-compare", now="2026-01-02T03:04:05Z")
    assert event["involvedObject"] == {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "name": "guestbook",
        "namespace": "argocd",
        "uid": "uid-1",
        "resourceVersion": "42",
    }
    assert event["metadata"] == {"name": event_name(APP, spec), "namespace": "argocd"}
    assert len(event["message"]) == MAX_MESSAGE
    assert (event["count"], event["firstTimestamp"], event["lastTimestamp"]) == (
        1,
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05Z",
    )


def test_repeats_share_one_name_and_are_counted() -> None:
    spec = EventSpec("Normal", "ResourceUpdated", "Updated sync status: OutOfSync -> Synced")
    other = EventSpec("Normal", "ResourceUpdated", "Updated sync status: Synced -> OutOfSync")
    recreated = Involved("guestbook", "argocd", "uid-2")
    assert event_name(APP, spec) == event_name(APP, spec)
    assert len({event_name(APP, spec), event_name(APP, other), event_name(recreated, spec)}) == 3
    first = new_event(APP, spec, component="c", now="t1")
    bumped = counted(counted(first, now="t2"), now="t3")
    assert (bumped["count"], bumped["firstTimestamp"], bumped["lastTimestamp"]) == (3, "t1", "t3")


def test_involved_from_needs_a_uid() -> None:
    assert involved_from({"metadata": {"name": "a", "namespace": "n"}}) is None
    doc = {"metadata": {"name": "a", "namespace": "n", "uid": "u", "resourceVersion": "7"}}
    assert involved_from(doc) == Involved("a", "n", "u", "7")


def test_the_budget_bounds_each_app_and_the_process() -> None:
    budget = EventBudget(
        EventBudgetSettings(per_app_burst=3, per_app_rate=1.0, total_burst=5, total_rate=1.0)
    )
    assert [budget.allow("a", 0.0) for _ in range(4)] == [True, True, True, False]
    assert budget.allow("a", 1.0), "a second later one token is back"
    assert [budget.allow("b", 1.0) for _ in range(3)] == [True, True, False], "the total is spent"
    assert budget.allow("b", 3.0)


def test_the_budget_forgets_the_least_recently_used_app() -> None:
    budget = EventBudget(EventBudgetSettings(per_app_burst=1, per_app_rate=0.0, max_apps=1))
    assert budget.allow("a", 0.0) and not budget.allow("a", 0.0)
    assert budget.allow("b", 0.0)
    assert budget.allow("a", 0.0), "a forgotten app starts with a full bucket"
