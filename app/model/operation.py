"""Operations: what a sync was asked to do (`Operation`) and how it went (`OperationState`)."""

from dataclasses import dataclass, field
from typing import Any

from app.model.app_spec import ApplicationSource, ManagedNamespaceMetadata, RetryStrategy
from app.model.sync import OperationPhase, SyncStrategy


@dataclass
class SyncOperationResource:
    """One resource of a selective sync."""

    kind: str
    name: str
    group: str = ""
    namespace: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SyncStrategySpec:
    """`syncStrategy`: `{hook: {force}}` (default) or `{apply: {force}}`."""

    apply: dict[str, Any] | None = field(default=None, metadata={"keep_empty": True})
    hook: dict[str, Any] | None = field(default=None, metadata={"keep_empty": True})
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def strategy(self) -> SyncStrategy:
        return SyncStrategy.APPLY if self.apply is not None else SyncStrategy.HOOK

    @property
    def force(self) -> bool:
        chosen = self.apply if self.apply is not None else self.hook
        return bool((chosen or {}).get("force"))


@dataclass
class SyncOperation:
    revision: str = ""
    revisions: list[str] = field(default_factory=list)
    prune: bool = False
    dry_run: bool = False
    sync_strategy: SyncStrategySpec | None = None
    resources: list[SyncOperationResource] = field(default_factory=list)
    source: ApplicationSource | None = None
    sources: list[ApplicationSource] = field(default_factory=list)
    manifests: list[str] = field(default_factory=list)
    sync_options: list[str] = field(default_factory=list)
    auto_heal_attempts_count: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def strategy(self) -> SyncStrategy:
        return self.sync_strategy.strategy if self.sync_strategy else SyncStrategy.HOOK

    @property
    def is_selective(self) -> bool:
        return bool(self.resources)


@dataclass
class OperationInitiator:
    username: str = ""
    automated: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Operation:
    sync: SyncOperation | None = None
    initiated_by: OperationInitiator = field(default_factory=OperationInitiator)
    info: list[Any] = field(default_factory=list)
    retry: RetryStrategy | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ResourceResult:
    """One resource's outcome in `syncResult.resources`."""

    kind: str
    name: str
    group: str = ""
    version: str = ""
    namespace: str = ""
    status: str = ""
    message: str = ""
    hook_type: str = ""
    hook_phase: str = ""
    sync_phase: str = ""
    images: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SyncOperationResult:
    resources: list[ResourceResult] = field(default_factory=list)
    revision: str = ""
    revisions: list[str] = field(default_factory=list)
    source: ApplicationSource | None = None
    sources: list[ApplicationSource] = field(default_factory=list)
    managed_namespace_metadata: ManagedNamespaceMetadata | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class OperationState:
    operation: Operation
    phase: OperationPhase
    message: str = ""
    sync_result: SyncOperationResult | None = None
    started_at: str = ""
    finished_at: str = ""
    retry_count: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class RevisionHistory:
    """One entry of `status.history`: a successful, non-selective, non-dry-run sync."""

    id: int = field(metadata={"keep_empty": True})
    revision: str = ""
    revisions: list[str] = field(default_factory=list)
    source: ApplicationSource | None = None
    sources: list[ApplicationSource] = field(default_factory=list)
    deployed_at: str = ""
    deploy_started_at: str = ""
    initiated_by: OperationInitiator | None = None
    extra: dict[str, Any] = field(default_factory=dict)
