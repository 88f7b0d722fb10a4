"""What a comparison reads besides the app: its rendered targets and its cluster's scopes.

`read_targets` fetches the cached render of every source at the revisions being compared
(one cache read per source, concurrently for multi-source apps) and reports a miss with
what is missing, so the compare stage can ask for a render instead of comparing against
nothing. `DestinationScopes` turns the destination cluster's discovery into the
`CompareSettings` the engine needs: the system settings in force (argocd-cm) with the
cluster's scopes (which kinds are namespaced, for placing targets), built once per
discovery load and settings version, not per comparison.
"""

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from app.cluster import Cluster
from app.cluster.resources import ResourceIndex
from app.engine.compare import CompareSettings
from app.model.application import Application
from app.model.resource import KubeObject
from app.runtime.render_keys import read_renders
from app.runtime.runtime import Runtime


@dataclass(frozen=True, slots=True)
class Targets:
    """The rendered manifests of every source, in source order."""

    objects: list[KubeObject]
    source_types: list[str]


@dataclass(frozen=True, slots=True)
class NotCached:
    """A render the comparison needs is not in the manifest cache."""

    what: str
    """Which one, for logs and the reason of the render request that follows."""


async def read_targets(
    rt: Runtime, app: Application, revisions: Sequence[str]
) -> Targets | NotCached:
    """The cached manifests of `app`'s sources at `revisions` (one commit per source), read
    under the keys the render worker wrote them with (`app.runtime.render_keys`)."""
    sources = app.spec.all_sources
    if len(revisions) != len(sources):
        return NotCached(
            f"{len(revisions)} revision(s) for the app's {len(sources)} source(s) "
            "(the spec changed since they were resolved)"
        )
    found = await read_renders(rt, app, revisions)
    objects: list[KubeObject] = []
    types: list[str] = []
    for i, (rendered, commit) in enumerate(zip(found, revisions, strict=True)):
        if rendered is None:
            return NotCached(
                f"the render of source {i + 1} ({sources[i].repo_url}) at {commit[:12]}"
            )
        objects.extend(rendered.manifests)
        types.append(rendered.source_type)
    return Targets(objects, types)


class DestinationScopes:
    """CompareSettings per destination cluster, rebuilt when its discovery reloads or the
    system settings change (`base` gives the settings in force, a new object per version)."""

    def __init__(self, base: Callable[[], CompareSettings]) -> None:
        self._base = base
        self._built: dict[int, tuple[ResourceIndex, CompareSettings, CompareSettings]] = {}

    async def settings_for(self, cluster: Cluster) -> CompareSettings:
        """Settings whose scopes are `cluster`'s discovery (ClusterError if it fails)."""
        async with asyncio.timeout(cluster.settings.request_timeout):
            index = await cluster.discovery.index()
        base = self._base()
        built = self._built.get(id(cluster))
        if built is not None and built[0] is index and built[1] is base:
            return built[2]
        scopes = {(rt.group, rt.kind): rt.namespaced for rt in index.resources}
        settings = replace(base, scopes=scopes)
        self._built[id(cluster)] = (index, base, settings)
        return settings

    def forget(self, cluster: Cluster) -> None:
        """Drop what was built for a cluster no longer registered."""
        self._built.pop(id(cluster), None)
