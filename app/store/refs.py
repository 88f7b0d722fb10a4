"""The refs cache: a repository's ls-remote listing, shared for a few seconds.

Resolving an app's targetRevision needs the repository's refs. When a resync asks 1,000
apps on one repository for their revisions within a few seconds, one ls-remote should
answer them all, on whichever replica they land. So the render worker and the poller
keep the last listing of each repository here for `ttl` seconds (default 5 s), and
renders below `force` reuse it; a `force` render lists afresh and replaces it.

A short TTL bounds how stale a resolution can be. A trigger that knows a repository has
just moved (a poll, a webhook) writes the new listing, or forgets the old one, before it
asks for refreshes, so the renders it causes never resolve against the listing from
before the push.

The key is a digest of the repository URL (`keys.refs`); the value is JSON
`{"refs": {ref name: commit}, "head": commit | null}`. An unreadable value is a miss.
"""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from app import log
from app.store import keys
from app.store.connection import Redis
from app.store.values import as_bytes

logger = log.get("store")

DEFAULT_TTL = 5.0
"""Seconds a listing is reused."""
MAX_REFS_BYTES = 16 << 20
"""Largest listing stored; a repository with more refs than that is listed every time."""

_COMMIT = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")


@dataclass(frozen=True, slots=True)
class CachedRefs:
    """A listing as stored: ref name → commit, and the commit HEAD points to."""

    refs: dict[str, str]
    head: str | None


class RefsCache:
    """Listings by repository URL for `ttl` seconds (`ttl <= 0`: nothing is cached)."""

    def __init__(self, redis: Redis, ttl: float = DEFAULT_TTL) -> None:
        self._redis = redis
        self.ttl = ttl

    async def get(self, repo_url: str) -> CachedRefs | None:
        """The listing stored less than `ttl` ago, or None (absent, expired, unreadable)."""
        if self.ttl <= 0:
            return None
        data = as_bytes(await self._redis.get(keys.refs(keys.repo_digest(repo_url))))
        if data is None:
            return None
        try:
            return _decode(data)
        except (ValueError, TypeError) as e:
            logger.warning(
                "value.unreadable", what="cached refs", error=str(e), action="treated as a miss"
            )
            return None

    async def put(self, repo_url: str, refs: Mapping[str, str], head: str | None) -> bool:
        """Store a fresh listing for `ttl` seconds; False (logged) if it is too large."""
        if self.ttl <= 0:
            return False
        data = json.dumps({"refs": dict(refs), "head": head}, separators=(",", ":")).encode()
        if len(data) > MAX_REFS_BYTES:
            logger.warning(
                "refs.not_cached",
                refs=len(refs),
                bytes=len(data),
                limit=MAX_REFS_BYTES,
                reason="listing larger than the refs cache limit; renders list it each time",
            )
            return False
        key = keys.refs(keys.repo_digest(repo_url))
        await self._redis.set(key, data, px=max(1, int(self.ttl * 1000)))
        return True

    async def forget(self, repo_url: str) -> None:
        """Drop the stored listing: the next render lists the repository afresh."""
        await self._redis.delete(keys.refs(keys.repo_digest(repo_url)))


def _decode(data: bytes) -> CachedRefs:
    doc = json.loads(data)
    if not isinstance(doc, dict):
        raise TypeError("entry is not a JSON object")
    refs = doc.get("refs")
    head = doc.get("head")
    if not isinstance(refs, dict):
        raise TypeError("refs is not an object")
    for name, commit in refs.items():
        if not isinstance(commit, str) or not _COMMIT.fullmatch(commit):
            raise ValueError(f"ref {name[:80]!r} does not name a commit")
    if head is not None and (not isinstance(head, str) or not _COMMIT.fullmatch(head)):
        raise ValueError("head does not name a commit")
    return CachedRefs(refs, head)
