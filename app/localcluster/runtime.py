"""The reconcile loop every system reconciler and simulated controller runs on.

A reconciler observes changes (synchronously, from the change log) and answers which
objects to reconcile and after how long; the runtime keeps one pending entry per
(reconciler, object), with the earliest due time, and calls `reconcile` when it is due.
`reconcile` is synchronous (the object API is) and returns when to look again, if ever.
Work is done in batches that yield to the event loop, so a burst of thousands of changes
never starves request handling.
"""

import asyncio
import heapq
import itertools
import time
from collections.abc import Iterable
from typing import Protocol

from app import log
from app.localcluster.errors import ApiError
from app.localcluster.eventlog import Change, EventLog
from app.localcluster.resources import GroupResource
from app.localcluster.store import ObjectRef

logger = log.get("localcluster.runtime")

BATCH = 200
RETRY_AFTER_CONFLICT = 0.05
RETRY_AFTER_ERROR = 1.0


class Reconciler(Protocol):
    name: str
    """Names the reconciler in logs and queue keys."""
    resources: tuple[GroupResource | None, ...]
    """Resources whose changes `observe` sees (None: every resource)."""

    def observe(self, change: Change) -> Iterable[tuple[ObjectRef, float]]:
        """Objects to reconcile because of `change`, each with a delay in seconds."""
        ...

    def reconcile(self, ref: ObjectRef) -> float | None:
        """Bring `ref` one step closer to where it should be; seconds until next look."""
        ...


class Runtime:
    """A due-time queue of (reconciler, object) keys and the task that works it off."""

    def __init__(self, events: EventLog) -> None:
        self._events = events
        self._reconcilers: dict[str, Reconciler] = {}
        self._due: dict[tuple[str, ObjectRef], float] = {}
        self._heap: list[tuple[float, int, tuple[str, ObjectRef]]] = []
        self._seq = itertools.count()
        self._wake = asyncio.Event()

    def register(self, reconciler: Reconciler) -> None:
        self._reconcilers[reconciler.name] = reconciler

        def listener(change: Change) -> None:
            for ref, delay in reconciler.observe(change):
                self.enqueue(reconciler.name, ref, delay)

        for resource in reconciler.resources:
            self._events.listen(resource, listener)

    def replay(self, change: Change) -> None:
        """Let every interested reconciler observe `change` (objects loaded from a snapshot)."""
        for reconciler in self._reconcilers.values():
            if None in reconciler.resources or change.resource in reconciler.resources:
                for ref, delay in reconciler.observe(change):
                    self.enqueue(reconciler.name, ref, delay)

    def enqueue(self, name: str, ref: ObjectRef, delay: float = 0.0) -> None:
        """Reconcile `ref` with reconciler `name` in `delay` seconds (earliest request wins)."""
        due = time.monotonic() + delay
        key = (name, ref)
        current = self._due.get(key)
        if current is not None and current <= due:
            return
        self._due[key] = due
        heapq.heappush(self._heap, (due, next(self._seq), key))
        self._wake.set()

    def _run_one(self, key: tuple[str, ObjectRef]) -> None:
        name, ref = key
        try:
            again = self._reconcilers[name].reconcile(ref)
        except ApiError as e:
            again = RETRY_AFTER_CONFLICT if e.code == 409 else RETRY_AFTER_ERROR
            logger.debug(
                "reconcile refused",
                reconciler=name,
                object=str(ref),
                reason=e.reason,
                error=e.message,
            )
        except Exception:  # one object's failure must not stop the controller
            logger.exception("reconcile failed", reconciler=name, object=str(ref))
            again = RETRY_AFTER_ERROR
        if again is not None:
            self.enqueue(name, ref, again)

    async def run(self) -> None:
        """Work off due keys until cancelled."""
        while True:
            done = 0
            while self._heap and self._heap[0][0] <= time.monotonic():
                due, _, key = heapq.heappop(self._heap)
                if self._due.get(key) != due:
                    continue
                del self._due[key]
                self._run_one(key)
                done += 1
                if done % BATCH == 0:
                    await asyncio.sleep(0)
            self._wake.clear()
            wait = self._heap[0][0] - time.monotonic() if self._heap else None
            if wait is not None and wait <= 0:
                continue
            try:
                await asyncio.wait_for(self._wake.wait(), wait)
            except TimeoutError:
                continue
