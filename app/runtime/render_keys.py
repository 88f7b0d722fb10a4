"""The manifest cache key of each source of an app, for writers and readers alike.

The render worker writes a source's render under the key `source_key` gives; the compare
stage and the API's diff read with the same function, so a reader finds exactly what was
written. The key is (repository as the app's project sees it, commit, spec hash); the
spec hash covers the source spec, plus the app's instance name when the render sees the
build environment (Jsonnet variables, plugins), plus, for a Helm source, what Helm is
told about the app: its instance name (release name and `ARGOCD_APP_NAME`), destination
namespace and the commits of its `ref` sources.

A chart found by discovery (no `helm` block) is only known to be Helm once rendered: its
plain key then holds a marker (`CONTEXT_KEYED`) that sends readers to the Helm key.
A chart from a Helm repository resolves to a version, not a commit; its key's commit
field is the SHA-256 of chart name and version. The destination's `.Capabilities` are
not in the key (a reader cannot know them without asking the cluster); the render
records them and the render worker renders again when they change.
"""

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace

from app.model.app_spec import ApplicationSource
from app.model.application import Application
from app.repo.errors import RepoError
from app.repo.helm.oci import OciChart, oci_url
from app.repo.helm.render import RefCommit
from app.repo.sourcehash import source_hash, uses_build_env
from app.repo.sourcetype import SourceType, explicit_type
from app.runtime.runtime import Runtime
from app.store.manifests import ManifestKey, RenderedManifests

CONTEXT_KEYED = "context_keyed"
"""Marks a cache entry that only says "this source is Helm: read the Helm key"."""


def ref_commits(app: Application, revisions: Sequence[str]) -> dict[str, RefCommit]:
    """The app's `ref` sources by name, at the commits in `revisions` (one per source)."""
    return {
        source.ref: RefCommit(source.repo_url, commit)
        for source, commit in zip(app.spec.all_sources, revisions, strict=False)
        if source.ref and commit
    }


def helm_context(rt: Runtime, app: Application, refs: Mapping[str, RefCommit]) -> str:
    """What a Helm render of `app` depends on besides its source and the cluster."""
    return json.dumps(
        [
            rt.instance_name(app),
            app.spec.destination.namespace,
            sorted((name, ref.repo_url, ref.commit) for name, ref in refs.items()),
        ]
    )


def _declared_helm(source: ApplicationSource) -> bool:
    try:
        return explicit_type(source, field="source") is SourceType.HELM
    except RepoError:
        return False


def oci_credential_url(rt: Runtime, oci: OciChart, *, project: str, field: str) -> str:
    """The URL an OCI chart's credentials and caches go by: its repoURL over HTTPS when a
    Secret or template gives that credentials (Argo CD's match), else the chart's registry
    repository (`https://host/path/chart`)."""
    if rt.repos.has_credentials(oci.registry_url, project=project, field=field):
        return oci.registry_url
    return oci.credential_url


def source_key(
    rt: Runtime,
    app: Application,
    source: ApplicationSource,
    commit: str,
    refs: Mapping[str, RefCommit],
    *,
    field: str,
    helm: bool | None = None,
) -> ManifestKey:
    """The key `source`'s render at `commit` is stored under. `helm`: whether to key it as
    a Helm render (None: as its spec declares). Errors are RepoErrors (a repository URL
    that does not parse, a refused Secret) or ValueError (a commit that is no SHA)."""
    url = source.repo_url
    registry = oci_url(url) if source.chart or url.startswith("oci://") else ""
    if registry:
        oci = OciChart.of(registry, source.chart, where=f"{field}.repoURL")
        url = oci_credential_url(rt, oci, project=app.spec.project, field=field)
        source = replace(source, repo_url=url)
    identity = rt.repos.cache_identity(url, project=app.spec.project, field=field)
    if source.chart:
        # A Helm repository chart's revision is its version: the key names it by digest.
        commit = hashlib.sha256(f"{source.chart}\0{commit}".encode()).hexdigest()
    context = rt.instance_name(app) if uses_build_env(source) else ""
    if _declared_helm(source) if helm is None else helm:
        context = f"{context}\nhelm:{helm_context(rt, app, refs)}"
    return ManifestKey(identity, commit, source_hash(source, app_context=context))


async def read_render(
    rt: Runtime,
    app: Application,
    source: ApplicationSource,
    commit: str,
    refs: Mapping[str, RefCommit],
    *,
    field: str,
) -> RenderedManifests | None:
    """The cached render of `source` at `commit` for `app`, following a discovery marker."""
    hit = await rt.manifests.get(source_key(rt, app, source, commit, refs, field=field))
    if hit is not None and hit.extra.get(CONTEXT_KEYED):
        key = source_key(rt, app, source, commit, refs, field=field, helm=True)
        return await rt.manifests.get(key)
    return hit


async def read_renders(
    rt: Runtime, app: Application, revisions: Sequence[str]
) -> list[RenderedManifests | None]:
    """The cached render of every source at `revisions` (None where there is none)."""
    refs = ref_commits(app, revisions)
    multi = app.spec.is_multi_source
    found: list[RenderedManifests | None] = []
    for index, (source, commit) in enumerate(zip(app.spec.all_sources, revisions, strict=True)):
        field = f"spec.sources[{index}]" if multi else "spec.source"
        try:
            found.append(await read_render(rt, app, source, commit, refs, field=field))
        except (ValueError, RepoError):
            found.append(None)
    return found
