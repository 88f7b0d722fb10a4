"""Deleting an Application: its deletion hooks and its resources, then its finalizers.

The control plane hands over every Application that carries a deletionTimestamp and a
finalizer Sluice acts on (`track`). Its finalizers say which stage the deletion is in
(`app.engine.deletion_hooks.deletion_stage`: PreDelete hooks, their cleanup, resources,
PostDelete hooks, their cleanup); each step asks the engine what to do in that stage with
the objects the app tracks, as the watch of its destination cluster sees them (never
before that watch's first list is in), does it, and takes the stage's finalizer off once
nothing is left to wait for. The watch brings the Application without it, which starts
the next stage.

- Resources: `app.engine.cascade` says what to delete (each delete bound to the uid that
  was seen, so a recreated object is not touched).
- Hooks: `app.engine.deletion_hooks` says which hooks of the app's manifests (rendered at
  the spec's target revisions, as Argo CD does; placed and tracked like sync targets) to
  create, which to wait for and which to clean up by their delete policy.
- The project: an app its AppProject refuses (`app.runtime.projects`: its namespace,
  repositories, destination) has nothing deleted or run on its behalf; it shows a
  DeletionError until the project allows it or its finalizers are removed.
- Exclusions: as in compare and sync, objects of a kind `resource.exclusions`/`inclusions`
  exclude on the destination's server (`ClusterRegistry.server_of`) are not the app's:
  no stage deletes them, and an excluded hook is not created (the step's log says which).

A step runs again whenever one of the app's objects changes (`nudge`, called by the
cluster watch), so deletions and hooks are followed by the watch, not by polling. A step
that failed (cluster unreachable, a delete refused, manifests that cannot be rendered, a
PreDelete hook that failed) shows on the app as a DeletionError condition and is tried
again after `retry_delay`, doubling up to a minute.
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from app import log
from app.cluster import Cluster, ClusterError, Conflict, Preconditions
from app.engine.app_conditions import DELETION_ERROR
from app.engine.cascade import cascade_step
from app.engine.deletion_hooks import (
    RUNNING_STAGES,
    DeletionStage,
    HookStep,
    deletion_stage,
    hook_step,
)
from app.engine.exclusions import managed_kinds
from app.engine.sync.targets import SplitTargets, split_targets
from app.model.application import Application
from app.model.identity import AppRef
from app.model.resource import KubeObject, ResourceKey, metadata
from app.model.sync import Propagation
from app.runtime import app_patches
from app.runtime.manifests import ManifestsError, manifests_for
from app.runtime.projects import project_verdict
from app.runtime.runtime import Runtime
from workers.watcher.cancellation import stop_if_cancelled
from workers.watcher.cluster_watch import ClusterWatch
from workers.watcher.settings import WatcherSettings

logger = log.get("watcher.deletion", stage="watcher")

MAX_RETRY_DELAY = 60.0
UNWATCHED = (
    "the destination cluster is not registered or not watched; fix spec.destination, or "
    "remove the Application's finalizers to delete the app alone"
)

REFUSED = (
    "nothing is deleted on behalf of an app its project refuses; fix the project, or "
    "remove the Application's finalizers to delete the app alone"
)


class _Blocked(Exception):
    """A hook stage cannot go on until the user acts (a PreDelete hook failed)."""


def _log_hook_step(ref: AppRef, step: HookStep, removed: bool) -> None:
    logger.info(
        "deletion_hooks.finished" if step.done else "deletion_hooks.waiting",
        app=str(ref),
        stage=step.stage.value,
        created=[str(ResourceKey.of(o)) for o in step.create],
        deleted=[str(ResourceKey.of(o)) for o in step.delete],
        waiting=list(step.waiting),
        excluded=list(step.excluded),
        finalizer_removed=removed,
    )


@dataclass(frozen=True, slots=True)
class _Deleting:
    app: Application
    obj: KubeObject
    """The Application resource as last seen (guarded patches test against it)."""


class Deleter:
    def __init__(
        self,
        rt: Runtime,
        watch_of: Callable[[Application], ClusterWatch | None],
        settings: WatcherSettings,
    ) -> None:
        self._rt = rt
        self._control_plane = rt.control_plane
        self._watch_of = watch_of
        self._settings = settings
        self._apps: dict[AppRef, _Deleting] = {}
        self._queued: set[AppRef] = set()
        self._wake = asyncio.Event()
        self._retries: dict[AppRef, asyncio.TimerHandle] = {}
        self._failures: dict[AppRef, int] = {}

    def track(self, ref: AppRef, app: Application, obj: KubeObject) -> None:
        """`app` is being deleted and carries a finalizer Sluice acts on: take the next step."""
        self._apps[ref] = _Deleting(app, obj)
        self.nudge(ref)

    def untrack(self, ref: AppRef) -> None:
        self._apps.pop(ref, None)
        self._queued.discard(ref)
        self._failures.pop(ref, None)
        retry = self._retries.pop(ref, None)
        if retry is not None:
            retry.cancel()

    def nudge(self, ref: AppRef) -> None:
        """Something the app tracks changed: look again, if it is being deleted."""
        if ref in self._apps:
            self._queued.add(ref)
            self._wake.set()

    async def run(self) -> None:
        try:
            while True:
                stop_if_cancelled()
                await self._wake.wait()
                self._wake.clear()
                refs, self._queued = self._queued, set()
                await asyncio.gather(*(self._step(ref) for ref in refs))
        finally:
            for retry in self._retries.values():
                retry.cancel()
            self._retries.clear()

    async def _step(self, ref: AppRef) -> None:
        deleting = self._apps.get(ref)
        if deleting is None:
            return
        stage = deletion_stage(deleting.app.metadata.finalizers)
        watch = self._watch_of(deleting.app)
        if stage is None:
            return
        if watch is None:
            await self._failed(ref, deleting, UNWATCHED)
            return
        if not watch.synced.is_set():
            logger.info("deletion.waiting", app=str(ref), reason="the cluster is being listed")
            return
        verdict = await project_verdict(self._rt, deleting.app)
        if verdict.refused:
            await self._failed(ref, deleting, f"{verdict.message}; {REFUSED}")
            return
        compare = self._rt.system.compare
        server = self._rt.clusters.server_of(deleting.app.spec.destination)
        tracked = managed_kinds(
            watch.tracked(ref) or [], compare.exclusions, compare.inclusions, server
        )
        try:
            if stage is DeletionStage.RESOURCES:
                finalizers = await self._cascade(ref, deleting, watch.cluster, tracked)
            else:
                finalizers = await self._hooks(
                    ref, deleting, watch.cluster, stage, tracked, server=server
                )
        except ClusterError as e:
            await self._failed(ref, deleting, f"could not delete {e.target}: {e.problem}")
            return
        except ManifestsError as e:
            problem = f"cannot render the manifests to find the {stage.value}: {e.message}"
            await self._failed(ref, deleting, problem)
            return
        except _Blocked as e:
            await self._failed(ref, deleting, str(e))
            return
        self._failures.pop(ref, None)
        if finalizers is not None and deletion_stage(finalizers) is None:
            self.untrack(ref)

    async def _cascade(
        self, ref: AppRef, deleting: _Deleting, cluster: Cluster, tracked: list[KubeObject]
    ) -> tuple[str, ...] | None:
        """The resources stage; the finalizers left once it is over and they are written."""
        step = cascade_step(deleting.app, tracked)
        await asyncio.gather(*(self._delete(cluster, obj, step.propagation) for obj in step.delete))
        removed = await self._finish(deleting, step.finalizers)
        logger.info(
            "cascade.finished" if step.done else "cascade.deleting",
            app=str(ref),
            deleted=[str(ResourceKey.of(o)) for o in step.delete],
            waiting=list(step.waiting),
            kept=list(step.kept),
            finalizer_removed=removed,
        )
        return step.finalizers if removed else None

    async def _hooks(
        self,
        ref: AppRef,
        deleting: _Deleting,
        cluster: Cluster,
        stage: DeletionStage,
        tracked: list[KubeObject],
        *,
        server: str,
    ) -> tuple[str, ...] | None:
        """A hook stage; the finalizers left once it is over and they are written."""
        app = deleting.app
        split = await self._targets(app, server) if stage in RUNNING_STAGES else SplitTargets()
        step = hook_step(
            stage,
            app.metadata.finalizers,
            split.targets,
            tracked,
            self._rt.system.health,
            excluded=split.excluded,
        )
        await asyncio.gather(*(self._create(cluster, obj) for obj in step.create))
        await asyncio.gather(
            *(self._delete(cluster, obj, Propagation.BACKGROUND) for obj in step.delete)
        )
        if step.problem:
            raise _Blocked(step.problem)
        removed = await self._finish(deleting, step.finalizers)
        _log_hook_step(ref, step, removed)
        return step.finalizers if removed else None

    async def _targets(self, app: Application, server: str) -> SplitTargets:
        """The app's manifests at its target revisions, placed and tracked as a sync would,
        apart from those of a kind the settings exclude on `server`."""
        rt = self._rt
        got = await manifests_for(rt, app)
        settings = rt.system.compare
        return split_targets(
            got.manifests,
            app=rt.instance_name(app),
            namespace=app.spec.destination.namespace,
            tracking=rt.settings.tracking_method,
            scopes={},
            excluded=lambda group, kind: settings.excluded(group, kind, server),
        )

    async def _finish(self, deleting: _Deleting, finalizers: tuple[str, ...] | None) -> bool:
        """Clear the DeletionError; take the stage's finalizer off once it is over."""
        await app_patches.clear_condition(self._control_plane, deleting.obj, DELETION_ERROR)
        return finalizers is not None and await app_patches.replace_finalizers(
            self._control_plane,
            deleting.obj,
            list(deleting.app.metadata.finalizers),
            list(finalizers),
        )

    async def _create(self, cluster: Cluster, obj: KubeObject) -> None:
        try:
            await cluster.create(obj)
        except Conflict:
            return

    async def _delete(self, cluster: Cluster, obj: KubeObject, propagation: Propagation) -> None:
        meta = metadata(obj)
        await cluster.delete(
            str(obj.get("apiVersion")),
            str(obj.get("kind")),
            str(meta.get("name")),
            str(meta.get("namespace") or ""),
            propagation=propagation,
            preconditions=Preconditions(uid=str(meta.get("uid") or "")),
            missing_ok=True,
        )

    async def _failed(self, ref: AppRef, deleting: _Deleting, message: str) -> None:
        logger.warning("deletion.failed", app=str(ref), error=message)
        try:
            await app_patches.set_condition(
                self._control_plane, deleting.obj, DELETION_ERROR, message
            )
        except ClusterError as e:
            logger.warning("condition.unwritten", app=str(ref), error=str(e))
        failures = self._failures[ref] = self._failures.get(ref, 0) + 1
        delay = min(MAX_RETRY_DELAY, self._settings.retry_delay * 2 ** (failures - 1))
        loop = asyncio.get_running_loop()
        self._retries[ref] = loop.call_later(delay, self.nudge, ref)
