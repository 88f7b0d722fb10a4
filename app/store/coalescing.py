"""One handler per (stage, app) at a time across all replicas; what arrives meanwhile coalesces.

Every message for an app offers its level (and payload) to `pending:<stage>:<app>` and
tries to take `lease:<stage>:<app>`, in one Lua step:

    offer      merge level into pending (max wins; the payload of the highest, newest on a
               tie); SET lease NX PX. Lease taken -> this message's delivery becomes the
               holder and takes the work at once (as `take` does: one round trip, not
               two). Not taken -> the holder will see the level in pending; the message
               is done (its consumer acks it).
    take       holder only: pending becomes inflight (what this run is doing).
    finish     holder only: inflight is done; release the lease if nothing is pending,
               else keep it and loop (take again).
    abandon    holder failed: inflight goes back to pending, the lease is released, and
               the holder's message is redelivered later (the consumer naks it). A failure
               the caller marks as poison (`discard=`) is not handed back: that work is
               dropped (a poison payload must not ride along with the next request).

Ordered stages (a request answered by any run that began after it was made, as a
refresh is: "compare the app as it is now") also pass each request's place in its
stream (`Order`): its stream sequence and a bound, a sequence every message at or below
was stored before this one was delivered (its sequence plus the messages the consumer
had still to deliver). A run's work carries the highest bound of what it took; when it
finishes, `answered` records that bound for its level and every lower one. A later
request at or below a recorded bound of its level was stored before that run began, so
the run has answered it: offer drops it, and finish drops pending work made only of such
requests. A storm of N refreshes of one app queued behind other apps' work becomes one
run instead of up to N. A later stage may answer an earlier one's requests: a render run
that began after a refresh was stored has resolved the revision and will compare after
it, so the render stage writes its marks for the refresh stage (`marks_for`) without
its own requests being dropped (their `Order.seq` is 0). The marks carry the stream's
epoch (its creation time): sequences of a re-created stream start again, and old marks
are ignored.

Because offer and finish are each atomic, no wake-up is lost: an offer either lands
before the holder's finish (which then sees pending and loops) or after it (and takes the
lease itself). A storm of N messages while one run is in progress becomes one more run,
at the highest level asked.

A holder renews its lease every third of `lease_ttl`. If it dies, renewals stop, the lease
expires, and the next offer that takes the lease first moves the dead holder's inflight
work back into pending: nothing taken is lost. The dead holder's own message is
redelivered by JetStream after ack_wait; `lease_ttl` must be well below ack_wait (half of
it) so that redelivery finds the lease expired and takes over even if nothing else
arrives. If a holder finds its lease gone (it stalled past `lease_ttl`), its handler is
cancelled and LeaseLost raised: another holder may be running, and two must never overlap.

A worker wraps its handler so (the consumer acks when `run` returns, naks when it raises):

    coalescer = Coalescer(redis, "compare")

    async def on_refresh(d: Delivery[RefreshRequest]) -> None:
        await coalescer.run(d.message.app, d.message.level, encode(d.message), compare,
                            discard=(Poison,))

    async def compare(work: Pending) -> None:
        request = decode(REFRESH, work.payload)   # level: work.level (max of all merged)
"""

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.exceptions

from app import log
from app.model.identity import AppRef
from app.store import keys
from app.store.connection import Redis
from app.store.errors import LeaseLost
from app.store.leases import RENEW, new_token

logger = log.get("store")

MAX_PAYLOAD_BYTES = 64 * 1024
HAND_BACK_ATTEMPTS = 3
"""Tries to hand a failed run's work back when Redis connections fail."""

_MERGE = """
local function merge(src, dst)
  local s = redis.call('HMGET', src, 'level', 'count', 'payload')
  if not s[1] then
    return
  end
  local d = tonumber(redis.call('HGET', dst, 'level') or '-1')
  if tonumber(s[1]) > d then
    redis.call('HSET', dst, 'level', s[1], 'payload', s[3])
  end
  redis.call('HINCRBY', dst, 'count', tonumber(s[2]))
  for _, field in ipairs({'bound', 'last'}) do
    local v = tonumber(redis.call('HGET', src, field) or '0')
    if v > tonumber(redis.call('HGET', dst, field) or '0') then
      redis.call('HSET', dst, field, v)
    end
  end
  redis.call('DEL', src)
end
local UNORDERED = 1e15
local function answered_up_to(marks, epoch, level)
  if epoch == '' or redis.call('HGET', marks, 'epoch') ~= epoch then
    return 0
  end
  return tonumber(redis.call('HGET', marks, 'l' .. level) or '0')
end
"""
# KEYS: pending, inflight, lease, answered

_OFFER = (
    _MERGE
    + """
local level = tonumber(ARGV[1])
local seq = tonumber(ARGV[6])
if seq > 0 and seq <= answered_up_to(KEYS[4], ARGV[8], level) then
  return -1
end
if level >= tonumber(redis.call('HGET', KEYS[1], 'level') or '-1') then
  redis.call('HSET', KEYS[1], 'level', level, 'payload', ARGV[2])
end
redis.call('HINCRBY', KEYS[1], 'count', 1)
local last = seq > 0 and seq or UNORDERED
if last > tonumber(redis.call('HGET', KEYS[1], 'last') or '0') then
  redis.call('HSET', KEYS[1], 'last', last)
end
if tonumber(ARGV[7]) > tonumber(redis.call('HGET', KEYS[1], 'bound') or '0') then
  redis.call('HSET', KEYS[1], 'bound', ARGV[7])
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if not redis.call('SET', KEYS[3], ARGV[3], 'NX', 'PX', ARGV[4]) then
  return 0
end
merge(KEYS[2], KEYS[1])
redis.call('RENAME', KEYS[1], KEYS[2])
return redis.call('HMGET', KEYS[2], 'level', 'count', 'payload')
"""
)

_TAKE = (
    _MERGE
    + """
if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  return false
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {}
end
merge(KEYS[2], KEYS[1])
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return redis.call('HMGET', KEYS[2], 'level', 'count', 'payload')
"""
)

_FINISH = (
    _MERGE
    + """
if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  return -1
end
local epoch = ARGV[3]
local ran = redis.call('HMGET', KEYS[2], 'level', 'bound')
local bound = tonumber(ran[2] or '0')
if epoch ~= '' and bound > 0 then
  if redis.call('HGET', KEYS[4], 'epoch') ~= epoch then
    redis.call('DEL', KEYS[4])
    redis.call('HSET', KEYS[4], 'epoch', epoch)
  end
  for l = 0, tonumber(ran[1]) do
    if bound > tonumber(redis.call('HGET', KEYS[4], 'l' .. l) or '0') then
      redis.call('HSET', KEYS[4], 'l' .. l, bound)
    end
  end
  redis.call('PEXPIRE', KEYS[4], ARGV[4])
end
redis.call('DEL', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  local waiting = redis.call('HMGET', KEYS[1], 'level', 'last')
  local last = tonumber(waiting[2] or UNORDERED)
  if last > answered_up_to(KEYS[4], epoch, waiting[1]) then
    redis.call('PEXPIRE', KEYS[3], ARGV[2])
    return 1
  end
  redis.call('DEL', KEYS[1])
end
redis.call('DEL', KEYS[3])
return 0
"""
)

_ABANDON = (
    _MERGE
    + """
if redis.call('GET', KEYS[3]) ~= ARGV[1] then
  return 0
end
merge(KEYS[2], KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[3])
return 1
"""
)


@dataclass(frozen=True, slots=True)
class Pending:
    """What one run of the handler is for."""

    level: int
    """The highest level asked since the last run (RefreshLevel for refreshes)."""
    count: int
    """How many requests this run answers."""
    payload: bytes
    """The payload of the request with the highest level (the newest among equals)."""


@dataclass(frozen=True, slots=True)
class Order:
    """Where a request stands in its stream (for a stage whose runs answer earlier asks)."""

    seq: int
    """The request's stream sequence; 0: the request itself is never dropped as answered."""
    bound: int
    """Every message with a sequence at or below was stored before this one was delivered."""
    epoch: str
    """The stream's identity: marks of another epoch (a re-created stream) are ignored."""


@dataclass(frozen=True, slots=True)
class CoalesceSettings:
    lease_ttl: float = 15.0
    """Seconds a silent holder keeps the lease; at most half the consumer's ack_wait."""
    pending_ttl: float = 24 * 3600.0
    """Seconds untaken work is kept (bounds what a deleted app leaves behind)."""


class Coalescer:
    """Serializes and coalesces the handler runs of one stage, per app."""

    def __init__(
        self,
        redis: Redis,
        stage: str,
        settings: CoalesceSettings | None = None,
        *,
        marks_for: str | None = None,
    ) -> None:
        """`marks_for`: the stage whose requests this stage's ordered runs answer (its own
        by default)."""
        self.stage = stage
        self._marks_for = marks_for or stage
        self._settings = settings or CoalesceSettings()
        self._offer = redis.register_script(_OFFER)
        self._take = redis.register_script(_TAKE)
        self._finish = redis.register_script(_FINISH)
        self._abandon = redis.register_script(_ABANDON)
        self._renew = redis.register_script(RENEW)

    @property
    def _lease_ms(self) -> int:
        return max(1, int(self._settings.lease_ttl * 1000))

    async def run(
        self,
        app: AppRef,
        level: int,
        payload: bytes,
        handle: Callable[[Pending], Awaitable[None]],
        *,
        discard: tuple[type[Exception], ...] = (),
        order: Order | None = None,
    ) -> int:
        """Offer one request; if this call takes the lease, run `handle` until nothing is pending.

        Returns how many times `handle` ran here (0: another holder will cover it, or, with
        `order`, a run that began after the request was made has answered it).
        Raises what `handle` raised (its work is handed back first) or LeaseLost. An
        exception of a `discard` type (a poison payload) is not handed back: that run's work
        is dropped, the loop goes on with whatever else is pending, and the exception is
        raised at the end, so the delivery is settled as the handler asked.
        """
        if len(payload) > MAX_PAYLOAD_BYTES:
            raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD_BYTES}")
        name = f"{app.namespace}/{app.name}"
        log_ = logger.bind(stage=self.stage, app=name)
        names = [
            keys.pending(self.stage, app),
            keys.inflight(self.stage, app),
            keys.work_lease(self.stage, app),
            keys.answered(self._marks_for, app),
        ]
        token = new_token()
        pending_ms = int(self._settings.pending_ttl * 1000)
        seq, bound, epoch = (order.seq, order.bound, order.epoch) if order else (0, 0, "")
        reply = await self._offer(
            keys=names,
            args=[int(level), payload, token, self._lease_ms, pending_ms, seq, bound, epoch],
        )
        if reply == -1:
            log_.debug("work.answered", level=int(level), seq=seq)
            return 0
        if not reply:
            return 0  # coalesced: the holder's next run counts it (`requests` in work.run)
        keeper = asyncio.create_task(self._keep(names[2], token, name), name=f"lease:{names[2]}")
        runs, dropped = 0, None
        try:
            while True:
                if reply is None:
                    raise LeaseLost(f"{self.stage} lease of {name} was lost before its next run")
                if reply:
                    work = Pending(int(reply[0]), int(reply[1]), bytes(reply[2] or b""))
                    log_.info("work.run", level=work.level, requests=work.count)
                    try:
                        await self._guarded(handle(work), keeper, name)
                    except discard as e:
                        log_.error("work.dropped", level=work.level, reason=str(e))
                        dropped = e
                    runs += 1
                more = await self._finish(
                    keys=names, args=[token, self._lease_ms, epoch, pending_ms]
                )
                if more < 0:
                    raise LeaseLost(f"{self.stage} lease of {name} expired while its handler ran")
                if more == 0:
                    break
                reply = await self._take(keys=names, args=[token, self._lease_ms])
        except BaseException:
            await self._hand_back(names, token, pending_ms)
            raise
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        if dropped is not None:
            raise dropped
        return runs

    async def _guarded(self, work: Awaitable[None], keeper: asyncio.Task[None], name: str) -> None:
        """Run `work` unless the lease is lost first (then cancel it: no two holders overlap)."""
        task = asyncio.ensure_future(work)
        try:
            await asyncio.wait({task, keeper}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            raise
        if task.done():
            task.result()
            return
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        raise LeaseLost(
            f"{self.stage} lease of {name} was lost while its handler ran (it stalled "
            f"longer than lease_ttl={self._settings.lease_ttl:g}s); the handler was cancelled"
        )

    async def _keep(self, lease_key: str, token: str, name: str) -> None:
        """Renew the lease every third of its ttl; return once it is lost."""
        ttl = self._settings.lease_ttl
        renewed = time.monotonic()
        while True:
            await asyncio.sleep(ttl / 3)
            try:
                if not await self._renew(keys=[lease_key], args=[token, self._lease_ms]):
                    logger.warning("lease.lost", stage=self.stage, app=name, reason="taken over")
                    return
                renewed = time.monotonic()
            except (redis.exceptions.RedisError, OSError) as e:
                if time.monotonic() - renewed > ttl:
                    logger.warning(
                        "lease.lost", stage=self.stage, app=name, reason=f"renewal failing: {e}"
                    )
                    return
                logger.warning("lease.renew_failed", stage=self.stage, app=name, error=str(e))

    async def _hand_back(self, names: list[str], token: str, pending_ms: int) -> None:
        """Put the run's work back into pending and release the lease (after a failure).

        A connection error is tried again at once, up to HAND_BACK_ATTEMPTS times: the
        run often failed because Redis restarted, which leaves every pooled connection
        closed, and each try that meets one has it connected anew. Repeating is safe (the
        script acts only while the lease holds this run's token). Were the lease left
        behind, the app's work would wait for it to expire and for a request to come."""
        for attempt in range(1, HAND_BACK_ATTEMPTS + 1):
            try:
                await asyncio.shield(self._abandon(keys=names, args=[token, pending_ms]))
                return
            except (redis.exceptions.ConnectionError, OSError) as e:
                if attempt == HAND_BACK_ATTEMPTS:
                    self._hand_back_failed(names, e)
            except (redis.exceptions.RedisError, asyncio.CancelledError) as e:
                self._hand_back_failed(names, e)
                return

    def _hand_back_failed(self, names: list[str], e: BaseException) -> None:
        logger.error(
            "work.hand_back_failed",
            stage=self.stage,
            lease=names[2],
            error=str(e) or type(e).__name__,
            consequence="the lease expires after lease_ttl and the next holder takes the work",
        )
