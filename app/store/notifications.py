"""What the notifications worker already sent, per Application object.

Argo CD keeps this on the Application (the `notified.notifications.argoproj.io`
annotation); Sluice keeps it in Redis under the object's uid
(`sluice:notified:{ns/app}:<uid>`, a sorted set: record key -> time sent), so a deleted
and re-created app starts afresh as in Argo CD, and the Application is not written on
every send. The newest `MAX_RECORDS` are kept (Argo CD keeps 100); a set unused for
`RECORD_TTL` expires with the object it described.

A delivery holds `sluice:notify-lock:{ns/app}:<digest>` while it sends, so two replicas
handed the same notification (a redelivery, two events racing) never both send it:
the second finds the lock, or after it the record.
"""

import time

from app.model.identity import AppRef
from app.store import keys
from app.store.connection import Redis
from app.store.leases import new_token

MAX_RECORDS = 200
RECORD_TTL = 30 * 24 * 3600
"""Seconds a record set outlives its last send (the object is gone by then, or it is re-sent)."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class NotificationRecords:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._release = redis.register_script(_RELEASE)

    async def sent(self, app: AppRef, uid: str) -> set[str]:
        """The record keys of every notification already sent for this object."""
        members = await self._redis.zrange(keys.notified(app, uid), 0, -1)
        return {m.decode() if isinstance(m, bytes) else str(m) for m in members}

    async def was_sent(self, app: AppRef, uid: str, record: str) -> bool:
        return await self._redis.zscore(keys.notified(app, uid), record) is not None

    async def record(self, app: AppRef, uid: str, record: str) -> None:
        key = keys.notified(app, uid)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {record: time.time()})
            pipe.zremrangebyrank(key, 0, -(MAX_RECORDS + 1))
            pipe.expire(key, RECORD_TTL)
            await pipe.execute()

    async def forget(self, app: AppRef, uid: str, records: list[str]) -> None:
        if records:
            await self._redis.zrem(keys.notified(app, uid), *records)

    async def lock(self, app: AppRef, record: str, ttl: float) -> str | None:
        """A token if this process may send `record` now; None while another sends it."""
        token = new_token()
        taken = await self._redis.set(
            keys.notify_lock(app, record), token, nx=True, px=max(1, int(ttl * 1000))
        )
        return token if taken else None

    async def unlock(self, app: AppRef, record: str, token: str) -> None:
        await self._release(keys=[keys.notify_lock(app, record)], args=[token])
