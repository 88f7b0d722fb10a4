"""Gauges computed when the registry is scraped.

Some series describe state that lives elsewhere (every app's status in Redis, the
clusters a watcher keeps): the component that knows it adds a refresh hook, and whoever
serves the registry (`app.runtime.metrics_server`, the API's `/metrics`) awaits every
hook before it writes the exposition. A hook that fails or runs over `deadline` is logged
and its gauges keep their last values; the scrape is never failed for it.

    remove = HOOKS.add("watcher", refresh)     # refresh: async () -> None
    ...
    remove()                                   # this process stopped knowing
"""

import asyncio
from collections.abc import Awaitable, Callable

from app import log

logger = log.get("metrics")

Refresh = Callable[[], Awaitable[None]]


class ScrapeHooks:
    """The refresh hooks of this process, awaited before every scrape."""

    def __init__(self) -> None:
        self._hooks: dict[int, tuple[str, Refresh]] = {}
        self._next = 0

    def add(self, name: str, refresh: Refresh) -> Callable[[], None]:
        """Run `refresh` before every scrape until the returned function is called."""
        key = self._next
        self._next += 1
        self._hooks[key] = (name, refresh)

        def remove() -> None:
            self._hooks.pop(key, None)

        return remove

    async def run(self, deadline: float = 5.0) -> None:
        """Every hook, concurrently, each within `deadline` seconds."""

        async def one(name: str, refresh: Refresh) -> None:
            try:
                async with asyncio.timeout(deadline):
                    await refresh()
            except Exception as e:  # noqa: BLE001 - a gauge source failing must not fail the scrape
                logger.warning(
                    "metrics.refresh_failed",
                    source=name,
                    error=f"{type(e).__name__}: {e}",
                    consequence="its gauges keep their last values",
                )

        await asyncio.gather(*(one(name, refresh) for name, refresh in list(self._hooks.values())))


HOOKS = ScrapeHooks()
