"""The render worker's Helm branch: the app's Helm target, and the chart rendered for it.

The target (release name default, namespaces, `.Capabilities` of the destination cluster,
the `ref` sources' commits) is part of a Helm render's cache key (`context_hash`), so two
apps with the same chart at the same commit share a render only when Helm would produce
the same output for both.
"""

import hashlib

from app.model.app_spec import ApplicationSource
from app.repo.helm.render import HelmTarget, render_git_chart
from app.runtime.capabilities import capabilities_for
from app.runtime.render_context import RenderContext
from app.runtime.runtime import Runtime
from app.store.manifests import RenderedManifests

CONTEXT_KEYED = "context_keyed"
"""Marks a cache entry that only says "this source is Helm: look under the context key"."""


async def helm_target(rt: Runtime, ctx: RenderContext) -> HelmTarget:
    caps = await capabilities_for(rt, ctx.app)
    return HelmTarget(
        app_name=rt.instance_name(ctx.app),
        app_namespace=ctx.app.spec.destination.namespace,
        destination_namespace=ctx.app.spec.destination.namespace,
        kube_version=caps.kube_version,
        api_versions=caps.api_versions,
        refs=dict(ctx.refs),
    )


def context_hash(spec_hash: str, target: HelmTarget) -> str:
    """The cache key's spec hash for a Helm render of `target`."""
    return hashlib.sha256(f"{spec_hash}:{target.digest()}".encode()).hexdigest()


async def render_helm(
    rt: Runtime, source: ApplicationSource, commit: str, field: str, ctx: RenderContext
) -> RenderedManifests:
    target = await helm_target(rt, ctx)
    rendered = await render_git_chart(
        rt.repos,
        source,
        commit,
        target,
        field=field,
        project=ctx.project,
        settings=rt.repos.settings.helm,
    )
    extra: dict[str, object] = {
        "chart": rendered.chart,
        "release": rendered.release,
        "context": target.digest(),
    }
    if rendered.missing_value_files:
        extra["missing_value_files"] = list(rendered.missing_value_files)
    return RenderedManifests(rendered.manifests, "Helm", extra)
