"""Starting and terminating operations: what auto-sync, the API and the watcher call.

`start_operation` stores a new operation (refused while another one runs: one operation
per app at a time, decided atomically in Redis), publishes its first SyncStep and the
`operation-started` event, and returns the operation's id. The sync worker plans it on
that first step, so starting is cheap for the caller (the compare stage calls it while
holding its lease).

`request_termination` flags the running operation; the sync worker sees the flag on the
operation's next step and terminates it there (`app.engine.sync.terminate`: running
hooks deleted, then Failed "Operation terminated"). The flag is followed by a SyncStep
for the current step, so an operation waiting on a timer stops at once.
"""

import datetime as dt
import secrets

from app import log
from app.bus import events
from app.bus.errors import BusError
from app.bus.messages import SYNC, SyncStep
from app.bus.publish import publish
from app.bus.subjects import EventType
from app.model.application import Application
from app.model.identity import AppRef
from app.model.operation import Operation, OperationState, SyncOperation
from app.model.sync import OperationPhase
from app.model.timestamps import format_time
from app.runtime.runtime import Runtime

logger = log.get("operations")

MAX_REASON = 512
"""Characters of a start reason kept in messages and events."""


def new_operation_id(now: dt.datetime) -> str:
    """A unique id that sorts by start time: `20261129T120000-1a2b3c4d`."""
    return f"{now.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(4)}"


async def start_operation(
    rt: Runtime, app: Application, operation: Operation, *, reason: str
) -> str | None:
    """Start `operation` on `app`: its id, or None when another operation is running.

    BusError if the first step cannot be published; the stored operation is then ended
    in Error with that reason, so it does not block the app.
    """
    ref = AppRef(app.namespace, app.name)
    now = dt.datetime.now(dt.UTC)
    operation_id = new_operation_id(now)
    reason = reason[:MAX_REASON]
    sync = operation.sync or SyncOperation()
    log_ = logger.bind(
        app=str(ref), stage="operations", operation=operation_id, revision=sync.revision
    )
    state = OperationState(
        operation=operation,
        phase=OperationPhase.RUNNING,
        message=reason,
        started_at=format_time(now),
    )
    begun = await rt.operations.begin(ref, operation_id, state)
    if begun is None:
        log_.info("operation.refused", reason="another operation is running")
        return None
    try:
        await publish(rt.bus, SYNC, SyncStep(ref, operation_id, begun.step, reason))
    except BusError as e:
        failed = OperationState(
            operation=operation,
            phase=OperationPhase.ERROR,
            message=f"the operation could not be queued: {e}",
            started_at=state.started_at,
            finished_at=format_time(dt.datetime.now(dt.UTC)),
        )
        await rt.operations.advance(ref, operation_id, begun.step, failed)
        log_.error("operation.not_queued", error=str(e))
        raise
    initiator = operation.initiated_by
    data = {
        "operation": operation_id,
        "revision": sync.revision,
        "reason": reason,
        "initiatedBy": initiator.username,
        "automated": initiator.automated,
        "dryRun": sync.dry_run,
        "prune": sync.prune,
        "selective": bool(sync.resources),
    }
    await events.emit(rt.bus, ref, EventType.OPERATION_STARTED, data, component="sync")
    log_.info("operation.started", step=begun.step, reason=reason, automated=initiator.automated)
    return operation_id


async def request_termination(rt: Runtime, app: Application | AppRef) -> bool:
    """Ask the running operation of `app` to terminate; False if none is running."""
    ref = AppRef(app.namespace, app.name)
    flagged = await rt.operations.request_termination(ref)
    log_ = logger.bind(app=str(ref), stage="operations")
    if flagged is None:
        log_.info("operation.termination_refused", reason="no operation is running")
        return False
    await publish(rt.bus, SYNC, SyncStep(ref, flagged.id, flagged.step, "termination requested"))
    log_.info("operation.termination_requested", operation=flagged.id, step=flagged.step)
    return True
