"""Reporting state: the Argo CD `OperationState` of a sync, as status and the API show it.

syncResult.resources lists every task that has a result, in the order results were first
set (Argo CD's order): group, version, kind, namespace, name, status (Synced, SyncFailed,
Pruned, PruneSkipped), message, hookType (hooks only), hookPhase and syncPhase.

The revision is recorded as Argo CD records it: a single-source app's commit in
`revision` (with `source`), a multi-source app's commits in `revisions`, one per source in
source order (with `sources`), and `revision` left empty, as `status.sync` does.

finishedAt keeps milliseconds (RFC 3339 allows them; Kubernetes clients parse them): the
self-heal backoff is measured from it (SEMANTICS §6), and a time cut to the whole second
would start a heal up to a second early (a 2 s backoff could shrink to 1 s).
"""

from datetime import datetime

from app.engine.sync.state import SyncState
from app.engine.sync.task import SyncTask
from app.model.operation import OperationState, ResourceResult, SyncOperationResult
from app.model.resource import split_api_version
from app.model.timestamps import format_time


def _stamp(moment: datetime | None, timespec: str = "seconds") -> str:
    return format_time(moment, timespec=timespec) if moment else ""


def resource_result(task: SyncTask) -> ResourceResult:
    """One task's entry of `syncResult.resources`."""
    _, version = split_api_version(task.api_version)
    return ResourceResult(
        kind=task.key.kind,
        name=task.key.name,
        group=task.key.group,
        version=version,
        namespace=task.key.namespace,
        status=task.result.value if task.result else "",
        message=task.message,
        hook_type=task.sync_phase.value if task.hook else "",
        hook_phase=task.phase.value if task.phase else "",
        sync_phase=task.sync_phase.value,
    )


def operation_state(state: SyncState) -> OperationState:
    """The OperationState to write to `status.operationState`."""
    reported = sorted((t for t in state.tasks if t.order), key=lambda t: t.order)
    multi = bool(state.sources and state.revisions)
    return OperationState(
        operation=state.operation,
        phase=state.phase,
        message=state.message,
        sync_result=SyncOperationResult(
            resources=[resource_result(t) for t in reported],
            revision="" if multi else state.revision,
            revisions=list(state.revisions) if multi else [],
            source=state.source,
            sources=list(state.sources),
            managed_namespace_metadata=state.managed_namespace_metadata,
        ),
        started_at=_stamp(state.started_at),
        finished_at=_stamp(state.finished_at, "milliseconds"),
        retry_count=state.retry_count,
    )
