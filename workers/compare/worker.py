"""The compare worker: the `refresh` router and the `compare` stage (docs/pipeline.md).

`refresh` takes RefreshRequests and routes them: `nothing` and `recent` need no Git, so
they go straight to the compare stage as ManifestsReady with no revisions ("the last
compared ones"); `latest` and `force` go to the render worker, which answers on the
compare channel once the manifests are cached.

`compare` is the only place a comparison runs, one per app at a time across replicas.
One run reads top to bottom:

1. the app (gone: nothing to do), its place in line (`begin_comparison`), the stored
   status and operation, and the stage's marks (`app.store.compare_marks`); then the
   project: its refusals (the app's namespace, repositories, destination) make the app
   Unknown with InvalidSpecError before anything else is looked at;
2. the targets: the cached render at the message's revisions, or at the last compared
   ones; a miss asks for the render `app.engine.render_requests` names instead; a render
   error goes through the repository-error grace period (SEMANTICS §7) and may leave the
   status untouched;
3. the live objects: a COLD cache is never compared (the work comes back in a second);
4. the destination cluster's kinds, then `app.engine.compare`;
5. the project's sync windows (`app.engine.sync_windows`), the auto-sync decision and the
   status (`app.engine.autosync`, `app.engine.appstatus`), written only forward; if it
   landed: events for what changed, the Application's status, and the decision carried
   out as `app.engine.autosync.follow_up` says (an operation started, a self-heal or
   sync-window re-check scheduled, a skip announced when its reason changed);
6. the next periodic resync (a newer timer replaces the older).

The system settings in force (`rt.system`, argocd-cm) shape every comparison (none runs
before they are read); when they change, every registered app is asked for a `recent`
comparison, so health and sync status follow the new health checks and ignore rules
without waiting for a resync. When this process's registry of destination clusters
changes (a cluster Secret added, edited or deleted), the apps deploying to that cluster
are asked for a `latest` comparison, so they find the cluster or report it gone at once.
"""

import asyncio
import datetime as dt
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from app import log
from app.bus import events, schedules
from app.bus.consumer import ConsumerSettings
from app.bus.errors import Retry
from app.bus.messages import (
    COMPARE,
    REFRESH,
    RENDER,
    SYNC,
    ManifestsReady,
    RefreshRequest,
    RenderRequest,
    SyncStep,
)
from app.bus.publish import publish
from app.bus.subjects import EventType
from app.cluster import ClusterError, Unavailable
from app.engine.appstatus import (
    ComparisonSummary,
    StatusInput,
    comparison_status,
    summarize,
    transitions,
)
from app.engine.autosync import ComparedState, FollowUp, decide_auto_sync, follow_up
from app.engine.backoff import SelfHealBackoff
from app.engine.compare import CompareSettings, compare, unknown_comparison
from app.engine.deletion_hooks import deletion_hooks_of, hook_finalizers
from app.engine.levels import repo_error_verdict
from app.engine.orphans import orphan_policy, orphan_warning
from app.engine.render_requests import RenderAsk, compared_revisions, not_cached, precedence
from app.engine.resync import hard_base, next_resync, timing_from
from app.engine.sync_windows import SyncWindowVerdict, evaluate
from app.engine.system_settings import SystemSettings
from app.metrics.argocd import APP_RECONCILE
from app.model.application import Application
from app.model.errors import SpecError
from app.model.identity import AppRef
from app.model.operation import OperationState
from app.model.project import AppProject
from app.model.resource import KubeObject
from app.model.status import ApplicationStatus
from app.model.sync import HookType, RefreshLevel
from app.model.timestamps import format_time
from app.runtime import app_patches
from app.runtime.clusters import ClusterChange, UnknownDestination
from app.runtime.operations import start_operation
from app.runtime.projects import project_verdict
from app.runtime.recovery import written_operation
from app.runtime.runtime import Runtime
from app.runtime.stage import Stage
from app.store.coalescing import Pending
from app.store.compare_marks import CompareMarks, CompareMarksStore
from app.store.livecache import StoredLive
from app.store.status import ComparisonStart
from workers.compare.inputs import DestinationScopes, NotCached, read_targets
from workers.compare.memo import ComparisonMemo, Remembered, fingerprint
from workers.compare.status_writer import StatusWriter

logger = log.get("compare")

COLD_RETRY_SECONDS = 1.0
"""How soon a comparison that found the live cache COLD (or the system settings not yet
read) is tried again."""
UNAVAILABLE_RETRY_SECONDS = 5.0
"""How soon a comparison whose destination cluster did not answer discovery is tried again."""
SETTINGS_REFRESH_CONCURRENCY = 64
"""Refreshes published at once when the system settings change."""


def _level(message: RefreshRequest) -> int:
    return int(message.level)


def _precedence(message: ManifestsReady) -> int:
    return precedence(message.revisions, message.error)


@dataclass
class _Run:
    """One comparison in progress: what it read, and the marks it will leave."""

    ref: AppRef
    app: Application
    invalid: str
    """Why the Application's resource no longer parses (the last version that did is `app`)."""
    message: ManifestsReady
    start: ComparisonStart
    now: dt.datetime
    log: Any
    marks_after: CompareMarks
    stored: CompareMarks = field(default_factory=CompareMarks)
    """The marks as stored (what `save` changes), even when they were another object's."""
    project: AppProject | None = None
    """The app's project, once the comparison has read it."""

    @property
    def marks(self) -> CompareMarks:
        """The marks as the comparison found them."""
        return self.start.marks


@dataclass(frozen=True, slots=True)
class _Verdict:
    """What the comparison found, ready to become a status."""

    summary: ComparisonSummary
    revisions: tuple[str, ...]
    source_types: tuple[str, ...] = ()
    invalid_spec: tuple[str, ...] = ()
    deletion_hooks: frozenset[HookType] | None = None
    """The PreDelete/PostDelete hook types of the manifests; None when they were not read."""


def _for_object(start: ComparisonStart, uid: str, log_: Any) -> ComparisonStart:
    """The comparison's start for the Application object `uid`: one deleted and created
    again under the same name starts from nothing (no previous status, operation or
    marks), as a new object does; the marks then record the new uid."""
    known = start.marks.uid
    if not known or not uid or known == uid:
        return replace(start, marks=replace(start.marks, uid=uid or known))
    log_.info(
        "compare.new_object",
        uid=uid,
        previous_uid=known,
        reason="the Application was deleted and created again: its status starts fresh",
    )
    return replace(start, previous=None, operation=None, marks=CompareMarks(uid=uid))


class CompareWorker:
    """The `refresh` and `compare` stages of one process."""

    name = "compare"

    def __init__(self, rt: Runtime, *, consumer: ConsumerSettings | None = None) -> None:
        self._rt = rt
        timing = rt.settings.timing
        self._scopes = DestinationScopes(lambda: rt.system.compare)
        self._unsubscribe: list[Callable[[], None]] = []
        self._memo = ComparisonMemo()
        self._marks = CompareMarksStore(rt.redis)
        self._writer = StatusWriter(rt.control_plane, timing.resync)
        self._backoff = SelfHealBackoff(
            timing.self_heal_timeout, timing.self_heal_factor, timing.self_heal_cap
        )
        self._refresh = Stage(
            rt, REFRESH, self.route, level=_level, consumer=consumer, answering=True
        )
        self._compare = Stage(rt, COMPARE, self.compare, level=_precedence, consumer=consumer)

    async def start(self) -> None:
        await self._compare.start()
        await self._refresh.start()
        self._unsubscribe = [
            self._rt.system.subscribe(self._settings_changed),
            self._rt.clusters.subscribe(self._cluster_changed),
        ]

    async def stop(self) -> None:
        unsubscribe, self._unsubscribe = self._unsubscribe, []
        for call in unsubscribe:
            call()
        await self._refresh.stop()
        await self._compare.stop()

    async def _settings_changed(self, _settings: SystemSettings) -> None:
        """Compare every app again under the new system settings (last revisions)."""
        rt = self._rt
        refs = [AppRef(namespace, name) for namespace, name in await rt.apps.names()]
        reason = f"system settings changed ({rt.system.origin} {rt.system.version or 'deleted'})"
        await self._ask_refreshes(refs, RefreshLevel.RECENT, reason)
        logger.info("compare.settings_changed", apps=len(refs), reason=reason, stage="refresh")

    async def _cluster_changed(self, change: ClusterChange) -> None:
        """Compare the apps deploying to a cluster that was registered, changed or went."""
        rt = self._rt
        if change.before is not None:
            self._scopes.forget(change.before.cluster)
        apps = [app for app in await rt.apps.all() if change.concerns(app.spec.destination)]
        refs = [AppRef(app.namespace, app.name) for app in apps]
        await self._ask_refreshes(refs, RefreshLevel.LATEST, change.what)
        logger.info("compare.cluster_changed", apps=len(apps), reason=change.what, stage="refresh")

    async def _ask_refreshes(self, refs: list[AppRef], level: RefreshLevel, reason: str) -> None:
        """Publish a refresh of each app, SETTINGS_REFRESH_CONCURRENCY at a time."""
        limit = asyncio.Semaphore(SETTINGS_REFRESH_CONCURRENCY)

        async def refresh(ref: AppRef) -> None:
            async with limit:
                await publish(self._rt.bus, REFRESH, RefreshRequest(ref, level, reason))

        await asyncio.gather(*(refresh(ref) for ref in refs))

    # -- refresh stage -------------------------------------------------------------------

    async def route(self, request: RefreshRequest, _pending: Pending) -> None:
        """`nothing`/`recent`: compare at the last revisions; `latest`/`force`: render first."""
        bus, ref, level = self._rt.bus, request.app, request.level
        if level >= RefreshLevel.LATEST:
            await publish(bus, RENDER, RenderRequest(ref, level, request.reason))
        else:
            await publish(bus, COMPARE, ManifestsReady(ref, level, ()))
        logger.info(
            "refresh.routed",
            app=str(ref),
            stage="refresh",
            level=level.name.lower(),
            reason=request.reason,
            to="render" if level >= RefreshLevel.LATEST else "compare",
        )

    # -- compare stage -------------------------------------------------------------------

    async def compare(self, message: ManifestsReady, _pending: Pending) -> None:
        """Compare the app (the module docstring gives the order of things)."""
        rt, ref = self._rt, message.app
        log_ = logger.bind(app=str(ref), stage="compare", level=message.level.name.lower())
        if rt.system.not_ready:
            log_.info("compare.waiting", reason=rt.system.not_ready, retry_in_s=COLD_RETRY_SECONDS)
            raise Retry(rt.system.not_ready, COLD_RETRY_SECONDS)
        registered = await rt.apps.lookup(ref)
        if registered is None:
            log_.info("compare.dropped", reason="the Application is not registered (deleted?)")
            return
        app = registered.app
        stored = await rt.status.start_comparison(ref)
        start = _for_object(stored, app.metadata.uid, log_)
        now = dt.datetime.now(dt.UTC)
        run = _Run(
            ref,
            app,
            registered.invalid,
            message,
            start,
            now,
            log_.bind(seq=start.seq),
            start.marks,
            stored=stored.marks,
        )
        started = time.monotonic()
        verdict = await self._verdict(run)
        if verdict is not None:
            await self._conclude(run, verdict)
            server = rt.clusters.server_of(app.spec.destination)
            APP_RECONCILE.labels(ref.namespace, server).observe(time.monotonic() - started)

    async def _verdict(self, run: _Run) -> _Verdict | None:
        """The comparison's result; None when there is nothing to compare now."""
        refused = await self._refused(run)
        if refused is not None:
            return refused
        message = run.message
        if message.error:
            if await self._keep_on_repo_error(run):
                return None
            live = await self._live(run)
            return _Verdict(self._unknown(run.app, live, message.error), ())
        run.marks_after = run.marks.cleared_repo_error()
        revisions = compared_revisions(message.revisions, run.start.previous)
        if isinstance(revisions, RenderAsk):
            await self._render(run, revisions)
            return None
        run.log = run.log.bind(revision=",".join(revisions))
        return await self._compare_live(run, revisions, await self._stored_live(run))

    async def _keep_on_repo_error(self, run: _Run) -> bool:
        """Apply the repository-error grace period; True: leave the status as it is."""
        configured = self._rt.system.settings.repo_error_grace
        grace = self._rt.settings.timing.repo_error_grace if configured is None else configured
        verdict = repo_error_verdict(run.marks.repo_error_time, run.now, run.message.level, grace)
        run.marks_after = run.marks.with_repo_error_since(verdict.first_seen)
        if not verdict.keep_previous:
            return False
        marks_after = await self._schedule_resync(run, run.marks_after)
        await self._marks.save(run.ref, run.stored, marks_after)
        run.log.info("compare.repo_error_kept", error=run.message.error, reason=verdict.reason)
        return True

    async def _live(self, run: _Run) -> list[KubeObject]:
        """The app's live objects; Retry if the cache is COLD (never compare from it)."""
        return self._decoded(run, await self._stored_live(run))

    async def _stored_live(self, run: _Run) -> StoredLive:
        """The app's live objects as stored, not decoded yet; Retry if the cache is not warm.

        An app whose destination names no registered cluster has no live objects (nothing
        watches it, so its cache never warms): its comparison reports the destination."""
        try:
            self._rt.clusters.resolve(run.app.spec.destination)
        except UnknownDestination:
            return StoredLive({}, warm=True)
        stored = await self._rt.live.read_stored(run.ref)
        if not stored.warm:
            self._cold(run, "the cluster watcher has not finished listing this app")
        return stored

    def _decoded(self, run: _Run, stored: StoredLive) -> list[KubeObject]:
        """The stored live objects decoded; Retry if one is unreadable (the cache is COLD)."""
        snapshot = stored.decode()
        if not snapshot.warm:
            self._cold(run, snapshot.reason)
        return list(snapshot.objects.values())

    def _cold(self, run: _Run, reason: str) -> NoReturn:
        run.log.info("compare.cold", reason=reason, retry_in_s=COLD_RETRY_SECONDS)
        raise Retry(f"live cache of {run.ref} is cold: {reason}", COLD_RETRY_SECONDS)

    async def _refused(self, run: _Run) -> _Verdict | None:
        """The app is Unknown with InvalidSpecError when its resource no longer parses or
        its project refuses it (its namespace, repositories or destination), before any
        render result is looked at: the render stage refuses the same apps unfetched."""
        app = run.app
        verdict = await project_verdict(self._rt, app)
        run.project = verdict.project
        problems = (run.invalid,) if run.invalid else verdict.problems
        if not problems and not verdict.refused:
            return None
        live = await self._live(run)
        summary = self._unknown(app, live, "; ".join(problems))
        return _Verdict(summary, tuple(run.message.revisions), (), problems)

    async def _compare_live(
        self, run: _Run, revisions: tuple[str, ...], live: StoredLive
    ) -> _Verdict | None:
        """Compare (or reuse an identical comparison); None when a render must come first."""
        project = run.project
        assert project is not None, "_refused read the project"
        settings = await self._destination_settings(run)
        if isinstance(settings, str):
            return _Verdict(self._unknown(run.app, self._decoded(run, live), settings), revisions)
        return await self._compare_targets(run, revisions, live, project, settings)

    async def _destination_settings(self, run: _Run) -> CompareSettings | str:
        """The comparison settings with the destination cluster's kinds, or why there are
        none (Retry while the cluster does not answer discovery)."""
        rt = self._rt
        try:
            cluster = rt.clusters.resolve(run.app.spec.destination)
            return await self._scopes.settings_for(cluster)
        except UnknownDestination as e:
            return str(e)
        except (Unavailable, TimeoutError) as e:
            error = str(e) or "discovery timed out"
            run.log.warning("compare.destination_unavailable", error=error)
            raise Retry(
                f"destination of {run.ref} unavailable: {error}", UNAVAILABLE_RETRY_SECONDS
            ) from e
        except ClusterError as e:
            return f"cannot read the resource kinds of the destination cluster: {e}"

    async def _compare_targets(
        self,
        run: _Run,
        revisions: tuple[str, ...],
        stored: StoredLive,
        project: AppProject,
        settings: CompareSettings,
    ) -> _Verdict | None:
        """Compare the cached render at `revisions` (reusing an identical comparison, except
        at `force`); None when a render must come first."""
        rt, app, message = self._rt, run.app, run.message
        server = rt.clusters.server_of(app.spec.destination)
        memo_key = fingerprint(app, revisions, stored.digest(), project, settings, server=server)
        hard = message.level >= RefreshLevel.FORCE
        reused = None if hard else self._memo.get(run.ref, memo_key)
        if reused is not None:
            return _Verdict(
                reused.summary, revisions, reused.source_types, deletion_hooks=reused.deletion_hooks
            )
        live = self._decoded(run, stored)
        targets = await read_targets(rt, app, revisions)
        if isinstance(targets, NotCached):
            ask = not_cached(targets.what, asked=bool(message.revisions), level=message.level)
            if isinstance(ask, RenderAsk):
                await self._render(run, ask)
                return None
            return _Verdict(self._unknown(app, live, ask.problem), revisions)
        instance = rt.instance_name(app)
        summary = summarize(
            compare(app, targets.objects, live, project, settings, instance=instance, server=server)
        )
        types = tuple(targets.source_types)
        hooks = deletion_hooks_of(targets.objects)
        self._memo.put(run.ref, memo_key, Remembered(summary, types, hooks))
        return _Verdict(summary, revisions, types, deletion_hooks=hooks)

    async def _orphan_warning(self, run: _Run) -> str:
        """OrphanedResourceWarning's message when the project warns of orphans and the
        watcher's last tree of the app lists some."""
        if run.project is None:
            return ""
        try:
            policy = orphan_policy(run.project.spec.orphaned_resources)
        except SpecError as e:
            run.log.warning("compare.orphans_unreadable", project=run.project.name, error=str(e))
            return ""
        if policy is None or not policy.warn:
            return ""
        return orphan_warning(len(await self._rt.tree.load_orphaned(run.ref)), policy)

    def _unknown(self, app: Application, live: list[KubeObject], problem: str) -> ComparisonSummary:
        instance = self._rt.instance_name(app)
        settings = self._rt.system.compare
        server = self._rt.clusters.server_of(app.spec.destination)
        return summarize(
            unknown_comparison(app, live, problem, settings, instance=instance, server=server)
        )

    async def _conclude(self, run: _Run, verdict: _Verdict) -> None:
        """Decide auto-sync, write the status forward, and act only if it landed."""
        rt, app, summary = self._rt, run.app, verdict.summary
        operation = run.start.operation
        app.status.operation_state = await self._operation_state(run)
        revisions = verdict.revisions
        compared = ComparedState(
            summary.sync_status, revisions[0] if revisions else "", summary.resources, revisions
        )
        decision = decide_auto_sync(
            app, compared, run.now, self._backoff, windows=self._windows(run)
        )
        status = comparison_status(
            app,
            StatusInput(
                summary=summary,
                revisions=revisions,
                reconciled_at=format_time(run.now),
                source_types=verdict.source_types,
                sync_error=decision.sync_error,
                invalid_spec=verdict.invalid_spec,
                orphan_warning=await self._orphan_warning(run),
            ),
            run.start.previous,
        )
        await self._keep_hook_finalizers(run, verdict.deletion_hooks)
        write = await rt.status.write_comparison(
            run.ref, run.start.seq, status, replacing=run.start
        )
        if not write.written:
            run.log.info(
                "compare.superseded", newer_seq=write.seq, reason="a later comparison wrote first"
            )
            return
        emitted = await self._emit_transitions(run.ref, write.previous, status)
        written = await self._writer.write(
            app, status, write.previous, run.marks_after, time.time()
        )
        then = follow_up(
            decision, run.now, last_reason=run.marks.autosync_reason, revisions=revisions
        )
        started = await self._carry_out(run, decision.reason, then)
        marks_after = await self._schedule_resync(run, written.marks.with_reason(decision.reason))
        await self._marks.save(run.ref, run.stored, marks_after)
        run.log.info(
            "compare.compared",
            sync=status.sync.status.value,
            health=status.health.status.value,
            resources=len(status.resources),
            conditions=[c.type for c in status.conditions],
            events=emitted,
            status_write=written.outcome,
            status_write_reason=written.reason,
            autosync=decision.outcome.value,
            autosync_reason=decision.reason,
            operation=started or (operation.id if operation is not None else ""),
        )

    async def _operation_state(self, run: _Run) -> OperationState | None:
        """The app's operation state for the auto-sync decision: Redis's, or, when Redis
        holds none for an automated app, the one the Application resource holds (Redis may
        have lost a running operation: it is then woken to resume, never started again)."""
        operation = run.start.operation
        if operation is not None:
            return operation.state
        if run.app.spec.automated is None:
            return None
        try:
            written = await written_operation(
                self._rt.control_plane, run.ref, time_limit=UNAVAILABLE_RETRY_SECONDS
            )
        except ClusterError as e:
            raise Retry(f"{run.ref}: cannot read the Application: {e}", COLD_RETRY_SECONDS) from e
        if written is not None and not written.phase.completed:
            stamp = "".join(c for c in written.started_at if c.isalnum()) or "unknown"
            wake = SyncStep(run.ref, f"resumed-{stamp}", 0, "Redis lost the running operation")
            await publish(self._rt.bus, SYNC, wake)
            run.log.info(
                "compare.operation_lost",
                started_at=written.started_at,
                reason="the Application says an operation runs that Redis does not hold; "
                "woken to resume from the Application's operationState",
            )
        return written

    def _windows(self, run: _Run) -> SyncWindowVerdict | None:
        """The project's sync windows for an automated sync now (None: no project read)."""
        if run.project is None:
            return None
        return evaluate(run.project, run.app, run.now, manual=False)

    async def _keep_hook_finalizers(self, run: _Run, hooks: frozenset[HookType] | None) -> None:
        """Give the Application the finalizers of the deletion hooks its manifests declare
        (and take them off when none is left), before its status says it is synced, so a
        deletion never skips them."""
        app = run.app
        current = list(app.metadata.finalizers)
        wanted = hook_finalizers(current, hooks, deleting=bool(app.metadata.deletion_timestamp))
        if wanted is None:
            return
        obj = {"metadata": {"name": app.name, "namespace": app.namespace}}
        written = await app_patches.replace_finalizers(self._rt.control_plane, obj, current, wanted)
        run.log.info(
            "compare.hook_finalizers",
            finalizers=wanted,
            hooks=sorted(t.value for t in hooks or ()),
            written=written,
            reason="the manifests' PreDelete/PostDelete hooks run when the Application is deleted",
        )

    async def _emit_transitions(
        self, ref: AppRef, previous: ApplicationStatus | None, status: ApplicationStatus
    ) -> list[str]:
        changes = [(EventType(c.transition.value), c.data) for c in transitions(previous, status)]
        bus = self._rt.bus
        # Published together, in order: their messages leave in one write, and the stream
        # stores them in the order sent on the connection.
        await asyncio.gather(
            *(events.emit(bus, ref, kind, data, component="compare") for kind, data in changes)
        )
        return [kind.value for kind, _ in changes]

    async def _carry_out(self, run: _Run, reason: str, then: FollowUp) -> str:
        """Do what the auto-sync decision asks for; the id of the operation started, if any."""
        rt, ref = self._rt, run.ref
        started = ""
        if then.start is not None:
            started = await start_operation(rt, run.app, then.start, reason=reason) or ""
            if not started:
                run.log.info("autosync.refused", reason="another operation started first")
        if then.recheck is not None:
            recheck = then.recheck
            request = RefreshRequest(ref, recheck.level, recheck.cause.value)
            await schedules.schedule(rt.bus, schedules.RECHECKS[recheck.cause], request, recheck.at)
        if then.skipped is not None:
            await events.emit(
                rt.bus, ref, EventType.AUTO_SYNC_SKIPPED, then.skipped, component="compare"
            )
        return started

    async def _render(self, run: _Run, ask: RenderAsk) -> None:
        await publish(self._rt.bus, RENDER, RenderRequest(run.ref, ask.level, ask.reason))
        run.log.info(
            "compare.render_requested", render_level=ask.level.name.lower(), reason=ask.reason
        )

    async def _schedule_resync(self, run: _Run, marks: CompareMarks) -> CompareMarks:
        """Schedule the app's next periodic comparison (`app.engine.resync`); the marks
        with the hard period's new base."""
        timing = self._rt.settings.timing
        periods = timing_from(
            self._rt.system.settings.resync, timing.resync_timing, timing.resync_overridden
        )
        now = run.now.timestamp()
        base = hard_base(run.message.level, now, marks.hard_refresh_at, periods.hard_period)
        resync = next_resync(periods, now, base, random.random)
        if resync is not None:
            request = RenderRequest(run.ref, resync.level, resync.reason)
            when = run.now + dt.timedelta(seconds=resync.delay)
            await schedules.schedule(self._rt.bus, schedules.RESYNC, request, when)
        return replace(marks, hard_refresh_at=base)


def build(runtime: Runtime) -> CompareWorker:
    return CompareWorker(runtime)
