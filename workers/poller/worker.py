"""The Git poller: notices branches and tags that moved, for repositories without webhooks.

Every `timing.git_poll` seconds (default 60; 0 turns polling off) the replica holding the
`poller` lease lists each distinct repository of the registered apps once (one ls-remote
per repository however many apps use it; never one an app's project refuses,
`app.runtime.projects`) and stores the listing in the refs cache. Then
it resolves every watched source from those listings and asks the engine
(`app.engine.polling`: which sources are watched, what counts as moved, the reason text)
whether the app's last comparison used another commit; each app that moved gets one
`latest` RefreshRequest ("poller: <repo> main moved to 1a2b3c4"). The listing is stored
before the refreshes go out, so the renders they cause resolve against it, never against
an older one. A revision a branch-and-tag listing cannot answer (a short SHA,
`refs/pull/...`) is left to the periodic resync; a repository that cannot be listed is
logged and its apps are left alone until the next poll.

Replicas elect a leader with a lease renewed on every poll; a leader that stops releases
it, one that dies loses it after three intervals, and another replica takes over.
"""

import asyncio
import contextlib
from collections.abc import Mapping

from redis.exceptions import RedisError

from app import log
from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.engine.polling import Moved, Resolved, first_moved, is_watched
from app.engine.redact import redact_text
from app.metrics import RECONCILE_DURATION
from app.model.application import Application
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.repo.errors import RepoError
from app.repo.refs import RefListing
from app.repo.revisions import match_revision, normalize_revision
from app.runtime.projects import ProjectVerdict, project_verdict
from app.runtime.runtime import Runtime
from app.runtime.worker import Worker
from app.store.errors import StoreError
from app.store.leases import Lease
from app.store.refs import RefsCache

logger = log.get("poller", stage="poller")

LEASE = "poller"
"""The lease whose holder polls."""
STATUS_READS = 16
"""Status reads in flight at once (stays well inside the Redis connection pool)."""
MIN_POLL_DEADLINE = 30.0
"""Seconds one poll may take at least; longer intervals allow a poll up to the interval."""


def _identity(rt: Runtime, url: str, project: str) -> str:
    """The refs cache name of `url` for `project` (see `Repositories.cache_identity`)."""
    try:
        return rt.repos.cache_identity(url, project=project, field="spec.source")
    except RepoError:
        return url


async def _list_repos(rt: Runtime, wanted: set[tuple[str, str]]) -> dict[str, RefListing]:
    """One ls-remote per (repository, credential scope), concurrently; each listing also
    goes to the refs cache. `wanted` holds (URL, project) pairs; listings are by identity."""
    refs = RefsCache(rt.redis, rt.settings.timing.refs_cache_ttl)
    listings: dict[str, RefListing] = {}
    by_identity = {_identity(rt, url, project): (url, project) for url, project in wanted}

    async def list_one(identity: str, url: str, project: str) -> None:
        try:
            listing = await rt.repos.list_refs(url, field="spec.source", project=project)
        except RepoError as e:
            logger.warning(
                "poll.repo_failed",
                repo=redact_text(url),
                error=str(e),
                consequence="its apps are not refreshed by this poll",
            )
            return
        await refs.put(identity, listing.refs, listing.head)
        listings[identity] = listing

    async with asyncio.TaskGroup() as group:
        for identity, (url, project) in sorted(by_identity.items()):
            group.create_task(list_one(identity, url, project))
    return listings


async def _moved(rt: Runtime, app: Application, listings: Mapping[str, RefListing]) -> Moved | None:
    """Resolve `app`'s watched sources from the listings; the engine says if one moved."""
    resolved = []
    for index, source in enumerate(app.spec.all_sources):
        listing = listings.get(_identity(rt, source.repo_url, app.spec.project))
        match = match_revision(listing, source.target_revision) if listing else None
        if match is not None and is_watched(source):
            revision = normalize_revision(source.target_revision)
            resolved.append(Resolved(index, redact_text(source.repo_url), revision, match.commit))
    if not resolved:
        return None
    stored = await rt.status.read_status(AppRef(app.namespace, app.name))
    if stored is None:
        return None
    return first_moved(resolved, stored.status.sync, multi=app.spec.is_multi_source)


async def poll_once(rt: Runtime) -> int:
    """List every app repository once and refresh (`latest`) the apps whose target moved.

    Returns how many apps were refreshed.
    """
    watched = [a for a in await rt.apps.all() if any(is_watched(s) for s in a.spec.all_sources)]
    reads = asyncio.Semaphore(STATUS_READS)

    async def judged(app: Application) -> ProjectVerdict:
        async with reads:
            return await project_verdict(rt, app)

    verdicts = await asyncio.gather(*(judged(a) for a in watched))
    apps = [a for a, verdict in zip(watched, verdicts, strict=True) if not verdict.refused]
    wanted = {
        (s.repo_url, a.spec.project) for a in apps for s in a.spec.all_sources if is_watched(s)
    }
    listings = await _list_repos(rt, wanted)
    limit = asyncio.Semaphore(STATUS_READS)

    async def check(app: Application) -> None:
        async with limit:
            moved = await _moved(rt, app, listings)
            if moved is None:
                return
            ref = AppRef(app.namespace, app.name)
            await publish(rt.bus, REFRESH, RefreshRequest(ref, RefreshLevel.LATEST, moved.reason))
            refreshed.append(app.name)
            logger.info(
                "poll.revision_moved",
                app=str(ref),
                repo=moved.source.repo,
                revision=moved.source.revision,
                commit=moved.source.commit,
                previous=moved.previous,
            )

    refreshed: list[str] = []
    async with asyncio.TaskGroup() as group:
        for app in apps:
            group.create_task(check(app))
    logger.debug(
        "poll.done",
        repos=len(wanted),
        listed=len(listings),
        apps=len(apps),
        refreshed=len(refreshed),
    )
    return len(refreshed)


class Poller:
    """Polls every `interval` seconds while holding the poller lease."""

    name = "poller"

    def __init__(self, runtime: Runtime, interval: float | None = None) -> None:
        self._rt = runtime
        self.interval = runtime.settings.timing.git_poll if interval is None else interval
        self._lease = Lease(runtime.redis, LEASE, ttl=max(3 * self.interval, 1.0))
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.leading = False
        """Whether this replica held the lease at its last poll."""

    async def start(self) -> None:
        if self.interval <= 0:
            logger.info("poller.disabled", reason="timing.git_poll is 0")
            return
        self._task = asyncio.create_task(self._run(), name="poller")
        logger.info("poller.started", interval_s=self.interval)

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            await self._task
            self._task = None
        if self.leading:
            self.leading = False
            try:
                await self._lease.release()
            except (StoreError, RedisError, OSError) as e:
                logger.warning(
                    "poller.release_failed",
                    error=f"{type(e).__name__}: {e}",
                    consequence=f"another replica takes over once the lease expires "
                    f"({self._lease.ttl:g}s)",
                )
        logger.info("poller.stopped")

    async def _run(self) -> None:
        while not await self._stopped_within(self.interval):
            await self._tick()

    async def _stopped_within(self, seconds: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)
        return self._stopping.is_set()

    async def _tick(self) -> None:
        try:
            async with asyncio.timeout(max(self.interval, MIN_POLL_DEADLINE)):
                leading = (
                    self.leading and await self._lease.renew()
                ) or await self._lease.acquire()
                if leading != self.leading:
                    logger.info("poller.leadership", leading=leading)
                    self.leading = leading
                if leading:
                    with RECONCILE_DURATION.labels("poll").time():
                        await poll_once(self._rt)
        except Exception:
            # The loop outlives any one poll: an outage (Redis, NATS, a deadline) is logged
            # with its traceback and the next interval tries again.
            logger.exception("poll.failed", action=f"next poll in {self.interval:g}s")


def build(runtime: Runtime) -> Worker:
    return Poller(runtime)
