"""Application status: sync, health, resources, conditions, operation state, history."""

from dataclasses import dataclass, field
from typing import Any

from app.model.app_spec import ApplicationDestination, ApplicationSource, ResourceIgnoreDifferences
from app.model.health import HealthStatusCode
from app.model.operation import OperationState, RevisionHistory
from app.model.sync import SyncStatusCode

# Condition types Argo CD users know (status.conditions[].type).
CONDITION_COMPARISON_ERROR = "ComparisonError"
CONDITION_SYNC_ERROR = "SyncError"
CONDITION_INVALID_SPEC = "InvalidSpecError"
CONDITION_SHARED_RESOURCE_WARNING = "SharedResourceWarning"
CONDITION_ORPHANED_RESOURCE_WARNING = "OrphanedResourceWarning"
CONDITION_REPEATED_RESOURCE_WARNING = "RepeatedResourceWarning"
CONDITION_EXCLUDED_RESOURCE_WARNING = "ExcludedResourceWarning"
CONDITION_UNKNOWN_ERROR = "UnknownError"


@dataclass
class ApplicationCondition:
    type: str
    message: str = ""
    last_transition_time: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ComparedTo:
    destination: ApplicationDestination | None = None
    source: ApplicationSource | None = None
    sources: list[ApplicationSource] = field(default_factory=list)
    ignore_differences: list[ResourceIgnoreDifferences] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SyncStatus:
    status: SyncStatusCode = SyncStatusCode.UNKNOWN
    compared_to: ComparedTo | None = None
    revision: str = ""
    revisions: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class AppHealthStatus:
    status: HealthStatusCode = HealthStatusCode.UNKNOWN
    message: str = ""
    last_transition_time: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ResourceHealth:
    status: HealthStatusCode
    message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ResourceStatus:
    """One entry of `status.resources`."""

    kind: str
    name: str
    group: str = ""
    version: str = ""
    namespace: str = ""
    status: SyncStatusCode = SyncStatusCode.UNKNOWN
    health: ResourceHealth | None = None
    hook: bool = False
    requires_pruning: bool = False
    sync_wave: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ApplicationStatus:
    resources: list[ResourceStatus] = field(default_factory=list)
    sync: SyncStatus = field(default_factory=SyncStatus)
    health: AppHealthStatus = field(default_factory=AppHealthStatus)
    history: list[RevisionHistory] = field(default_factory=list)
    conditions: list[ApplicationCondition] = field(default_factory=list)
    reconciled_at: str = ""
    observed_at: str = ""
    operation_state: OperationState | None = None
    source_type: str = ""
    source_types: list[str] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    controller_namespace: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
