"""Task progress between steps: results with their order, health of running tasks, and the
"waiting for ..." messages Argo CD shows while an operation runs."""

from collections.abc import Iterable, Sequence

from app.engine.health import hook_status_from_health
from app.engine.sync.hooks import resource_phase
from app.engine.sync.messages import shown
from app.engine.sync.observation import Observation
from app.engine.sync.task import SyncTask
from app.model.sync import OperationPhase, ResultCode


class Ledger:
    """A working copy of the task list in which results are set in reporting order."""

    def __init__(self, tasks: Iterable[SyncTask]) -> None:
        self.tasks = list(tasks)
        self._next_order = max((t.order for t in self.tasks), default=0) + 1

    def __getitem__(self, task_id: int) -> SyncTask:
        return self.tasks[task_id]

    def set(
        self,
        task_id: int,
        result: ResultCode | None,
        phase: OperationPhase | None,
        message: str = "",
    ) -> None:
        """Record a result; the first result of a task fixes its place in syncResult.

        The message is masked and bounded (`messages.shown`); empty keeps the previous one.
        """
        task = self.tasks[task_id]
        message = shown(message)
        order = task.order or self._next_order
        if not task.order:
            self._next_order += 1
        self.tasks[task_id] = task.updated(result, phase, message, order=order)

    def freeze(self) -> tuple[SyncTask, ...]:
        return tuple(self.tasks)


def assess_running(ledger: Ledger, observation: Observation) -> None:
    """Move running tasks on from their live objects' health (SEMANTICS §1 step 3, §2)."""
    for task in list(ledger.tasks):
        observed = observation.of(task.key)
        if not task.running or observed.live is None:
            continue
        if task.hook:
            status = hook_status_from_health(task.key.name, observed.health)
            ledger.set(task.id, task.result, status.phase, status.message)
            continue
        new_phase, message = resource_phase(observed.health)
        if new_phase is not None:
            ledger.set(task.id, task.result, new_phase, message)


def multi_step(tasks: Sequence[SyncTask]) -> bool:
    """The task list spans more than one (phase, wave)."""
    if not tasks:
        return False
    first, last = tasks[0], tasks[-1]
    return (first.sync_phase, first.wave) != (last.sync_phase, last.wave)


def running_message(tasks: Sequence[SyncTask], *, pending_deletion: bool = False) -> str:
    """`waiting for completion of hook batch/Job/x and 2 more hooks`, Argo CD's wording."""
    if not tasks:
        return ""
    hooks = [t for t in tasks if t.hook]
    resources = [t for t in tasks if not t.hook]
    reason = "completion of hook" if hooks else "healthy state of"
    kind = "resources" if resources else "hooks"
    if pending_deletion:
        reason = "deletion of hook" if hooks else "deletion of"
    first = hooks[0] if hooks else resources[0]
    message = f"waiting for {reason} {first.label}"
    if len(tasks) > 1:
        message += f" and {len(tasks) - 1} more {kind}"
    return message


def with_reason(message: str, tasks: Sequence[SyncTask]) -> str:
    """`<message>, reason: <distinct task messages>` (the messages in task order)."""
    reasons = list(dict.fromkeys(t.message for t in tasks if t.message))
    return f"{message}, reason: {','.join(reasons)}" if reasons else message
