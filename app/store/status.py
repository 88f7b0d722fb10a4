"""Application status from comparisons, written only forward.

A comparison asks for its place in line first (`begin_comparison`, or `start_comparison`
which also reads the stored result, the operation and the compare stage's marks in the
same round trip), then writes its result with it (`write_comparison`). The write is one
Lua step: it lands only if no comparison that began later has written already, so a slow
comparison finishing late never overwrites a newer result ("status never goes
backwards"). The reply says whether it landed and what it replaced, so the one writer
that changed the status is the one that emits the change events; a comparison that
passes its start along is not sent back the result it read already.

What a comparison owns: sync, health, resources, conditions, reconciledAt, observedAt,
sourceType(s), summary. Operation state and history have their own writers
(`operations.py`, `history.py`); `read_status` assembles all three.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from app import log
from app.model.identity import AppRef
from app.model.status import ApplicationStatus
from app.store import keys
from app.store.compare_marks import CompareMarks, decode_marks
from app.store.connection import Redis
from app.store.history import decode_history
from app.store.operations import StoredOperation, decode_operation
from app.store.values import as_bytes, dump_model, load_model

logger = log.get("store")

READ_CHUNK = 256
"""Apps whose status `read_statuses` reads in one round trip."""

MAX_STATUS_BYTES = 8 << 20
"""Largest comparison result stored (a few thousand resources fit comfortably)."""

_BEGIN = """
local counted = redis.call('INCR', KEYS[1])
local stored = tonumber(redis.call('HGET', KEYS[2], 'seq') or '0')
if counted <= stored then
  counted = stored + 1
  redis.call('SET', KEYS[1], counted)
end
return counted
"""

_WRITE = """
local stored = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
local seq = tonumber(ARGV[1])
if seq <= stored then
  return {0, stored}
end
local previous = false
if stored ~= tonumber(ARGV[3]) then
  previous = redis.call('HGET', KEYS[1], 'status')
end
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'status', ARGV[2])
return {1, seq, previous, stored}
"""


@dataclass(frozen=True, slots=True)
class StatusWrite:
    """What `write_comparison` did."""

    written: bool
    """False: a comparison that began later has already written; ours was dropped."""
    seq: int
    """The sequence now stored."""
    previous: ApplicationStatus | None
    """The result ours replaced (None if it was the first, or if ours was dropped)."""


@dataclass(frozen=True, slots=True)
class StoredStatus:
    """Everything known about an app's status, as the API shows it."""

    seq: int
    status: ApplicationStatus
    operation: StoredOperation | None


@dataclass(frozen=True, slots=True)
class RawStatus:
    """One app's status reads as stored; equal values decode to equal statuses."""

    seq: bytes | None
    status: bytes | None
    operation: tuple[tuple[Any, Any], ...]
    history: tuple[tuple[Any, Any], ...] | None
    """None when the history was not read."""


@dataclass(frozen=True, slots=True)
class ComparisonStart:
    """A comparison's place in line, and the state it compares from."""

    seq: int
    previous: ApplicationStatus | None
    """The stored comparison result (None if the app was never compared)."""
    previous_seq: int
    """The sequence `previous` was stored under (0: none)."""
    operation: StoredOperation | None
    """The app's operation, running or last finished (None if it never had one)."""
    marks: CompareMarks
    """What the compare stage remembers about the app (`app.store.compare_marks`)."""


class StatusStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._begin = redis.register_script(_BEGIN)
        self._write = redis.register_script(_WRITE)

    async def begin_comparison(self, app: AppRef) -> int:
        """The sequence of a comparison starting now: greater than every earlier one."""
        seq = await self._begin(keys=[keys.compare_seq(app), keys.status(app)])
        return int(seq)

    async def start_comparison(self, app: AppRef) -> ComparisonStart:
        """`begin_comparison` and the reads a comparison starts from, in one round trip.

        One transaction: the sequence is taken before the reads, so what they return is
        at least as new as anything a comparison with a smaller sequence could have seen.
        """
        name = f"{app.namespace}/{app.name}"
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.eval(_BEGIN, 2, keys.compare_seq(app), keys.status(app))
            pipe.hmget(keys.status(app), ["seq", "status"])
            pipe.hgetall(keys.operation(app))
            pipe.hgetall(keys.compare_marks(app))
            seq, (stored_seq, data), operation, marks = await pipe.execute()
        previous = load_model(ApplicationStatus, as_bytes(data), what=f"status of {name}")
        return ComparisonStart(
            int(seq),
            previous,
            int(stored_seq) if previous is not None else 0,
            decode_operation(operation, what=f"operation of {name}"),
            decode_marks(marks),
        )

    async def write_comparison(
        self,
        app: AppRef,
        seq: int,
        status: ApplicationStatus,
        *,
        replacing: ComparisonStart | None = None,
    ) -> StatusWrite:
        """Store `status` unless a comparison begun after `seq` has written already.

        `replacing`: this comparison's start; if the stored result is still the one it
        read, `previous` is that one, not sent back and decoded again.
        """
        own = replace(status, operation_state=None, history=[])
        data = dump_model(own, what=f"status of {app.namespace}/{app.name}", limit=MAX_STATUS_BYTES)
        known = replacing.previous_seq if replacing is not None else -1
        reply = await self._write(keys=[keys.status(app)], args=[seq, data, known])
        written, stored = bool(reply[0]), int(reply[1])
        if not written:
            logger.info(
                "status.stale_write_dropped",
                app=f"{app.namespace}/{app.name}",
                seq=seq,
                newer_seq=stored,
            )
            return StatusWrite(False, stored, None)
        if replacing is not None and int(reply[3]) == known:
            return StatusWrite(True, stored, replacing.previous)
        what = f"previous status of {app.namespace}/{app.name}"
        return StatusWrite(True, stored, load_model(ApplicationStatus, reply[2], what=what))

    async def read_status(self, app: AppRef) -> StoredStatus | None:
        """Comparison result, operation state and history together; None if never compared."""
        async with self._redis.pipeline(transaction=True) as pipe:
            _queue_read(pipe, app)
            reply = await pipe.execute()
        return _decode_read(app, reply)

    async def read_statuses(self, apps: Sequence[AppRef]) -> list[StoredStatus | None]:
        """`read_status` of many apps, `READ_CHUNK` apps per round trip (one transaction
        each, so every app's reads agree as in `read_status`)."""
        raw = await self.read_raw(apps)
        return [decode_raw(app, found) for app, found in zip(apps, raw, strict=True)]

    async def read_raw(self, apps: Sequence[AppRef], *, history: bool = True) -> list[RawStatus]:
        """What `read_statuses` decodes, as stored: for a caller that keeps what it
        decoded by the stored bytes (`decode_raw` turns one into a StoredStatus);
        `history=False` leaves every app's deployment history out (unread, empty)."""
        found: list[RawStatus] = []
        per_app = 3 if history else 2
        for start in range(0, len(apps), READ_CHUNK):
            chunk = apps[start : start + READ_CHUNK]
            async with self._redis.pipeline(transaction=True) as pipe:
                for app in chunk:
                    _queue_read(pipe, app, history=history)
                reply = await pipe.execute()
            found.extend(_raw(reply[per_app * i : per_app * (i + 1)]) for i in range(len(chunk)))
        return found


def _queue_read(pipe: Any, app: AppRef, *, history: bool = True) -> None:
    pipe.hmget(keys.status(app), ["seq", "status"])
    pipe.hgetall(keys.operation(app))
    if history:
        pipe.hgetall(keys.history(app))


def _raw(reply: Sequence[Any]) -> RawStatus:
    (seq, data), operation, *history = reply
    return RawStatus(
        as_bytes(seq),
        as_bytes(data),
        tuple(sorted(operation.items())),
        tuple(sorted(history[0].items())) if history else None,
    )


def _decode_read(app: AppRef, reply: Sequence[Any]) -> StoredStatus | None:
    return decode_raw(app, _raw(reply))


def decode_raw(app: AppRef, raw: RawStatus) -> StoredStatus | None:
    """The StoredStatus `raw` holds; None if the app was never compared."""
    name = f"{app.namespace}/{app.name}"
    status = load_model(ApplicationStatus, raw.status, what=f"status of {name}")
    if status is None:
        return None
    stored_op = decode_operation(dict(raw.operation), what=f"operation of {name}")
    status.operation_state = stored_op.state if stored_op else None
    if raw.history is not None:
        status.history = decode_history(dict(raw.history), what=f"history of {name}")
    return StoredStatus(int(raw.seq or 0), status, stored_op)
