"""The hook worker: performs the steps of an operation that create, delete or release hooks.

The sync worker persists a step whose actions touch hooks (a hook's apply, a
BeforeHookCreation or delete-policy deletion, the hook finalizer's removal, a
termination) and hands it over with HookRequest(operation, step). Here, per message
(HOOK, one handler per app at a time across replicas, the highest step wins):

1. load the operation; a request for another operation or a step long gone is stale;
2. the named step is still in flight: perform the whole step (`workers.sync.executor`),
   record the results, persist (compare-and-set), report hook phase changes, and follow
   on: the next SyncStep, a WAIT or RETRY timer, or the end of the operation;
3. the named step was performed already (the request came again after a crash, or
   twice): repeat only the follow-up, which is idempotent.

Hook objects have deterministic names (`generateName` hooks are named from the
operation), so performing a step twice applies the same hook twice and never creates a
second one: no hook runs twice.
"""

from app.bus.messages import HOOK, HookRequest
from app.engine.sync import StateError, SyncState
from app.runtime.runtime import Runtime
from workers.sync.arrivals import Arrival, arrival
from workers.sync.context import OperationContext
from workers.sync.finishing import finish
from workers.sync.performing import GONE, abandon, perform_step
from workers.sync.stepping import StepWorker


class HookWorker(StepWorker[HookRequest]):
    """Consumes HookRequest messages; see the module docstring."""

    name = "hooks"
    channel = HOOK

    async def _handle(self, ctx: OperationContext, message: HookRequest) -> None:
        rt, ref = self._rt, message.app
        record = await rt.operations.load_sync(ref)
        came = arrival(record, message.operation, message.step)
        state: SyncState | None = None
        if came is not Arrival.STALE and record is not None and record.sync is not None:
            try:
                state = SyncState.from_dict(record.sync)
            except StateError as e:
                ctx.log.error("hooks.state_damaged", error=str(e), action="left to the sync worker")
        if state is None or record is None:
            ctx.log.info("hooks.stale", step=message.step, reason="nothing of this step to do")
            return
        ctx.bind(state)
        app = await rt.apps.get(ref)
        if state.in_flight:
            if came is not Arrival.CURRENT:
                ctx.log.info("hooks.stale", step=message.step, reason="a later step is in flight")
            elif app is None:
                await abandon(ctx, state, record.step, GONE)
            else:
                await perform_step(ctx, app, state, record.step)
        elif state.completed:
            if not record.finalized:
                await finish(ctx, state, app)
        elif came is Arrival.RESUMED:
            await ctx.follow(record.step, state, app)
        else:
            ctx.log.info("hooks.stale", step=message.step, reason="the step is not in flight")


def build(runtime: Runtime) -> HookWorker:
    return HookWorker(runtime)
