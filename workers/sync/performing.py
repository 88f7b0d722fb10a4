"""Performing a persisted step: run its actions, record the results, note what was applied.

The step's actions were stored as in flight before this runs, so a crash anywhere here
repeats them on the next delivery (they are idempotent, `workers.sync.executor`). The
results go to the engine (`record_results`), whose recorded state the operation loop
persists; the objects the applies returned go into the live cache (only over older
copies: they were applied whether or not the recorded state lands).
"""

from dataclasses import dataclass

from app.cluster import Cluster
from app.engine.sync import ActionResult, SyncState, record_results
from app.engine.sync.steps import rebuild
from app.model.application import Application
from app.runtime.clusters import UnknownDestination
from app.store.errors import StoreError
from workers.sync.context import OperationContext, now
from workers.sync.executor import Performed, perform


@dataclass(frozen=True, slots=True)
class StepPerformed:
    """The state with the step's results recorded, and how the actions went."""

    state: SyncState
    actions: int
    failed: int


def _cluster(ctx: OperationContext, app: Application) -> Cluster | str:
    try:
        return ctx.rt.clusters.resolve(app.spec.destination)
    except UnknownDestination as e:
        return str(e)


async def perform_step(ctx: OperationContext, app: Application, state: SyncState) -> StepPerformed:
    """Run the in-flight actions of `state` and record their results (not persisted)."""
    batches = rebuild(state)
    cluster = _cluster(ctx, app)
    if isinstance(cluster, str):
        performed = Performed([ActionResult(a.id, False, cluster) for b in batches for a in b])
    else:
        live_uids = {t.id: t.live_uid for t in state.tasks}
        performed = await perform(cluster, batches, live_uids, ctx.services.settings.executor)
    try:
        await ctx.services.applied.put_newer(ctx.ref, performed.applied)
    except StoreError as e:
        ctx.log.warning(
            "sync.live_cache_not_updated", error=str(e), consequence="the watcher brings it in"
        )
    results = performed.results
    return StepPerformed(
        record_results(state, results, now()), len(results), sum(not r.ok for r in results)
    )
