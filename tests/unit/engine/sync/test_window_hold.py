"""A running operation held by the project's sync windows: Running, saying why, waiting
for the window to change; let go when the windows allow it."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from app.engine.sync.actions import Wait
from app.engine.sync.state import SyncState
from app.engine.sync.window_hold import RECHECK_SECONDS, held_by_windows, hold
from app.engine.sync_windows import SyncWindowVerdict
from app.model.application import Application
from app.model.operation import Operation, OperationInitiator, SyncOperation
from app.model.project import AppProject
from app.model.sync import OperationPhase

NOW = datetime(2026, 11, 29, 12, 30, tzinfo=UTC)
STATE = SyncState(
    app="shop", operation=Operation(sync=SyncOperation()), revision="r", started_at=NOW, tasks=()
)
REASON = "blocked by sync window: project payments window 0 (deny '0 12 * * *' for 1h, UTC)"


def test_a_blocked_operation_stays_running_and_waits_for_the_window_to_close() -> None:
    closes = NOW + timedelta(minutes=30)
    held = hold(STATE, SyncWindowVerdict(False, REASON, "payments", changes_at=closes), NOW)
    assert held is not None
    assert held.phase is OperationPhase.RUNNING
    assert held.message == f"Sync operation blocked by sync window: {REASON}"
    assert isinstance(held.next, Wait)
    assert (held.next.until, held.next.wakeable) == (closes, False)


def test_an_unreadable_window_is_looked_at_again_later() -> None:
    verdict = SyncWindowVerdict(False, "invalid sync window: ...", "payments", problems=("x",))
    held = hold(STATE, verdict, NOW)
    assert held is not None and isinstance(held.next, Wait)
    assert held.next.until == NOW + timedelta(seconds=RECHECK_SECONDS)


def test_allowed_or_finished_operations_are_not_held() -> None:
    assert hold(STATE, SyncWindowVerdict(True, "", "payments"), NOW) is None
    done = replace(STATE, phase=OperationPhase.SUCCEEDED)
    assert hold(done, SyncWindowVerdict(False, REASON, "payments"), NOW) is None


def _project(**deny: object) -> AppProject:
    window = {"kind": "deny", "schedule": "0 12 * * *", "duration": "1h", "applications": ["*"]}
    return AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "payments"},
            "spec": {"syncWindows": [{**window, **deny}]},
        }
    )


SHOP = Application.from_dict(
    {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "shop"},
        "spec": {
            "source": {"repoURL": "https://git.example/shop.git", "path": "deploy"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"},
        },
    }
)
BEFORE_THE_WINDOW = NOW - timedelta(hours=1)


@pytest.mark.parametrize(
    ("automated", "started_at", "deny", "held"),
    [
        pytest.param(True, NOW, {}, True, id="automated-inside-a-deny-window-is-held"),
        pytest.param(False, NOW, {}, True, id="manual-without-manualSync-is-held"),
        pytest.param(False, NOW, {"manualSync": True}, False, id="manual-with-manualSync-goes-on"),
        pytest.param(
            True, BEFORE_THE_WINDOW, {"syncOverrun": True}, False, id="started-before-overruns"
        ),
        pytest.param(True, BEFORE_THE_WINDOW, {}, True, id="started-before-without-overrun-held"),
    ],
)
def test_the_windows_are_asked_as_the_operation_is_entitled_to(
    automated: bool, started_at: datetime, deny: dict[str, object], held: bool
) -> None:
    state = replace(
        STATE,
        operation=Operation(
            sync=SyncOperation(), initiated_by=OperationInitiator(automated=automated)
        ),
        started_at=started_at,
    )
    assert (held_by_windows(state, _project(**deny), SHOP, NOW) is not None) is held
