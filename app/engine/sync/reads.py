"""What the worker must read from the cluster before a step, and nothing more.

`next_step` looks at a task's live object only for:
- running tasks (their health moves them on, a vanished one fails);
- hooks (finalizers, BeforeHookCreation, delete policies, termination);
- prune tasks not yet settled, and pruned ones (the step waits while they are deleting);
- the task that creates the destination namespace, until it ran (it runs only if the
  namespace is absent).

The dry run that follows the namespace's creation judges no running task (it only
validates the pending ones), so the namespace it created is first read for its health
by the step after it.

A pending or finished plain resource is never looked at, so reading it would be a wasted
GET; on a first sync of N new objects that is most of the reads. Some steps look at
nothing: actions already in flight are repeated as they are, a finished operation stays
finished, a terminating one finishes, a wave delay that has not elapsed only waits, and
a retry either waits for its backoff or asks for a new plan. After the
last wave ran without hooks (`all_tasks_run`), only hooks are looked at (their
finalizers and delete policies).

`Observation` reports every key it was not given as absent, so the worker passes exactly
what it read for these keys.
"""

from datetime import datetime

from app.engine.sync.actions import Wait
from app.engine.sync.state import SyncState
from app.engine.sync.task import SyncTask
from app.model.resource import ResourceKey
from app.model.sync import OperationPhase, ResultCode


def _looks_at_nothing(state: SyncState, now: datetime) -> bool:
    """The next step only waits (a wave delay that has not elapsed), finishes a termination,
    or deals with a retry (waits for its backoff, or asks for a new plan)."""
    pause = state.next
    if isinstance(pause, Wait) and not pause.wakeable and now < pause.until:
        return True
    return state.retry_at is not None or state.phase is OperationPhase.TERMINATING


def _dry_run_next(state: SyncState) -> bool:
    """The next step is the dry run: it judges no running task, so a namespace the sync
    has just created need not be read again before it."""
    return not state.dry_run_done and any(t.awaits_dry_run for t in state.tasks)


def _needed(task: SyncTask, all_tasks_run: bool, dry_run_next: bool) -> bool:
    if task.hook:
        return True
    if all_tasks_run:
        return False
    if task.is_prune:
        return task.result in (None, ResultCode.PRUNED)
    if task.creates_namespace and task.pending:
        return True
    return task.running and not dry_run_next


def objects_to_read(
    state: SyncState, now: datetime, *, terminating: bool = False
) -> list[tuple[ResourceKey, str]]:
    """(key, apiVersion) of each object the next step looks at, once each.

    With `terminating`, the keys that `terminate` looks at (the hooks).
    """
    if state.in_flight or state.completed:
        return []
    if terminating:
        return list(dict.fromkeys((t.key, t.api_version) for t in state.tasks if t.hook))
    if _looks_at_nothing(state, now):
        return []
    dry_run_next = _dry_run_next(state)
    return list(
        dict.fromkeys(
            (t.key, t.api_version)
            for t in state.tasks
            if _needed(t, state.all_tasks_run, dry_run_next)
        )
    )
