"""Holding a running operation while the project's sync windows block it.

As Argo CD's controller does on every pass over an operation (`syncWindowPreventsSync`):
when the windows selecting the app do not allow it (a manual operation under windows
with `manualSync`, an operation that started before a deny window opened or inside an
allow window that has since closed, with `syncOverrun`, goes on), the operation takes no
step: it stays Running with the message "Sync operation blocked by sync window" and the
reason, and is looked at again when a window selecting the app opens or closes (after
RECHECK_SECONDS when no window ever changes or one cannot be read). Nothing the
operation did is undone. `held_by_windows` asks the project's windows as the operation
is entitled to: as a manual sync when a user started it, running since its start.
"""

from dataclasses import replace
from datetime import datetime

from app.engine.sync.state import SyncState
from app.engine.sync.steps import wait
from app.engine.sync_windows import SyncWindowVerdict, evaluate
from app.model.application import Application
from app.model.project import AppProject

BLOCKED = "Sync operation blocked by sync window"
RECHECK_SECONDS = 60.0
"""When an operation held by an unreadable window, or one that never changes, is looked
at again (a fixed AppProject lets it go on then)."""


def hold(state: SyncState, windows: SyncWindowVerdict, now: datetime) -> SyncState | None:
    """The held state when `windows` block the running operation; None when it may go on."""
    if windows.allowed or state.completed:
        return None
    message = f"{BLOCKED}: {windows.reason}"
    seconds = RECHECK_SECONDS
    if windows.changes_at is not None and not windows.problems:
        seconds = max((windows.changes_at - now).total_seconds(), 0.0)
    return replace(state, message=message, next=wait(now, seconds, message, wakeable=False))


def held_by_windows(
    state: SyncState, project: AppProject, app: Application, now: datetime
) -> SyncState | None:
    """`hold` under the sync windows of `project` selecting `app`, for this operation."""
    manual = not state.operation.initiated_by.automated
    windows = evaluate(project, app, now, manual=manual, running_since=state.started_at)
    return hold(state, windows, now)
