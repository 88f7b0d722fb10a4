"""Deployment history and rollback (SEMANTICS §9).

An entry {id, revision(s), source(s), deployedAt, deployStartedAt, initiatedBy} is
appended only for an operation that Succeeded, was not a dry run and synced the whole app
(not a resource list); ids grow by one from the last entry's (the first is 0), and only
the newest `revisionHistoryLimit` entries (default 10) are kept.

A rollback syncs one entry's revision and source with the Apply strategy, so no hooks
run. It is refused while automated sync is on (auto-sync would undo it at once) and while
the app is being deleted.
"""

from collections.abc import Sequence
from datetime import datetime

from app.model.application import Application
from app.model.operation import (
    Operation,
    OperationInitiator,
    OperationState,
    RevisionHistory,
    SyncOperation,
    SyncStrategySpec,
)
from app.model.sync import OperationPhase
from app.model.timestamps import format_time


class RollbackError(ValueError):
    """A rollback that cannot be started, and what to do instead."""


def records_history(state: OperationState) -> bool:
    """Whether this finished operation belongs in the history."""
    sync = state.operation.sync
    return (
        state.phase is OperationPhase.SUCCEEDED
        and sync is not None
        and not sync.dry_run
        and not sync.is_selective
    )


def next_history_id(history: Sequence[RevisionHistory]) -> int:
    """The id of the next entry: the last entry's plus one, 0 for the first."""
    return history[-1].id + 1 if history else 0


def trim_history(history: Sequence[RevisionHistory], limit: int) -> list[RevisionHistory]:
    """The newest `limit` entries (none for a limit of 0)."""
    if limit <= 0:
        return []
    return list(history[-limit:])


def append_history(
    history: Sequence[RevisionHistory],
    state: OperationState,
    deployed_at: datetime,
    limit: int,
) -> list[RevisionHistory]:
    """The history after `state` finished: one entry more if it qualifies, then trimmed."""
    if not records_history(state):
        return list(history)
    result = state.sync_result
    entry = RevisionHistory(
        id=next_history_id(history),
        revision=result.revision if result else "",
        revisions=list(result.revisions) if result else [],
        source=result.source if result else None,
        sources=list(result.sources) if result else [],
        deployed_at=format_time(deployed_at),
        deploy_started_at=state.started_at,
        initiated_by=state.operation.initiated_by,
    )
    return trim_history([*history, entry], limit)


def rollback_operation(
    app: Application,
    history_id: int,
    *,
    username: str = "",
    dry_run: bool = False,
    prune: bool = False,
) -> Operation:
    """The operation that rolls `app` back to history entry `history_id`.

    RollbackError explains a refusal: auto-sync on, app being deleted, unknown id, or an
    entry without a source.
    """
    if app.metadata.deletion_timestamp:
        raise RollbackError(f"application {app.name} is being deleted; it cannot be rolled back")
    if app.spec.automated is not None:
        raise RollbackError(
            "rollback cannot be initiated when auto-sync is enabled: disable "
            f"spec.syncPolicy.automated on {app.name} first, or revert the commit in Git"
        )
    history = app.status.history
    entry = next((h for h in history if h.id == history_id), None)
    if entry is None:
        known = ", ".join(str(h.id) for h in history) or "none"
        raise RollbackError(
            f"application {app.name} does not have deployment with id {history_id} "
            f"(known ids: {known})"
        )
    if entry.source is None and not entry.sources:
        raise RollbackError(
            f"history entry {history_id} of {app.name} records no source; "
            f"sync to revision {entry.revision} instead"
        )
    return Operation(
        sync=SyncOperation(
            revision=entry.revision,
            revisions=list(entry.revisions),
            dry_run=dry_run,
            prune=prune,
            sync_strategy=SyncStrategySpec(apply={}),
            source=entry.source,
            sources=list(entry.sources),
            sync_options=list(app.spec.sync_options),
        ),
        initiated_by=OperationInitiator(username=username),
    )
