"""A credential change refreshes only apps in a repository error whose repository it touches."""

from app.engine.credential_refresh import credential_refresh, in_repository_error
from app.model.sync import RefreshLevel


def test_an_app_in_error_on_a_changed_repository_is_refreshed() -> None:
    ask = credential_refresh(True, ["https://git.example/a", "https://git.example/a"])
    assert ask is not None and ask.level is RefreshLevel.LATEST
    assert ask.reason == "repository credentials or trust changed for https://git.example/a"


def test_healthy_apps_and_untouched_repositories_are_left_alone() -> None:
    assert credential_refresh(False, ["https://git.example/a"]) is None
    assert credential_refresh(True, []) is None


def test_a_shown_comparison_error_or_a_running_grace_period_is_a_repository_error() -> None:
    assert in_repository_error(["ComparisonError"], "")
    assert in_repository_error([], "2026-01-01T00:00:00Z")
    assert not in_repository_error(["SyncError"], "")
