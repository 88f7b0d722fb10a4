"""The sync worker: advances an app's operation step by step, from SyncStep messages.

Subscribe (SYNC, one handler per app at a time across replicas, the highest step wins
when messages coalesce), decode, then (docs/pipeline.md, step 4):

1. load the operation's id, step counter and engine state; a message for another
   operation, or for a step taken further since, is stale (`workers.sync.arrivals`);
2. not planned yet: plan it (`workers.sync.planning`) and `start`, or end it in Error
   with the reason when it cannot run (`error_out`); persist; write the Application's
   operationState;
3. actions in flight (a step persisted but not performed): hand hook steps to the hook
   worker again, perform the others;
4. finished: finish what the end of the operation still owes (history, status, event,
   refresh);
5. otherwise, unless termination was requested, ask the project's sync windows
   (`app.engine.sync.window_hold`): while they block the operation it takes no step,
   stays Running saying so and waits for the window to change; else observe exactly what
   the next step looks at and ask the engine: `terminate` when termination was
   requested, else `next_step`; a retry that is due re-plans and
   `restart`s; persist the step (compare-and-set) before acting; then hand a step with
   hook actions to the hook worker, or perform it here.

Then follow on: a step the engine says to take at once (Continue) is taken in the same
handler, each one persisted before the next, so a first sync of a plain app (plan, dry
run, apply, finish) costs one message, not five; a wait becomes a WAIT or RETRY timer;
the end of the operation is finished. A message redelivered after its handler died
resumes from the last persisted state (every state records the message that stored it).

No rule of Argo CD's lives here: which actions, in which order, and what follows are the
engine's decisions; this module only moves them between Redis, NATS and the cluster.
"""

import datetime as dt

from app.bus.consumer import ConsumerSettings
from app.bus.errors import Retry
from app.bus.messages import SYNC, SyncStep
from app.cluster import ClusterError
from app.engine.sync import (
    Observation,
    Replan,
    StateError,
    Step,
    SyncState,
    approval_time,
    error_out,
    next_step,
    operation_state,
    restart,
    start,
    terminate,
)
from app.engine.sync.reads import objects_to_read
from app.engine.sync.window_hold import hold
from app.engine.sync_windows import evaluate
from app.model.application import Application
from app.model.operation import Operation, SyncOperation
from app.model.sync import OperationPhase
from app.model.timestamps import parse_time
from app.runtime.clusters import UnknownDestination
from app.runtime.runtime import Runtime
from app.store.coalescing import CoalesceSettings
from app.store.operations import SyncRecord
from workers.sync.arrivals import Arrival, arrival
from workers.sync.context import OperationContext, has_hook_actions, now
from workers.sync.finishing import finish, write_status
from workers.sync.observing import observe
from workers.sync.performing import GONE, abandon, perform_step
from workers.sync.planning import Planner, PlanRefused
from workers.sync.settings import SyncWorkerSettings
from workers.sync.stepping import StepWorker

Taken = tuple[SyncState, int] | None
"""A state to take further at once in the same handler, and the step it stands at (None:
nothing to take now, or not here)."""


def _started_at(text: str) -> dt.datetime:
    if not text:
        return now()
    return parse_time(text)


def _unplanned(app_name: str, operation: Operation, started_at: str) -> SyncState:
    """The state of an operation that could not be planned (for `error_out`)."""
    sync = operation.sync or SyncOperation()
    return SyncState(
        app=app_name,
        operation=operation,
        revision=sync.revision,
        started_at=_started_at(started_at),
        tasks=(),
    )


class SyncWorker(StepWorker[SyncStep]):
    """Consumes SyncStep messages; see the module docstring."""

    name = "sync"
    channel = SYNC
    inline = True

    def __init__(
        self,
        rt: Runtime,
        *,
        settings: SyncWorkerSettings | None = None,
        consumer: ConsumerSettings | None = None,
        coalesce: CoalesceSettings | None = None,
    ) -> None:
        super().__init__(rt, settings=settings, consumer=consumer, coalesce=coalesce)
        self._planner = Planner(rt, self._services.settings)

    async def _handle(self, ctx: OperationContext, message: SyncStep) -> None:
        rt, ref = self._rt, message.app
        record = await rt.operations.load_sync(ref)
        came = arrival(record, message.operation, message.step)
        if came is Arrival.STALE or record is None:
            ctx.log.info(
                "sync.stale",
                step=message.step,
                stored_step=record.step if record else None,
                reason="the message names another operation or a step taken further since",
            )
            return
        ctx.terminate = record.terminate
        app = await rt.apps.get(ref)
        if record.sync is None:
            taken = await self._begin(ctx, app, record) if came is Arrival.CURRENT else None
        else:
            state = await self._state(ctx, record)
            if state is None:
                return
            ctx.bind(state)
            taken = await self._take(
                ctx, app, state, record.step, resumed=came is Arrival.RESUMED, record=record
            )
        while taken is not None:
            state, step = taken
            taken = await self._take(ctx, app, state, step, resumed=False, record=None)

    async def _take(
        self,
        ctx: OperationContext,
        app: Application | None,
        state: SyncState,
        step: int,
        *,
        resumed: bool,
        record: SyncRecord | None,
    ) -> Taken:
        """Whatever `state` (stored at `step`) calls for next; `record` when it was loaded."""
        if state.in_flight:
            return await self._resume(ctx, app, state, step)
        if state.completed:
            if record is not None and not record.finalized:
                await finish(ctx, state, app)
            return None
        if resumed and not ctx.terminate:
            return (state, step) if await ctx.follow(step, state, app) else None
        if app is None:
            await abandon(ctx, state, step, GONE)
            return None
        return await self._step(ctx, app, state, step)

    async def _state(self, ctx: OperationContext, record: SyncRecord) -> SyncState | None:
        """The stored engine state; a damaged one ends the operation in Error."""
        try:
            return SyncState.from_dict(record.sync)
        except StateError as e:
            stored = await self._rt.operations.load(ctx.ref)
            if stored is None:
                return None
            ctx.log.error("sync.state_damaged", error=str(e))
            bare = _unplanned(ctx.ref.name, stored.state.operation, stored.state.started_at)
            ended = error_out(bare, f"the stored sync state cannot be read ({e})", now())
            if await ctx.persist(record.step, ended):
                await ctx.follow(record.step + 1, ended, None)
            return None

    async def _begin(
        self, ctx: OperationContext, app: Application | None, record: SyncRecord
    ) -> Taken:
        """The operation's first step: plan it, or end it in Error saying why it cannot run."""
        stored = await self._rt.operations.load(ctx.ref)
        if stored is None:
            return None
        operation = stored.state.operation
        bare = _unplanned(ctx.ref.name, operation, stored.state.started_at)
        if app is None:
            state = error_out(bare, GONE, now())
        else:
            try:
                plan = await self._planner.plan(app, operation, bare.started_at, re_resolve=False)
                state = start(plan, now())
            except PlanRefused as e:
                ctx.log.info("sync.plan_refused", reason=str(e))
                state = error_out(bare, str(e), now())
        ctx.bind(state)
        if not await ctx.persist(record.step, state):
            return None
        ctx.log.info(
            "sync.planned",
            tasks=len(state.tasks),
            phase=state.phase.value,
            message=state.message,
            warnings=list(state.warnings),
        )
        await write_status(ctx, operation_state(state))
        following = record.step + 1
        return (state, following) if await ctx.follow(following, state, app) else None

    async def _resume(
        self, ctx: OperationContext, app: Application | None, state: SyncState, step: int
    ) -> Taken:
        """A persisted step whose actions have not been recorded: hand off or perform it."""
        actions = next_step(state, Observation(), now()).actions
        if has_hook_actions(state, actions):
            await ctx.hand_off(step, state.message)
            return None
        if app is None:
            await abandon(ctx, state, step, GONE)
            return None
        ctx.log.info("sync.perform", step=step, actions=len(actions))
        return await perform_step(ctx, app, state, step)

    async def _observe(
        self, ctx: OperationContext, app: Application, state: SyncState, *, terminating: bool
    ) -> Observation:
        when = now()
        reads = objects_to_read(state, when, terminating=terminating)
        approved = approval_time(app.metadata.annotations)
        if not reads:
            return Observation({}, approved)
        settings = self._services.settings
        try:
            cluster = self._rt.clusters.resolve(app.spec.destination)
            return await observe(
                cluster,
                reads,
                prune_approved_at=approved,
                health=self._rt.system.health,
                time_limit=settings.observe_timeout,
            )
        except UnknownDestination as e:
            raise Retry(f"{ctx.ref}: {e}", settings.cold_retry) from None
        except (ClusterError, TimeoutError) as e:
            ctx.log.info("sync.observe_failed", error=str(e) or "timed out", objects=len(reads))
            raise Retry(
                f"cannot read the objects of {ctx.ref}: {e or 'timed out'}", settings.cold_retry
            ) from None

    async def _step(
        self, ctx: OperationContext, app: Application, state: SyncState, stored: int
    ) -> Taken:
        """Ask the engine for the next step, persist it, then act or follow."""
        terminating = ctx.terminate and state.phase is OperationPhase.RUNNING
        if not terminating:
            held = await self._held(app, state)
            if held is not None:
                return await self._hold(ctx, app, held, stored)
        observation = await self._observe(ctx, app, state, terminating=terminating)
        step: Step
        if terminating:
            step = terminate(state, now(), observation)
        else:
            step = next_step(state, observation, now(), self._services.engine)
            if isinstance(step.then, Replan) and not step.batches:
                return await self._replan(ctx, app, step.state, stored, step.then)
        if not await ctx.persist(stored, step.state):
            return None
        following = stored + 1
        ctx.log.info(
            "sync.step",
            step=stored,
            terminating=terminating,
            actions=len(step.actions),
            decision=step.decision,
            message=step.state.message,
        )
        await ctx.report_hooks(state, step.state)
        if not step.batches:
            taken = await ctx.follow(following, step.state, app)
            return (step.state, following) if taken else None
        if has_hook_actions(step.state, step.actions):
            await ctx.hand_off(following, step.state.message)
            return None
        return await perform_step(ctx, app, step.state, following)

    async def _held(self, app: Application, state: SyncState) -> SyncState | None:
        """The operation held by the project's sync windows; None when it may go on."""
        rt = self._rt
        project = await rt.apps.get_project(rt.settings.control_plane.namespace, app.spec.project)
        if project is None:
            return None
        when = now()
        manual = not state.operation.initiated_by.automated
        windows = evaluate(project, app, when, manual=manual, running_since=state.started_at)
        return hold(state, windows, when)

    async def _hold(
        self, ctx: OperationContext, app: Application, held: SyncState, stored: int
    ) -> Taken:
        """Persist the held operation, show why in its status, and wait for the window."""
        if not await ctx.persist(stored, held):
            return None
        ctx.log.info("sync.held", step=stored, reason=held.message)
        await write_status(ctx, operation_state(held))
        await ctx.follow(stored + 1, held, app)
        return None

    async def _replan(
        self, ctx: OperationContext, app: Application, state: SyncState, stored: int, due: Replan
    ) -> Taken:
        """A retry is due: plan again (re-resolving the revision if asked) and restart."""
        try:
            plan = await self._planner.plan(
                app, state.operation, state.started_at, re_resolve=due.refresh_revision
            )
            fresh = restart(state, plan, now())
        except PlanRefused as e:
            ctx.log.info("sync.plan_refused", reason=str(e), retry=state.retry_count)
            fresh = error_out(state, str(e), now())
        if not await ctx.persist(stored, fresh):
            return None
        ctx.log.info(
            "sync.replanned",
            retry=fresh.retry_count,
            revision=fresh.revision,
            re_resolved=due.refresh_revision,
            tasks=len(fresh.tasks),
        )
        await write_status(ctx, operation_state(fresh))
        following = stored + 1
        return (fresh, following) if await ctx.follow(following, fresh, app) else None


def build(runtime: Runtime) -> SyncWorker:
    return SyncWorker(runtime)
