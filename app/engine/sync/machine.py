"""The step machine: start an operation, take its next step, terminate it.

`next_step(state, observation, now)` advances the operation by one step (SEMANTICS §1
"Execution", §2, §6, §9) and may be repeated safely: a state with actions in flight gives
those same actions back. The worker persists `step.state`, runs `step.batches`, hands the
results to `record_results`, persists again, and follows `state.next`.

An operation that cannot run ends in Error: `error_out` before a step (its retry policy
applies: a refused plan may succeed later), `abandon` when its Application is gone (never
retried: a retry could only fail the same way). `unplanned` is the state of an operation
not planned yet (or whose stored state cannot be read), for either.
"""

from dataclasses import replace
from datetime import datetime

from app.engine.sync.actions import Continue, Done, Next, Replan, Wait
from app.engine.sync.execution import Batch, RunContext, run_tasks, settle_prune
from app.engine.sync.messages import (
    ALL_TASKS_RUN,
    APP_GONE,
    COMPLETED_UNSUCCESSFULLY,
    FAILED_TO_APPLY,
    NO_MORE_TASKS,
    NOT_VALID,
    RUNNING,
    SYNC_FAIL_HOOKS_FAILED,
    TERMINATED,
    TERMINATION_ERRORS,
)
from app.engine.sync.observation import Observation
from app.engine.sync.progress import (
    Ledger,
    assess_running,
    multi_step,
    running_message,
    with_reason,
)
from app.engine.sync.state import StateError, StepKind, SyncState, Verb
from app.engine.sync.steps import DEFAULT_SETTINGS, Settings, Step, emit, finish, rebuild, wait
from app.engine.sync.task import SyncTask
from app.engine.sync.tasks import SyncPlan
from app.model.annotations import HOOK_FINALIZER
from app.model.operation import Operation, SyncOperation
from app.model.sync import HookDeletePolicy, OperationPhase, ResultCode, SyncPhase
from app.model.timestamps import parse_time


def _check_time(now: datetime) -> None:
    if now.tzinfo is None:
        raise ValueError("`now` must be timezone-aware (UTC), e.g. datetime.now(UTC)")


def _begin(state: SyncState, plan: SyncPlan, now: datetime) -> SyncState:
    if plan.refusal:
        return finish(state, OperationPhase.FAILED, plan.refusal, now)
    ledger = Ledger(state.tasks)
    invalid = [t for t in state.tasks if t.invalid]
    for task in invalid:
        ledger.set(task.id, ResultCode.SYNC_FAILED, None, task.invalid)
    if invalid:
        return finish(replace(state, tasks=ledger.freeze()), OperationPhase.FAILED, NOT_VALID, now)
    return state


def start(plan: SyncPlan, now: datetime) -> SyncState:
    """The state of a new operation (already finished if it is refused or has invalid tasks)."""
    _check_time(now)
    state = SyncState(
        app=plan.app,
        operation=plan.operation,
        revision=plan.revision,
        revisions=plan.revisions,
        started_at=plan.started_at,
        tasks=plan.tasks,
        propagation=plan.options.propagation,
        source=plan.source,
        sources=plan.sources,
        managed_namespace_metadata=plan.managed_namespace_metadata,
        warnings=plan.warnings,
        next=Continue("operation started"),
    )
    return _begin(state, plan, now)


def restart(state: SyncState, plan: SyncPlan, now: datetime) -> SyncState:
    """Begin a retry (after `Replan`) with a fresh plan made with the same `started_at`."""
    _check_time(now)
    if not isinstance(state.next, Replan):
        raise StateError(f"{state.app}: no retry is due; restart only after a Replan step")
    if plan.started_at != state.started_at:
        raise StateError(
            f"{state.app}: plan the retry with started_at={state.started_at.isoformat()} "
            "so that hook names stay the same"
        )
    fresh = replace(
        state,
        revision=plan.revision,
        revisions=plan.revisions,
        tasks=plan.tasks,
        message="",
        dry_run_done=False,
        finished_at=None,
        retry_at=None,
        in_flight=(),
        step_kind=None,
        failed_to_apply=False,
        all_tasks_run=False,
        warnings=plan.warnings,
        next=Continue(f"retry #{state.retry_count} started"),
    )
    return _begin(fresh, plan, now)


def error_out(state: SyncState, message: str, now: datetime) -> SyncState:
    """End the operation in Error before a step could run (retried if the policy allows)."""
    _check_time(now)
    if state.completed:
        return state
    return finish(replace(state, in_flight=(), step_kind=None), OperationPhase.ERROR, message, now)


def abandon(state: SyncState, now: datetime, reason: str = APP_GONE) -> SyncState:
    """End the operation in Error without retries, saying `reason` (its Application is
    gone: a retry could only fail the same way)."""
    final = replace(state, operation=replace(state.operation, retry=None))
    return error_out(final, reason, now)


def unplanned(app: str, operation: Operation, started_at: str, now: datetime) -> SyncState:
    """The state of `operation` before it is planned (`started_at` as stored, RFC 3339;
    empty: `now`), to end it with `error_out` or `abandon`."""
    _check_time(now)
    sync = operation.sync or SyncOperation()
    started = parse_time(started_at) if started_at else now
    return SyncState(
        app=app, operation=operation, revision=sync.revision, started_at=started, tasks=()
    )


def next_step(
    state: SyncState,
    observation: Observation,
    now: datetime,
    settings: Settings = DEFAULT_SETTINGS,
) -> Step:
    """The next step of the operation; repeating the call gives the same step back."""
    _check_time(now)
    if state.in_flight:
        return Step(state, rebuild(state), state.next)
    if state.completed:
        return Step(state, (), Done(state.phase, state.message))
    if state.phase is OperationPhase.TERMINATING:
        phase, text = (
            (OperationPhase.ERROR, TERMINATION_ERRORS)
            if state.termination_errors
            else (OperationPhase.FAILED, TERMINATED)
        )
        done = finish(state, phase, text, now)
        return Step(done, (), done.next)
    pause = state.next
    if isinstance(pause, Wait) and not pause.wakeable and now < pause.until:
        return Step(state, (), pause)
    if state.retry_at is not None:
        if now < state.retry_at:
            return Step(state, (), state.next)
        retry = state.operation.retry
        due = Replan(bool(retry and retry.refresh), f"retry #{state.retry_count} is due")
        due_state = replace(state, retry_at=None, next=due)
        return Step(due_state, (), due)
    return _Stepper(state, observation, now, settings).step()


class _Stepper:
    """One call of `next_step` for a running operation."""

    def __init__(
        self, state: SyncState, observation: Observation, now: datetime, settings: Settings
    ) -> None:
        self.state = state
        self.observation = observation
        self.now = now
        self.settings = settings
        self.ledger = Ledger(state.tasks)
        approved_at = observation.prune_approved_at
        self.context = RunContext(
            prune=state.sync.prune,
            dry_run=state.sync.dry_run,
            approved=approved_at is not None and approved_at >= state.started_at,
        )

    @property
    def tasks(self) -> list[SyncTask]:
        return self.ledger.tasks

    def live(self, task: SyncTask) -> bool:
        return self.observation.of(task.key).live is not None

    def step(self) -> Step:
        if self.state.all_tasks_run:
            return self.succeed(ALL_TASKS_RUN)
        if not self.state.dry_run_done:
            first = self.first_step()
            if first is not None:
                return first
        return self.wet_step()

    def first_step(self) -> Step | None:
        """Create the namespace for real, then dry-run everything (once per operation)."""
        namespace = [
            t
            for t in self.tasks
            if t.creates_namespace and t.pending and not self.live(t) and not self.context.dry_run
        ]
        if namespace:
            return emit(
                self.state,
                self.ledger,
                StepKind.NAMESPACE,
                [[(Verb.CREATE_NAMESPACE, namespace[0].id)]],
                Continue("namespace created"),
                message="creating the destination namespace",
            )
        candidates = [t for t in self.tasks if not t.skipped and t.pending]
        for task in candidates:
            if task.is_prune and self.context.dry_run:
                settle_prune(self.ledger, task, self.context, self.observation)
        dry_runs = [t for t in candidates if t.awaits_dry_run]
        if self.context.dry_run:
            for task in candidates:
                if not task.is_prune and task.skip_dry_run:
                    self.ledger.tasks[task.id] = replace(
                        task, skip_reason="not validated: the cluster does not serve its API yet"
                    )
        if not dry_runs:
            self.state = replace(self.state, tasks=self.ledger.freeze(), dry_run_done=True)
            return None
        return emit(
            self.state,
            self.ledger,
            StepKind.DRY_RUN,
            [[(Verb.DRY_RUN, t.id) for t in dry_runs]],
            Continue("dry run passed"),
            message="validating manifests (dry run)",
        )

    def wet_step(self) -> Step:
        assess_running(self.ledger, self.observation)
        waiting = self.wait_for_running() or self.wait_for_pruned()
        if waiting is not None:
            return waiting
        main = [t for t in self.tasks if t.sync_phase is not SyncPhase.SYNC_FAIL]
        if any(t.completed and not t.successful for t in main):
            return self.failure_path(main)
        pending = [t for t in main if t.pending]
        if not pending:
            return self.succeed(NO_MORE_TASKS)
        return self.run_wave(pending)

    def wait_for_running(self) -> Step | None:
        multi = multi_step(self.tasks)
        running = [t for t in self.tasks if (multi or t.hook) and t.running]
        if not running:
            return None
        gone = [t for t in running if not self.live(t)]
        for task in gone:
            text = f"Resource {task.label} is missing, it might have been deleted"
            self.ledger.set(task.id, ResultCode.SYNC_FAILED, OperationPhase.ERROR, text)
        message = running_message(running)
        if len(gone) == len(running):
            return emit(
                self.state, self.ledger, StepKind.WAVE, [], Continue(message), message=message
            )
        then = wait(self.now, self.settings.recheck, message)
        return emit(self.state, self.ledger, StepKind.WAVE, [], then, message=message)

    def wait_for_pruned(self) -> Step | None:
        deleting = [
            t
            for t in self.tasks
            if t.result is ResultCode.PRUNED and self.observation.of(t.key).deleting
        ]
        if not deleting:
            return None
        message = running_message(deleting, pending_deletion=True)
        then = wait(self.now, self.settings.recheck, message)
        return emit(self.state, self.ledger, StepKind.WAVE, [], then, message=message)

    def cleanup(self, policy: HookDeletePolicy | None) -> list[Batch]:
        """Finalizers off completed hooks, then deletion of hooks with `policy` (if given)."""
        finalizers = [
            (Verb.REMOVE_HOOK_FINALIZER, t.id)
            for t in self.tasks
            if t.hook and t.completed and self.observation.of(t.key).has_finalizer(HOOK_FINALIZER)
        ]
        deletes = []
        if policy is not None:
            deletes = [
                (Verb.DELETE_HOOK, t.id)
                for t in self.tasks
                if t.has_policy(policy)
                and not t.running
                and self.live(t)
                and not self.observation.of(t.key).deleting
            ]
        return [finalizers, deletes]

    def succeed(self, message: str) -> Step:
        batches = [] if self.context.dry_run else self.cleanup(HookDeletePolicy.HOOK_SUCCEEDED)
        done = finish(
            replace(self.state, all_tasks_run=False), OperationPhase.SUCCEEDED, message, self.now
        )
        return emit(
            done, self.ledger, StepKind.FINISH, batches, done.next, decision=f"succeed: {message}"
        )

    def failure_path(self, main: list[SyncTask]) -> Step:
        """SEMANTICS §2: fail at once, or run every SyncFail hook first and fail after."""
        base = FAILED_TO_APPLY if self.state.failed_to_apply else COMPLETED_UNSUCCESSFULLY
        failed = [t for t in main if t.completed and not t.successful]
        message = with_reason(base, failed)
        cleanup = self.cleanup(HookDeletePolicy.HOOK_FAILED)
        sync_fail = [t for t in self.tasks if t.sync_phase is SyncPhase.SYNC_FAIL]
        if all(t.completed for t in sync_fail):
            hooks_failed = [t for t in sync_fail if not t.successful]
            if hooks_failed:
                message += "\n" + with_reason(SYNC_FAIL_HOOKS_FAILED, hooks_failed)
            done = finish(self.state, OperationPhase.FAILED, message, self.now)
            after_hooks = f" after {len(sync_fail)} SyncFail hook(s)" if sync_fail else ""
            decision = f"fail{after_hooks}: {message}"
            return emit(done, self.ledger, StepKind.FINISH, cleanup, done.next, decision=decision)
        starting = [t for t in sync_fail if t.pending]
        run = run_tasks(self.ledger, starting, self.observation, self.context)
        text = run.waiting or running_message(starting)
        then = wait(self.now, self.settings.recheck, text) if run.waiting else Continue(text)
        return emit(
            self.state,
            self.ledger,
            StepKind.SYNC_FAIL,
            cleanup + run.batches,
            then,
            decision=f"start {len(starting)} SyncFail hook(s) before failing: {message}",
            message=text,
            failed_to_apply=False,
        )

    def run_wave(self, pending: list[SyncTask]) -> Step:
        """Run every pending task of the first (phase, wave) still to go."""
        head, last = pending[0], pending[-1]
        phase, wave_no = head.sync_phase, head.wave
        final = (phase, wave_no) == (last.sync_phase, last.wave)
        current = [t for t in pending if (t.sync_phase, t.wave) == (phase, wave_no)]
        decision = f"run wave {wave_no} of phase {phase.value}: {len(current)} task(s)" + (
            ", the last wave" if final else ""
        )
        cleanup = self.cleanup(None)
        run = run_tasks(self.ledger, current, self.observation, self.context)
        if run.waiting:
            held = wait(self.now, self.settings.recheck, run.waiting)
            return emit(
                self.state,
                self.ledger,
                StepKind.WAVE,
                cleanup + run.batches,
                held,
                decision=decision,
                message=run.waiting,
            )
        message = running_message(current)
        all_run = final and not any(t.hook for t in current)
        then: Next
        if all_run:
            then = Continue(ALL_TASKS_RUN)
        elif not final:
            then = wait(
                self.now,
                self.settings.wave_delay,
                "delay between sync waves",
                wakeable=False,
                after_actions=True,
            )
        else:
            then = Continue(message)
        if not any(run.batches):
            self.state = replace(self.state, tasks=self.ledger.freeze(), all_tasks_run=all_run)
            if all_run:
                return self.succeed(ALL_TASKS_RUN)
        return emit(
            self.state,
            self.ledger,
            StepKind.WAVE,
            cleanup + run.batches,
            then,
            decision=decision,
            message=message or RUNNING,
            all_tasks_run=all_run,
        )
