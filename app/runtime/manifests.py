"""An app's manifests at given revisions: from the render cache, or rendered now.

`manifests_for(rt, app, revisions, force=...)` is how the render worker fills the cache
for a refresh, and how the sync worker gets the targets of an operation whose revision
was never rendered. Which revision each source is rendered at, and which sources render
nothing (a multi-source app's reference-only `ref` source), is the engine's
`source_plan`. Then, for every source in order:

1. Type. Renderers are one table by source type (`RENDERERS`: plain directories with
   their Jsonnet, Kustomize, Helm, plugins), so a new one is one entry. A source that
   declares nothing is offered to the render host's plugins' discovery first, then typed
   by the files at source.path once the commit is known (a kustomization.yaml makes it
   Kustomize, a Chart.yaml Helm), as Argo CD discovers it.
2. Revision. The revision asked for (an operation's, else the source's targetRevision)
   becomes a commit: a full SHA already is one; anything else is matched against the
   repository's listing, from the refs cache unless `force`, else from a fresh ls-remote
   that then replaces the cached listing. What a listing cannot answer (a short SHA,
   `refs/pull/...`, a name that does not exist) goes to `Repositories.resolve`, which
   knows those rules and words the error.
   Every source is resolved before any renders, so a Helm source knows the commit of each
   `ref` source it reads `$ref/…` value files from (`RenderContext.refs`).
3. Manifests. The cache entry for (repo, commit, source hash) unless `force` (the repo
   as `Repositories.cache_identity` names it for the app's project: a project-scoped
   repository's listings and renders are never served to another project); on a miss
   the source is rendered at that commit, parsed by the engine's manifest loader
   (`app.engine.manifests`) and cached, with the files the walk skipped and why. A Helm
   render's key also binds the app (`render_keys.source_key`, which readers share); a
   cached Helm render made with other Capabilities than the destination's now is rendered
   again.

A reference-only source is resolved but renders nothing; its (empty) render is cached
like any other, so a reader finds an entry for every source at every revision it was
told about.

Every failure a user can fix (repository, revision, path, file) is a ManifestsError whose
text names the app, the source field and the file, with credentials redacted; one that
may pass by itself (a network failure) says so in `transient`. Anything else (Redis or
NATS unavailable) is not the user's to fix and propagates, so the message is redelivered.
"""

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from app import log
from app.engine.build_env import build_environment
from app.engine.manifests import load_manifests
from app.engine.redact import redact_text
from app.engine.source_plan import SourcePlan, plan_sources
from app.metrics import RENDER_DURATION
from app.model.app_spec import ApplicationSource
from app.model.application import Application
from app.model.errors import SpecError
from app.model.resource import KubeObject
from app.repo.errors import RenderError, RepoError
from app.repo.jsonnet import evaluate_jsonnet
from app.repo.kustomize import build_kustomize
from app.repo.plugins.run import render_plugin
from app.repo.refs import RefListing
from app.repo.results import ResolvedRevision
from app.repo.revisions import is_full_sha, match_revision, normalize_revision
from app.repo.sourcetype import SourceType, explicit_type
from app.runtime.helm_sources import is_current, is_repo_chart, render_helm, resolve_chart
from app.runtime.render_context import RenderContext
from app.runtime.render_env import build_target, plugin_build
from app.runtime.render_keys import CONTEXT_KEYED, read_render, ref_commits, source_key
from app.runtime.runtime import Runtime
from app.store.manifests import RenderedManifests
from app.store.refs import RefsCache

logger = log.get("manifests")

MAX_ERROR_CHARS = 4000
"""Longest error text handed on (it travels in a message and lands in a condition)."""
MAX_SKIPPED_LISTED = 50
"""Skipped files named in a log event and kept with a cached render."""


class ManifestsError(Exception):
    """The app's manifests cannot be produced; the text says which app, field and file."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        text = redact_text(message)
        if len(text) > MAX_ERROR_CHARS:
            text = text[: MAX_ERROR_CHARS - 1] + "…"
        super().__init__(text)
        self.message = text
        self.transient = transient
        """True when retrying later may succeed without any change (network, timeouts)."""


@dataclass(frozen=True, slots=True)
class SourceManifests:
    """One source's part: the commit it resolved to and what it rendered."""

    field: str
    """The source as messages name it: `spec.source` or `spec.sources[i]`."""
    source: ApplicationSource
    commit: str
    resolved: str
    """How the revision was resolved, for people: "branch main", "commit 1a2b…"."""
    rendered: RenderedManifests
    cached: bool
    """True if read from the manifest cache, False if rendered by this call."""


@dataclass(frozen=True, slots=True)
class AppManifests:
    """Every source's manifests, in source order. Objects are shared: treat as read-only."""

    sources: tuple[SourceManifests, ...]

    @property
    def revisions(self) -> tuple[str, ...]:
        """One commit per source, as ManifestsReady and `status.sync.revisions` carry them."""
        return tuple(s.commit for s in self.sources)

    @property
    def manifests(self) -> list[KubeObject]:
        """All target objects, source by source (a later source's object wins on a clash)."""
        return [obj for s in self.sources for obj in s.rendered.manifests]

    @property
    def source_types(self) -> tuple[str, ...]:
        return tuple(s.rendered.source_type for s in self.sources)

    @property
    def rendered(self) -> int:
        """How many sources this call rendered (the rest came from the cache)."""
        return sum(1 for s in self.sources if not s.cached)


Renderer = Callable[
    [Runtime, ApplicationSource, str, str, RenderContext], Awaitable[RenderedManifests]
]
"""Renders `source` at a resolved commit; `field` names the source in errors; the last
argument is the app (its project says which repository credentials it may use) and its
`ref` sources."""


async def _render_directory(
    rt: Runtime, source: ApplicationSource, commit: str, field: str, ctx: RenderContext
) -> RenderedManifests:
    app, project = ctx.app, ctx.project
    render = await rt.repos.render_directory(source, commit, field=field, project=project)
    files = list(render.files)
    if render.jsonnet:
        variables = build_environment(build_target(rt, app, source, commit))
        files += await evaluate_jsonnet(
            rt.repos, source, commit, render.jsonnet,
            field=field, project=project, variables=variables,
        )  # fmt: skip
    try:
        manifests = load_manifests(files)
    except SpecError as e:
        raise RenderError(
            f"{field}.path: {e} (in {render.repo} at {commit[:12]}); fix the file in Git"
        ) from None
    skipped = [{"path": s.path, "reason": s.reason} for s in render.skipped[:MAX_SKIPPED_LISTED]]
    extra = {"skipped": skipped, "skipped_total": len(render.skipped)} if skipped else {}
    return RenderedManifests(manifests, SourceType.DIRECTORY.value, extra)


async def _render_kustomize(
    rt: Runtime, source: ApplicationSource, commit: str, field: str, ctx: RenderContext
) -> RenderedManifests:
    project = ctx.project
    build = await build_kustomize(rt.repos, source, commit, field=field, project=project)
    if build.ignored:
        logger.info(
            "render.kustomize_overrides_ignored",
            field=field,
            commit=commit,
            ignored=list(build.ignored),
            reason="these fields only reach Helm inflation, which Sluice never enables, "
            "or are unknown to this version",
        )
    try:
        manifests = load_manifests([(f"{build.kustomization} (kustomize build)", build.output)])
    except SpecError as e:
        raise RenderError(f"{field}.path: {e} (at {commit[:12]})") from None
    return RenderedManifests(manifests, SourceType.KUSTOMIZE.value, {"tool": build.tool})


async def _render_plugin(
    rt: Runtime, source: ApplicationSource, commit: str, field: str, ctx: RenderContext
) -> RenderedManifests:
    rendered = await _plugin_manifests(rt, source, commit, field, ctx.app, declared=True)
    assert rendered is not None, "a declared plugin source renders or raises"
    return rendered


async def _plugin_manifests(
    rt: Runtime,
    source: ApplicationSource,
    commit: str,
    field: str,
    app: Application,
    *,
    declared: bool,
) -> RenderedManifests | None:
    """A plugin's render of `source`, or None when none was declared and none discovered."""

    async def build() -> dict[str, str]:
        return await plugin_build(rt, app, source, commit)

    output = await render_plugin(
        rt.repos, source, commit,
        field=field, project=app.spec.project, build=build, declared=declared,
    )  # fmt: skip
    if output is None:
        return None
    logger.info(
        "render.plugin",
        app=f"{app.namespace}/{app.name}",
        field=field,
        revision=commit,
        plugin=output.plugin,
        reason="named by plugin.name"
        if source.plugin and source.plugin.get("name")
        else ("its discover rules match the source"),
    )
    try:
        manifests = load_manifests([(f"plugin {output.plugin} output", output.output)])
    except SpecError as e:
        raise RenderError(
            f"{field}: {e} (at {commit[:12]}); fix the plugin or its inputs in Git"
        ) from None
    return RenderedManifests(manifests, SourceType.PLUGIN.value, {"plugin": output.plugin})


async def _render_reference(
    _rt: Runtime, _source: ApplicationSource, _commit: str, _field: str, _ctx: RenderContext
) -> RenderedManifests:
    """A reference-only source renders nothing; its empty entry keeps every source cached."""
    return RenderedManifests([], "", {"reference": True})


RENDERERS: Mapping[SourceType, Renderer] = {
    SourceType.DIRECTORY: _render_directory,
    SourceType.KUSTOMIZE: _render_kustomize,
    SourceType.HELM: render_helm,
    SourceType.PLUGIN: _render_plugin,
}
"""How each source type is rendered; a type missing here is refused by name."""

_BLOCKS = {
    SourceType.HELM: "chart or helm",
    SourceType.KUSTOMIZE: "kustomize",
    SourceType.PLUGIN: "plugin",
}


_UNSUPPORTED = (
    "Sluice renders plain directories of YAML/JSON/Jsonnet, Kustomize, Helm and Config "
    "Management Plugins: commit the "
    "rendered manifests to a directory and point the source at it"
)


def _renderer(source: ApplicationSource, field: str) -> Renderer:
    declared = explicit_type(source, field=field)
    if declared is None:
        return _render_discovered
    renderer = RENDERERS.get(declared)
    if renderer is None:
        raise RenderError(
            f"{field}: a {declared.value} source (its {_BLOCKS.get(declared, '')} field is "
            f"set); {_UNSUPPORTED}"
        )
    return renderer


async def _render_discovered(
    rt: Runtime, source: ApplicationSource, commit: str, field: str, ctx: RenderContext
) -> RenderedManifests:
    """A source that declares no type, rendered as its files at `commit` say it is: by the
    first plugin whose discovery rules match (Argo CD asks plugins first), else by type."""
    project = ctx.project
    if rt.repos.settings.plugins_dir is not None:
        by_plugin = await _plugin_manifests(rt, source, commit, field, ctx.app, declared=False)
        if by_plugin is not None:
            return by_plugin
    discovered = await rt.repos.source_type_at(source, commit, field=field, project=project)
    renderer = RENDERERS.get(discovered)
    if renderer is None:
        raise RenderError(
            f"{field}: {source.path or '/'!r} is a {discovered.value} source; {_UNSUPPORTED}"
        )
    return await renderer(rt, source, commit, field, ctx)


async def _resolve(
    rt: Runtime,
    refs: RefsCache,
    source: ApplicationSource,
    wanted: str,
    field: str,
    *,
    project: str,
    force: bool,
) -> ResolvedRevision:
    if is_repo_chart(source):
        return await resolve_chart(rt, source, wanted, field, project=project, fresh=force)
    revision = normalize_revision(wanted)
    if is_full_sha(revision):
        commit = revision.lower()
        return ResolvedRevision(revision, commit, "", f"commit {commit}")
    url = source.repo_url
    identity = rt.repos.cache_identity(url, project=project, field=field)
    if not force:
        cached = await refs.get(identity)
        if cached is not None:
            hit = match_revision(RefListing(cached.refs, cached.head), revision)
            if hit is not None:
                return ResolvedRevision(revision, hit.commit, hit.ref, hit.reason)
    listing = await rt.repos.list_refs(url, field=field, project=project)
    await refs.put(identity, listing.refs, listing.head)
    match = match_revision(listing, revision)
    if match is not None:
        return ResolvedRevision(revision, match.commit, match.ref, match.reason)
    return await rt.repos.resolve(url, revision, field=field, project=project)


async def _source_manifests(
    rt: Runtime,
    plan: SourcePlan,
    resolved: ResolvedRevision,
    ctx: RenderContext,
    *,
    force: bool,
) -> SourceManifests:
    source, field = plan.source, plan.field
    renderer = _renderer(source, field) if plan.renders else _render_reference
    commit = resolved.commit
    if not force:
        hit = await read_render(rt, ctx.app, source, commit, ctx.refs, field=field)
        if hit is not None and await is_current(rt, ctx, hit):
            return SourceManifests(field, source, commit, resolved.reason, hit, True)
    started = time.perf_counter()
    rendered = await renderer(rt, source, commit, field, ctx)
    RENDER_DURATION.labels(rendered.source_type or "Reference").observe(
        time.perf_counter() - started
    )
    key = source_key(rt, ctx.app, source, commit, ctx.refs, field=field)
    if rendered.source_type == SourceType.HELM.value:
        helm_key = source_key(rt, ctx.app, source, commit, ctx.refs, field=field, helm=True)
        if helm_key != key:
            # A chart found by discovery: its plain key says where its render is.
            marker = RenderedManifests([], rendered.source_type, {CONTEXT_KEYED: True})
            await rt.manifests.put(key, marker)
            key = helm_key
    if not await rt.manifests.put(key, rendered):
        raise RenderError(
            f"{field}: the {len(rendered.manifests)} objects rendered at {commit[:12]} are larger "
            "than one manifest cache entry may be; split the application into smaller ones"
        )
    return SourceManifests(field, source, commit, resolved.reason, rendered, False)


def _failure(who: str, field: str, e: RepoError) -> ManifestsError:
    text = str(e) if str(e).startswith(field) else f"{field}: {e}"
    return ManifestsError(f"Application {who}: {text}", transient=e.transient)


async def manifests_for(
    rt: Runtime,
    app: Application,
    revisions: Sequence[str] | None = None,
    *,
    force: bool = False,
    fresh_refs: bool = False,
) -> AppManifests:
    """The app's manifests: at `revisions` (one per source; "" or missing: targetRevision),
    or at every source's targetRevision when None. `force` bypasses the refs and manifest
    caches (a hard refresh); `fresh_refs` only the refs cache (a sync resolves branch and
    tag names as they are now). ManifestsError names what the user has to fix."""
    who = f"{app.namespace}/{app.name}"
    try:
        plans = plan_sources(app.spec, revisions)
    except SpecError as e:
        raise ManifestsError(f"Application {who}: {e}") from None
    refs = RefsCache(rt.redis, rt.settings.timing.refs_cache_ttl)
    project = app.spec.project
    resolved: list[ResolvedRevision] = []
    for plan in plans:
        try:
            if plan.renders:
                _renderer(plan.source, plan.field)  # an unsupported type is refused before Git
            resolved.append(
                await _resolve(
                    rt,
                    refs,
                    plan.source,
                    plan.revision,
                    plan.field,
                    project=project,
                    force=force or fresh_refs,
                )
            )
        except RepoError as e:
            raise _failure(who, plan.field, e) from None
    ctx = RenderContext(app, ref_commits(app, [found.commit for found in resolved]))
    parts = []
    for plan, found in zip(plans, resolved, strict=True):
        field = plan.field
        try:
            part = await _source_manifests(rt, plan, found, ctx, force=force)
        except RepoError as e:
            raise _failure(who, field, e) from None
        skipped = part.rendered.extra.get("skipped")
        if skipped and not part.cached:
            logger.warning(
                "render.files_skipped",
                app=who,
                field=field,
                commit=part.commit,
                skipped=part.rendered.extra.get("skipped_total", len(skipped)),
                files=skipped,
            )
        parts.append(part)
    return AppManifests(tuple(parts))
