"""Live objects per app, as the cluster watcher sees them, with a warm marker.

The watcher LISTs, then WATCHes; until its initial list for an app is in, the cache holds
a partial picture, and an object absent from a partial picture may exist in the cluster.
So the cache is either WARM (complete as of the watch) or COLD (partial, or unknown), and
readers get the state with the objects: an empty WARM cache means "the app has nothing
live", an empty COLD one means "nobody knows yet". Nothing may be pruned, and no app
called Missing, on the strength of a COLD cache.

`replace` installs a complete list and marks the app WARM in one transaction;
`put`/`delete` follow watch events; `invalidate` marks it COLD (watch lost, relisting).
An object that cannot be stored or read makes the app COLD: an incomplete cache must
not pass for a complete one.

The WARM marker names its keeper (the watcher leader's lease token), so a leader that
steps down cools only the caches it warmed itself: a new leader may have warmed them
again already, and its caches must not go COLD behind its back (it would never warm
them again, and every comparison of those apps would wait for good).
"""

import enum
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from app import jsonio, log
from app.model.identity import AppRef
from app.model.resource import KubeObject, ResourceKey
from app.store import keys
from app.store.connection import Redis
from app.store.errors import StoreError
from app.store.values import dumps

logger = log.get("store")

MAX_OBJECT_BYTES = 2 << 20
"""Largest object cached (etcd's own limit is 1.5 MiB)."""
_CHUNK = 500

_COOL_IF_KEPT_BY = """
local kept = redis.call('GET', KEYS[1])
if kept == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
if kept then
  return -1
end
return 0
"""


class CacheState(enum.Enum):
    COLD = "cold"
    """Partial or unknown: the initial list is not in, or the watch was lost."""
    WARM = "warm"
    """Complete as of the watch."""


@dataclass(frozen=True, slots=True)
class LiveSnapshot:
    state: CacheState
    objects: dict[ResourceKey, KubeObject]
    reason: str
    """Why the snapshot is COLD (shown in conditions and logs); empty when WARM."""

    @property
    def warm(self) -> bool:
        return self.state is CacheState.WARM


@dataclass(frozen=True, slots=True)
class StoredLive:
    """An app's cached live objects as stored, each object's JSON text not yet decoded:
    a reader that only needs to know whether they changed does not pay for decoding."""

    fields: dict[bytes, bytes]
    """Each object's stored JSON by its field (the object's key)."""
    warm: bool

    def digest(self) -> bytes:
        """The same for the same stored objects, whatever order Redis returns them in."""
        digest = hashlib.sha256()
        for name in sorted(self.fields):
            value = self.fields[name]
            for part in (name, value):
                digest.update(len(part).to_bytes(8, "big"))
                digest.update(part)
        return digest.digest()

    def decode(self) -> LiveSnapshot:
        """The objects decoded; COLD when one is unreadable (or the app is not warm)."""
        objects: dict[ResourceKey, KubeObject] = {}
        for name, data in self.fields.items():
            try:
                obj = jsonio.loads(data)
                if not isinstance(obj, dict):
                    raise TypeError("not a JSON object")
            except (ValueError, TypeError) as e:
                label = name.decode(errors="replace")
                logger.warning("value.unreadable", what=f"live object {label}", error=str(e))
                return LiveSnapshot(
                    CacheState.COLD, {}, f"cached live object {label} is unreadable"
                )
            objects[ResourceKey.of(obj)] = obj
        if not self.warm:
            return LiveSnapshot(
                CacheState.COLD, objects, "the cluster watcher has not finished listing this app"
            )
        return LiveSnapshot(CacheState.WARM, objects, "")


def _field(key: ResourceKey) -> str:
    return str(key)


class LiveCache:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._cool_if_kept_by = redis.register_script(_COOL_IF_KEPT_BY)

    def _encode(self, app: AppRef, obj: KubeObject) -> tuple[str, bytes]:
        key = ResourceKey.of(obj)
        what = f"live object {key} of {app.namespace}/{app.name}"
        return _field(key), dumps(obj, what=what, limit=MAX_OBJECT_BYTES)

    async def replace(
        self, app: AppRef, objects: Iterable[KubeObject], *, keeper: str = ""
    ) -> None:
        """Install the app's complete live set and mark it WARM, kept by `keeper`, atomically."""
        try:
            encoded = dict(self._encode(app, obj) for obj in objects)
        except StoreError:
            await self.invalidate(app, reason="an object is too large to cache")
            raise
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(keys.live(app))
            items = list(encoded.items())
            for start in range(0, len(items), _CHUNK):
                pipe.hset(keys.live(app), mapping=dict(items[start : start + _CHUNK]))
            pipe.set(keys.live_warm(app), keeper)
            await pipe.execute()
        logger.debug("live.replaced", app=f"{app.namespace}/{app.name}", objects=len(encoded))

    async def put(self, app: AppRef, obj: KubeObject) -> None:
        """Record an added or modified object."""
        try:
            name, data = self._encode(app, obj)
        except StoreError:
            await self.invalidate(app, reason="an object is too large to cache")
            raise
        await self._redis.hset(keys.live(app), name, data)

    async def delete(self, app: AppRef, key: ResourceKey) -> None:
        """Record a deleted object."""
        await self._redis.hdel(keys.live(app), _field(key))

    async def invalidate(self, app: AppRef, *, reason: str, keeper: str | None = None) -> None:
        """Mark the app COLD until the next `replace`; with `keeper`, only if `keeper`
        warmed it (another keeper's WARM cache is left as it is)."""
        name = f"{app.namespace}/{app.name}"
        if keeper is None:
            await self._redis.delete(keys.live_warm(app))
        elif int(await self._cool_if_kept_by(keys=[keys.live_warm(app)], args=[keeper])) < 0:
            logger.info("live.kept", app=name, reason="another watcher leader warmed it since")
            return
        logger.info("live.cold", app=name, reason=reason)

    async def read(self, app: AppRef) -> LiveSnapshot:
        """The app's live objects and whether they are complete."""
        return (await self.read_stored(app)).decode()

    async def read_stored(self, app: AppRef) -> StoredLive:
        """The app's live objects as stored (`StoredLive.decode` decodes them)."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(keys.live(app))
            pipe.exists(keys.live_warm(app))
            fields, warm = await pipe.execute()
        return StoredLive(fields, bool(warm))
