"""The control plane: Applications and AppProjects, mirrored and turned into work.

LIST+WATCH of Applications in the control-plane namespace (every namespace, filtered by
the `application_namespaces` globs, when some are configured) and of AppProjects in the
control-plane namespace. Events are handled in order, one at a time; for each
Application:

- it does not parse → log the field, show InvalidSpecError on its status, change nothing
  else (the registry keeps the last version that parsed); the condition is removed when a
  version parses again;
- else → registry (`AppRegistry.put`), the directory (destination watches warm its live
  cache), and one refresh for what changed (`app.engine.refresh_triggers`: created or spec
  changed → force; the refresh annotation → force or latest, then the annotation is
  removed); a status-only change (what the workers write back) costs a dict comparison;
- an `operation` field (what `argocd app sync` writes) → started through
  `app.runtime.operations.start_operation`, then removed; while another operation runs it
  stays, and is started when that one's end is written to the Application's status (the
  watch brings that write);
- a deletionTimestamp with the resources finalizer or a deletion hook's → its deletion
  hooks and cascade deletion (`deletion`);
- deleted → unregistered, its timers cancelled; its resources stay.

Once the first list is in, registered apps that no longer exist (deleted while no
watcher ran) are unregistered too. A project whose spec changed refreshes its apps.
"""

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app import log
from app.bus import events, schedules
from app.bus.errors import BusError, MessageError
from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.bus.subjects import EventType as AppEvent
from app.cluster import ClusterError, EventType, Synced, WatchEvent
from app.engine.app_conditions import INVALID_SPEC
from app.engine.deletion_hooks import deletion_stage
from app.engine.refresh_triggers import (
    SPEC_INVALID,
    RefreshAsk,
    annotation_refresh,
    merge_asks,
    project_changed,
    reconciled_namespace,
    registry_refresh,
)
from app.model import application, codec, project
from app.model.annotations import REFRESH as REFRESH_ANNOTATION
from app.model.application import Application
from app.model.errors import SpecError
from app.model.identity import AppRef
from app.model.project import AppProject
from app.model.resource import KubeObject, metadata
from app.runtime import app_patches
from app.runtime.operations import start_operation
from app.runtime.runtime import Runtime
from app.store.apps import AppChange
from app.store.errors import StoreError
from workers.watcher.cancellation import stop_if_cancelled
from workers.watcher.deletion import Deleter
from workers.watcher.directory import AppDirectory
from workers.watcher.flusher import FAILURES
from workers.watcher.settings import WatcherSettings

logger = log.get("watcher.control_plane", stage="watcher")

TIMERS: tuple[schedules.Timer[Any], ...] = (
    schedules.RESYNC,
    schedules.SELFHEAL,
    schedules.SYNC_WINDOW,
    schedules.RETRY,
    schedules.WAIT,
)
MAX_ATTEMPTS = 5
"""Times one event is handled before it is given up (logged as an error)."""
VOLATILE_METADATA = ("resourceVersion", "managedFields", "generation")
MAX_EVENT_APPLICATION_BYTES = 48 * 1024
"""A `deleted` event carries the Application (for on-deleted notifications) up to this size."""


def _stable(obj: KubeObject) -> dict[str, Any]:
    """The object without what changes on every write: status, resourceVersion..."""
    meta = {k: v for k, v in metadata(obj).items() if k not in VOLATILE_METADATA}
    return {**{k: v for k, v in obj.items() if k != "status"}, "metadata": meta}


@dataclass(frozen=True, slots=True)
class _Seen:
    doc: dict[str, Any]
    """`_stable` of the last version handled."""
    problem: str | None
    """Why it does not parse; None if it does."""


class ControlPlane:
    def __init__(
        self, rt: Runtime, directory: AppDirectory, deleter: Deleter, settings: WatcherSettings
    ) -> None:
        self._rt = rt
        self._directory = directory
        self._deleter = deleter
        self._settings = settings
        control = rt.settings.control_plane
        self._namespace = control.namespace
        self._globs = control.application_namespaces
        self._seen: dict[AppRef, _Seen] = {}
        self._ignored: set[AppRef] = set()
        self._listed: set[AppRef] = set()
        self._projects: dict[str, dict[str, Any]] = {}
        self._deleting: set[AppRef] = set()
        """Apps whose deletionTimestamp was seen (its event is emitted once)."""

    async def run(self) -> None:
        async with asyncio.TaskGroup() as group:
            group.create_task(self._watch_apps())
            group.create_task(self._watch_projects())
            group.create_task(self._deleter.run())

    async def _watch_apps(self) -> None:
        namespace = "" if self._globs else self._namespace
        watch = self._rt.control_plane.watch(
            application.API_VERSION, application.KIND, namespace=namespace
        )
        async with watch as events:
            async for event in events:
                if isinstance(event, Synced):
                    await self._retrying("registry", self._unregister_missing)
                else:
                    await self._retrying(
                        _name(event.object), functools.partial(self._on_app, event)
                    )
                stop_if_cancelled()

    async def _watch_projects(self) -> None:
        watch = self._rt.control_plane.watch(
            project.API_VERSION, project.KIND, namespace=self._namespace
        )
        async with watch as events:
            async for event in events:
                if isinstance(event, WatchEvent):
                    await self._retrying(
                        _name(event.object), functools.partial(self._on_project, event)
                    )
                stop_if_cancelled()

    async def _retrying(self, what: str, handle: Callable[[], Awaitable[None]]) -> None:
        """Handle one event; a failure (Redis, NATS or the cluster unreachable) is retried
        after `retry_delay`, so no event is lost while a dependency blinks."""
        for attempt in range(1, MAX_ATTEMPTS + 1):
            stop_if_cancelled()
            try:
                await handle()
                return
            except (*FAILURES, ClusterError) as e:
                error = f"{type(e).__name__}: {e}"
                if attempt == MAX_ATTEMPTS:
                    logger.error("event.dropped", object=what, error=error, attempts=attempt)
                    return
                logger.warning("event.retrying", object=what, error=error, attempt=attempt)
                await asyncio.sleep(self._settings.retry_delay * attempt)

    async def _on_app(self, event: WatchEvent) -> None:
        obj = event.object
        meta = metadata(obj)
        try:
            ref = AppRef(str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        except ValueError as e:
            logger.warning("application.unnamed", error=str(e))
            return
        if not reconciled_namespace(
            ref.namespace, control_namespace=self._namespace, application_namespaces=self._globs
        ):
            self._ignore(ref)
            return
        if event.type is EventType.DELETED:
            await self._deleted(ref)
            return
        self._listed.add(ref)
        doc = _stable(obj)
        seen = self._seen.get(ref)
        if seen is not None and seen.doc == doc:
            if seen.problem is not None:
                await app_patches.set_condition(
                    self._rt.control_plane, obj, INVALID_SPEC, seen.problem
                )
            return
        try:
            app = Application.from_dict(obj)
            change = await self._rt.apps.put(app)
        except SpecError as e:
            await self._invalid(ref, obj, doc, str(e), e.field)
            return
        except StoreError as e:
            await self._invalid(ref, obj, doc, f"{e}; make the Application smaller", "")
            return
        if seen is not None and seen.problem is not None:
            await app_patches.clear_condition(self._rt.control_plane, obj, INVALID_SPEC)
            logger.info("application.valid_again", app=str(ref))
        if await self._on_valid_app(ref, app, obj, change):
            self._seen[ref] = _Seen(doc, None)
        else:
            self._seen.pop(ref, None)

    async def _invalid(
        self, ref: AppRef, obj: KubeObject, doc: dict[str, Any], problem: str, field: str
    ) -> None:
        """Show why the Application cannot be reconciled; leave everything else as it is."""
        logger.warning("application.invalid", app=str(ref), field=field, error=problem)
        await app_patches.set_condition(self._rt.control_plane, obj, INVALID_SPEC, problem)
        self._seen[ref] = _Seen(doc, problem)
        if await self._rt.apps.mark_invalid(ref, problem):
            # A registered app went invalid: compare reports it (Unknown, InvalidSpecError)
            # and never auto-syncs the last valid version meanwhile.
            await self._refresh(ref, SPEC_INVALID)

    def _ignore(self, ref: AppRef) -> None:
        if ref not in self._ignored:
            self._ignored.add(ref)
            logger.info(
                "application.ignored",
                app=str(ref),
                reason=f"namespace {ref.namespace} is neither the control-plane namespace "
                f"({self._namespace}) nor matched by application_namespaces; add it to "
                "SLUICE_APPLICATION_NAMESPACES to reconcile it",
            )

    async def _on_valid_app(
        self, ref: AppRef, app: Application, obj: KubeObject, change: AppChange
    ) -> bool:
        """Act on a version that parses and is registered; False if something waits for a
        later event (an operation that could not start yet)."""
        control = self._rt.control_plane
        self._directory.upsert(ref, app)
        annotations = app.metadata.annotations
        ask = merge_asks(
            [
                registry_refresh(created=change.created, spec_changed=change.spec_changed),
                annotation_refresh(annotations),
            ]
        )
        if ask is not None:
            await self._refresh(ref, ask)
        if REFRESH_ANNOTATION in annotations:
            removed = await app_patches.remove_refresh_annotation(
                control, obj, annotations[REFRESH_ANNOTATION]
            )
            logger.info("refresh_annotation.removed", app=str(ref), removed=removed)
        if change.created:
            await self._emit(ref, AppEvent.CREATED, {"project": app.spec.project})
        if app.metadata.deletion_timestamp and ref not in self._deleting:
            self._deleting.add(ref)
            deleting = {"deletionTimestamp": app.metadata.deletion_timestamp}
            await self._emit(ref, AppEvent.DELETION_STARTED, deleting)
        if app.metadata.deletion_timestamp and deletion_stage(app.metadata.finalizers) is not None:
            self._deleter.track(ref, app, obj)
        else:
            self._deleter.untrack(ref)
        return app.operation is None or await self._start_operation(ref, app, obj)

    async def _start_operation(self, ref: AppRef, app: Application, obj: KubeObject) -> bool:
        """Start the operation the resource asks for and remove the field; False if another
        operation is running (the field stays for later)."""
        if app.operation is None:
            return True
        who = app.operation.initiated_by.username or "an unnamed user"
        reason = f"sync requested by {who} through the Application's operation field"
        operation_id = await start_operation(self._rt, app, app.operation, reason=reason)
        if operation_id is None:
            logger.info("operation.deferred", app=str(ref), reason="another operation is running")
            return False
        removed = await app_patches.remove_operation(
            self._rt.control_plane, obj, obj.get("operation")
        )
        logger.info("operation.requested", app=str(ref), operation=operation_id, removed=removed)
        return True

    async def _refresh(self, ref: AppRef, ask: RefreshAsk) -> None:
        await publish(self._rt.bus, REFRESH, RefreshRequest(ref, ask.level, ask.reason))
        logger.info(
            "refresh.requested", app=str(ref), level=ask.level.name.lower(), reason=ask.reason
        )

    async def _deleted(self, ref: AppRef) -> None:
        self._listed.discard(ref)
        self._seen.pop(ref, None)
        self._deleter.untrack(ref)
        last = await self._rt.apps.get(ref)
        registered = await self._rt.apps.delete(ref)
        self._directory.remove(ref)
        self._deleting.discard(ref)
        if registered and last is not None:
            doc = codec.encode(last)
            fits = len(json.dumps(doc)) <= MAX_EVENT_APPLICATION_BYTES
            await self._emit(ref, AppEvent.DELETED, {"application": doc} if fits else {})
        cancelled = await asyncio.gather(
            *(schedules.cancel(self._rt.bus, timer, ref) for timer in TIMERS)
        )
        logger.info(
            "application.deleted",
            app=str(ref),
            was_registered=registered,
            timers_cancelled=sum(cancelled),
        )

    async def _emit(self, ref: AppRef, kind: AppEvent, data: dict[str, Any]) -> None:
        """Emit an Application lifecycle event; a failure is logged, never blocks the watch."""
        try:
            await events.emit(self._rt.bus, ref, kind, data, component="watcher")
        except (BusError, MessageError) as e:
            logger.warning("event.not_emitted", app=str(ref), type=kind.value, error=str(e))

    async def _unregister_missing(self) -> None:
        """After a (re)list: forget registered apps the cluster no longer has."""
        missing = [
            ref
            for ref in (AppRef(ns, name) for ns, name in await self._rt.apps.names())
            if ref not in self._listed
        ]
        for ref in missing:
            await self._deleted(ref)

    async def _on_project(self, event: WatchEvent) -> None:
        obj = event.object
        name = str(metadata(obj).get("name") or "")
        if event.type is EventType.DELETED:
            self._projects.pop(name, None)
            self._directory.put_project(None, name)
            await self._rt.apps.delete_project(self._namespace, name)
            logger.info("project.deleted", project=name)
            await self._refresh_apps_of(name)
            return
        spec = obj.get("spec")
        if self._projects.get(name) == spec:
            return
        try:
            parsed = AppProject.from_dict(obj)
        except SpecError as e:
            logger.warning("project.invalid", project=name, field=e.field, error=str(e))
            return
        await self._rt.apps.put_project(parsed)
        self._directory.put_project(parsed, name)
        known = name in self._projects
        self._projects[name] = spec if isinstance(spec, dict) else {}
        logger.info("project.changed" if known else "project.registered", project=name)
        if known:
            await self._refresh_apps_of(name)

    async def _refresh_apps_of(self, name: str) -> None:
        refs = [ref for ref in self._directory.refs() if _project(self._directory.get(ref)) == name]
        await asyncio.gather(*(self._refresh(ref, project_changed(name)) for ref in refs))


def _project(app: Application | None) -> str | None:
    return app.spec.project if app is not None else None


def _name(obj: KubeObject) -> str:
    meta = metadata(obj)
    return f"{obj.get('kind')} {meta.get('namespace')}/{meta.get('name')}"
