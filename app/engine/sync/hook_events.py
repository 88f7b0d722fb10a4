"""Hook phase changes between two states of an operation: what `hook-phase-changed` reports.

A hook's phase moves as the operation runs (created and Running, then Succeeded or
Failed, or Failed "Terminated"). Comparing the state a worker loaded with the state it
stores gives each change once, whichever step made it; a phase going back to none (a
retry re-plans every task) is not a change anyone acts on and is not reported.
"""

from dataclasses import dataclass

from app.engine.sync.state import SyncState
from app.model.resource import ResourceKey
from app.model.sync import OperationPhase, SyncPhase


@dataclass(frozen=True, slots=True)
class HookPhaseChange:
    """One hook task reached a new phase."""

    key: ResourceKey
    hook_type: SyncPhase
    phase: OperationPhase
    message: str


def hook_phase_changes(before: SyncState | None, after: SyncState) -> list[HookPhaseChange]:
    """Hook tasks of `after` whose phase differs from the same hook's in `before`."""
    previous = {(t.key, t.sync_phase): t.phase for t in before.tasks if t.hook} if before else {}
    return [
        HookPhaseChange(t.key, t.sync_phase, t.phase, t.message)
        for t in after.tasks
        if t.hook and t.phase is not None and previous.get((t.key, t.sync_phase)) is not t.phase
    ]
