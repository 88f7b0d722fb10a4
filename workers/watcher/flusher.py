"""What one cluster's watch produces, written and published in batches.

Event handlers only record what changed (synchronously, in memory); one task per cluster
writes it out. Whatever piled up while a batch was being written forms the next one, so
a quiet cluster's change goes out at once and a busy one's in few round trips:

1. apps gone: live cache marked COLD, tree deleted;
2. apps to warm: `LiveCache.replace` with every object the app tracks, read from the
   index at that moment (so it is never older than the changes recorded after it); an
   app the directory does not know yet is left COLD (warmed when it becomes known);
3. object changes of warm apps: one Redis pipeline, one HSET and one HDEL per app, on
   the live cache (each object encoded once per batch however often it changed);
4. refreshes of the changes written in 2-3 (a change recorded while they were in flight
   waits for the next batch, so a comparison never runs before the live cache holds
   what it was asked about): at most one per app per `refresh_window`, merged by level.
   Those of an app whose operation is running are held: the operation's end publishes a
   refresh after it is stored as ended, so once this watcher reads the operation ended
   (or another one running), every change it held, written before it read the operation
   running, is compared by that refresh and is dropped. A held change is sent anyway
   after `operation_refresh_window` (a long sync still shows its progress). And, at most
   once per app per `wake_window`, for each changed app whose operation is running, a
   SyncStep for its current step ("cluster changed") wakes a waiting step
   (de-duplicated per step by the bus);
5. resource trees of changed apps, at most once per app per `tree_interval`, one pipeline.

A batch that fails (Redis or NATS unavailable) is kept and tried again after
`retry_delay`; live writes whose outcome is unknown re-warm their apps from the index.
"""

import asyncio
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

import redis.exceptions
from redis.typing import EncodableT, FieldT

from app import log
from app.bus.errors import BusError
from app.bus.messages import REFRESH, SYNC, RefreshRequest, SyncStep
from app.bus.publish import publish
from app.engine.refresh_triggers import RefreshAsk
from app.engine.resource_tree import ResourceTree, TreeNode
from app.model.identity import AppRef
from app.model.resource import KubeObject, ResourceKey
from app.model.sync import OperationPhase, RefreshLevel
from app.runtime.runtime import Runtime
from app.store import keys
from app.store.errors import StoreError
from app.store.livecache import MAX_OBJECT_BYTES
from app.store.values import within_limit
from workers.watcher.cancellation import stop_if_cancelled
from workers.watcher.settings import WatcherSettings

logger = log.get("watcher.flusher", stage="watcher")

FAILURES = (redis.exceptions.RedisError, OSError, TimeoutError, BusError, StoreError)
PIPELINE_COMMANDS = 1000
"""Commands sent per pipeline round trip."""
RUNNING = {OperationPhase.RUNNING.value.encode(), OperationPhase.TERMINATING.value.encode()}
WAKE_REASON = "cluster changed"
ORPHANS_CHANGED = "the orphaned resources in the app's namespace changed"


def _node_key(node: TreeNode) -> str:
    return "/".join(str(node.get(k, "")) for k in ("group", "kind", "namespace", "name"))


class Sources(Protocol):
    """What the flusher reads from the watch at the moment it writes."""

    def tracked(self, ref: AppRef) -> list[KubeObject] | None:
        """Every object the app tracks; None if the app is not known (yet)."""
        ...

    def tree(self, ref: AppRef) -> ResourceTree: ...


@dataclass(slots=True)
class _Pending:
    level: RefreshLevel
    reason: str
    more: int = 0

    def add(self, ask: RefreshAsk) -> None:
        self.level = max(self.level, ask.level)
        if ask.reason != self.reason:
            self.more += 1

    def absorb(self, later: "_Pending") -> None:
        """Merge the asks that came after these (their reasons counted as more)."""
        self.level = max(self.level, later.level)
        self.more += later.more + (later.reason != self.reason)

    @property
    def text(self) -> str:
        return f"{self.reason} (and {self.more} more changes)" if self.more else self.reason


@dataclass(slots=True)
class _Held:
    """Refresh asks held while the app's operation runs."""

    pending: _Pending
    since: float
    operation: str
    """The operation that was running: once it is not, its end has refreshed the app."""
    patience: float
    """Seconds the asks wait for that refresh before they go out anyway."""


@dataclass(frozen=True, slots=True)
class _Operation:
    """An app's operation as the flusher reads it."""

    id: str
    step: int | None
    """The step to wake (None: none to wake)."""
    finishing: bool = False
    """Ended, not finalized yet: the refresh of its end is still to come."""


class Flusher:
    def __init__(
        self,
        rt: Runtime,
        settings: WatcherSettings,
        sources: Sources,
        *,
        cluster: str,
        keeper: str,
    ) -> None:
        self._rt = rt
        self._settings = settings
        self._sources = sources
        self._keeper = keeper
        """Who this leader is to the live cache (its lease token): the caches it warms."""
        self._log = logger.bind(cluster=cluster)
        self._wake = asyncio.Event()
        self._limit = asyncio.Semaphore(settings.concurrency)
        self.warmed: set[AppRef] = set()
        """Apps whose live cache this leader completed; only their object changes are written."""
        self._warming: set[AppRef] = set()
        self._forgetting: set[AppRef] = set()
        self._live: dict[AppRef, dict[ResourceKey, bytes | None]] = {}
        """Changed objects of warm apps, as their JSON (None: deleted), until the next batch."""
        self._asks: dict[AppRef, _Pending] = {}
        self._wakes: set[AppRef] = set()
        """Apps changed since their last wake-up check."""
        self._trees: set[AppRef] = set()
        self._last_refresh: dict[AppRef, float] = {}
        self._held: dict[AppRef, _Held] = {}
        self._last_wake: dict[AppRef, float] = {}
        self._woken: dict[AppRef, tuple[str, int]] = {}
        """The step last woken per app: waking it again is a no-op (the step moves on when
        it runs, and the bus drops a repeat), so it is not published twice."""
        self._last_tree: dict[AppRef, float] = {}
        self._orphans: dict[AppRef, tuple[str, ...]] = {}
        """The orphans last listed in each app's tree."""

    def warm(self, ref: AppRef) -> None:
        """Install the app's complete live set (from the index) at the next batch."""
        self._forgetting.discard(ref)
        self._warming.add(ref)
        self._trees.add(ref)
        self._wake.set()

    def object_changed(self, ref: AppRef, key: ResourceKey, raw: bytes | None) -> None:
        """An object of a warm app changed: its compact JSON (None: deleted)."""
        self._live.setdefault(ref, {})[key] = raw
        self._wake.set()

    def ask(self, ref: AppRef, ask: RefreshAsk) -> None:
        pending = self._asks.get(ref)
        if pending is None:
            self._asks[ref] = _Pending(ask.level, ask.reason)
        else:
            pending.add(ask)
        self._wakes.add(ref)
        self._wake.set()

    def tree_changed(self, ref: AppRef) -> None:
        self._trees.add(ref)
        self._wake.set()

    def forget(self, ref: AppRef) -> None:
        """The app is gone or deploys elsewhere now: drop what is pending, mark it COLD."""
        self.warmed.discard(ref)
        self._warming.discard(ref)
        self._live.pop(ref, None)
        self._asks.pop(ref, None)
        self._wakes.discard(ref)
        self._trees.discard(ref)
        self._last_refresh.pop(ref, None)
        self._held.pop(ref, None)
        self._last_wake.pop(ref, None)
        self._woken.pop(ref, None)
        self._last_tree.pop(ref, None)
        self._orphans.pop(ref, None)
        self._forgetting.add(ref)
        self._wake.set()

    async def cool(self, refs: Iterable[AppRef], reason: str) -> None:
        """Mark apps COLD now, whoever warmed them (this leader starts keeping them)."""
        self.warmed.difference_update(refs)
        await self._each(refs, lambda ref: self._rt.live.invalidate(ref, reason=reason))

    async def cool_mine(self, refs: Iterable[AppRef], reason: str) -> None:
        """Mark apps COLD now if this leader warmed them (it stops keeping them); those a
        newer leader warmed meanwhile stay WARM."""
        self.warmed.difference_update(refs)
        keeper = self._keeper
        await self._each(
            refs, lambda ref: self._rt.live.invalidate(ref, reason=reason, keeper=keeper)
        )

    async def run(self) -> None:
        while True:
            stop_if_cancelled()
            delay = self._next_due(time.monotonic())
            if delay is None or delay > 0:
                try:
                    async with asyncio.timeout(delay):
                        await self._wake.wait()
                except TimeoutError:
                    pass
            self._wake.clear()
            try:
                await self._flush()
            except FAILURES as e:
                self._log.warning(
                    "flush.failed",
                    error=f"{type(e).__name__}: {e}",
                    retry_in=self._settings.retry_delay,
                )
                await asyncio.sleep(self._settings.retry_delay)

    def _next_due(self, now: float) -> float | None:
        if self._forgetting or self._warming or self._live:
            return 0.0
        due = math.inf
        window, interval = self._settings.refresh_window, self._settings.tree_interval
        for ref in self._asks:
            due = min(due, self._last_refresh.get(ref, -math.inf) + window)
        for held in self._held.values():
            due = min(due, held.since + held.patience)
        for ref in self._wakes:
            due = min(due, self._last_wake.get(ref, -math.inf) + self._settings.wake_window)
        for ref in self._trees:
            if ref in self.warmed:
                due = min(due, self._last_tree.get(ref, -math.inf) + interval)
        return None if due == math.inf else max(0.0, due - now)

    async def _each(
        self, refs: Iterable[AppRef], call: Callable[[AppRef], Awaitable[None]]
    ) -> None:
        """`call` for every app, a bounded number at a time; all finish before the first
        failure is raised."""

        async def bounded(ref: AppRef) -> None:
            async with self._limit:
                await call(ref)

        outcomes = await asyncio.gather(*(bounded(ref) for ref in refs), return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome

    async def _flush(self) -> None:
        # Only the asks recorded before this batch's live writes may go out after them:
        # a change recorded while they are in flight is written (and asked for) next time.
        ready, self._asks = self._asks, {}
        try:
            await self._forget_apps()
            await self._warm_apps()
            await self._write_live()
        except FAILURES:
            self._keep(ready)
            raise
        now = time.monotonic()
        await self._refresh(ready, now)
        await self._write_trees(now)

    def _orphans_changed(self, trees: Mapping[AppRef, ResourceTree]) -> None:
        """Apps whose orphans changed are compared again (`nothing`) once their tree with
        the new orphans is stored, so the OrphanedResourceWarning follows."""
        for ref, tree in trees.items():
            found = tuple(sorted(_node_key(node) for node in tree.orphaned))
            if self._orphans.get(ref, ()) != found:
                self._orphans[ref] = found
                self.ask(ref, RefreshAsk(RefreshLevel.NOTHING, ORPHANS_CHANGED))

    def _keep(self, asks: dict[AppRef, _Pending]) -> None:
        """Put asks back ahead of those recorded since."""
        for ref, pending in asks.items():
            later = self._asks.get(ref)
            if later is not None:
                pending.absorb(later)
            self._asks[ref] = pending

    async def _forget_apps(self) -> None:
        refs, self._forgetting = self._forgetting, set()

        async def forget(ref: AppRef) -> None:
            await self._rt.live.invalidate(ref, reason="the Application is gone from this cluster")
            await self._rt.tree.delete(ref)

        try:
            await self._each(refs, forget)
        except FAILURES:
            self._forgetting |= refs
            raise

    async def _warm_apps(self) -> None:
        refs, self._warming = self._warming, set()
        failed: list[AppRef] = []

        async def warm(ref: AppRef) -> None:
            self._live.pop(ref, None)
            objects = self._sources.tracked(ref)
            if objects is None:
                return
            self.warmed.add(ref)
            try:
                await self._rt.live.replace(ref, objects, keeper=self._keeper)
            except StoreError as e:
                self.warmed.discard(ref)
                self._log.warning("live.unwarmable", app=str(ref), error=str(e))
            except FAILURES:
                self.warmed.discard(ref)
                failed.append(ref)
                raise
            else:
                self._log.debug("live.warm", app=str(ref), objects=len(objects))

        try:
            await self._each(refs, warm)
        finally:
            self._warming.update(failed)

    async def _write_live(self) -> None:
        batch = {ref: changes for ref, changes in self._live.items() if ref in self.warmed}
        self._live = {}
        commands = 0
        unstorable: dict[AppRef, str] = {}
        try:
            pipe = self._rt.redis.pipeline(transaction=False)
            for ref, changes in batch.items():
                written: dict[FieldT, EncodableT] = {}
                deleted: list[str] = []
                for key, raw in changes.items():
                    if raw is None:
                        deleted.append(str(key))
                        continue
                    try:
                        written[str(key)] = within_limit(
                            raw, what=f"live object {key}", limit=MAX_OBJECT_BYTES
                        )
                    except StoreError as e:
                        unstorable[ref] = str(e)
                if written:
                    pipe.hset(keys.live(ref), mapping=written)
                if deleted:
                    pipe.hdel(keys.live(ref), *deleted)
                commands += bool(written) + bool(deleted)
                if commands >= PIPELINE_COMMANDS:
                    await pipe.execute()
                    commands = 0
            await pipe.execute()
        except FAILURES:
            for ref in batch:
                self.warmed.discard(ref)
                self._warming.add(ref)
            raise
        for ref, reason in unstorable.items():
            self.warmed.discard(ref)
            await self._rt.live.invalidate(ref, reason=reason)

    async def _refresh(self, ready: dict[AppRef, _Pending], now: float) -> None:
        window = self._settings.refresh_window
        due = {
            ref: pending
            for ref, pending in ready.items()
            if now - self._last_refresh.get(ref, -math.inf) >= window
        }
        self._keep({ref: pending for ref, pending in ready.items() if ref not in due})
        wake_window = self._settings.wake_window
        wakes = [r for r in self._wakes if now - self._last_wake.get(r, -math.inf) >= wake_window]
        asked = due.keys() | self._held.keys() | set(wakes)
        if not asked:
            return
        try:
            running = await self._running(asked)
        except FAILURES:
            self._keep(due)
            raise
        sends = self._hold(due, running, now)
        if sends:
            await self._send_refreshes(sends, now)
        await self._wake_operations(wakes, running, now)

    async def _running(self, refs: Iterable[AppRef]) -> dict[AppRef, _Operation]:
        """The operation of each of these apps that runs, or has ended and is not
        finalized yet (its end's refresh is still to be published)."""
        listed = list(refs)
        async with self._rt.redis.pipeline(transaction=False) as pipe:
            for ref in listed:
                pipe.hmget(keys.operation(ref), "id", "step", "phase", "finalized")
            found = await pipe.execute()
        operations = {}
        for ref, (operation, step, phase, finalized) in zip(listed, found, strict=True):
            if not operation or phase is None:
                continue
            if phase in RUNNING:
                current = None if step is None else int(step)
                operations[ref] = _Operation(operation.decode(), current)
            elif not finalized:
                operations[ref] = _Operation(operation.decode(), None, finishing=True)
        return operations

    def _hold(
        self,
        due: dict[AppRef, _Pending],
        running: dict[AppRef, _Operation],
        now: float,
    ) -> dict[AppRef, _Pending]:
        """The asks to send now; those of apps with a running operation are held."""
        for ref, held in list(self._held.items()):
            if ref in running and running[ref].id == held.operation:
                continue
            del self._held[ref]
            self._log.debug("refresh.covered", app=str(ref), operation=held.operation,
                            reason=held.pending.text)  # fmt: skip
        sends: dict[AppRef, _Pending] = {}
        for ref, pending in due.items():
            if ref not in running:
                sends[ref] = pending
            elif ref in self._held:
                self._held[ref].pending.absorb(pending)
            else:
                operation = running[ref]
                patience = (
                    self._settings.finishing_wait
                    if operation.finishing
                    else self._settings.operation_refresh_window
                )
                self._held[ref] = _Held(pending, now, operation.id, patience)
        for ref, held in list(self._held.items()):
            if now - held.since >= held.patience:
                sends[ref] = held.pending
                del self._held[ref]
        return sends

    async def _send_refreshes(self, asks: dict[AppRef, _Pending], now: float) -> None:
        for ref in asks:
            self._last_refresh[ref] = now
        sent: set[AppRef] = set()

        async def send(ref: AppRef) -> None:
            pending = asks[ref]
            await publish(self._rt.bus, REFRESH, RefreshRequest(ref, pending.level, pending.text))
            sent.add(ref)
            self._log.debug("refresh.requested", app=str(ref), level=pending.level.name.lower(),
                            reason=pending.text)  # fmt: skip

        try:
            await self._each(asks, send)
        except FAILURES:
            self._keep({ref: pending for ref, pending in asks.items() if ref not in sent})
            raise

    async def _wake_operations(
        self,
        refs: list[AppRef],
        running: dict[AppRef, _Operation],
        now: float,
    ) -> None:
        if not refs:
            return
        self._wakes.difference_update(refs)
        for ref in refs:
            self._last_wake[ref] = now
        steps = [
            SyncStep(ref, running[ref].id, step, WAKE_REASON)
            for ref in refs
            if ref in running and (step := running[ref].step) is not None
        ]
        by_ref = {
            message.app: message
            for message in steps
            if self._woken.get(message.app) != (message.operation, message.step)
        }

        async def wake(ref: AppRef) -> None:
            message = by_ref[ref]
            await publish(self._rt.bus, SYNC, message)
            self._woken[ref] = (message.operation, message.step)
            self._log.debug("sync.woken", app=str(ref), operation=message.operation,
                            step=message.step)  # fmt: skip

        try:
            await self._each(by_ref, wake)
        except FAILURES:
            self._wakes.update(refs)
            raise

    async def _write_trees(self, now: float) -> None:
        interval = self._settings.tree_interval
        due = [
            ref
            for ref in self._trees
            if ref in self.warmed and now - self._last_tree.get(ref, -math.inf) >= interval
        ]
        if not due:
            return
        self._trees.difference_update(due)
        trees = {ref: self._sources.tree(ref) for ref in due}
        try:
            refused = await self._rt.tree.save_many(
                {ref: t.nodes for ref, t in trees.items()},
                {ref: t.orphaned for ref, t in trees.items() if t.orphaned},
            )
        except FAILURES:
            self._trees.update(due)
            raise
        for ref in due:
            self._last_tree[ref] = now
        self._orphans_changed(trees)
        for reason in refused:
            self._log.warning("tree.unsaved", error=reason)
        for ref, tree in trees.items():
            if tree.omitted:
                self._log.warning("tree.truncated", app=str(ref), omitted=tree.omitted,
                                  kept=len(tree.nodes))  # fmt: skip
