"""Rendered manifests, cached by (repo, commit, source spec), verified on every read.

The render worker stores what it rendered for a source at a commit; any app with the
same source spec at the same commit reuses it. An entry expires after `ttl`. Each entry
carries a digest of its bytes: SHA-256, or HMAC-SHA-256 when a cache secret is set
(then someone who can write to Redis but does not hold the secret cannot plant a render).
An entry whose digest does not verify is a miss: logged, deleted, rendered again. A
`force` refresh simply does not read the cache.
"""

import hashlib
import hmac
import re
from dataclasses import dataclass, field
from typing import Any

from app import jsonio, log
from app.model.resource import KubeObject
from app.store import keys
from app.store.connection import Redis
from app.store.values import Fields
from app.store.values import field as hash_field

logger = log.get("store")

_COMMIT = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
_SPEC_HASH = re.compile(r"[0-9a-f]{16,128}")


@dataclass(frozen=True, slots=True)
class ManifestKey:
    """Which render: the repository, the resolved commit, the source-spec hash."""

    repo_url: str
    commit: str
    """40 (SHA-1) or 64 (SHA-256) lowercase hex digits: a resolved commit, never a branch."""
    spec_hash: str
    """`app.repo.sourcehash.source_hash(source)`: everything else that shapes the render."""

    def __post_init__(self) -> None:
        if not _COMMIT.fullmatch(self.commit):
            raise ValueError(
                f"manifest cache key needs a resolved commit (40 or 64 hex digits), "
                f"got {self.commit!r}; resolve the revision first"
            )
        if not _SPEC_HASH.fullmatch(self.spec_hash):
            raise ValueError(f"source spec hash must be lowercase hex, got {self.spec_hash!r}")


@dataclass(frozen=True, slots=True)
class RenderedManifests:
    """What a render produced for one source at one commit."""

    manifests: list[KubeObject]
    source_type: str = ""
    """Directory, Kustomize, Helm, Plugin (Argo CD's spelling)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Whatever else the render worker wants back with it (kept as JSON)."""


@dataclass(frozen=True, slots=True)
class ManifestCacheSettings:
    ttl: float = 24 * 3600.0
    """Seconds an entry lives (a commit's render never changes; this bounds memory)."""
    max_bytes: int = 32 << 20
    """Largest entry stored; a larger render is not cached (and says so in the log)."""
    secret: bytes = b""
    """HMAC key for the digests; empty means plain SHA-256 (detects corruption, not forgery)."""


class ManifestCache:
    def __init__(self, redis: Redis, settings: ManifestCacheSettings | None = None) -> None:
        self._redis = redis
        self._settings = settings or ManifestCacheSettings()

    def _digest(self, data: bytes) -> str:
        secret = self._settings.secret
        if secret:
            return "hmac-sha256:" + hmac.new(secret, data, hashlib.sha256).hexdigest()
        return "sha256:" + hashlib.sha256(data).hexdigest()

    async def put(self, key: ManifestKey, rendered: RenderedManifests) -> bool:
        """Cache a render; False (logged) if it is over `max_bytes` and was not stored."""
        doc = {
            "manifests": rendered.manifests,
            "sourceType": rendered.source_type,
            "extra": rendered.extra,
        }
        data = jsonio.dumps(doc)
        if len(data) > self._settings.max_bytes:
            logger.warning(
                "manifests.not_cached",
                commit=key.commit,
                bytes=len(data),
                limit=self._settings.max_bytes,
                reason="render larger than the cache entry limit",
            )
            return False
        name = keys.manifests(key.repo_url, key.commit, key.spec_hash)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(name)
            pipe.hset(name, mapping={"data": data, "digest": self._digest(data)})
            pipe.pexpire(name, int(self._settings.ttl * 1000))
            await pipe.execute()
        return True

    async def get(self, key: ManifestKey) -> RenderedManifests | None:
        """The cached render, or None on a miss (absent, expired, or failing verification)."""
        name = keys.manifests(key.repo_url, key.commit, key.spec_hash)
        fields: Fields = await self._redis.hgetall(name)
        if not fields:
            return None
        data = hash_field(fields, "data") or b""
        digest = hash_field(fields, "digest") or b""
        if not hmac.compare_digest(digest, self._digest(data).encode()):
            logger.warning(
                "manifests.integrity_failed",
                commit=key.commit,
                spec_hash=key.spec_hash,
                action="deleted; treated as a miss",
            )
            await self._redis.delete(name)
            return None
        try:
            doc = jsonio.loads(data)
            if not isinstance(doc, dict):
                raise TypeError("entry is not a JSON object")
            manifests = doc["manifests"]
            if not isinstance(manifests, list) or not all(isinstance(m, dict) for m in manifests):
                raise TypeError("manifests is not a list of objects")
            return RenderedManifests(
                manifests, str(doc.get("sourceType", "")), dict(doc.get("extra") or {})
            )
        except (ValueError, KeyError, TypeError) as e:
            logger.warning(
                "value.unreadable",
                what="cached manifests",
                error=str(e),
                action="treated as a miss",
            )
            return None
