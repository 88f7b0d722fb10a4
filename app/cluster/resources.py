"""The resource types a server serves, read from either discovery format, and their index.

Discovery answers two questions for every call: which URL serves an apiVersion + kind
(the plural resource name, namespaced or not), and which version of a group to use when
only group and kind are known (the group's preferred version, as kubectl picks it).
The aggregated format (`apidiscovery.k8s.io/v2`, two requests for the whole server) is
asked for first; the plain format (one request per group-version) is the fallback.
"""

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from app.model.resource import GroupKind


@dataclass(frozen=True, slots=True)
class ResourceType:
    """One served resource: `deployments` in `apps/v1`, kind Deployment, namespaced."""

    group: str
    version: str
    kind: str
    resource: str
    namespaced: bool
    verbs: frozenset[str] = frozenset()
    singular: str = ""
    short_names: tuple[str, ...] = ()
    subresources: frozenset[str] = frozenset()

    @property
    def api_version(self) -> str:
        """`apps/v1`, or `v1` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_kind(self) -> GroupKind:
        return GroupKind(self.group, self.kind)

    @property
    def qualified(self) -> str:
        """`deployments.apps` (`configmaps` in the core group), as the server names it."""
        return f"{self.resource}.{self.group}" if self.group else self.resource

    def can(self, verb: str) -> bool:
        """True if the server allows `verb` (get, list, watch, create, patch ...) on it."""
        return verb in self.verbs


@dataclass(frozen=True, slots=True)
class GroupVersions:
    """A group's served versions in the server's order of preference (preferred first)."""

    group: str
    versions: tuple[str, ...]
    preferred: str


class ResourceIndex:
    """Every served resource type, looked up by kind or by resource name."""

    __slots__ = ("_by_gvk", "_by_gvr", "failed", "groups", "resources")

    def __init__(
        self,
        resources: Iterable[ResourceType] = (),
        groups: Iterable[GroupVersions] = (),
        failed: Mapping[str, str] | None = None,
    ) -> None:
        self.resources = list(resources)
        self.groups = {g.group: g for g in groups}
        self.failed = dict(failed or {})
        """Group-versions whose discovery failed (`metrics.k8s.io/v1beta1` → the reason)."""
        self._by_gvk: dict[tuple[str, str, str], ResourceType] = {}
        self._by_gvr: dict[tuple[str, str, str], ResourceType] = {}
        for rt in self.resources:
            self._by_gvk.setdefault((rt.group, rt.version, rt.kind), rt)
            self._by_gvr.setdefault((rt.group, rt.version, rt.resource), rt)

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        """The resource serving `kind` in exactly `api_version`."""
        group, _, version = api_version.rpartition("/")
        return self._by_gvk.get((group, version, kind))

    def by_resource(self, group: str, version: str, resource: str) -> ResourceType | None:
        """The resource type named `resource` (plural) in group/version."""
        return self._by_gvr.get((group, version, resource))

    def by_group_kind(self, group_kind: GroupKind) -> ResourceType | None:
        """`group_kind` in the group's preferred version, else its first version serving it."""
        gv = self.groups.get(group_kind.group)
        if gv is None:
            return None
        for version in (gv.preferred, *gv.versions):
            rt = self._by_gvk.get((group_kind.group, version, group_kind.kind))
            if rt is not None:
                return rt
        return None

    def preferred_version(self, group: str) -> str | None:
        gv = self.groups.get(group)
        return gv.preferred if gv else None

    def preferred(self) -> Iterator[ResourceType]:
        """One resource type per kind: the one in its group's preferred version."""
        seen: set[GroupKind] = set()
        for rt in self.resources:
            if rt.group_kind in seen:
                continue
            best = self.by_group_kind(rt.group_kind)
            if best is not None:
                seen.add(rt.group_kind)
                yield best

    def __len__(self) -> int:
        return len(self.resources)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def parse_aggregated(doc: dict[str, Any]) -> tuple[list[ResourceType], list[GroupVersions]]:
    """Resources and groups from an `APIGroupDiscoveryList` (versions listed preferred first)."""
    resources: list[ResourceType] = []
    groups: list[GroupVersions] = []
    for item in _dicts(doc.get("items")):
        group = str((item.get("metadata") or {}).get("name") or "")
        versions = _dicts(item.get("versions"))
        names = tuple(str(v.get("version") or "") for v in versions if v.get("version"))
        if not names:
            continue
        groups.append(GroupVersions(group, names, names[0]))
        for version in versions:
            for res in _dicts(version.get("resources")):
                kind = str((res.get("responseKind") or {}).get("kind") or "")
                name = str(res.get("resource") or "")
                if not kind or not name:
                    continue
                subs = frozenset(str(s.get("subresource")) for s in _dicts(res.get("subresources")))
                resources.append(
                    ResourceType(
                        group=group,
                        version=str(version.get("version")),
                        kind=kind,
                        resource=name,
                        namespaced=res.get("scope") == "Namespaced",
                        verbs=frozenset(_strings(res.get("verbs"))),
                        singular=str(res.get("singularResource") or ""),
                        short_names=_strings(res.get("shortNames")),
                        subresources=subs,
                    )
                )
    return resources, groups


def parse_core_versions(doc: dict[str, Any]) -> GroupVersions | None:
    """The core group from `/api` in the plain format (`APIVersions`)."""
    versions = _strings(doc.get("versions"))
    return GroupVersions("", versions, versions[0]) if versions else None


def parse_group_list(doc: dict[str, Any]) -> list[GroupVersions]:
    """The named groups from `/apis` in the plain format (`APIGroupList`)."""
    groups: list[GroupVersions] = []
    for item in _dicts(doc.get("groups")):
        versions = tuple(
            str(v.get("version")) for v in _dicts(item.get("versions")) if v.get("version")
        )
        if not versions or not item.get("name"):
            continue
        preferred = str((item.get("preferredVersion") or {}).get("version") or versions[0])
        groups.append(GroupVersions(str(item["name"]), versions, preferred))
    return groups


def parse_resource_list(doc: dict[str, Any], group: str, version: str) -> list[ResourceType]:
    """The resources of one group-version from an `APIResourceList` (plain format)."""
    entries = _dicts(doc.get("resources"))
    subresources: dict[str, set[str]] = {}
    for entry in entries:
        parent, _, sub = str(entry.get("name") or "").partition("/")
        if sub:
            subresources.setdefault(parent, set()).add(sub)
    result: list[ResourceType] = []
    for entry in entries:
        name = str(entry.get("name") or "")
        kind = str(entry.get("kind") or "")
        if not name or "/" in name or not kind:
            continue
        result.append(
            ResourceType(
                group=group,
                version=version,
                kind=kind,
                resource=name,
                namespaced=bool(entry.get("namespaced")),
                verbs=frozenset(_strings(entry.get("verbs"))),
                singular=str(entry.get("singularName") or ""),
                short_names=_strings(entry.get("shortNames")),
                subresources=frozenset(subresources.get(name, ())),
            )
        )
    return result
