"""An Application's spec types (`spec.source`, `spec.destination`, `spec.syncPolicy`, ...).

A leaf of the model: `operation` and `status` record sources, destinations and retry
strategies too, and `application` puts spec, operation and status together, so each
imports this module and no model module needs another at run time to be decoded.
"""

from dataclasses import dataclass, field
from typing import Any

from app.model.duration import parse_duration
from app.model.errors import SpecError

DEFAULT_PROJECT = "default"
DEFAULT_REVISION_HISTORY_LIMIT = 10


@dataclass
class ApplicationSourceDirectory:
    """`source.directory`: plain-manifest options."""

    recurse: bool = False
    include: str = ""
    exclude: str = ""
    jsonnet: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ApplicationSource:
    """Where manifests come from: a Git repository path or a Helm chart."""

    repo_url: str = field(metadata={"json": "repoURL"})
    path: str = ""
    target_revision: str = ""
    chart: str = ""
    ref: str = ""
    name: str = ""
    directory: ApplicationSourceDirectory | None = None
    helm: dict[str, Any] | None = None
    kustomize: dict[str, Any] | None = None
    plugin: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self, path: str) -> None:
        if not self.repo_url.strip():
            raise SpecError(f"{path}.repoURL", "must not be empty")

    @property
    def revision_or_head(self) -> str:
        """targetRevision, with Argo CD's default HEAD when it is empty."""
        return self.target_revision or "HEAD"


@dataclass
class ApplicationDestination:
    """The cluster (by `server` URL or by `name`) and default namespace to deploy to."""

    server: str = ""
    namespace: str = ""
    name: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self, path: str) -> None:
        if self.server and self.name:
            raise SpecError(path, "set either server or name, not both")
        if not self.server and not self.name:
            raise SpecError(path, "needs a server URL or a cluster name")


@dataclass
class SyncPolicyAutomated:
    """`syncPolicy.automated`. `enabled` unset means on (Argo CD 2.14+ semantics)."""

    prune: bool = False
    self_heal: bool = False
    allow_empty: bool = False
    enabled: bool | None = field(default=None, metadata={"keep_empty": True})
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_enabled(self) -> bool:
        return self.enabled is not False


@dataclass
class Backoff:
    """`retry.backoff`: wait = min(maxDuration, duration * factor^k)."""

    duration: str = "5s"
    factor: int = 2
    max_duration: str = "3m"
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self, path: str) -> None:
        parse_duration(self.duration, f"{path}.duration")
        parse_duration(self.max_duration, f"{path}.maxDuration")
        if self.factor < 1:
            raise SpecError(f"{path}.factor", f"must be at least 1, got {self.factor}")

    @property
    def duration_seconds(self) -> float:
        return parse_duration(self.duration)

    @property
    def max_duration_seconds(self) -> float:
        return parse_duration(self.max_duration)


@dataclass
class RetryStrategy:
    """`syncPolicy.retry`: limit (-1 unlimited, 0 none), backoff, re-resolve on retry."""

    limit: int = 0
    backoff: Backoff | None = None
    refresh: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self, path: str) -> None:
        if self.limit < -1:
            raise SpecError(f"{path}.limit", f"must be -1 (unlimited) or more, got {self.limit}")

    @property
    def effective_backoff(self) -> Backoff:
        return self.backoff or Backoff()


@dataclass
class ManagedNamespaceMetadata:
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SyncPolicy:
    automated: SyncPolicyAutomated | None = None
    sync_options: list[str] = field(default_factory=list)
    retry: RetryStrategy | None = None
    managed_namespace_metadata: ManagedNamespaceMetadata | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ResourceIgnoreDifferences:
    """One `ignoreDifferences` entry: which objects, and which fields to ignore."""

    kind: str
    group: str = ""
    name: str = ""
    namespace: str = ""
    json_pointers: list[str] = field(default_factory=list)
    jq_path_expressions: list[str] = field(default_factory=list)
    managed_fields_managers: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self, path: str) -> None:
        for i, pointer in enumerate(self.json_pointers):
            if pointer and not pointer.startswith("/"):
                raise SpecError(
                    f"{path}.jsonPointers[{i}]",
                    f"JSON pointer {pointer!r} must start with '/', e.g. /spec/replicas",
                )


@dataclass
class ApplicationSpec:
    destination: ApplicationDestination
    source: ApplicationSource | None = None
    sources: list[ApplicationSource] = field(default_factory=list)
    project: str = DEFAULT_PROJECT
    sync_policy: SyncPolicy | None = None
    ignore_differences: list[ResourceIgnoreDifferences] = field(default_factory=list)
    revision_history_limit: int | None = None
    info: list[Any] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self, path: str) -> None:
        if self.source is None and not self.sources:
            raise SpecError(path, "needs a source (or sources): repoURL, path, targetRevision")
        if self.revision_history_limit is not None and self.revision_history_limit < 0:
            raise SpecError(f"{path}.revisionHistoryLimit", "must not be negative")

    @property
    def all_sources(self) -> list[ApplicationSource]:
        """The sources in effect: `sources` when non-empty (Argo CD ignores `source` then)."""
        if self.sources:
            return self.sources
        return [self.source] if self.source is not None else []

    @property
    def is_multi_source(self) -> bool:
        return bool(self.sources)

    @property
    def automated(self) -> SyncPolicyAutomated | None:
        """The automated policy if auto-sync is on, else None."""
        policy = self.sync_policy.automated if self.sync_policy else None
        return policy if policy is not None and policy.is_enabled else None

    @property
    def sync_options(self) -> list[str]:
        return self.sync_policy.sync_options if self.sync_policy else []

    @property
    def history_limit(self) -> int:
        if self.revision_history_limit is None:
            return DEFAULT_REVISION_HISTORY_LIMIT
        return self.revision_history_limit
