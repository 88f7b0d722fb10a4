"""Recording what the worker reports after running a step's actions.

Each action's result becomes its task's result, as Argo CD sets it: an apply that worked
is Synced and Running (until health says otherwise), one that failed SyncFailed and
Failed; a prune is Pruned or SyncFailed; a failed hook deletion or finalizer removal puts
the hook in Error. Then the follow-up is corrected for failures: a failed wave goes on at
once (no wave delay) to the failure path, a failed dry run or namespace ends the operation.

Recording is idempotent: results for a step that is no longer in flight change nothing.
"""

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime

from app.engine.sync.actions import ActionResult, Continue
from app.engine.sync.messages import DRY_RUN_FAILED, NAMESPACE_FAILED
from app.engine.sync.progress import Ledger, with_reason
from app.engine.sync.state import InFlight, StateError, StepKind, SyncState, Verb
from app.engine.sync.steps import finish
from app.model.sync import OperationPhase, ResultCode

_SUCCEEDED: dict[Verb, tuple[ResultCode, OperationPhase, str | None]] = {
    Verb.APPLY: (ResultCode.SYNCED, OperationPhase.RUNNING, None),
    Verb.CREATE_NAMESPACE: (ResultCode.SYNCED, OperationPhase.RUNNING, None),
    Verb.PRUNE: (ResultCode.PRUNED, OperationPhase.SUCCEEDED, "pruned"),
}
"""A task's result, phase and message (None: the server's) after its action worked; a
hook deletion or finalizer removal that worked changes nothing."""
_HOOK_FAILURES = {
    Verb.DELETE_HOOK: "failed to delete resource",
    Verb.REMOVE_HOOK_FINALIZER: "failed to remove hook finalizer",
}
"""How a failed hook deletion or finalizer removal is worded; the hook goes to Error."""


def _record(ledger: Ledger, state: SyncState, record: InFlight, result: ActionResult) -> None:
    task, verb, message = ledger[record.task_id], record.verb, result.message
    if not result.ok:
        hook_failure = _HOOK_FAILURES.get(verb)
        if hook_failure is None:
            ledger.set(task.id, ResultCode.SYNC_FAILED, OperationPhase.FAILED, message)
        else:
            ledger.set(task.id, task.result, OperationPhase.ERROR, f"{hook_failure}: {message}")
    elif verb is Verb.DRY_RUN:
        if state.sync.dry_run:
            ledger.set(task.id, ResultCode.SYNCED, OperationPhase.SUCCEEDED, message)
    elif verb in _SUCCEEDED:
        code, phase, text = _SUCCEEDED[verb]
        ledger.set(task.id, code, phase, message if text is None else text)


def record_results(state: SyncState, results: Iterable[ActionResult], now: datetime) -> SyncState:
    """The state after the in-flight actions ran with these results.

    Every in-flight action needs exactly one result; StateError names the missing ones.
    Results of other (older) steps are ignored.
    """
    if not state.in_flight:
        return state
    by_id = {r.action_id: r for r in results}
    missing = [a.id for a in state.in_flight if a.id not in by_id]
    if missing:
        raise StateError(
            f"{state.app}: no result for action(s) {', '.join(missing)} of step {state.step}; "
            "report one result per action (a NotFound on delete counts as ok)"
        )
    ledger = Ledger(state.tasks)
    failed = False
    for record in state.in_flight:
        result = by_id[record.id]
        failed = failed or not result.ok
        _record(ledger, state, record, result)
    kind = state.step_kind
    applied = [ledger[a.task_id] for a in state.in_flight if a.verb is Verb.APPLY]
    after = replace(state, tasks=ledger.freeze(), in_flight=(), step_kind=None)
    if not failed:
        if kind is StepKind.DRY_RUN:
            return replace(after, dry_run_done=True)
        return after
    match kind:
        case StepKind.NAMESPACE:
            namespace = [ledger[a.task_id] for a in state.in_flight]
            return finish(
                after, OperationPhase.FAILED, with_reason(NAMESPACE_FAILED, namespace), now
            )
        case StepKind.DRY_RUN:
            return finish(after, OperationPhase.FAILED, DRY_RUN_FAILED, now)
        case StepKind.WAVE:
            return replace(
                after,
                all_tasks_run=False,
                failed_to_apply=not any(t.running for t in applied),
                next=Continue("a task failed"),
            )
        case StepKind.SYNC_FAIL:
            return replace(after, next=Continue("a SyncFail hook failed to start"))
        case StepKind.TERMINATE:
            return replace(after, termination_errors=True)
        case _:
            return after
