"""`…/diff`: what a sync would change, per resource, as unified YAML diffs.

The comparison the compare worker last made is re-run on the same inputs (the cached
render of the revisions it compared, the live cache, the project, the system settings in
force) with the engine's `compare`, and every resource that is not Synced gets its
diff: live above, what a sync would make below, Secrets masked
(`app.engine.diff.render_diff`). Nothing is rendered or fetched here: a render no longer
cached, or a live cache still warming up, is an answer that says what to do, not a guess.
"""

from dataclasses import dataclass, replace

from app.api import access
from app.api.errors import Conflict, Unavailable
from app.api.routes import Call, Route
from app.api.shapes import AppQuery, DiffResponse, ResourceDiff
from app.engine.compare import ComparisonResult, ResourceComparison, compare
from app.engine.diff import render_diff
from app.engine.rbac import names
from app.model.application import Application
from app.model.identity import AppRef
from app.model.resource import KubeObject
from app.model.sync import SyncStatusCode
from app.runtime.render_keys import read_renders
from app.runtime.runtime import Runtime


async def _targets(rt: Runtime, app: Application, revisions: list[str]) -> list[KubeObject]:
    """The cached render of every source at the compared revision; 409 saying what to do."""
    sources = app.spec.all_sources
    retry = f"refresh it (sluice app refresh {app.name}) and retry"
    if len(sources) != len(revisions):
        raise Conflict(
            f"the spec of application {app.name} changed since its last comparison; {retry}"
        )
    objects: list[KubeObject] = []
    for i, cached in enumerate(await read_renders(rt, app, revisions)):
        if cached is None:
            raise Conflict(
                f"the render of source {i + 1} of application {app.name} at "
                f"{revisions[i][:12]} is no longer cached; {retry}"
            )
        objects.extend(cached.manifests)
    return objects


def _diff(resource: ResourceComparison) -> str:
    if resource.modified:
        return resource.diff
    if resource.requires_pruning:
        return render_diff(resource.key, resource.normalized_live, None)
    return ""


async def desired(rt: Runtime, ref: AppRef, app: Application) -> tuple[list[str], list[KubeObject]]:
    """The revisions of the app's last comparison and its desired objects at them (the
    cached render); 409 saying what to do when there are none."""
    stored = await rt.status.read_status(ref)
    sync = stored.status.sync if stored is not None else None
    revisions = (list(sync.revisions) or [sync.revision]) if sync is not None else []
    if not any(revisions):
        raise Conflict(
            f"application {ref} has not been compared yet; refresh it "
            f"(sluice app refresh {ref.name}) and retry"
        )
    return revisions, await _targets(rt, app, revisions)


@dataclass(frozen=True)
class Comparison:
    """The app's last comparison, made again: which app, which revisions, the result."""

    ref: AppRef
    revisions: list[str]
    result: ComparisonResult


async def current_comparison(call: Call[AppQuery, None]) -> Comparison:
    """The comparison of the app the path names, re-run on the inputs of the last one;
    409 or 503 saying what to do when those inputs are no longer (or not yet) known."""
    rt = call.rt
    ref, app = await access.named_app(call, names.GET)
    if rt.system.not_ready:
        raise Unavailable(rt.system.not_ready)
    revisions, targets = await desired(rt, ref, app)
    live = await rt.live.read(ref)
    if not live.warm:
        raise Unavailable(f"the live state of application {ref} is not known yet: {live.reason}")
    project = await rt.apps.get_project(access.control_namespace(rt), app.spec.project)
    if project is None:
        raise Conflict(f"project {app.spec.project!r} of application {ref} does not exist")
    cluster = rt.clusters.resolve(app.spec.destination)
    index = await cluster.discovery.index()
    settings = replace(
        rt.system.compare, scopes={(t.group, t.kind): t.namespaced for t in index.resources}
    )
    result = compare(
        app,
        targets,
        live.objects.values(),
        project,
        settings,
        instance=rt.instance_name(app),
        server=rt.clusters.server_of(app.spec.destination),
    )
    return Comparison(ref, revisions, result)


async def diff_application(call: Call[AppQuery, None]) -> DiffResponse:
    found = await current_comparison(call)
    items = [
        ResourceDiff(
            group=r.key.group,
            kind=r.key.kind,
            namespace=r.key.namespace,
            name=r.key.name,
            status=r.status,
            requires_pruning=r.requires_pruning,
            diff=_diff(r),
        )
        for r in found.result.resources
        if r.status is not None and r.status is not SyncStatusCode.SYNCED
    ]
    return DiffResponse(str(found.ref), found.revisions, found.result.sync_status, items)


ROUTES = (
    Route(
        method="GET",
        path="/api/v1/applications/{name}/diff",
        handler=diff_application,
        operation_id="diffApplication",
        summary="Per-resource diff between the live state and the last compared revision",
        tag="applications",
        query=AppQuery,
        response=DiffResponse,
        errors=(400, 404, 409, 503),
    ),
)
