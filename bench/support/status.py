"""Every app's comparison result, read straight from the status store in one round trip.

The benchmark only needs sync status, revision, health and the comparison sequence of
each app, so it reads the stored JSON and picks those four fields rather than decoding
whole `ApplicationStatus` models 1,000 at a time while it measures.
"""

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from app.model.identity import AppRef
from app.store import keys
from app.store.connection import Redis

Condition = Callable[[AppRef, "AppState"], bool]
"""What `wait_until` waits for, app by app."""
POLL_SECONDS = 0.01
"""Pause between two reads while waiting (the figure's resolution for one app)."""
SENT: Counter[str] = Counter()
"""Redis commands `read` has sent in this process, by name (the fleet's counts leave them out)."""


@dataclass(frozen=True, slots=True)
class AppState:
    """What the benchmarks watch of one app's stored comparison."""

    seq: int = 0
    """Comparisons stored so far (0: never compared)."""
    sync: str = "Unknown"
    revision: str = ""
    health: str = "Unknown"

    @staticmethod
    def settled(revision: str | None = None) -> Condition:
        """A `wait_until` condition: Synced and Healthy (at `revision`, when given)."""
        return lambda _ref, state: state.settled_at(revision)

    def settled_at(self, revision: str | None = None) -> bool:
        """Synced and Healthy (at `revision`, when given)."""
        return (
            self.sync == "Synced"
            and self.health == "Healthy"
            and (revision is None or self.revision == revision)
        )


async def read(redis: Redis, apps: Iterable[AppRef]) -> dict[AppRef, AppState]:
    """The stored state of each app (a default AppState for one never compared)."""
    refs = list(apps)
    SENT["HMGET"] += len(refs)
    async with redis.pipeline(transaction=False) as pipe:
        for ref in refs:
            pipe.hmget(keys.status(ref), ["seq", "status"])
        replies = await pipe.execute()
    states = {}
    for ref, (seq, data) in zip(refs, replies, strict=True):
        if data is None:
            states[ref] = AppState()
            continue
        doc = json.loads(data)
        sync = doc.get("sync") or {}
        states[ref] = AppState(
            int(seq),
            sync.get("status", "Unknown"),
            sync.get("revision", ""),
            (doc.get("health") or {}).get("status", "Unknown"),
        )
    return states


async def wait_until(
    redis: Redis,
    apps: Iterable[AppRef],
    done: Condition,
    *,
    within: float,
    what: str,
    interval: float = POLL_SECONDS,
) -> dict[AppRef, AppState]:
    """Read until `done` holds for every app; TimeoutError naming how many did not get there."""
    waiting = set(apps)
    deadline = time.monotonic() + within
    last: Mapping[AppRef, AppState] = {}
    reached: dict[AppRef, AppState] = {}
    while True:
        last = await read(redis, waiting)
        for ref, state in last.items():
            if done(ref, state):
                reached[ref] = state
        waiting -= reached.keys()
        if not waiting:
            return reached
        if time.monotonic() > deadline:
            sample = sorted(waiting, key=str)[0]
            raise TimeoutError(
                f"{len(waiting)} apps not {what} after {within:g} s (e.g. {sample}: {last[sample]})"
            )
        await asyncio.sleep(interval)
