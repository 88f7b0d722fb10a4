"""Single-flight: concurrent callers asking for the same key share one execution.

The shared work runs as its own task, so one caller being cancelled does not cancel it for
the others; when every caller has gone away, the work is cancelled too. The key is
forgotten as soon as the work finishes, so a later call starts afresh (this is coalescing
of simultaneous requests, not a cache).
"""

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass
class _Call(Generic[V]):
    task: "asyncio.Future[V]"
    waiters: int = 0


class SingleFlight(Generic[K, V]):
    def __init__(self) -> None:
        self._calls: dict[K, _Call[V]] = {}

    def in_flight(self, key: K) -> bool:
        return key in self._calls

    async def run(self, key: K, work: Callable[[], Awaitable[V]]) -> V:
        """The result of `work()`, or of the execution already running for `key`."""
        call = self._calls.get(key)
        if call is None:
            call = _Call(asyncio.ensure_future(work()))
            self._calls[key] = call
            call.task.add_done_callback(lambda _: self._forget(key, call))
        call.waiters += 1
        try:
            return await asyncio.shield(call.task)
        finally:
            call.waiters -= 1
            if call.waiters == 0 and not call.task.done():
                self._forget(key, call)
                call.task.cancel()

    def _forget(self, key: K, call: _Call[V]) -> None:
        if self._calls.get(key) is call:
            del self._calls[key]
