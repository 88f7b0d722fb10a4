"""The render worker's Helm branch: the app's Helm target, and the chart rendered for it.

The target is the app's instance name (the release name unless `releaseName`), its
destination namespace, `.Capabilities` of the destination cluster and the commits of its
`ref` sources. The render records the Capabilities it was made with (`capabilities`), so
a cached render made for another cluster version is rendered again (`is_current`).
"""

import hashlib
import json
import weakref
from dataclasses import dataclass
from pathlib import Path

from app.model.app_spec import ApplicationSource
from app.repo.access import RepoAccess
from app.repo.helm.oci import OciChart, OciSession, oci_url
from app.repo.helm.render import HelmTarget, render_git_chart, render_repo_chart
from app.repo.helm.repository import ChartVersion, HelmCharts, pick_version
from app.repo.results import ResolvedRevision
from app.repo.service import Repositories
from app.runtime.capabilities import Capabilities, capabilities_for
from app.runtime.render_context import RenderContext
from app.runtime.render_keys import oci_credential_url
from app.runtime.runtime import Runtime
from app.store.manifests import RenderedManifests

CAPABILITIES = "capabilities"
"""The extra field of a Helm render holding the digest of the Capabilities it used."""


def capabilities_digest(caps: Capabilities) -> str:
    blob = json.dumps([caps.kube_version, list(caps.api_versions)])
    return hashlib.sha256(blob.encode()).hexdigest()


async def is_current(rt: Runtime, ctx: RenderContext, rendered: RenderedManifests) -> bool:
    """False for a cached Helm render made with other Capabilities than the cluster's now."""
    recorded = rendered.extra.get(CAPABILITIES)
    if recorded is None:
        return True
    return bool(recorded == capabilities_digest(await capabilities_for(rt, ctx.app)))


_CHARTS: "weakref.WeakKeyDictionary[Repositories, HelmCharts]" = weakref.WeakKeyDictionary()


def is_repo_chart(source: ApplicationSource) -> bool:
    """A chart from a Helm repository (`chart` set), not a chart directory in Git."""
    return bool(source.chart)


def charts_of(repos: Repositories) -> HelmCharts:
    """The chart repositories' indexes and extracted charts this process keeps."""
    charts = _CHARTS.get(repos)
    if charts is None:
        settings = repos.settings
        charts = HelmCharts(
            settings.cache_dir / "helm", settings.helm, network_timeout=settings.network_timeout
        )
        _CHARTS[repos] = charts
    return charts


@dataclass(frozen=True, slots=True)
class ChartOrigin:
    """Where a chart source's versions and archives come from, for one app's project."""

    remote: RepoAccess
    identity: str
    """The repository as the project sees it (the cache's name for it)."""
    oci: OciChart | None
    """The registry repository of an `oci://` source; None for a Helm repository."""


async def _origin(rt: Runtime, source: ApplicationSource, field: str, project: str) -> ChartOrigin:
    oci = None
    url = source.repo_url
    registry = oci_url(url)
    if registry:
        oci = OciChart.of(registry, source.chart, where=f"{field}.repoURL")
        url = oci_credential_url(rt, oci, project=project, field=field)
    remote = await rt.repos.remote(url, project=project, field=field)
    return ChartOrigin(remote, rt.repos.cache_identity(url, project=project, field=field), oci)


async def _versions(
    rt: Runtime, source: ApplicationSource, origin: ChartOrigin, field: str, *, fresh: bool
) -> dict[str, list[ChartVersion]]:
    charts = charts_of(rt.repos)
    where = f"{field}.repoURL"
    oci = origin.oci
    if oci is None:
        return await charts.index(
            origin.remote, source.repo_url, origin.identity, fresh=fresh, what=where
        )
    session = OciSession(origin.remote, oci, deadline=charts.network_timeout, what=where)

    async def tags() -> dict[str, list[ChartVersion]]:
        return {source.chart: await session.versions()}

    return await charts.versions(origin.identity, tags, fresh=fresh)


async def resolve_chart(
    rt: Runtime, source: ApplicationSource, wanted: str, field: str, *, project: str, fresh: bool
) -> ResolvedRevision:
    """The chart version `wanted` (targetRevision or an operation's) names in the index
    (or the registry's tags)."""
    origin = await _origin(rt, source, field, project)
    versions = await _versions(rt, source, origin, field, fresh=fresh)
    entry = pick_version(versions, source.chart, wanted, where=f"{field}.targetRevision")
    return ResolvedRevision(wanted, entry.version, "", f"chart {entry.name} {entry.version}")


async def _chart_dir(
    rt: Runtime, source: ApplicationSource, version: str, field: str, project: str
) -> tuple[Path, str]:
    """The extracted chart of a chart source at `version`, and that version."""
    origin = await _origin(rt, source, field, project)
    charts = charts_of(rt.repos)
    where = f"{field}.repoURL"
    versions = await _versions(rt, source, origin, field, fresh=False)
    entry = pick_version(versions, source.chart, version, where=f"{field}.targetRevision")
    oci = origin.oci
    if oci is None:
        pass_credentials = bool((source.helm or {}).get("passCredentials"))
        found = await charts.chart(
            origin.remote,
            source.repo_url,
            origin.identity,
            entry,
            pass_credentials=pass_credentials,
            what=where,
        )
        return found, entry.version
    session = OciSession(origin.remote, oci, deadline=charts.network_timeout, what=where)

    async def fetch() -> bytes:
        return await session.archive(entry.version, charts.settings.max_chart_bytes)

    return await charts.extracted(origin.identity, entry, fetch, what=where), entry.version


async def render_helm(
    rt: Runtime, source: ApplicationSource, commit: str, field: str, ctx: RenderContext
) -> RenderedManifests:
    caps = await capabilities_for(rt, ctx.app)
    target = HelmTarget(
        app_name=rt.instance_name(ctx.app),
        app_namespace=ctx.app.spec.destination.namespace,
        destination_namespace=ctx.app.spec.destination.namespace,
        kube_version=caps.kube_version,
        api_versions=caps.api_versions,
        refs=dict(ctx.refs),
    )
    settings = rt.repos.settings.helm
    if is_repo_chart(source):
        chart_dir, version = await _chart_dir(rt, source, commit, field, ctx.project)
        charts = charts_of(rt.repos)
        rendered = await render_repo_chart(
            rt.repos,
            chart_dir,
            source,
            version,
            target,
            field=field,
            project=ctx.project,
            charts=charts,
            settings=settings,
        )
    else:
        rendered = await render_git_chart(
            rt.repos,
            source,
            commit,
            target,
            field=field,
            project=ctx.project,
            charts=charts_of(rt.repos),
            settings=settings,
        )
    extra: dict[str, object] = {
        "chart": rendered.chart,
        "release": rendered.release,
        CAPABILITIES: capabilities_digest(caps),
    }
    if rendered.dependencies:
        extra["dependencies"] = list(rendered.dependencies)
    if rendered.missing_value_files:
        extra["missing_value_files"] = list(rendered.missing_value_files)
    return RenderedManifests(rendered.manifests, "Helm", extra)
