"""The cached list of resource types one cluster serves, refreshed when kinds appear.

Loaded on first use (aggregated discovery: two requests; plain discovery: one more per
group-version, fetched concurrently), then kept. It is refreshed when a lookup misses
(at most once per `discovery_miss_refresh_interval`, concurrent misses share one load)
and dropped by `invalidate()`, which the cluster calls itself after writing a CRD and
which a watcher of CRDs calls when one appears. A group-version that fails to answer
(a broken aggregated API) is recorded, not fatal: only lookups in it fail, saying so.
"""

import asyncio
import time
from typing import Any

from app import log
from app.cluster.errors import ClusterError, Target, Unavailable, UnknownKind
from app.cluster.resources import (
    GroupVersions,
    ResourceIndex,
    ResourceType,
    parse_aggregated,
    parse_core_versions,
    parse_group_list,
    parse_resource_list,
)
from app.cluster.settings import ClusterSettings
from app.cluster.transport import Transport
from app.model.resource import GroupKind

AGGREGATED_ACCEPT = ",".join(
    (
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
        "application/json",
    )
)
AGGREGATED_KIND = "APIGroupDiscoveryList"
MISSING_KIND_HINT = "install its CRD first, or sync the CRD in an earlier wave"


class Discovery:
    """Resource types of one cluster, loaded once and refreshed on demand."""

    def __init__(self, transport: Transport, settings: ClusterSettings, cluster: str) -> None:
        self._transport = transport
        self._settings = settings
        self._cluster = cluster
        self._log = log.get("cluster.discovery", cluster=cluster)
        self._index: ResourceIndex | None = None
        self._loaded_at = 0.0
        self._generation = 0
        self._invalidations = 0
        self._lock = asyncio.Lock()
        self.loads = 0
        """How many times discovery was fetched from the server (for metrics and tests)."""

    def invalidate(self) -> None:
        """Forget the cached types: the next lookup loads them again."""
        self._index = None
        self._invalidations += 1

    async def index(self) -> ResourceIndex:
        """The cached index, loading it first if there is none."""
        return self._index if self._index is not None else await self._reload(self._generation)

    async def resolve(self, api_version: str, kind: str) -> ResourceType:
        """The resource serving `kind` in `api_version`; refreshes once if it is missing."""
        generation = self._generation
        idx = await self.index()
        found = idx.by_kind(api_version, kind)
        if found is None and self._may_refresh():
            idx = await self._reload(generation)
            found = idx.by_kind(api_version, kind)
        if found is None:
            raise self._missing(idx, api_version, kind)
        return found

    async def resolve_group_kind(self, group_kind: GroupKind) -> ResourceType:
        """`group_kind` in its group's preferred version; refreshes once if it is missing."""
        generation = self._generation
        idx = await self.index()
        found = idx.by_group_kind(group_kind)
        if found is None and self._may_refresh():
            idx = await self._reload(generation)
            found = idx.by_group_kind(group_kind)
        if found is None:
            version = idx.preferred_version(group_kind.group) or "?"
            api_version = f"{group_kind.group}/{version}" if group_kind.group else version
            raise self._missing(idx, api_version, group_kind.kind)
        return found

    def _may_refresh(self) -> bool:
        age = time.monotonic() - self._loaded_at
        return age >= self._settings.discovery_miss_refresh_interval

    def _missing(self, idx: ResourceIndex, api_version: str, kind: str) -> ClusterError:
        target = Target("resolve", kind=kind, api_version=api_version, cluster=self._cluster)
        group, _, version = api_version.rpartition("/")
        if api_version in idx.failed:
            return Unavailable(
                f"discovery of {api_version} failed: {idx.failed[api_version]}",
                target=target,
                hint="retry later; the API service behind that group is not answering",
            )
        served = idx.groups.get(group)
        if served is None:
            problem = f"the server has no API group {group!r}" if group else "no core API"
        elif version not in served.versions:
            problem = f"the server serves {group or 'core'} in {', '.join(served.versions)} only"
        else:
            problem = f"the server has no kind {kind!r} in {api_version}"
        return UnknownKind(problem, target=target, hint=MISSING_KIND_HINT)

    async def _reload(self, seen_generation: int) -> ResourceIndex:
        async with self._lock:
            if self._index is not None and self._generation != seen_generation:
                return self._index
            invalidations = self._invalidations
            started = time.monotonic()
            idx = await self._fetch()
            self._index = idx
            self._generation += 1
            self.loads += 1
            fresh = invalidations == self._invalidations
            self._loaded_at = time.monotonic() if fresh else 0.0
            self._log.info(
                "discovery.loaded",
                types=len(idx),
                groups=len(idx.groups),
                failed=sorted(idx.failed),
                ms=round((time.monotonic() - started) * 1000, 1),
            )
            return idx

    async def _get(self, path: str, accept: str = "application/json") -> dict[str, Any]:
        target = Target("discover", name=path, cluster=self._cluster)
        doc = await self._transport.call("GET", path, target, accept=accept)
        if not isinstance(doc, dict):
            raise ClusterError("discovery answer is not a JSON object", target=target)
        return doc

    async def _fetch(self) -> ResourceIndex:
        accept = AGGREGATED_ACCEPT if self._settings.aggregated_discovery else "application/json"
        core, named = await asyncio.gather(self._get("/api", accept), self._get("/apis", accept))
        resources: list[ResourceType] = []
        groups: list[GroupVersions] = []
        plain: list[GroupVersions] = []
        for doc in (core, named):
            if doc.get("kind") == AGGREGATED_KIND:
                found, served = parse_aggregated(doc)
                resources += found
                groups += served
        if core.get("kind") != AGGREGATED_KIND:
            core_versions = parse_core_versions(core)
            plain += [core_versions] if core_versions else []
        if named.get("kind") != AGGREGATED_KIND:
            plain += parse_group_list(named)
        failed: dict[str, str] = {}
        if plain:
            groups += plain
            results = await asyncio.gather(
                *(self._group_version(g.group, v) for g in plain for v in g.versions)
            )
            for api_version, found_or_error in results:
                if isinstance(found_or_error, ClusterError):
                    if "/" not in api_version:  # the core group must answer
                        raise found_or_error
                    failed[api_version] = found_or_error.problem
                else:
                    resources += found_or_error
        return ResourceIndex(resources, groups, failed)

    async def _group_version(
        self, group: str, version: str
    ) -> tuple[str, list[ResourceType] | ClusterError]:
        api_version = f"{group}/{version}" if group else version
        path = f"/apis/{api_version}" if group else f"/api/{version}"
        try:
            return api_version, parse_resource_list(await self._get(path), group, version)
        except ClusterError as e:
            return api_version, e
