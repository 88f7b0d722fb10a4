"""Cascade deletion at work: delete an app's resources, then take its finalizer off.

The control plane hands over every Application that carries a deletionTimestamp and the
resources finalizer (`track`); each step asks the engine (`app.engine.cascade`) what to
do with the objects the app tracks, as the watch of its destination cluster sees them
(never before that watch's first list is in), deletes what it says (each delete bound to
the uid that was seen, so a recreated object is not touched), and removes the finalizer
once nothing is left to wait for. A step runs again whenever one of the app's objects
changes (`nudge`, called by the cluster watch), so deletions are followed by the watch,
not by polling. A step that failed (cluster unreachable, a delete refused) shows on the
app as a DeletionError condition and is tried again after `retry_delay`.
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from app import log
from app.bus.subjects import AppRef
from app.cluster import Cluster, ClusterError, Preconditions, Propagation
from app.engine.app_conditions import DELETION_ERROR
from app.engine.cascade import CascadeStep, cascade_step
from app.engine.sync.options import Propagation as DeletePropagation
from app.model.application import Application
from app.model.resource import KubeObject, ResourceKey, metadata
from workers.watching import app_patches
from workers.watching.cancellation import stop_if_cancelled
from workers.watching.cluster_watch import ClusterWatch
from workers.watching.settings import WatcherSettings

logger = log.get("watcher.deletion", stage="watcher")

PROPAGATION = {
    DeletePropagation.FOREGROUND: Propagation.FOREGROUND,
    DeletePropagation.BACKGROUND: Propagation.BACKGROUND,
    DeletePropagation.ORPHAN: Propagation.ORPHAN,
}
MAX_RETRY_DELAY = 60.0
UNWATCHED = (
    "the destination cluster is not registered or not watched; fix spec.destination, or "
    "remove the finalizer resources-finalizer.argocd.argoproj.io to delete the app alone"
)


@dataclass(frozen=True, slots=True)
class _Deleting:
    app: Application
    obj: KubeObject
    """The Application resource as last seen (guarded patches test against it)."""


class Deleter:
    def __init__(
        self,
        control_plane: Cluster,
        watch_of: Callable[[Application], ClusterWatch | None],
        settings: WatcherSettings,
    ) -> None:
        self._control_plane = control_plane
        self._watch_of = watch_of
        self._settings = settings
        self._apps: dict[AppRef, _Deleting] = {}
        self._queued: set[AppRef] = set()
        self._wake = asyncio.Event()
        self._retries: dict[AppRef, asyncio.TimerHandle] = {}
        self._failures: dict[AppRef, int] = {}

    def track(self, ref: AppRef, app: Application, obj: KubeObject) -> None:
        """`app` is being deleted with its resources: take the next step."""
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
        watch = self._watch_of(deleting.app)
        if watch is None:
            await self._failed(ref, deleting, UNWATCHED)
            return
        if not watch.synced.is_set():
            logger.info("cascade.waiting", app=str(ref), reason="the cluster is being listed")
            return
        step = cascade_step(deleting.app, watch.tracked(ref) or [])
        try:
            await asyncio.gather(*(self._delete(watch.cluster, obj, step) for obj in step.delete))
            await app_patches.clear_condition(self._control_plane, deleting.obj, DELETION_ERROR)
            removed = step.done and await app_patches.replace_finalizers(
                self._control_plane,
                deleting.obj,
                list(deleting.app.metadata.finalizers),
                list(step.finalizers or ()),
            )
        except ClusterError as e:
            await self._failed(ref, deleting, f"could not delete {e.target}: {e.problem}")
            return
        self._failures.pop(ref, None)
        logger.info(
            "cascade.finished" if step.done else "cascade.deleting",
            app=str(ref),
            deleted=[str(ResourceKey.of(o)) for o in step.delete],
            waiting=list(step.waiting),
            kept=list(step.kept),
            finalizer_removed=removed,
        )
        if removed:
            self.untrack(ref)

    async def _delete(self, cluster: Cluster, obj: KubeObject, step: CascadeStep) -> None:
        meta = metadata(obj)
        await cluster.delete(
            str(obj.get("apiVersion")),
            str(obj.get("kind")),
            str(meta.get("name")),
            str(meta.get("namespace") or ""),
            propagation=PROPAGATION[step.propagation],
            preconditions=Preconditions(uid=str(meta.get("uid") or "")),
            missing_ok=True,
        )

    async def _failed(self, ref: AppRef, deleting: _Deleting, message: str) -> None:
        logger.warning("cascade.failed", app=str(ref), error=message)
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
