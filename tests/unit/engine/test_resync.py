"""When an app is compared again on its own: argocd-cm's timeout.* keys (issue 12)."""

import pytest

from app.engine.resync import (
    HARD_REASON,
    SOFT_REASON,
    Resync,
    ResyncTiming,
    hard_base,
    next_resync,
    timing_from,
)
from app.model.sync import RefreshLevel
from app.runtime.settings import Settings

NOW = 1_000_000.0


@pytest.mark.parametrize(
    ("draw", "delay"), [(0.0, 120.0), (0.5, 150.0), (0.999, 179.94)], ids=["low", "mid", "high"]
)
def test_the_default_is_120s_plus_jitter_below_60s(draw: float, delay: float) -> None:
    resync = next_resync(ResyncTiming(), NOW, 0.0, lambda: draw)
    assert resync is not None
    assert (resync.level, resync.reason) == (RefreshLevel.LATEST, SOFT_REASON)
    assert resync.delay == pytest.approx(delay)


def test_zero_periods_turn_resyncs_off() -> None:
    assert next_resync(ResyncTiming(0, 60, 0), NOW, 0.0, lambda: 0.5) is None


def test_a_hard_resync_replaces_a_soft_one_falling_after_it() -> None:
    timing = ResyncTiming(period=120, jitter=0, hard_period=600)
    assert next_resync(timing, NOW, NOW - 100, lambda: 0.0) == Resync(
        120.0, RefreshLevel.LATEST, SOFT_REASON
    )
    assert next_resync(timing, NOW, NOW - 500, lambda: 0.0) == Resync(
        100.0, RefreshLevel.FORCE, HARD_REASON
    )
    assert next_resync(timing, NOW, NOW - 900, lambda: 0.0) == Resync(
        0.0, RefreshLevel.FORCE, HARD_REASON
    ), "overdue: at once"


def test_hard_resyncs_alone() -> None:
    only_hard = ResyncTiming(period=0, jitter=0, hard_period=60)
    assert next_resync(only_hard, NOW, NOW, lambda: 0.5) == Resync(
        60.0, RefreshLevel.FORCE, HARD_REASON
    )


def test_the_hard_period_counts_from_the_last_force_comparison() -> None:
    assert hard_base(RefreshLevel.FORCE, NOW, NOW - 50, 600) == NOW
    assert hard_base(RefreshLevel.LATEST, NOW, NOW - 50, 600) == NOW - 50
    assert hard_base(RefreshLevel.LATEST, NOW, 0.0, 600) == NOW, "unknown: from now"
    assert hard_base(RefreshLevel.LATEST, NOW, NOW + 50, 600) == NOW, "a base in the future"
    assert hard_base(RefreshLevel.FORCE, NOW, NOW - 50, 0) == 0.0, "off: nothing kept"


def test_a_set_environment_variable_wins_over_argocd_cm() -> None:
    environment = ResyncTiming(period=30, jitter=60, hard_period=0)
    configured = {"period": 300.0, "hard_period": 3600.0}
    assert timing_from(configured, environment, frozenset()) == ResyncTiming(300, 60, 3600)
    assert timing_from(configured, environment, frozenset({"period"})) == ResyncTiming(30, 60, 3600)
    assert timing_from({}, environment, frozenset()) == environment


def test_the_environment_says_which_periods_it_sets() -> None:
    timing = Settings.from_env(
        {"SLUICE_RESYNC_SECONDS": "30", "SLUICE_HARD_RESYNC_SECONDS": "", "PATH": "/bin"}
    ).timing
    assert timing.resync_overridden == frozenset({"period"})
    assert timing.resync_timing == ResyncTiming(period=30, jitter=60, hard_period=0)
    hard = Settings.from_env({"SLUICE_HARD_RESYNC_SECONDS": "3600"}).timing
    assert (hard.hard_resync, hard.resync_overridden) == (3600, frozenset({"hard_period"}))
