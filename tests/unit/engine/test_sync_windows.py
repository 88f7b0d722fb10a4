"""AppProject sync windows (Argo CD's SyncWindows.Matches / Active / CanSync) at a fixed `now`."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.engine.sync_windows import evaluate, parse_duration, selecting
from app.model.application import Application
from app.model.project import AppProject

NOW = datetime(2026, 11, 29, 12, 30, 0, tzinfo=UTC)
"""A Sunday, 12:30 UTC (13:30 in Amsterdam, 07:30 in New York)."""


def application(cluster: str = "") -> Application:
    """`shop` deploying to namespace shop of the cluster named `cluster`, else in-cluster's URL."""
    destination = {"name": cluster} if cluster else {"server": "https://kubernetes.default.svc"}
    return Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "shop"},
            "spec": {
                "source": {"repoURL": "https://git.example/shop.git", "path": "deploy"},
                "destination": {**destination, "namespace": "shop"},
            },
        }
    )


def project(*windows: dict[str, Any]) -> AppProject:
    return AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "payments"},
            "spec": {"syncWindows": list(windows)},
        }
    )


def window(kind: str, schedule: str, duration: str = "1h", **more: Any) -> dict[str, Any]:
    return {"kind": kind, "schedule": schedule, "duration": duration, "applications": ["*"], **more}


DENY_NOW = window("deny", "0 12 * * *")
"""Active 12:00-13:00 UTC."""
ALLOW_NOW = window("allow", "0 12 * * *")
ALLOW_LATER = window("allow", "0 14 * * *")
"""Opens at 14:00 UTC."""
DENY_LATER = window("deny", "0 14 * * *")


def test_no_window_selecting_the_app_allows_every_sync() -> None:
    verdict = evaluate(
        project(window("deny", "0 12 * * *", applications=["other-*"])),
        application(),
        NOW,
        manual=False,
    )
    assert (verdict.allowed, verdict.reason, verdict.windows) == (True, "", ())


def test_an_active_deny_window_blocks_and_names_the_project_and_window() -> None:
    verdict = evaluate(project(ALLOW_LATER, DENY_NOW), application(), NOW, manual=False)
    assert not verdict.allowed
    assert verdict.reason == (
        "blocked by sync window: project payments window 1 (deny '0 12 * * *' for 1h, UTC) "
        "active until 2026-11-29T13:00:00Z"
    )
    assert verdict.changes_at == datetime(2026, 11, 29, 13, 0, tzinfo=UTC)


def test_a_deny_window_outside_its_hours_does_not_block() -> None:
    verdict = evaluate(project(DENY_LATER), application(), NOW, manual=False)
    assert verdict.allowed
    assert verdict.changes_at == datetime(2026, 11, 29, 14, 0, tzinfo=UTC)


def test_deny_overrides_an_active_allow() -> None:
    assert not evaluate(project(ALLOW_NOW, DENY_NOW), application(), NOW, manual=False).allowed


def test_allow_windows_allow_only_while_one_is_active() -> None:
    assert evaluate(project(ALLOW_NOW, ALLOW_LATER), application(), NOW, manual=False).allowed
    verdict = evaluate(project(ALLOW_LATER), application(), NOW, manual=False)
    assert not verdict.allowed
    assert verdict.reason == (
        "blocked by sync window: no allow window is active in project payments: window 0 "
        "(allow '0 14 * * *' for 1h, UTC) opens at 2026-11-29T14:00:00Z"
    )
    assert verdict.changes_at == datetime(2026, 11, 29, 14, 0, tzinfo=UTC)


def test_the_window_opens_at_its_fire_time_and_closes_after_its_duration() -> None:
    windows = project(window("allow", "0 12 * * *", "30m"))
    at = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    assert evaluate(windows, application(), at, manual=False).allowed
    assert not evaluate(windows, application(), at - timedelta(seconds=1), manual=False).allowed
    assert evaluate(windows, application(), at + timedelta(minutes=29), manual=False).allowed
    assert not evaluate(windows, application(), at + timedelta(minutes=30), manual=False).allowed


def test_manual_sync_passes_a_deny_window_only_when_every_active_deny_allows_it() -> None:
    manual_deny = window("deny", "0 12 * * *", manualSync=True)
    assert evaluate(project(manual_deny), application(), NOW, manual=True).allowed
    assert not evaluate(project(manual_deny), application(), NOW, manual=False).allowed
    both = project(manual_deny, window("deny", "30 11 * * *", "2h"))
    assert not evaluate(both, application(), NOW, manual=True).allowed


def test_manual_sync_outside_allow_windows_needs_manual_sync_on_every_one() -> None:
    manual_allow = window("allow", "0 14 * * *", manualSync=True)
    assert evaluate(project(manual_allow), application(), NOW, manual=True).allowed
    assert not evaluate(project(manual_allow), application(), NOW, manual=False).allowed
    assert not evaluate(
        project(manual_allow, window("allow", "0 20 * * *")), application(), NOW, manual=True
    ).allowed


def test_time_zone_moves_the_schedule() -> None:
    amsterdam = window("deny", "0 13 * * *", timeZone="Europe/Amsterdam")
    new_york = window("deny", "0 13 * * *", timeZone="America/New_York")
    assert not evaluate(project(amsterdam), application(), NOW, manual=False).allowed
    verdict = evaluate(project(new_york), application(), NOW, manual=False)
    assert verdict.allowed
    assert verdict.changes_at == datetime(2026, 11, 29, 18, 0, tzinfo=UTC)


def test_selectors_match_any_list_or_every_list_with_and_operator() -> None:
    either = {"kind": "deny", "schedule": "0 12 * * *", "duration": "1h"}
    by_namespace = {**either, "namespaces": ["shop"], "clusters": ["elsewhere"]}
    assert not evaluate(project(by_namespace), application(), NOW, manual=False).allowed
    both = {**by_namespace, "andOperator": True}
    assert evaluate(project(both), application(), NOW, manual=False).allowed
    all_match = {**either, "namespaces": ["sh*"], "clusters": ["https://*"], "andOperator": True}
    assert not evaluate(project(all_match), application(), NOW, manual=False).allowed


def test_clusters_match_the_destination_name_or_server() -> None:
    base = {"kind": "deny", "schedule": "0 12 * * *", "duration": "1h"}
    assert selecting(project({**base, "clusters": ["in-cluster"]}), application("in-cluster"))
    assert not selecting(project({**base, "clusters": ["in-cluster"]}), application())
    assert selecting(project({**base, "clusters": ["https://kubernetes.*"]}), application())
    assert not selecting(project({**base, "clusters": ["prod"]}), application())
    assert not selecting(project(base), application())


def test_a_running_operation_overruns_a_deny_window_that_opened_after_it_started() -> None:
    overrun = window("deny", "0 12 * * *", syncOverrun=True)
    started = datetime(2026, 11, 29, 11, 55, tzinfo=UTC)
    assert evaluate(
        project(overrun), application(), NOW, manual=False, running_since=started
    ).allowed
    inside = datetime(2026, 11, 29, 12, 5, tzinfo=UTC)
    assert not evaluate(
        project(overrun), application(), NOW, manual=False, running_since=inside
    ).allowed
    assert not evaluate(
        project(DENY_NOW), application(), NOW, manual=False, running_since=started
    ).allowed


def test_a_running_operation_started_in_an_allow_window_overruns_its_end() -> None:
    overrun = window("allow", "0 11 * * *", syncOverrun=True)
    inside = datetime(2026, 11, 29, 11, 50, tzinfo=UTC)
    before = datetime(2026, 11, 29, 10, 50, tzinfo=UTC)
    assert evaluate(
        project(overrun), application(), NOW, manual=False, running_since=inside
    ).allowed
    assert not evaluate(
        project(overrun), application(), NOW, manual=False, running_since=before
    ).allowed
    assert not evaluate(project(overrun), application(), NOW, manual=False).allowed


def test_back_to_back_activations_close_when_the_last_one_ends() -> None:
    verdict = evaluate(
        project(window("deny", "*/10 * * * *", "15m")), application(), NOW, manual=False
    )
    assert not verdict.allowed
    assert verdict.changes_at is not None
    assert verdict.changes_at > NOW + timedelta(hours=10)


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("kind", "block", "kind 'block' is neither allow nor deny"),
        ("schedule", "0 12 * *", "schedule '0 12 * *' is not a five-field cron expression"),
        ("schedule", "61 * * * *", "schedule '61 * * * *' is not a five-field cron expression"),
        ("schedule", "@daily", "schedule '@daily' is not a five-field cron expression"),
        ("duration", "1 hour", "duration '1 hour' is not a duration such as 1h, 30m or 1h30m"),
        ("duration", "-1h", "duration '-1h' must be a positive duration such as 1h or 30m"),
        ("duration", "0s", "duration '0s' must be longer than zero"),
        ("timeZone", "Mars/Olympus", "timeZone 'Mars/Olympus' is not an IANA time zone"),
    ],
)
def test_an_invalid_window_blocks_every_sync_naming_project_window_and_field(
    field: str, value: str, expected: str
) -> None:
    bad = {**ALLOW_NOW, field: value}
    for manual in (False, True):
        verdict = evaluate(project(ALLOW_NOW, bad), application(), NOW, manual=manual)
        assert not verdict.allowed
        (problem,) = verdict.problems
        assert problem.startswith(f"project payments: spec.syncWindows[1].{field}: {expected}")
        assert verdict.reason.startswith("invalid sync window: project payments")


def test_an_invalid_window_selecting_other_apps_only_is_ignored() -> None:
    bad = {**DENY_NOW, "schedule": "nonsense", "applications": ["other"]}
    assert evaluate(project(bad), application(), NOW, manual=False).allowed


def test_a_schedule_that_never_fires_is_invalid() -> None:
    never = window("deny", "0 0 30 2 *")
    verdict = evaluate(project(never), application(), NOW, manual=False)
    assert not verdict.allowed
    (problem,) = verdict.problems
    assert "spec.syncWindows[0].schedule" in problem


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1h", 3600), ("30m", 1800), ("1h30m", 5400), ("1.5h", 5400), ("90s", 90), ("500ms", 0.5)],
)
def test_go_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)
