"""Once an operation is done: history, the Application's status, an event, a refresh.

In this order, each step safe to repeat (a crash between them repeats the lot):
1. history: an entry for a Succeeded, non-dry-run, whole-app sync (`records_history`),
   unless the newest entry is already this operation's (same start time and revision);
2. the Application resource: a JSON merge patch of `status.operationState` and
   `status.history`, the two fields the sync stage owns (compare owns the rest);
3. the event `operation-succeeded` or `operation-failed`, with the operation's message;
4. a refresh: `latest` after an automated operation, `force` after a manual one
   (`app.engine.levels.operation_finished_level`), so status catches up at once;
5. the operation is marked finalized: a redelivered message does not repeat any of this.

A status write that fails changes nothing but the log: Redis holds the same state, and
the API reads it from there.
"""

import datetime as dt
from collections.abc import Sequence
from typing import Any

from app.bus import events
from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.bus.subjects import EventType
from app.cluster import ClusterError, NotFound, PatchType
from app.engine.history import append_history, records_history
from app.engine.levels import operation_finished_level
from app.engine.sync import SyncState, operation_state
from app.metrics.argocd import count_sync
from app.model import codec
from app.model.app_spec import DEFAULT_REVISION_HISTORY_LIMIT
from app.model.application import API_VERSION, KIND, Application
from app.model.operation import OperationState, RevisionHistory
from workers.sync.context import OperationContext


def _recorded(history: Sequence[RevisionHistory], state: OperationState) -> bool:
    """The newest history entry is this operation's already."""
    if not history:
        return False
    newest, result = history[-1], state.sync_result
    return newest.deploy_started_at == state.started_at and newest.revision == (
        result.revision if result else ""
    )


async def write_status(
    ctx: OperationContext,
    state: OperationState,
    history: Sequence[RevisionHistory] | None = None,
) -> None:
    """Patch `status.operationState` (and `status.history`, if given) onto the Application."""
    status: dict[str, Any] = {"operationState": codec.encode(state)}
    if history is not None:
        status["history"] = [codec.encode(entry) for entry in history]
    try:
        await ctx.rt.control_plane.patch(
            API_VERSION,
            KIND,
            ctx.ref.name,
            {"status": status},
            namespace=ctx.ref.namespace,
            patch_type=PatchType.MERGE,
            time_limit=ctx.services.settings.status_timeout,
        )
    except NotFound:
        ctx.log.info("sync.status_not_written", reason="the Application resource is gone")
    except ClusterError as e:
        ctx.log.warning(
            "sync.status_write_failed",
            error=str(e),
            consequence="the operation state stays in Redis; the API reads it from there",
        )


async def finish(ctx: OperationContext, state: SyncState, app: Application | None) -> None:
    """Everything that follows the end of the operation (see the module docstring)."""
    rt, ref = ctx.rt, ctx.ref
    final = operation_state(state)
    history = await rt.history.load(ref)
    limit = app.spec.history_limit if app is not None else DEFAULT_REVISION_HISTORY_LIMIT
    if limit > 0 and records_history(final) and not _recorded(history, final):
        entry = append_history(history, final, dt.datetime.now(dt.UTC), limit)[-1]
        await rt.history.append(ref, entry, limit)
        history = await rt.history.load(ref)
    await write_status(ctx, final, history)
    succeeded = final.phase.successful
    sync = final.operation.sync
    initiator = final.operation.initiated_by
    data = {
        "operation": ctx.operation_id,
        "phase": final.phase.value,
        "message": final.message,
        "revision": final.sync_result.revision if final.sync_result else "",
        "startedAt": final.started_at,
        "finishedAt": final.finished_at,
        "retryCount": final.retry_count,
        "dryRun": bool(sync and sync.dry_run),
        "selective": bool(sync and sync.resources),
        "initiatedBy": initiator.username,
        "automated": initiator.automated,
    }
    kind = EventType.OPERATION_SUCCEEDED if succeeded else EventType.OPERATION_FAILED
    if app is not None:
        server = rt.clusters.server_of(app.spec.destination)
        dry_run = bool(sync and sync.dry_run)
        count_sync(
            ref.namespace, ref.name, app.spec.project, server, final.phase.value, dry_run=dry_run
        )
    await events.emit(rt.bus, ref, kind, data, component=ctx.stage)
    level = operation_finished_level(initiator.automated)
    reason = f"operation {ctx.operation_id} finished: {final.phase.value}"
    await publish(rt.bus, REFRESH, RefreshRequest(ref, level, reason))
    await rt.operations.mark_finalized(ref, ctx.operation_id)
    ctx.log.info(
        "sync.finalized",
        phase=final.phase.value,
        message=final.message,
        history=len(history),
        refresh=level.name.lower(),
    )
