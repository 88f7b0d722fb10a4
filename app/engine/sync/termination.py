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
        exists = seen is None or seen.live is not None
        if task.running:
            if seen is not None and seen.live is None:
                ledger.set(task.id, task.result, OperationPhase.FAILED, "Terminated")
                continue
            status = hook_status_from_health(task.key.name, seen.health) if seen else None
            finished = status is not None and status.phase.completed
            if status is not None and finished:
                ledger.set(task.id, task.result, status.phase, status.message)
            else:
                ledger.set(task.id, task.result, OperationPhase.FAILED, "Terminated")
            if seen is None or seen.has_finalizer(HOOK_FINALIZER):
                finalizers.append((Verb.REMOVE_HOOK_FINALIZER, task.id))
            if not finished or task.has_policy(HookDeletePolicy.HOOK_FAILED):
                deletes.append((Verb.DELETE_HOOK, task.id))
        elif task.completed and exists:
            if seen is None or seen.has_finalizer(HOOK_FINALIZER):
                finalizers.append((Verb.REMOVE_HOOK_FINALIZER, task.id))
            if task.has_policy(HookDeletePolicy.HOOK_FAILED) and not (seen and seen.deleting):
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
