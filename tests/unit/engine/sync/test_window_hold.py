"""A running operation held by the project's sync windows: Running, saying why, waiting
for the window to change; let go when the windows allow it."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from app.engine.sync.actions import Wait
from app.engine.sync.state import SyncState
from app.engine.sync.window_hold import RECHECK_SECONDS, hold
from app.engine.sync_windows import SyncWindowVerdict
from app.model.operation import Operation, SyncOperation
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
