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
class AppProjectSpec:
    source_repos: list[str] = field(default_factory=list)
    destinations: list[ProjectDestination] = field(default_factory=list)
    description: str = ""
    cluster_resource_whitelist: list[GroupKindSpec] = field(default_factory=list)
    cluster_resource_blacklist: list[GroupKindSpec] = field(default_factory=list)
    namespace_resource_whitelist: list[GroupKindSpec] = field(default_factory=list)
    namespace_resource_blacklist: list[GroupKindSpec] = field(default_factory=list)
    source_namespaces: list[str] = field(default_factory=list)
    roles: list[Any] = field(default_factory=list)
    sync_windows: list[Any] = field(default_factory=list)
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
