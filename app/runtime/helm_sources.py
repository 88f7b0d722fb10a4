"""The render worker's Helm branch: the app's Helm target, and the chart rendered for it.

The target is the app's instance name (the release name unless `releaseName`), its
destination namespace, `.Capabilities` of the destination cluster and the commits of its
`ref` sources. The render records the Capabilities it was made with (`capabilities`), so
a cached render made for another cluster version is rendered again (`is_current`).
"""

import hashlib
import json
import weakref

from app.model.app_spec import ApplicationSource
from app.repo.helm.render import HelmTarget, render_git_chart, render_repo_chart
from app.repo.helm.repository import HelmCharts, pick_version
from app.repo.results import ResolvedRevision
from app.repo.service import Repositories
from app.runtime.capabilities import Capabilities, capabilities_for
from app.runtime.render_context import RenderContext
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


async def resolve_chart(
    rt: Runtime, source: ApplicationSource, wanted: str, field: str, *, project: str, fresh: bool
) -> ResolvedRevision:
    """The chart version `wanted` (targetRevision or an operation's) names in the index."""
    remote = await rt.repos.remote(source.repo_url, project=project, field=field)
    identity = rt.repos.cache_identity(source.repo_url, project=project, field=field)
    index = await charts_of(rt.repos).index(
        remote, source.repo_url, identity, fresh=fresh, what=f"{field}.repoURL"
    )
    entry = pick_version(index, source.chart, wanted, where=f"{field}.targetRevision")
    return ResolvedRevision(wanted, entry.version, "", f"chart {entry.name} {entry.version}")


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
        remote = await rt.repos.remote(source.repo_url, project=ctx.project, field=field)
        identity = rt.repos.cache_identity(source.repo_url, project=ctx.project, field=field)
        charts = charts_of(rt.repos)
        where = f"{field}.repoURL"
        index = await charts.index(remote, source.repo_url, identity, fresh=False, what=where)
        entry = pick_version(index, source.chart, commit, where=f"{field}.targetRevision")
        pass_credentials = bool((source.helm or {}).get("passCredentials"))
        chart_dir = await charts.chart(
            remote,
            source.repo_url,
            identity,
            entry,
            pass_credentials=pass_credentials,
            what=where,
        )
        rendered = await render_repo_chart(
            rt.repos,
            chart_dir,
            source,
            entry.version,
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
