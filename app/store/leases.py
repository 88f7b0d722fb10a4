"""Leases: exclusive ownership of a name for a while, renewed while held.

`SET NX PX` with a random token takes a lease; renewing and releasing check the token in
Lua, so a holder whose lease expired (and was taken by another) can neither extend nor
release the new holder's lease. A holder that dies simply stops renewing; the lease
expires after `ttl` and someone else may take it.
"""

import secrets

from app import log
from app.store import keys
from app.store.connection import Redis

logger = log.get("store")

RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


def new_token() -> str:
    return secrets.token_hex(16)


class Lease:
    """A named lease this process may hold; `ttl` seconds unless renewed."""

    def __init__(self, redis: Redis, name: str, ttl: float) -> None:
        self._redis = redis
        self.key = keys.lease(name)
        self.name = name
        self.ttl = ttl
        self.token = new_token()
        self._renew = redis.register_script(RENEW)
        self._release = redis.register_script(_RELEASE)

    @property
    def _ttl_ms(self) -> int:
        return max(1, int(self.ttl * 1000))

    async def acquire(self) -> bool:
        """Take the lease if it is free; False if someone holds it."""
        taken = await self._redis.set(self.key, self.token, nx=True, px=self._ttl_ms)
        if taken:
            logger.debug("lease.acquired", lease=self.name)
        return bool(taken)

    async def renew(self) -> bool:
        """Extend the lease to `ttl` from now; False if it is no longer ours."""
        return bool(await self._renew(keys=[self.key], args=[self.token, self._ttl_ms]))

    async def held_by_another(self) -> bool:
        """Whether someone else holds the lease now (False: we do, or nobody)."""
        holder = await self._redis.get(self.key)
        return holder is not None and holder != self.token.encode()

    async def release(self) -> bool:
        """Give the lease up; False if it was no longer ours."""
        released = bool(await self._release(keys=[self.key], args=[self.token]))
        logger.debug("lease.released", lease=self.name, held=released)
        return released
