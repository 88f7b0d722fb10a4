"""Discovery documents, in both formats clients ask for.

Aggregated (`apidiscovery.k8s.io/v2` APIGroupDiscoveryList), which kubectl asks for
first, and the plain APIVersions / APIGroupList / APIResourceList that
kubernetes-asyncio's dynamic client reads. Documents are built from the registry and
rebuilt only when its generation changes (a CRD was written or deleted).
"""

from dataclasses import dataclass, field
from typing import Any

from app.localcluster.resources import ALL_VERBS, Registry, ResourceType

AGGREGATED_CONTENT_TYPE = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


def wants_aggregated(accept: str) -> bool:
    return "as=APIGroupDiscoveryList" in accept and "v=v2" in accept


def _group_version(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def _kind(rt: ResourceType, subresource: str = "") -> dict[str, str]:
    group, version, kind = rt.subresource_kind(subresource)
    return {"group": group, "version": version, "kind": kind}


def _aggregated_resource(rt: ResourceType) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "resource": rt.plural,
        "responseKind": _kind(rt),
        "scope": "Namespaced" if rt.namespaced else "Cluster",
        "singularResource": rt.singular,
        "verbs": list(ALL_VERBS),
    }
    if rt.short_names:
        entry["shortNames"] = list(rt.short_names)
    if rt.categories:
        entry["categories"] = list(rt.categories)
    if rt.subresources:
        entry["subresources"] = [
            {
                "subresource": sub,
                "responseKind": _kind(rt, sub),
                "verbs": list(rt.subresource_verbs(sub)),
            }
            for sub in rt.subresources
        ]
    return entry


def _plain_resources(rt: ResourceType) -> list[dict[str, Any]]:
    entry: dict[str, Any] = {
        "name": rt.plural,
        "singularName": rt.singular,
        "namespaced": rt.namespaced,
        "kind": rt.kind,
        "verbs": list(ALL_VERBS),
    }
    if rt.short_names:
        entry["shortNames"] = list(rt.short_names)
    if rt.categories:
        entry["categories"] = list(rt.categories)
    subs = []
    for sub in rt.subresources:
        group, version, kind = rt.subresource_kind(sub)
        listed: dict[str, Any] = {
            "name": f"{rt.plural}/{sub}",
            "singularName": "",
            "namespaced": rt.namespaced,
            "kind": kind,
            "verbs": list(rt.subresource_verbs(sub)),
        }
        if (group, version) != (rt.group, rt.version):
            listed.update(group=group, version=version)
        subs.append(listed)
    return [entry, *subs]


@dataclass(slots=True)
class Discovery:
    """Discovery documents of a registry, cached per registry generation."""

    registry: Registry
    _generation: int = -1
    _cache: dict[str, Any] = field(default_factory=dict)

    def _cached(self, key: str) -> Any:
        if self._generation != self.registry.generation:
            self._cache.clear()
            self._generation = self.registry.generation
        return self._cache.get(key)

    def aggregated(self, core: bool) -> dict[str, Any]:
        """The APIGroupDiscoveryList for /api (core) or /apis (every other group)."""
        key = f"aggregated:{core}"
        doc = self._cached(key)
        if doc is None:
            items = []
            for group, versions in self.registry.groups():
                if (group == "") != core:
                    continue
                items.append(
                    {
                        "metadata": {"name": group},
                        "versions": [
                            {
                                "version": version,
                                "freshness": "Current",
                                "resources": [
                                    _aggregated_resource(rt)
                                    for rt in self.registry.in_version(group, version)
                                ],
                            }
                            for version in versions
                        ],
                    }
                )
            doc = self._cache[key] = {
                "kind": "APIGroupDiscoveryList",
                "apiVersion": "apidiscovery.k8s.io/v2",
                "metadata": {},
                "items": items,
            }
        return doc  # type: ignore[no-any-return]

    def api_versions(self, server_address: str) -> dict[str, Any]:
        return {
            "kind": "APIVersions",
            "versions": ["v1"],
            "serverAddressByClientCIDRs": [
                {"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}
            ],
        }

    def _group(self, group: str, versions: list[str]) -> dict[str, Any]:
        entries = [{"groupVersion": _group_version(group, v), "version": v} for v in versions]
        return {"name": group, "versions": entries, "preferredVersion": dict(entries[0])}

    def group_list(self) -> dict[str, Any]:
        doc = self._cached("groups")
        if doc is None:
            doc = self._cache["groups"] = {
                "kind": "APIGroupList",
                "apiVersion": "v1",
                "groups": [self._group(g, vs) for g, vs in self.registry.groups() if g],
            }
        return doc  # type: ignore[no-any-return]

    def group(self, group: str) -> dict[str, Any] | None:
        for name, versions in self.registry.groups():
            if name == group and group:
                return {"kind": "APIGroup", "apiVersion": "v1", **self._group(group, versions)}
        return None

    def resource_list(self, group: str, version: str) -> dict[str, Any] | None:
        if not self.registry.serves_version(group, version):
            return None
        key = f"resources:{group}/{version}"
        doc = self._cached(key)
        if doc is None:
            resources = []
            for rt in self.registry.in_version(group, version):
                resources.extend(_plain_resources(rt))
            doc = self._cache[key] = {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": _group_version(group, version),
                "resources": resources,
            }
        return doc  # type: ignore[no-any-return]
