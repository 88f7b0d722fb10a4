"""Repositories' connection states, shared by every API replica for `TTL` seconds.

Argo CD's API server caches each repository's "Connection Status" (its
`--connection-status-cache-expiration`, 1 h) so that listing repositories does not run
an ls-remote per repository per request. Sluice keeps them for `TTL` (10 min, shorter:
a state a user acts on should be recent) in one hash: field = a digest of the
repository's URL and project, value = JSON `{"status", "message", "attemptedAt", "at"}`
(`at`: Unix time it was measured). A state older than the TTL, or unreadable, is a miss.
`validate`, a create or update through the API, and `forceRefresh=true` measure afresh
and replace it; any change of the repository Secrets, templates or trust ConfigMaps
empties the hash (`clear`, called once per change by the process that claims it).
"""

import json
import time
from dataclasses import dataclass

from app.store import keys
from app.store.connection import Redis
from app.store.values import as_bytes

TTL = 600.0
"""Seconds a connection state is served from the cache."""
_MAX_MESSAGE = 2048


@dataclass(frozen=True, slots=True)
class CachedState:
    status: str
    message: str
    attempted_at: str


def _field(url: str, project: str) -> str:
    return keys.repo_digest(f"{project}\0{url}")


class ConnectionStates:
    def __init__(self, redis: Redis, ttl: float = TTL) -> None:
        self._redis = redis
        self._ttl = ttl

    async def get(self, url: str, project: str) -> CachedState | None:
        raw = as_bytes(await self._redis.hget(keys.REPO_CONNECTIONS, _field(url, project)))
        if raw is None:
            return None
        try:
            doc = json.loads(raw)
            state = CachedState(str(doc["status"]), str(doc["message"]), str(doc["attemptedAt"]))
            fresh = time.time() - float(doc["at"]) < self._ttl
        except (ValueError, KeyError, TypeError):
            return None
        return state if fresh else None

    async def put(self, url: str, project: str, state: CachedState) -> None:
        doc = {
            "status": state.status,
            "message": state.message[:_MAX_MESSAGE],
            "attemptedAt": state.attempted_at,
            "at": time.time(),
        }
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(keys.REPO_CONNECTIONS, _field(url, project), json.dumps(doc))
            pipe.expire(keys.REPO_CONNECTIONS, int(self._ttl) + 1)
            await pipe.execute()

    async def clear(self) -> None:
        await self._redis.delete(keys.REPO_CONNECTIONS)
