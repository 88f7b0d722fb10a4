"""The shapes of the API's requests and responses (the OpenAPI document is built from them).

Query parameters, request bodies and responses of every route are declared here as
dataclasses; Application and AppProject bodies are the Argo CD model itself
(`app.model`), validated by the model. Field metadata carries the limits the decoder
enforces and the document shows (`schema.py`).
"""

from dataclasses import dataclass, field
from typing import Any, Literal

from app.model.application import Application
from app.model.health import HealthStatusCode
from app.model.operation import RevisionHistory
from app.model.project import AppProject
from app.model.sync import SyncStatusCode

NAME_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
"""A Kubernetes object name (DNS subdomain)."""
NAME_MAX = 253
MAX_RESOURCES = 1000
MAX_OPTIONS = 50
MAX_TEXT = 1024


def _name(doc: str) -> Any:
    return field(default="", metadata={"doc": doc, "max_length": NAME_MAX})


# ---- query parameters -------------------------------------------------------------


@dataclass
class AppQuery:
    """Which namespace the app lives in (default: the control-plane namespace)."""

    app_namespace: str = _name("namespace of the Application; default the control plane's")


@dataclass
class ListQuery:
    """Filters of the application list; every filter given must hold."""

    project: list[str] = field(
        default_factory=list, metadata={"doc": "only apps of these projects", "max_items": 50}
    )
    selector: str = field(
        default="",
        metadata={
            "doc": "label selector, e.g. `team=a,tier in (web,api),!legacy`",
            "max_length": MAX_TEXT,
        },
    )
    sync: SyncStatusCode | None = field(default=None, metadata={"doc": "only this sync status"})
    health: HealthStatusCode | None = field(default=None, metadata={"doc": "only this health"})
    app_namespace: str = _name("only apps in this namespace")
    fields: str = field(
        default="",
        metadata={
            "doc": "only these comma-separated paths of the answer, e.g. "
            "`items.metadata.name,items.status.sync.status`; a leading `-` leaves them out "
            "instead (Argo CD's `fields`)",
            "max_length": MAX_TEXT,
        },
    )


@dataclass
class CreateQuery:
    upsert: bool = field(
        default=False, metadata={"doc": "update the spec when the app exists instead of 409"}
    )


@dataclass
class DeleteQuery:
    app_namespace: str = _name("namespace of the Application; default the control plane's")
    cascade: bool = field(
        default=True,
        metadata={"doc": "delete the app's resources too (Argo CD's resources finalizer)"},
    )


@dataclass
class RefreshQuery:
    app_namespace: str = _name("namespace of the Application; default the control plane's")
    hard: bool = field(
        default=False, metadata={"doc": "bypass the manifest caches (a `force` refresh)"}
    )


@dataclass
class EventsQuery:
    app_namespace: str = _name("namespace of the Application; default the control plane's")
    limit: int = field(
        default=100, metadata={"doc": "newest events returned", "minimum": 1, "maximum": 1000}
    )


@dataclass
class StreamQuery:
    """Which events to stream; `Last-Event-ID` (a stream sequence) resumes after it."""

    app: str = _name("only this Application's events")
    app_namespace: str = _name("namespace of `app`; default the control plane's")
    after: int | None = field(
        default=None,
        metadata={
            "doc": "replay events after this stream sequence (0: all kept); default: new only",
            "minimum": 0,
        },
    )


# ---- request bodies -----------------------------------------------------------------


@dataclass
class Empty:
    """No parameters: send `{}` (a JSON body, so that no form can make the request)."""


@dataclass
class SyncResource:
    """One resource of a selective sync (`--resource GROUP:KIND:[NAMESPACE/]NAME`)."""

    kind: str = field(metadata={"max_length": NAME_MAX})
    name: str = field(metadata={"max_length": NAME_MAX})
    group: str = field(default="", metadata={"max_length": NAME_MAX})
    namespace: str = field(default="", metadata={"max_length": NAME_MAX})


@dataclass
class RetryBackoff:
    duration: str = field(default="5s", metadata={"doc": "first wait, e.g. 5s", "max_length": 32})
    factor: int = field(default=2, metadata={"minimum": 1, "maximum": 100})
    max_duration: str = field(
        default="3m", metadata={"doc": "longest wait, e.g. 3m", "max_length": 32}
    )


@dataclass
class RetryRequest:
    """Retry a failed sync `limit` times (-1: without end) with a growing backoff."""

    limit: int = field(default=0, metadata={"minimum": -1, "maximum": 1000})
    backoff: RetryBackoff | None = None
    refresh: bool = field(default=False, metadata={"doc": "re-resolve the revision on retry"})


@dataclass
class SyncRequest:
    """What `argocd app sync` sends: which revision, how, and which resources."""

    revision: str = field(
        default="",
        metadata={"doc": "revision to sync; default the app's target", "max_length": 255},
    )
    prune: bool = field(default=False, metadata={"doc": "delete resources no longer in Git"})
    dry_run: bool = field(default=False, metadata={"doc": "validate only; change nothing"})
    resources: list[SyncResource] = field(
        default_factory=list, metadata={"doc": "sync only these", "max_items": MAX_RESOURCES}
    )
    sync_options: list[str] = field(
        default_factory=list,
        metadata={"doc": "e.g. Replace=true, ServerSideApply=true", "max_items": MAX_OPTIONS},
    )
    strategy: Literal["hook", "apply"] = field(
        default="hook", metadata={"doc": "hook (hooks run) or apply (no hooks)"}
    )
    force: bool = field(default=False, metadata={"doc": "delete and re-create on apply failure"})
    retry: RetryRequest | None = None


@dataclass
class RollbackRequest:
    """Sync the revision and source of one history entry, without hooks."""

    id: int = field(metadata={"doc": "history entry id", "minimum": 0, "maximum": 2**53})
    dry_run: bool = False
    prune: bool = False


# ---- responses ----------------------------------------------------------------------


@dataclass
class ApplicationList:
    items: list[Application]


@dataclass
class ProjectList:
    items: list[AppProject]


@dataclass
class OperationStarted:
    """The operation id (it names the operation in events) and what was asked."""

    app: str
    operation: str
    message: str


@dataclass
class Result:
    """A request that changed something, and what."""

    app: str
    message: str


@dataclass
class ResourceDiff:
    group: str
    kind: str
    namespace: str
    name: str
    status: SyncStatusCode
    requires_pruning: bool
    diff: str = field(metadata={"doc": "unified diff, live above, target below (Secrets masked)"})


@dataclass
class DiffResponse:
    """Differences between the live state and the last compared revision(s)."""

    app: str
    revisions: list[str]
    sync_status: SyncStatusCode
    items: list[ResourceDiff]


@dataclass
class HistoryResponse:
    items: list[RevisionHistory]


@dataclass
class TreeResponse:
    nodes: list[dict[str, Any]]
    orphanedNodes: list[dict[str, Any]] = field(
        default_factory=list,
        metadata={"doc": "objects of the app's namespace no app manages (orphanedResources)"},
    )


@dataclass
class ApplicationSyncWindow:
    """A sync window selecting the app, as Argo CD's API shows it."""

    kind: str = field(metadata={"doc": "allow or deny"})
    schedule: str = field(metadata={"doc": "five-field cron expression (in its time zone)"})
    duration: str = field(metadata={"doc": "how long it stays open, e.g. 1h"})
    manual_sync: bool = field(metadata={"doc": "manual syncs may run while it blocks"})


@dataclass
class ApplicationSyncWindowsResponse:
    """Argo CD's `ApplicationSyncWindowsResponse`, with the reason Sluice decided on."""

    active_windows: list[ApplicationSyncWindow] = field(
        metadata={"doc": "the assigned windows open now"}
    )
    assigned_windows: list[ApplicationSyncWindow] = field(
        metadata={"doc": "every window of the project selecting the app, readable or not"}
    )
    can_sync: bool = field(metadata={"doc": "whether a manual sync may start now"})
    message: str = field(
        metadata={
            "doc": "why (Sluice's addition): the window that blocks or allows, or what is "
            "wrong with a window that cannot be read; empty without windows"
        }
    )


@dataclass
class EventEntry:
    """A stored event: its stream sequence and the CloudEvent."""

    seq: int
    app: str
    type: str
    event: dict[str, Any]


@dataclass
class EventList:
    items: list[EventEntry]


@dataclass
class Health:
    status: Literal["ok", "unavailable"]
    checks: dict[str, str]
