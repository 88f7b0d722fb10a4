"""The persisted state of one sync operation, between steps.

`SyncState` is everything the next step needs: the operation, the planned tasks with
their progress, the phase and message, the retry count, and the actions of the current
step while they are in flight. The worker persists it before executing a step's actions
(so a crash re-runs them) and after recording their results.

`to_dict`/`from_dict` give plain JSON, tagged with `SCHEMA`. Readers ignore keys they do
not know and default the ones that are missing, so a newer Sluice can add fields without
breaking a state an older one wrote mid-operation.
"""

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.engine.sync.actions import Continue, Done, Next, Replan, Wait
from app.engine.sync.options import PruneMode
from app.engine.sync.task import ApplyMode, SyncTask
from app.model import codec
from app.model.app_spec import ApplicationSource, ManagedNamespaceMetadata
from app.model.operation import Operation, SyncOperation
from app.model.resource import ResourceKey
from app.model.sync import HookDeletePolicy, OperationPhase, Propagation, ResultCode, SyncPhase
from app.model.timestamps import format_time, parse_time

SCHEMA = 1


class StateError(ValueError):
    """A stored state or a reported result that cannot be used, and why."""


class Verb(enum.Enum):
    DRY_RUN = "dry-run"
    APPLY = "apply"
    CREATE_NAMESPACE = "create-namespace"
    PRUNE = "prune"
    DELETE_HOOK = "delete-hook"
    REMOVE_HOOK_FINALIZER = "remove-hook-finalizer"


class StepKind(enum.Enum):
    """What the in-flight step was doing; decides how its results are recorded."""

    NAMESPACE = "namespace"
    DRY_RUN = "dry-run"
    WAVE = "wave"
    SYNC_FAIL = "sync-fail"
    FINISH = "finish"
    TERMINATE = "terminate"


@dataclass(frozen=True, slots=True)
class InFlight:
    """One action of the current step: enough to rebuild it and to record its result."""

    id: str
    verb: Verb
    task_id: int
    batch: int


@dataclass(frozen=True)
class SyncState:
    """One operation between steps. Immutable: every verb returns a new state."""

    app: str
    operation: Operation
    revision: str
    started_at: datetime
    tasks: tuple[SyncTask, ...]
    propagation: Propagation = Propagation.FOREGROUND
    revisions: tuple[str, ...] = ()
    """Every source's commit, in source order (multi-source apps); `revision` is the first."""
    source: ApplicationSource | None = None
    sources: tuple[ApplicationSource, ...] = ()
    managed_namespace_metadata: ManagedNamespaceMetadata | None = None
    phase: OperationPhase = OperationPhase.RUNNING
    message: str = ""
    dry_run_done: bool = False
    retry_count: int = 0
    finished_at: datetime | None = None
    retry_at: datetime | None = None
    step: int = 0
    in_flight: tuple[InFlight, ...] = ()
    step_kind: StepKind | None = None
    failed_to_apply: bool = False
    """A wave failed to apply and left nothing running: the failure says "failed to apply"."""
    all_tasks_run: bool = False
    """The last wave ran with no hooks and nothing after it: succeed without waiting."""
    termination_errors: bool = False
    warnings: tuple[str, ...] = ()
    next: Next = field(default_factory=Continue)

    @property
    def sync(self) -> SyncOperation:
        return self.operation.sync or SyncOperation()

    @property
    def completed(self) -> bool:
        return self.phase.completed

    @property
    def retrying(self) -> bool:
        """Waiting out the backoff before a retry (its message says "Retrying attempt #N")."""
        return self.retry_at is not None

    def task(self, task_id: int) -> SyncTask:
        return self.tasks[task_id]

    def observe_keys(self) -> list[tuple[ResourceKey, str]]:
        """(key, apiVersion) of every object the next step may look at."""
        return list(dict.fromkeys((t.key, t.api_version) for t in self.tasks))

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "app": self.app,
            "operation": codec.encode(self.operation),
            "revision": self.revision,
            "revisions": list(self.revisions),
            "startedAt": _time(self.started_at),
            "tasks": [_task_dict(t) for t in self.tasks],
            "propagation": self.propagation.value,
            "source": codec.encode(self.source) if self.source else None,
            "sources": [codec.encode(s) for s in self.sources],
            "managedNamespaceMetadata": codec.encode(self.managed_namespace_metadata)
            if self.managed_namespace_metadata
            else None,
            "phase": self.phase.value,
            "message": self.message,
            "dryRunDone": self.dry_run_done,
            "retryCount": self.retry_count,
            "finishedAt": _time(self.finished_at),
            "retryAt": _time(self.retry_at),
            "step": self.step,
            "inFlight": [[a.id, a.verb.value, a.task_id, a.batch] for a in self.in_flight],
            "stepKind": self.step_kind.value if self.step_kind else None,
            "failedToApply": self.failed_to_apply,
            "allTasksRun": self.all_tasks_run,
            "terminationErrors": self.termination_errors,
            "warnings": list(self.warnings),
            "next": _next_dict(self.next),
        }

    @classmethod
    def from_dict(cls, data: Any) -> "SyncState":
        """Rebuild a state; StateError says what is wrong with a damaged one."""
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise StateError(f"not a sync state of schema {SCHEMA}; start a new operation")
        try:
            return cls(
                app=data["app"],
                operation=codec.decode(Operation, data["operation"]),
                revision=data["revision"],
                revisions=tuple(str(r) for r in data.get("revisions", ())),
                started_at=_parse_time(data["startedAt"]),
                tasks=tuple(_task_from(t) for t in data["tasks"]),
                propagation=Propagation(data.get("propagation", "foreground")),
                source=codec.decode(ApplicationSource, data["source"], "source")
                if data.get("source")
                else None,
                sources=tuple(
                    codec.decode(ApplicationSource, s, "sources") for s in data.get("sources", [])
                ),
                managed_namespace_metadata=codec.decode(
                    ManagedNamespaceMetadata, data["managedNamespaceMetadata"], "metadata"
                )
                if data.get("managedNamespaceMetadata")
                else None,
                phase=OperationPhase(data.get("phase", "Running")),
                message=data.get("message", ""),
                dry_run_done=bool(data.get("dryRunDone")),
                retry_count=int(data.get("retryCount", 0)),
                finished_at=_parse_time(data.get("finishedAt")),
                retry_at=_parse_time(data.get("retryAt")),
                step=int(data.get("step", 0)),
                in_flight=tuple(
                    InFlight(str(i), Verb(v), int(t), int(b))
                    for i, v, t, b in data.get("inFlight", [])
                ),
                step_kind=StepKind(data["stepKind"]) if data.get("stepKind") else None,
                failed_to_apply=bool(data.get("failedToApply")),
                all_tasks_run=bool(data.get("allTasksRun")),
                termination_errors=bool(data.get("terminationErrors")),
                warnings=tuple(data.get("warnings", [])),
                next=_next_from(data.get("next") or {"kind": "continue"}),
            )
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise StateError(f"damaged sync state for {data.get('app', '?')}: {e!r}") from e


def _time(value: datetime | None) -> str | None:
    return format_time(value, timespec="auto") if value else None


def _parse_time(value: Any) -> Any:
    if value is None:
        return None
    return parse_time(str(value))


def _task_dict(t: SyncTask) -> dict[str, Any]:
    return {
        "id": t.id,
        "key": [t.key.group, t.key.kind, t.key.namespace, t.key.name],
        "apiVersion": t.api_version,
        "syncPhase": t.sync_phase.value,
        "wave": t.wave,
        "target": t.target,
        "hook": t.hook,
        "deletePolicies": [p.value for p in t.delete_policies],
        "mode": t.mode.value,
        "force": t.force,
        "validate": t.validate,
        "skipDryRun": t.skip_dry_run,
        "pruneMode": t.prune_mode.value,
        "createsNamespace": t.creates_namespace,
        "liveUid": t.live_uid,
        "skipReason": t.skip_reason,
        "invalid": t.invalid,
        "result": t.result.value if t.result else None,
        "phase": t.phase.value if t.phase else None,
        "message": t.message,
        "order": t.order,
    }


def _task_from(d: dict[str, Any]) -> SyncTask:
    return SyncTask(
        id=int(d["id"]),
        key=ResourceKey(*(str(p) for p in d["key"])),
        api_version=d["apiVersion"],
        sync_phase=SyncPhase(d["syncPhase"]),
        wave=int(d["wave"]),
        target=d.get("target"),
        hook=bool(d.get("hook")),
        delete_policies=tuple(HookDeletePolicy(p) for p in d.get("deletePolicies", [])),
        mode=ApplyMode(d.get("mode", "apply")),
        force=bool(d.get("force")),
        validate=bool(d.get("validate", True)),
        skip_dry_run=bool(d.get("skipDryRun")),
        prune_mode=PruneMode(d.get("pruneMode", "true")),
        creates_namespace=bool(d.get("createsNamespace")),
        live_uid=d.get("liveUid", ""),
        skip_reason=d.get("skipReason", ""),
        invalid=d.get("invalid", ""),
        result=ResultCode(d["result"]) if d.get("result") else None,
        phase=OperationPhase(d["phase"]) if d.get("phase") else None,
        message=d.get("message", ""),
        order=int(d.get("order", 0)),
    )


def _next_dict(n: Next) -> dict[str, Any]:
    if isinstance(n, Wait):
        return {
            "kind": "wait",
            "until": _time(n.until),
            "reason": n.reason,
            "seconds": n.seconds,
            "wakeable": n.wakeable,
            "afterActions": n.after_actions,
        }
    if isinstance(n, Done):
        return {"kind": "done", "phase": n.phase.value, "message": n.message}
    if isinstance(n, Replan):
        return {"kind": "replan", "refreshRevision": n.refresh_revision, "reason": n.reason}
    return {"kind": "continue", "reason": n.reason}


def _next_from(d: dict[str, Any]) -> Next:
    kind = d.get("kind")
    if kind == "wait":
        return Wait(
            _parse_time(d["until"]),
            d.get("reason", ""),
            float(d.get("seconds", 0)),
            bool(d.get("wakeable", True)),
            bool(d.get("afterActions", False)),
        )
    if kind == "done":
        return Done(OperationPhase(d["phase"]), d.get("message", ""))
    if kind == "replan":
        return Replan(bool(d.get("refreshRevision")), d.get("reason", ""))
    return Continue(d.get("reason", ""))
