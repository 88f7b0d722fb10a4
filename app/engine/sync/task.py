"""One sync task: what to do to one object in one phase, and how far it has got.

A task is planned once per operation (`tasks.plan_sync`) and then carries its progress
through the steps, exactly as Argo CD's sync task does: a result code (Synced,
SyncFailed, Pruned, PruneSkipped) and an operation phase (None while pending, then
Running, Succeeded, Failed or Error), plus the latest non-empty message.
"""

import enum
from dataclasses import dataclass, replace

from app.engine.sync.options import PruneMode
from app.model.resource import KubeObject, ResourceKey
from app.model.sync import HookDeletePolicy, OperationPhase, ResultCode, SyncPhase


class ApplyMode(enum.Enum):
    """How a target is sent: client-side apply, replace (PUT, create when absent), or SSA."""

    APPLY = "apply"
    REPLACE = "replace"
    SERVER_SIDE = "server-side"


class TaskProgress(enum.Enum):
    """A task's progress, derived from its result and phase, for people and logs."""

    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    PRUNED = "pruned"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class SyncTask:
    """A planned task with its progress. Immutable: steps return updated copies."""

    id: int
    """Position in execution order; stable for the whole operation."""
    key: ResourceKey
    api_version: str
    sync_phase: SyncPhase
    wave: int
    target: KubeObject | None = None
    """The final object to send (namespace, hook name and finalizer set); None to prune."""
    hook: bool = False
    delete_policies: tuple[HookDeletePolicy, ...] = ()
    mode: ApplyMode = ApplyMode.APPLY
    force: bool = False
    validate: bool = True
    migrate: bool = True
    """ClientSideApplyMigration: take over Argo CD's fields before writing."""
    skip_dry_run: bool = False
    prune_mode: PruneMode = PruneMode.ENABLED
    creates_namespace: bool = False
    """The CreateNamespace task: applied for real before the dry-run."""
    live_uid: str = ""
    """uid of the live object when planned (a prune precondition)."""
    skip_reason: str = ""
    """Why the task never runs (ApplyOutOfSyncOnly); such a task gets no result."""
    invalid: str = ""
    """Why the task cannot run at all (unknown API, forbidden by the project)."""
    result: ResultCode | None = None
    phase: OperationPhase | None = None
    message: str = ""
    order: int = 0
    """1 + the position of this task's entry in syncResult.resources; 0 while it has none."""

    @property
    def is_prune(self) -> bool:
        return self.target is None

    @property
    def skipped(self) -> bool:
        return bool(self.skip_reason)

    @property
    def pending(self) -> bool:
        return self.phase is None and not self.skipped

    @property
    def awaits_dry_run(self) -> bool:
        """Pending and validated by the operation's dry run (not a prune, not skipped)."""
        return self.pending and not self.is_prune and not self.skip_dry_run

    @property
    def running(self) -> bool:
        return self.phase is OperationPhase.RUNNING

    @property
    def completed(self) -> bool:
        return self.phase is not None and self.phase.completed

    @property
    def successful(self) -> bool:
        return self.phase is OperationPhase.SUCCEEDED

    @property
    def progress(self) -> TaskProgress:
        if self.skipped:
            return TaskProgress.SKIPPED
        if self.result is ResultCode.PRUNED:
            return TaskProgress.PRUNED
        if self.result is ResultCode.PRUNE_SKIPPED:
            return TaskProgress.SKIPPED
        if self.phase is None:
            return TaskProgress.PENDING
        if self.phase is OperationPhase.RUNNING:
            return TaskProgress.RUNNING
        if self.phase is OperationPhase.SUCCEEDED:
            return TaskProgress.SUCCEEDED
        return TaskProgress.FAILED

    def has_policy(self, policy: HookDeletePolicy) -> bool:
        """Delete policies mean something only for hooks."""
        return self.hook and policy in self.delete_policies

    @property
    def label(self) -> str:
        """`group/Kind/name`, as Argo CD names a task in operation messages."""
        return f"{self.key.group}/{self.key.kind}/{self.key.name}"

    def updated(
        self,
        result: ResultCode | None,
        phase: OperationPhase | None,
        message: str = "",
        *,
        order: int = 0,
    ) -> "SyncTask":
        """A copy with a new result and phase; an empty message keeps the previous one."""
        return replace(
            self,
            result=result,
            phase=phase,
            message=message or self.message,
            order=self.order or order,
        )
