"""Building a `Step`: numbering its actions, recording them as in flight, and finishing.

Every step that has actions is persisted with those actions in flight before they run;
`rebuild` turns the in-flight records back into the same actions, so a step re-read after
a crash repeats exactly what it asked for. Finishing applies the retry policy of
SEMANTICS §6: a failed operation with retries left goes back to Running with
"<message>. Retrying attempt #N at <time>.", and the final failure says how often it was
retried.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from app.engine.backoff import retry_allowed, retry_wait
from app.engine.sync.actions import (
    Action,
    Apply,
    CreateNamespace,
    DeleteHook,
    Done,
    DryRun,
    Next,
    Prune,
    RemoveHookFinalizer,
    Wait,
)
from app.engine.sync.execution import Batch
from app.engine.sync.progress import Ledger
from app.engine.sync.state import InFlight, StepKind, SyncState, Verb
from app.engine.sync.task import ApplyMode
from app.model.sync import HookDeletePolicy, OperationPhase
from app.model.timestamps import format_time


@dataclass(frozen=True)
class Settings:
    """Timing of the step machine."""

    wave_delay: float = 2.0
    """Seconds between a wave and the next (Argo CD's ARGOCD_SYNC_WAVE_DELAY); default 2."""
    recheck: float = 5.0
    """Fallback seconds before re-checking health or deletions, when no change wakes the
    worker earlier; default 5."""


DEFAULT_SETTINGS = Settings()


@dataclass(frozen=True)
class Step:
    """One step: the state to persist first, the actions to run, and what follows.

    `then` is what follows if every action succeeds; after recording the results, follow
    the `next` of the state `record_results` returns (a failure can change it).
    """

    state: SyncState
    batches: tuple[tuple[Action, ...], ...]
    then: Next
    decision: str = ""
    """What the engine chose to do in this step and why, for the worker's log (the state's
    message says what users see); empty when the message says it all."""

    @property
    def actions(self) -> list[Action]:
        return [a for batch in self.batches for a in batch]


def wait(
    now: datetime,
    seconds: float,
    reason: str,
    *,
    wakeable: bool = True,
    after_actions: bool = False,
) -> Wait:
    return Wait(now + timedelta(seconds=seconds), reason, seconds, wakeable, after_actions)


def _action(state: SyncState, record: InFlight) -> Action:
    task = state.task(record.task_id)
    common: dict[str, Any] = {
        "id": record.id,
        "task_id": task.id,
        "key": task.key,
        "api_version": task.api_version,
    }
    target = task.target or {}
    match record.verb:
        case Verb.DRY_RUN:
            return DryRun(
                **common,
                object=target,
                replace=task.mode is ApplyMode.REPLACE,
                validate=task.validate,
                as_new=task.hook and task.has_policy(HookDeletePolicy.BEFORE_HOOK_CREATION),
            )
        case Verb.APPLY:
            return Apply(
                **common,
                object=target,
                mode=task.mode,
                force=task.force,
                validate=task.validate,
                migrate=task.migrate,
            )
        case Verb.CREATE_NAMESPACE:
            return CreateNamespace(**common, object=target, mode=task.mode)
        case Verb.PRUNE:
            return Prune(**common, propagation=state.propagation, uid=task.live_uid)
        case Verb.DELETE_HOOK:
            return DeleteHook(**common, propagation=state.propagation)
        case Verb.REMOVE_HOOK_FINALIZER:
            return RemoveHookFinalizer(**common)


def rebuild(state: SyncState) -> tuple[tuple[Action, ...], ...]:
    """The in-flight actions of `state`, batch by batch."""
    batches: dict[int, list[Action]] = {}
    for record in state.in_flight:
        batches.setdefault(record.batch, []).append(_action(state, record))
    return tuple(tuple(batches[b]) for b in sorted(batches))


def emit(
    state: SyncState,
    ledger: Ledger,
    kind: StepKind,
    batches: Sequence[Batch],
    then: Next,
    *,
    decision: str = "",
    **changes: Any,
) -> Step:
    """The step that runs `batches` (possibly none) and then follows `then`."""
    batches = [b for b in batches if b]
    number = state.step + 1 if batches else state.step
    in_flight = tuple(
        InFlight(f"{number}.{i}", verb, task_id, b)
        for i, (b, verb, task_id) in enumerate(
            (b, verb, task_id) for b, batch in enumerate(batches) for verb, task_id in batch
        )
    )
    new = replace(
        state,
        tasks=ledger.freeze(),
        step=number,
        in_flight=in_flight,
        step_kind=kind if batches else None,
        next=then,
        **changes,
    )
    return Step(new, rebuild(new), then, decision)


def finish(state: SyncState, phase: OperationPhase, message: str, now: datetime) -> SyncState:
    """End the operation, or schedule a retry if it failed and the retry policy allows one."""
    retry = state.operation.retry
    retrying = (
        phase in (OperationPhase.FAILED, OperationPhase.ERROR)
        and state.phase is not OperationPhase.TERMINATING
        and retry_allowed(retry, state.retry_count)
    )
    if retrying and retry is not None:
        count = state.retry_count + 1
        seconds = retry_wait(count, retry.effective_backoff)
        at = now + timedelta(seconds=seconds)
        text = f"{message}. Retrying attempt #{count} at {format_time(at)}."
        return replace(
            state,
            phase=OperationPhase.RUNNING,
            message=text,
            retry_count=count,
            finished_at=now,
            retry_at=at,
            next=Wait(at, f"retry #{count} of a failed sync", seconds, wakeable=False),
        )
    if phase is not OperationPhase.SUCCEEDED and state.retry_count > 0:
        message = f"{message} (retried {state.retry_count} times)."
    return replace(
        state,
        phase=phase,
        message=message,
        finished_at=now,
        retry_at=None,
        next=Done(phase, message),
    )
