"""Terminating an operation (SEMANTICS §9): running hooks are deleted, then Failed.

Each running hook loses its finalizer and is deleted (a hook that has meanwhile completed
keeps its real result and is deleted only if its policy is HookFailed); completed hooks
lose their finalizers, and those with HookFailed are deleted, since a terminated operation
has failed. The step after the deletions ends the operation Failed "Operation
terminated" (Error "Operation termination had errors" if a deletion failed), never
retried. With an observation the step skips objects already gone; without one it asks
for every removal and deletion, which are harmless on missing objects.
"""

from datetime import datetime

from app.engine.health import hook_status_from_health
from app.engine.sync.actions import Continue, Done
from app.engine.sync.execution import Batch
from app.engine.sync.messages import TERMINATING
from app.engine.sync.observation import Observation, Observed
from app.engine.sync.progress import Ledger
from app.engine.sync.state import StepKind, SyncState, Verb
from app.engine.sync.steps import Step, emit
from app.engine.sync.task import SyncTask
from app.model.annotations import HOOK_FINALIZER
from app.model.sync import HookDeletePolicy, OperationPhase


def _observed(observation: Observation | None, task: SyncTask) -> Observed | None:
    return observation.of(task.key) if observation is not None else None


def _stop_running(ledger: Ledger, task: SyncTask, seen: Observed | None) -> tuple[bool, bool]:
    """Record a running hook as terminated (or as it finished meanwhile); whether its
    finalizer is to be removed, and whether it is to be deleted."""
    if seen is not None and seen.live is None:
        ledger.set(task.id, task.result, OperationPhase.FAILED, "Terminated")
        return False, False
    status = hook_status_from_health(task.key.name, seen.health) if seen else None
    if status is not None and status.phase.completed:
        ledger.set(task.id, task.result, status.phase, status.message)
        finished = True
    else:
        ledger.set(task.id, task.result, OperationPhase.FAILED, "Terminated")
        finished = False
    release = seen is None or seen.has_finalizer(HOOK_FINALIZER)
    return release, not finished or task.has_policy(HookDeletePolicy.HOOK_FAILED)


def _clean_completed(task: SyncTask, seen: Observed | None) -> tuple[bool, bool]:
    """Whether a hook that is not running loses its finalizer, and whether it is deleted
    (a completed one with HookFailed: a terminated operation has failed)."""
    if not task.completed or (seen is not None and seen.live is None):
        return False, False
    release = seen is None or seen.has_finalizer(HOOK_FINALIZER)
    deleting = seen is not None and seen.deleting
    return release, task.has_policy(HookDeletePolicy.HOOK_FAILED) and not deleting


def terminate(state: SyncState, now: datetime, observation: Observation | None = None) -> Step:
    """The step that stops the operation; follow it with `next_step` to finish it."""
    if state.completed:
        return Step(state, (), Done(state.phase, state.message))
    if now.tzinfo is None:
        raise ValueError("`now` must be timezone-aware (UTC), e.g. datetime.now(UTC)")
    ledger = Ledger(state.tasks)
    finalizers: Batch = []
    deletes: Batch = []
    for task in state.tasks:
        if not task.hook:
            continue
        seen = _observed(observation, task)
        if task.running:
            release, delete = _stop_running(ledger, task, seen)
        else:
            release, delete = _clean_completed(task, seen)
        if release:
            finalizers.append((Verb.REMOVE_HOOK_FINALIZER, task.id))
        if delete:
            deletes.append((Verb.DELETE_HOOK, task.id))
    return emit(
        state,
        ledger,
        StepKind.TERMINATE,
        [finalizers, deletes],
        Continue("terminating"),
        decision=f"terminating: {len(finalizers)} hook finalizer(s) to remove, "
        f"{len(deletes)} hook(s) to delete",
        phase=OperationPhase.TERMINATING,
        message=TERMINATING,
        retry_at=None,
        all_tasks_run=False,
    )
