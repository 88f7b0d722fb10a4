"""Performing a persisted step: run its actions, record the results, persist, follow.

The step's actions were stored as in flight before this runs, so a crash anywhere here
repeats them on the next delivery (they are idempotent, `workers.sync.executor`). The
results go to the engine (`record_results`), the recorded state is persisted with the
step compare-and-set, the objects the applies returned go into the live cache (only over
older copies), hook phase changes are reported, and the state is followed.
"""

from dataclasses import replace

from app.cluster import Cluster
from app.engine.sync import (
    ActionResult,
    Observation,
    SyncState,
    error_out,
    next_step,
    record_results,
)
from app.model.application import Application
from app.runtime.clusters import UnknownDestination
from app.store.errors import StoreError
from workers.sync.context import OperationContext, now
from workers.sync.executor import Performed, perform

GONE = "the Application no longer exists; its operation was abandoned"


def _cluster(ctx: OperationContext, app: Application) -> Cluster | str:
    try:
        return ctx.rt.clusters.resolve(app.spec.destination)
    except UnknownDestination as e:
        return str(e)


async def perform_step(
    ctx: OperationContext, app: Application, state: SyncState, step: int
) -> tuple[SyncState, int] | None:
    """Run the in-flight actions of `state` (stored at step `step`) and follow on; the
    recorded state and its step when the caller is to take the next step itself."""
    actions = next_step(state, Observation(), now())
    cluster = _cluster(ctx, app)
    if isinstance(cluster, str):
        failed = [ActionResult(a.id, False, cluster) for a in actions.actions]
        performed = Performed(failed)
    else:
        live_uids = {t.id: t.live_uid for t in state.tasks}
        performed = await perform(
            cluster, actions.batches, live_uids, ctx.services.settings.executor
        )
    after = record_results(state, performed.results, now())
    if not await ctx.persist(step, after):
        return None
    ctx.log.info(
        "sync.performed",
        step=step,
        kind=state.step_kind.value if state.step_kind else None,
        actions=len(performed.results),
        failed=sum(not r.ok for r in performed.results),
        message=after.message,
    )
    try:
        await ctx.services.applied.put_newer(ctx.ref, performed.applied)
    except StoreError as e:
        ctx.log.warning(
            "sync.live_cache_not_updated", error=str(e), consequence="the watcher brings it in"
        )
    await ctx.report_hooks(state, after)
    return (after, step + 1) if await ctx.follow(step + 1, after, app) else None


async def abandon(ctx: OperationContext, state: SyncState, step: int, reason: str) -> None:
    """End the operation in Error without running anything more, and without retries: its
    Application is gone, and a retry could only fail the same way."""
    final = replace(state, operation=replace(state.operation, retry=None))
    ended = error_out(final, reason, now())
    if await ctx.persist(step, ended):
        ctx.log.info("sync.abandoned", step=step, reason=reason)
        await ctx.follow(step + 1, ended, None)
