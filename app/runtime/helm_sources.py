"""The render worker's Helm branch: the app's Helm target, and the chart rendered for it.

The target is the app's instance name (the release name unless `releaseName`), its
destination namespace, `.Capabilities` of the destination cluster and the commits of its
`ref` sources. The render records the Capabilities it was made with (`capabilities`), so
a cached render made for another cluster version is rendered again (`is_current`).
"""

import hashlib
import json

from app.model.app_spec import ApplicationSource
from app.repo.helm.render import HelmTarget, render_git_chart
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
        CAPABILITIES: capabilities_digest(caps),
    }
    if rendered.missing_value_files:
        extra["missing_value_files"] = list(rendered.missing_value_files)
    return RenderedManifests(rendered.manifests, "Helm", extra)
