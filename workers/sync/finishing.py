"""Once an operation is done: history, the Application's status, an event, a refresh.

In this order, each step safe to repeat (a crash between them repeats the lot):
1. history: an entry for a Succeeded, non-dry-run, whole-app sync (`records_history`),
   unless the newest entry is already this operation's (same start time and revision);
2. the Application resource: `status.operationState` and `status.history`, the two
   fields the sync stage owns (compare owns the rest), each replaced whole; a write that
   fails is tried again (the message is redelivered after `status_retry`) until it lands,
   and nothing after it happens before;
3. the event `operation-succeeded` or `operation-failed`, with the operation's message;
4. a refresh: `latest` after an automated operation, `force` after a manual one
   (`app.engine.levels.operation_finished_level`), so status catches up at once;
5. the operation is marked finalized: a redelivered message does not repeat any of this.

A status write of a running operation that fails changes nothing but the log: Redis
holds the same state, the API reads it from there, and the next write replaces it whole.
"""

import datetime as dt
from collections.abc import Sequence
from typing import Any

from app.bus import events
from app.bus.errors import Retry
from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.bus.subjects import EventType
from app.cluster import ClusterError, Invalid, NotFound, PatchType
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
    """The newest history entry is this operation's already: same start (whole seconds)
    and same revisions, every source's (two syncs of a multi-source app in one second
    share the first source's revision)."""
    if not history:
        return False
    newest, result = history[-1], state.sync_result
    revision = result.revision if result else ""
    revisions = list(result.revisions) if result else []
    return (
        newest.deploy_started_at == state.started_at
        and newest.revision == revision
        and list(newest.revisions) == revisions
    )


def _replacing_patch(status: dict[str, Any]) -> list[dict[str, Any]]:
    """A JSON patch putting each of `status`'s fields in place whole (`add` replaces)."""
    return [
        {"op": "add", "path": f"/status/{name}", "value": value} for name, value in status.items()
    ]


async def write_status(
    ctx: OperationContext,
    state: OperationState,
    history: Sequence[RevisionHistory] | None = None,
) -> bool:
    """Put `status.operationState` (and `status.history`, if given) onto the Application,
    each whole: nothing of an earlier operation's state survives (a merge patch would keep
    every field the new state leaves empty). True once written, or the resource is gone.

    A JSON patch replaces the fields; an Application with no `status` yet refuses it (the
    path's parent is missing) and gets the fields as a merge patch, which on a resource
    without status leaves nothing behind either."""
    status: dict[str, Any] = {"operationState": codec.encode(state)}
    if history is not None:
        status["history"] = [codec.encode(entry) for entry in history]
    cluster, ref = ctx.rt.control_plane, ctx.ref
    limit = ctx.services.settings.status_timeout
    try:
        try:
            await cluster.patch(
                API_VERSION,
                KIND,
                ref.name,
                _replacing_patch(status),
                namespace=ref.namespace,
                patch_type=PatchType.JSON,
                time_limit=limit,
            )
        except Invalid:
            await cluster.patch(
                API_VERSION,
                KIND,
                ref.name,
                {"status": status},
                namespace=ref.namespace,
                patch_type=PatchType.MERGE,
                time_limit=limit,
            )
    except NotFound:
        ctx.log.info("sync.status_not_written", reason="the Application resource is gone")
    except ClusterError as e:
        ctx.log.warning(
            "sync.status_write_failed",
            error=str(e),
            phase=state.phase.value,
            consequence="the API reads the operation state from Redis meanwhile",
        )
        return False
    return True


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
    if not await write_status(ctx, final, history):
        delay = ctx.services.settings.status_retry
        raise Retry(
            f"{ref}: the final operationState of {ctx.operation_id} did not reach the "
            f"Application; writing it again in {delay:g}s",
            delay,
        )
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
