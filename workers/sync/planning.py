"""The first step of an operation, and each retry: turn the operation into a plan.

What the plan is made of, and where it comes from:
- the project's verdict on the app's sources and destination (`spec_problems`), and on
  each object's kind and namespace;
- the destination cluster (`rt.clusters`) and its discovery (which kinds exist, which
  are namespaced);
- the manifests at the operation's revision(s) (`app.runtime.manifests.manifests_for`: the
  render cache, or a render now) of what the operation renders
  (`app.engine.source_plan.operation_render`: a rollback's recorded source(s), at the
  source's target revision when a retry asks to re-resolve it);
- the targets placed and tracked as the compare engine prepares them, under the app's
  instance name (`app.engine.instance_names`), without kinds the system settings
  exclude on the destination's server (`destination.name` resolved through its cluster
  Secret);
- the managed live set from the live cache, which must be WARM: a COLD cache is never
  planned from (nothing may be pruned on the strength of a partial picture), the step is
  retried a moment later instead; objects of excluded kinds are not the app's;
- the system settings in force (`rt.system`; nothing is planned before they are read):
  their ignoreDifferences rules for
  RespectIgnoreDifferences=true, and the whole comparison settings for the Modified
  verdicts below;
- the live destination Namespace, read only when CreateNamespace=true;
- whether each live object differs from its target, asked of the compare engine only if
  ApplyOutOfSyncOnly=true needs it.

A problem the user has to fix raises PlanRefused with their words (the operation ends in
Error, retried if its policy says so); a cluster that does not answer now raises Retry.
"""

import asyncio
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from app.bus.errors import Retry
from app.cluster import Cluster, ClusterError, NotFound, Unavailable
from app.cluster.resources import ResourceIndex
from app.engine.compare import ComparisonResult, compare
from app.engine.exclusions import managed_kinds
from app.engine.instance_names import instance_name
from app.engine.source_plan import operation_render
from app.engine.sync import (
    PlanInput,
    ResourceScope,
    SyncPlan,
    parse_app_options,
    plan_sync,
    project_check,
)
from app.engine.sync.targets import split_targets
from app.engine.tracking import select_managed
from app.model.application import Application
from app.model.errors import SpecError
from app.model.operation import Operation, SyncOperation
from app.model.resource import GroupKind, KubeObject, ResourceKey
from app.runtime.clusters import UnknownDestination
from app.runtime.manifests import ManifestsError, manifests_for
from app.runtime.projects import project_verdict
from app.runtime.runtime import Runtime
from workers.sync.settings import SyncWorkerSettings


class PlanRefused(Exception):
    """The operation cannot run as asked; the text says why and what to do."""


def _lazy_modified(judge: Callable[[], ComparisonResult]) -> Callable[[ResourceKey], bool | None]:
    """The compare engine's Modified verdict per key, `judge`d on the first question only."""
    verdicts: dict[ResourceKey, bool] | None = None

    def modified(key: ResourceKey) -> bool | None:
        nonlocal verdicts
        if verdicts is None:
            verdicts = {r.key: r.modified for r in judge().resources}
        return verdicts.get(key)

    return modified


class Planner:
    """Plans operations; keeps each destination's kind scopes per discovery load."""

    def __init__(self, rt: Runtime, settings: SyncWorkerSettings) -> None:
        self._rt = rt
        self._settings = settings
        self._scopes: dict[int, tuple[ResourceIndex, dict[tuple[str, str], bool]]] = {}

    def _scopes_of(self, cluster: Cluster, index: ResourceIndex) -> dict[tuple[str, str], bool]:
        known = self._scopes.get(id(cluster))
        if known is not None and known[0] is index:
            return known[1]
        scopes = {(t.group, t.kind): t.namespaced for t in index.resources}
        self._scopes[id(cluster)] = (index, scopes)
        return scopes

    async def _discover(self, cluster: Cluster) -> ResourceIndex:
        try:
            async with asyncio.timeout(self._settings.discovery_timeout):
                return await cluster.discovery.index()
        except (Unavailable, TimeoutError) as e:
            raise Retry(
                f"the destination cluster does not answer discovery: {e or 'timed out'}",
                self._settings.cold_retry,
            ) from None
        except ClusterError as e:
            raise PlanRefused(
                f"cannot read the resource kinds of the destination cluster: {e}"
            ) from None

    async def _namespace(self, cluster: Cluster, name: str) -> KubeObject | None:
        try:
            return await cluster.get(
                "v1", "Namespace", name, time_limit=self._settings.observe_timeout
            )
        except NotFound:
            return None
        except ClusterError as e:
            raise Retry(f"cannot read namespace {name}: {e}", self._settings.cold_retry) from None

    async def plan(
        self, app: Application, operation: Operation, started_at: datetime, *, re_resolve: bool
    ) -> SyncPlan:
        """The plan of `operation` (`re_resolve`: at the source's target revision)."""
        rt = self._rt
        if rt.system.not_ready:
            raise Retry(rt.system.not_ready, self._settings.cold_retry)
        control = rt.settings.control_plane.namespace
        verdict = await project_verdict(rt, app)
        project = verdict.project
        if verdict.refused or project is None:
            raise PlanRefused(verdict.message)
        try:
            cluster = rt.clusters.resolve(app.spec.destination)
        except UnknownDestination as e:
            raise PlanRefused(str(e)) from None
        index = await self._discover(cluster)
        sync = operation.sync or SyncOperation()
        render = operation_render(app, sync, re_resolve=re_resolve)
        try:
            got = await manifests_for(rt, render.app, render.revisions, fresh_refs=True)
        except ManifestsError as e:
            raise PlanRefused(e.message) from None
        snapshot = await rt.live.read(app.ref)
        if not snapshot.warm:
            raise Retry(
                f"live cache of {app.namespace}/{app.name} is cold ({snapshot.reason}); "
                "an operation is never planned from it",
                self._settings.cold_retry,
            )
        method = rt.settings.tracking_method
        name = instance_name(app.namespace, app.name, control_namespace=control)
        scopes = self._scopes_of(cluster, index)
        destination = app.spec.destination.namespace
        server = rt.clusters.server_of(app.spec.destination)
        manifests = got.manifests
        compare_settings = replace(rt.system.compare, scopes=scopes)
        targets = split_targets(
            manifests,
            app=name,
            namespace=destination,
            tracking=method,
            scopes=scopes,
            excluded=lambda group, kind: compare_settings.excluded(group, kind, server),
        ).targets
        live = select_managed(
            managed_kinds(
                snapshot.objects.values(),
                compare_settings.exclusions,
                compare_settings.inclusions,
                server,
            ),
            [ResourceKey.of(t) for t in targets],
            app=name,
            method=method,
        )
        options = parse_app_options(sync.sync_options or app.spec.sync_options)
        namespace_live = None
        if options.create_namespace and destination:
            namespace_live = await self._namespace(cluster, destination)
        tracked = (
            app if name == app.name else replace(app, metadata=replace(app.metadata, name=name))
        )

        def api(kind: GroupKind) -> ResourceScope | None:
            found = index.by_group_kind(kind)
            if found is None:
                return None
            return ResourceScope.NAMESPACED if found.namespaced else ResourceScope.CLUSTER

        try:
            return plan_sync(
                PlanInput(
                    app=app,
                    operation=operation,
                    revision=got.revisions[0] if got.revisions else sync.revision,
                    revisions=got.revisions,
                    started_at=started_at,
                    targets=targets,
                    live=live,
                    api=api,
                    modified=_lazy_modified(
                        lambda: compare(
                            tracked,
                            manifests,
                            list(snapshot.objects.values()),
                            project,
                            compare_settings,
                            instance=name,
                            server=server,
                        )
                    ),
                    namespace_live=namespace_live,
                    project=project_check(project, app.spec.destination),
                    ignore_differences=compare_settings.ignore_differences,
                    jq_deadline=compare_settings.jq_deadline,
                )
            )
        except SpecError as e:
            raise PlanRefused(str(e)) from None
