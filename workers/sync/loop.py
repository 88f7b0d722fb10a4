"""The operation loop of the sync and hook workers, top to bottom (docs/pipeline.md, step 4).

For one step message:

1. load the operation as stored (`rt.operations.load_sync`: its step counter, engine
   state, termination flag) and the Application;
2. ask the engine what the message calls for (`app.engine.sync.turns.turn`: drop it,
   plan, perform the actions in flight, hand them to the hook worker, abandon, finish,
   follow again, take the next step, terminate), by the worker's role;
3. make the move, which gives the operation's next state: plan it (`planning`) and
   `start`, or `error_out` saying why it cannot run; `abandon` it (its Application is
   gone); end it when its stored state cannot be read; perform the in-flight actions
   (`performing`); or take the next step: held while the project's sync windows block it
   (`held_by_windows`), else observe what it looks at (`observing`) and `next_step` (a
   due retry re-planned and `restart`ed) or `terminate`;
4. store it: persist (the step compare-and-set; a step that landed already ends the
   message here), report hook phase changes, write `operationState` onto the
   Application when the move calls for it;
5. a state stored with actions in flight goes back to 2 (the sync worker performs it or
   hands it to the hook worker); otherwise follow it: a step due at once (Continue) is
   taken here when the worker takes steps inline (back to 2, at most MAX_INLINE_STEPS
   per message), else published; a wait is a WAIT timer, or a RETRY timer (with the
   "Retrying attempt #N" status written); the end of the operation is finished
   (`finishing`).

A message redelivered after its handler died resumes from the last persisted state
(every state records the message that stored it), and every follow-up is idempotent.
"""

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from app.bus import schedules
from app.bus.errors import Retry
from app.bus.messages import SYNC, SyncStep
from app.bus.publish import publish
from app.cluster import ClusterError, NotFound
from app.engine.sync import (
    Continue,
    Done,
    Observation,
    Replan,
    StateError,
    Step,
    SyncState,
    Wait,
    abandon,
    approval_time,
    error_out,
    next_step,
    operation_state,
    restart,
    start,
    terminate,
    unplanned,
)
from app.engine.sync.reads import objects_to_read
from app.engine.sync.resumption import resume
from app.engine.sync.turns import Arrival, Move, Role, Situation, Turn, arrival, turn
from app.engine.sync.window_hold import held_by_windows
from app.model.application import Application
from app.model.operation import ResourceResult
from app.model.resource import ResourceKey
from app.runtime.clusters import UnknownDestination
from app.runtime.recovery import application_exists, written_operation
from app.store.operations import SyncRecord
from workers.sync.context import MAX_REASON, OperationContext, SyncServices, now
from workers.sync.finishing import finish, write_status
from workers.sync.observing import observe
from workers.sync.performing import perform_step
from workers.sync.planning import Planner, PlanRefused

MAX_INLINE_STEPS = 64
"""Steps one message may take in a row before the next one is published instead."""


@dataclass
class _Found:
    """The operation as loaded for one message, as it moves on."""

    step: int
    """The step the next persisted state lands at."""
    state: SyncState | None
    app: Application | None
    unreadable: str = ""
    """Why the stored engine state cannot be read (empty: it can, or there is none)."""


@dataclass(frozen=True)
class _Moved:
    """A move's new state, what to log once it is stored, and whether users see it now."""

    state: SyncState
    event: str
    facts: dict[str, Any] = field(default_factory=dict)
    status: bool = False
    """Write `operationState` onto the Application once stored."""


class OperationLoop:
    """Takes the step messages of one role (`inline`: steps due at once are taken here)."""

    def __init__(self, services: SyncServices, role: Role, *, inline: bool) -> None:
        self._services = services
        self._rt = services.rt
        self._role = role
        self._inline = inline
        self._planner = Planner(services.rt, services.settings)

    async def run(self, ctx: OperationContext, step: int) -> None:
        """Take what the message of `step` calls for, then what follows at once."""
        found, situation = await self._load(ctx, step)
        decided = turn(situation)
        inline_left = MAX_INLINE_STEPS if self._inline else 0
        while await self._take(ctx, found, decided):
            state = found.state
            assert state is not None, "every move but a drop leaves a state"
            if not state.in_flight:
                if not await self._follow(ctx, found.step, state, found.app, inline_left > 0):
                    return
                inline_left -= 1
            at_once = Situation(
                self._role,
                Arrival.CURRENT,
                state,
                app_exists=found.app is not None,
                terminate=ctx.terminate,
            )
            decided = turn(at_once)

    async def _load(self, ctx: OperationContext, step: int) -> tuple[_Found, Situation]:
        record = await self._rt.operations.load_sync(ctx.ref)
        if record is None and await self._restored(ctx, step):
            record = await self._rt.operations.load_sync(ctx.ref)
        came = Arrival.STALE
        if record is not None:
            came = arrival(
                ctx.operation_id,
                step,
                stored=record.id,
                stored_step=record.step,
                origin=record.origin,
                restored=record.restored and record.sync is None,
            )
        if record is None or came is Arrival.STALE:
            stored_step = record.step if record is not None else step
            ours = record is not None and record.id == ctx.operation_id
            state = _state_of(record) if record is not None and ours else None
            return _Found(stored_step, state, None), Situation(self._role, came, state)
        found = await self._found(ctx, record)
        ctx.terminate = record.terminate
        return found, Situation(
            self._role,
            came,
            found.state,
            unreadable=bool(found.unreadable),
            finalized=record.finalized,
            app_exists=found.app is not None,
            terminate=record.terminate,
        )

    async def _restored(self, ctx: OperationContext, step: int) -> bool:
        """Redis holds no operation for the app: if the Application says one runs, store
        it again (unplanned, at this message's step) so that it resumes; True if stored.
        Only the sync worker plans: a hook worker that restored it tells the sync worker."""
        limit = self._services.settings.status_timeout
        try:
            written = await written_operation(self._rt.control_plane, ctx.ref, time_limit=limit)
        except ClusterError as e:
            raise Retry(f"{ctx.ref}: cannot read the Application: {e}", 1.0) from None
        if written is None or written.phase.completed:
            return False
        restored = await self._rt.operations.restore(ctx.ref, ctx.operation_id, step, written)
        if restored and self._role is Role.HOOKS:
            # The sync worker may have taken a SyncStep of this very step before Redis lost
            # the operation (the watcher's wake-up, say): as its duplicate, this one would
            # be dropped and the operation never planned again.
            reason = "plan the operation restored from the Application"
            message = SyncStep(ctx.ref, ctx.operation_id, step, reason)
            await publish(self._rt.bus, SYNC, message, deduplicate=False)
        ctx.log.info(
            "sync.restored" if restored else "sync.restore_refused",
            step=step,
            started_at=written.started_at,
            reason="Redis lost the running operation; it resumes from the Application's "
            "operationState and the cluster",
        )
        return restored

    async def _found(self, ctx: OperationContext, record: SyncRecord) -> _Found:
        app = await self._rt.apps.get(ctx.ref)
        if app is None:
            limit = self._services.settings.status_timeout
            if await application_exists(self._rt.control_plane, ctx.ref, time_limit=limit):
                ctx.log.info(
                    "sync.waiting", reason="the app registry does not hold the Application yet"
                )
                raise Retry(f"{ctx.ref}: the app registry is being rebuilt", 1.0)
        if record.sync is None:
            return _Found(record.step, None, app)
        try:
            state = SyncState.from_dict(record.sync)
        except StateError as e:
            ctx.log.error(f"{ctx.stage}.state_unreadable", error=str(e))
            return _Found(record.step, None, app, unreadable=str(e))
        ctx.bind(state)
        return _Found(record.step, state, app)

    async def _take(self, ctx: OperationContext, found: _Found, decided: Turn) -> bool:
        """Make the move; True when `found` stands at a newly stored state (or, to follow
        again, at the stored one)."""
        ctx.log.info(
            f"{ctx.stage}.turn", step=found.step, move=decided.move.value, reason=decided.reason
        )
        match decided.move:
            case Move.DROP:
                return False
            case Move.HAND_OFF:
                assert found.state is not None
                await ctx.hand_off(found.step, found.state.message)
                return False
            case Move.FINISH:
                assert found.state is not None
                await finish(ctx, found.state, found.app)
                return False
            case Move.FOLLOW:
                return True
            case Move.REARM:
                assert found.state is not None
                await self._follow(ctx, found.step, found.state, None, inline=False, rearm=True)
                return False
        moved = await self._move(ctx, found, decided.move)
        if moved is None or not await self._store(ctx, found.step, found.state, moved):
            return False
        found.step, found.state = found.step + 1, moved.state
        return True

    async def _move(self, ctx: OperationContext, found: _Found, move: Move) -> _Moved | None:
        """The state the move makes (None: nothing to store)."""
        state, app = found.state, found.app
        if state is None:
            return await self._first(ctx, found, move)
        if move is Move.ABANDON:
            return _abandoned(state)
        assert app is not None, "the engine abandons an operation whose Application is gone"
        if move is Move.PERFORM:
            performed = await perform_step(ctx, app, state)
            facts = {
                "kind": state.step_kind.value if state.step_kind else None,
                "actions": performed.actions,
                "failed": performed.failed,
                "message": performed.state.message,
            }
            return _Moved(performed.state, "sync.performed", facts)
        if move is Move.TERMINATE:
            observation = await self._observe(ctx, app, state, terminating=True)
            stopped = terminate(state, now(), observation)
            return _Moved(stopped.state, "sync.step", _step_facts(stopped, terminating=True))
        return await self._step(ctx, app, state)

    async def _first(self, ctx: OperationContext, found: _Found, move: Move) -> _Moved | None:
        """A move on an operation not planned yet, or whose stored state cannot be read."""
        unplanned_op = await self._unplanned(ctx)
        if unplanned_op is None:
            return None
        bare, recorded = unplanned_op
        if move is Move.END_UNREADABLE:
            why = f"the stored sync state cannot be read ({found.unreadable})"
            return _Moved(error_out(bare, why, now()), "sync.ended_unreadable")
        if move is Move.ABANDON:
            return _abandoned(bare)
        assert found.app is not None, "the engine abandons an operation whose Application is gone"
        return await self._plan(ctx, found.app, bare, recorded)

    async def _unplanned(
        self, ctx: OperationContext
    ) -> tuple[SyncState, list[ResourceResult] | None] | None:
        """The operation as stored before it is planned (None: it is gone), and for one
        restored from the Application, the results it had recorded there."""
        stored = await self._rt.operations.load(ctx.ref)
        if stored is None:
            return None
        recorded = None
        if stored.restored:
            result = stored.state.sync_result
            recorded = list(result.resources) if result is not None else []
        bare = unplanned(ctx.ref.name, stored.state.operation, stored.state.started_at, now())
        return bare, recorded

    async def _plan(
        self,
        ctx: OperationContext,
        app: Application,
        bare: SyncState,
        recorded: list[ResourceResult] | None = None,
    ) -> _Moved:
        """The operation's first step: plan it and start, or end it in Error saying why; a
        restored operation resumes what its lost progress had run (`resumption`)."""
        try:
            plan = await self._planner.plan(app, bare.operation, bare.started_at, re_resolve=False)
            state = start(plan, now())
            if recorded is not None:
                state = resume(state, recorded, await self._hooks_live(app, state))
                ctx.log.info(
                    "sync.resumed",
                    carried=[t.label for t in state.tasks if t.hook and not t.pending],
                )
        except PlanRefused as e:
            ctx.log.info("sync.plan_refused", reason=str(e))
            state = error_out(bare, str(e), now())
        ctx.bind(state)
        facts = {
            "tasks": len(state.tasks),
            "phase": state.phase.value,
            "message": state.message,
            "warnings": list(state.warnings),
        }
        return _Moved(state, "sync.planned", facts, status=True)

    async def _hooks_live(self, app: Application, state: SyncState) -> dict[ResourceKey, Any]:
        """The live objects of the operation's hooks (absent ones left out)."""
        cluster = self._rt.clusters.resolve(app.spec.destination)
        limit = self._services.settings.observe_timeout
        found: dict[ResourceKey, Any] = {}
        for task in (t for t in state.tasks if t.hook):
            key = task.key
            try:
                found[key] = await cluster.get(
                    task.api_version, key.kind, key.name, key.namespace, time_limit=limit
                )
            except NotFound:
                continue
            except ClusterError as e:
                raise Retry(f"cannot read hook {task.label}: {e}", 1.0) from None
        return found

    async def _step(self, ctx: OperationContext, app: Application, state: SyncState) -> _Moved:
        """The next step: held by the project's sync windows, a due retry, or the engine's."""
        rt = self._rt
        project = await rt.apps.get_project(rt.settings.control_plane.namespace, app.spec.project)
        held = held_by_windows(state, project, app, now()) if project is not None else None
        if held is not None:
            return _Moved(held, "sync.held", {"reason": held.message}, status=True)
        observation = await self._observe(ctx, app, state, terminating=False)
        step = next_step(state, observation, now(), self._services.engine)
        if isinstance(step.then, Replan) and not step.batches:
            return await self._replan(ctx, app, step.state, step.then)
        return _Moved(step.state, "sync.step", _step_facts(step, terminating=False))

    async def _replan(
        self, ctx: OperationContext, app: Application, state: SyncState, due: Replan
    ) -> _Moved:
        """A retry is due: plan again (re-resolving the revision if asked) and restart."""
        try:
            plan = await self._planner.plan(
                app, state.operation, state.started_at, re_resolve=due.refresh_revision
            )
            fresh = restart(state, plan, now())
        except PlanRefused as e:
            ctx.log.info("sync.plan_refused", reason=str(e), retry=state.retry_count)
            fresh = error_out(state, str(e), now())
        facts = {
            "retry": fresh.retry_count,
            "re_resolved": due.refresh_revision,
            "tasks": len(fresh.tasks),
        }
        return _Moved(fresh, "sync.replanned", facts, status=True)

    async def _observe(
        self, ctx: OperationContext, app: Application, state: SyncState, *, terminating: bool
    ) -> Observation:
        """The objects the step looks at, from the API server (Retry if they cannot be read)."""
        reads = objects_to_read(state, now(), terminating=terminating)
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

    async def _store(
        self, ctx: OperationContext, step: int, before: SyncState | None, moved: _Moved
    ) -> bool:
        """Persist the move's state as step `step`, then tell users; False if it was taken."""
        if not await ctx.persist(step, moved.state):
            return False
        ctx.log.info(moved.event, step=step, **moved.facts)
        hooks_moved = await ctx.report_hooks(before, moved.state)
        if moved.status or hooks_moved:
            await write_status(ctx, operation_state(moved.state))
        return True

    async def _follow(
        self,
        ctx: OperationContext,
        step: int,
        state: SyncState,
        app: Application | None,
        inline: bool,
        *,
        rearm: bool = False,
    ) -> bool:
        """Do what comes after the stored `state`, which stands at `step`; True when this
        message is to take that step itself (`inline`, and a Continue). `rearm`: the
        state's timer again, at the time its step decided (a wave delay is not lengthened)."""
        then = state.next
        message = SyncStep(ctx.ref, ctx.operation_id, step, _reason(then))
        if isinstance(then, Continue | Replan):
            if inline:
                ctx.log.info("sync.next", step=step, then="inline", reason=message.reason)
                return True
            await publish(self._rt.bus, SYNC, message)
            ctx.log.info("sync.next", step=step, then="continue", reason=message.reason)
        elif isinstance(then, Wait):
            timer = schedules.RETRY if state.retrying else schedules.WAIT
            after_actions = then.after_actions and not rearm
            until = now() + timedelta(seconds=then.seconds) if after_actions else then.until
            await schedules.schedule(self._rt.bus, timer, message, until)
            if state.retrying:
                await write_status(ctx, operation_state(state))
            ctx.log.info(
                "sync.next",
                step=step,
                then=timer.purpose.value,
                seconds=round(then.seconds, 3),
                wakeable=then.wakeable,
                reason=then.reason,
            )
        else:
            await finish(ctx, state, app)
        return False


def _state_of(record: SyncRecord) -> SyncState | None:
    """The stored engine state, None if there is none yet or it cannot be read."""
    if record.sync is None:
        return None
    try:
        return SyncState.from_dict(record.sync)
    except StateError:
        return None


def _abandoned(state: SyncState) -> _Moved:
    ended = abandon(state, now())
    return _Moved(ended, "sync.abandoned", {"reason": ended.message})


def _step_facts(step: Step, *, terminating: bool) -> dict[str, Any]:
    return {
        "terminating": terminating,
        "actions": len(step.actions),
        "decision": step.decision,
        "message": step.state.message,
    }


def _reason(then: Continue | Wait | Done | Replan) -> str:
    text = then.message if isinstance(then, Done) else then.reason
    return text[:MAX_REASON]
