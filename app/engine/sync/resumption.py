"""Resuming an operation whose progress Redis lost, from what survived it.

Redis is a cache; the Application's `status.operationState` and the cluster are not. When
the stored operation is gone while the Application still says it runs, the operation is
restored from that OperationState and planned again: the same operation and start time,
so every `generateName` hook gets the name it had. `resume` then carries over, task by
task, what the lost progress had done, so nothing that ran runs again:

- a hook the Application's last written `syncResult` records as completed (its hook
  phase Succeeded, Failed or Error) keeps that result;
- a hook whose object exists and was created at or after the operation started is this
  operation's: it is Running, its health decides how it ends, and it is never created a
  second time (BeforeHookCreation would otherwise delete and re-run it);
- every other task runs again: applying a target and pruning are idempotent.

The dry run runs again (it validates only the tasks still pending). The results carried
over keep their order of the written syncResult.
"""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from app.engine.sync.state import SyncState
from app.engine.sync.task import SyncTask
from app.model.operation import ResourceResult
from app.model.resource import KubeObject, ResourceKey, metadata
from app.model.sync import OperationPhase, ResultCode
from app.model.timestamps import parse_time

RESUMED = "created by this operation before its progress was lost; followed again"
_COMPLETED = {
    OperationPhase.SUCCEEDED.value: OperationPhase.SUCCEEDED,
    OperationPhase.FAILED.value: OperationPhase.FAILED,
    OperationPhase.ERROR.value: OperationPhase.ERROR,
}


def _recorded_key(result: ResourceResult) -> tuple[ResourceKey, str]:
    return ResourceKey(result.group, result.kind, result.namespace, result.name), result.sync_phase


def _created_since(live: KubeObject | None, started_at: datetime) -> bool:
    created = str(metadata(live).get("creationTimestamp") or "") if live is not None else ""
    if not created:
        return False
    try:
        return parse_time(created) >= started_at.replace(microsecond=0)
    except ValueError:
        return False


def _carried(
    task: SyncTask,
    recorded: Mapping[tuple[ResourceKey, str], tuple[int, ResourceResult]],
    live: Mapping[ResourceKey, KubeObject],
    started_at: datetime,
) -> SyncTask:
    if not task.hook or not task.pending:
        return task
    found = recorded.get((task.key, task.sync_phase.value))
    if found is not None and found[1].hook_phase in _COMPLETED:
        position, result = found
        known = {c.value: c for c in ResultCode}
        code = known.get(result.status, ResultCode.SYNCED)
        return task.updated(code, _COMPLETED[result.hook_phase], result.message, order=position + 1)
    if _created_since(live.get(task.key), started_at):
        position = found[0] if found is not None else len(recorded)
        return task.updated(ResultCode.SYNCED, OperationPhase.RUNNING, RESUMED, order=position + 1)
    return task


def resume(
    state: SyncState,
    recorded: Sequence[ResourceResult],
    live: Mapping[ResourceKey, KubeObject],
) -> SyncState:
    """`state` (just planned again) with the hooks the lost progress had run or started
    carried over (see the module docstring); `live`: the hooks' objects as they are now."""
    by_key = {_recorded_key(r): (i, r) for i, r in enumerate(recorded)}
    tasks = tuple(_carried(t, by_key, live, state.started_at) for t in state.tasks)
    return replace(state, tasks=tasks)
