"""AppProject (`argoproj.io/v1alpha1`): what an Application may deploy, from where, to where."""

from dataclasses import dataclass, field
from typing import Any

from app.model import document
from app.model.document import Document
from app.model.meta import ObjectMeta

API_VERSION = document.API_VERSION
KIND = "AppProject"


@dataclass
class GroupKindSpec:
    """An entry of the cluster/namespace resource allow and deny lists (globs allowed)."""

    group: str = field(default="", metadata={"keep_empty": True})
    kind: str = field(default="", metadata={"keep_empty": True})
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ProjectDestination:
    server: str = ""
    namespace: str = ""
    name: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class SyncWindow:
    """An entry of `spec.syncWindows`: when syncs of the apps it selects are allowed or denied.

    Parsed as Argo CD writes it and kept as written: `kind`, `schedule`, `duration` and
    `timeZone` are checked when the window is evaluated (`app.engine.sync_windows`), so a
    window with a typo blocks the syncs of the apps it selects, saying what to fix, instead
    of making the whole project unreadable.
    """

    kind: str = ""
    """`allow` or `deny`."""
    schedule: str = ""
    """When the window opens: a five-field cron expression, read in `timeZone`."""
    duration: str = ""
    """How long it stays open once opened (`1h`, `30m`)."""
    applications: list[str] = field(default_factory=list)
    """Application names (globs) it applies to."""
    namespaces: list[str] = field(default_factory=list)
    """Destination namespaces (globs) it applies to."""
    clusters: list[str] = field(default_factory=list)
    """Destination cluster names or server URLs (globs) it applies to."""
    manual_sync: bool = False
    """Manual syncs may run while the window blocks automated ones."""
    time_zone: str = ""
    """IANA time zone of the schedule; empty means UTC."""
    and_operator: bool = field(default=False, metadata={"json": "andOperator"})
    """Select apps matching every selector given, instead of any of them."""
    sync_overrun: bool = False
    """An operation already running when the window closes (allow) or opens (deny) goes on."""
    description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class JWTToken:
    """A token issued for a project role (`proj role create-token`): its `iat`, `exp` and
    `id` (the token's `jti`). Removing the entry revokes the token."""

    iat: int = field(default=0, metadata={"keep_empty": True})
    """Issued-at, Unix seconds."""
    exp: int = 0
    """Expiry, Unix seconds; 0 for a token that does not expire."""
    id: str = ""
    """The token's `jti` claim."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ProjectRole:
    """An entry of `spec.roles`: policies scoped to the project, for tokens and groups."""

    name: str = ""
    description: str = ""
    policies: list[str] = field(default_factory=list)
    """Casbin `p` lines whose subject is `proj:<project>:<role>`."""
    jwt_tokens: list[JWTToken] = field(default_factory=list, metadata={"json": "jwtTokens"})
    groups: list[str] = field(default_factory=list)
    """Groups (OIDC group claims, or subjects) that hold this role."""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class AppProjectSpec:
    source_repos: list[str] = field(default_factory=list)
    destinations: list[ProjectDestination] = field(default_factory=list)
    description: str = ""
    cluster_resource_whitelist: list[GroupKindSpec] = field(default_factory=list)
    cluster_resource_blacklist: list[GroupKindSpec] = field(default_factory=list)
    namespace_resource_whitelist: list[GroupKindSpec] = field(default_factory=list)
    namespace_resource_blacklist: list[GroupKindSpec] = field(default_factory=list)
    source_namespaces: list[str] = field(default_factory=list)
    roles: list[ProjectRole] = field(default_factory=list)
    sync_windows: list[SyncWindow] = field(default_factory=list)
    orphaned_resources: dict[str, Any] | None = None
    signature_keys: list[Any] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class AppProject(Document):
    KIND = KIND
    metadata: ObjectMeta
    spec: AppProjectSpec = field(default_factory=AppProjectSpec)
    api_version: str = API_VERSION
    kind: str = KIND
    status: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def default(cls) -> "AppProject":
        """Argo CD's `default` project: any repo, any destination, every kind."""
        return cls(
            metadata=ObjectMeta(name="default"),
            spec=AppProjectSpec(
                source_repos=["*"],
                destinations=[ProjectDestination(server="*", namespace="*", name="*")],
                cluster_resource_whitelist=[GroupKindSpec(group="*", kind="*")],
            ),
        )
