"""The sync operation of an app: one at a time, advanced step by step with compare-and-set.

An operation has an id (chosen by whoever starts it; it names the operation in step
messages) and a step counter. `begin` starts one unless one is running (phase Running or
Terminating). `advance(id, step, ...)` stores the state after step `step` only if the
stored operation is still `id` at step `step`; it then stands at `step + 1`. A step
replayed after a crash, a step message of an older operation, or a second replica racing
on the same step all find the counter moved and are refused: each step lands once.

The counter never goes back for an app: a new operation starts one past where the last
one stopped. So the step messages of a newer operation always number higher than an
older one's, and "the highest step wins" is a safe rule when messages for one app
coalesce.

Beside the OperationState (what status and the API show) the hash keeps, written in the
same atomic step, the sync engine's own state (`sync`: the JSON of
`app.engine.sync.SyncState.to_dict()`, absent until the operation is planned), a
termination request (`terminate`), which step's message stored the state (`origin`), and
whether the follow-up of the finished operation (history, status write-back, events) has
been done (`finalized`).

Redis is a cache: when it loses a running operation, `restore` puts it back, unplanned,
from the OperationState the Application resource holds (`app.runtime.recovery`); the
sync worker then plans it again and resumes it (`app.engine.sync.resumption`).
"""

import json
from dataclasses import dataclass
from typing import Any

from app import log
from app.model.identity import AppRef
from app.model.operation import OperationState
from app.store import keys
from app.store.connection import Redis
from app.store.values import Fields, as_bytes, dump_model, dumps, field, load_model

logger = log.get("store")

MAX_OPERATION_BYTES = 4 << 20
"""Largest operation state, and largest sync engine state, stored (both list every resource)."""
MAX_ID_LENGTH = 128

_ACTIVE = """
local phase = redis.call('HGET', KEYS[1], 'phase')
local active = phase == 'Running' or phase == 'Terminating'
"""

_BEGIN = (
    _ACTIVE
    + """
if active then
  return {0, redis.call('HGET', KEYS[1], 'id')}
end
local step = tonumber(redis.call('HGET', KEYS[1], 'step') or '-1') + 1
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'step', step, 'phase', ARGV[2], 'state', ARGV[3])
return {1, step}
"""
)

_ADVANCE = """
local fields = redis.call('HMGET', KEYS[1], 'id', 'step', 'terminate')
if fields[1] ~= ARGV[1] or tonumber(fields[2]) ~= tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], 'step', tonumber(ARGV[2]) + 1, 'phase', ARGV[3], 'state', ARGV[4],
           'origin', ARGV[6])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[1], 'sync', ARGV[5])
end
if fields[3] then
  return 2
end
return 1
"""

_TERMINATE = (
    _ACTIVE
    + """
if not active then
  return false
end
redis.call('HSET', KEYS[1], 'terminate', '1')
return redis.call('HMGET', KEYS[1], 'id', 'step')
"""
)

_RESTORE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'step', ARGV[2], 'phase', ARGV[3], 'state', ARGV[4],
           'restored', '1')
return 1
"""

_FINALIZED = """
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'finalized', '1')
return 1
"""


@dataclass(frozen=True, slots=True)
class StoredOperation:
    id: str
    step: int
    """Steps completed; the next `advance` must name this number."""
    state: OperationState
    restored: bool = False
    """Put back by `restore` (Redis had lost it): planning resumes what already ran."""


@dataclass(frozen=True, slots=True)
class Begun:
    """A new operation was stored: it stands at `step` (one past the app's last operation)."""

    step: int


@dataclass(frozen=True, slots=True)
class Landed:
    """A step that landed, and whether termination has been requested meanwhile."""

    terminate: bool


@dataclass(frozen=True, slots=True)
class OperationRef:
    """Which operation, at which step (what a step message names)."""

    id: str
    step: int


@dataclass(frozen=True, slots=True)
class SyncRecord:
    """What the sync and hook workers read before a step."""

    id: str
    step: int
    sync: Any
    """The sync engine's state as stored (JSON), or None before the operation is planned."""
    terminate: bool
    """Someone asked to terminate the operation."""
    finalized: bool
    """The follow-up of the finished operation has been done."""
    origin: int = -1
    """The step named by the message whose handling stored this state (-1: none yet): that
    message, delivered again, finishes what its handler may have left undone."""
    restored: bool = False
    """Put back by `restore` (Redis had lost it)."""


def decode_operation(fields: Fields, *, what: str) -> StoredOperation | None:
    """A stored operation from its hash fields; None if absent or unreadable."""
    if not fields:
        return None
    state = load_model(OperationState, field(fields, "state"), what=what)
    try:
        step = int(field(fields, "step") or b"")
    except ValueError:
        return None
    if state is None:
        return None
    restored = field(fields, "restored") == b"1"
    return StoredOperation((field(fields, "id") or b"").decode(), step, state, restored)


def _check_id(operation_id: str) -> None:
    if not operation_id or len(operation_id) > MAX_ID_LENGTH:
        raise ValueError(f"operation id must be 1-{MAX_ID_LENGTH} characters: {operation_id!r}")


def _name(app: AppRef) -> str:
    return f"{app.namespace}/{app.name}"


class OperationStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._begin = redis.register_script(_BEGIN)
        self._advance = redis.register_script(_ADVANCE)
        self._terminate = redis.register_script(_TERMINATE)
        self._finalized = redis.register_script(_FINALIZED)
        self._restore = redis.register_script(_RESTORE)

    async def load(self, app: AppRef) -> StoredOperation | None:
        names = ("id", "step", "state", "restored")
        values = await self._redis.hmget(keys.operation(app), list(names))
        fields: dict[bytes | str, bytes | str] = {
            k: v for k, v in zip(names, values, strict=True) if v
        }
        return decode_operation(fields, what=f"operation of {_name(app)}")

    async def load_sync(self, app: AppRef) -> SyncRecord | None:
        """The id, step and sync engine state (no OperationState decoding); None if absent."""
        names = ["id", "step", "sync", "terminate", "finalized", "origin", "restored"]
        values = [as_bytes(v) for v in await self._redis.hmget(keys.operation(app), names)]
        op_id, step, sync, terminate, finalized, origin, restored = values
        if op_id is None or step is None:
            return None
        decoded: Any = None
        if sync:
            try:
                decoded = json.loads(sync)
            except ValueError as e:
                logger.warning(
                    "value.unreadable",
                    what=f"sync state of {_name(app)}",
                    error=str(e),
                    action="the sync worker reports it",
                )
                decoded = {}
        return SyncRecord(
            op_id.decode(),
            int(step),
            decoded,
            bool(terminate),
            bool(finalized),
            int(origin) if origin else -1,
            restored == b"1",
        )

    async def begin(self, app: AppRef, operation_id: str, state: OperationState) -> Begun | None:
        """Start operation `operation_id`; None if another one is running."""
        _check_id(operation_id)
        name = _name(app)
        data = dump_model(state, what=f"operation of {name}", limit=MAX_OPERATION_BYTES)
        started, value = await self._begin(
            keys=[keys.operation(app)], args=[operation_id, state.phase.value, data]
        )
        if not started:
            logger.info(
                "operation.begin_refused",
                app=name,
                operation=operation_id,
                running=(as_bytes(value) or b"").decode(),
                reason="another operation is running",
            )
            return None
        logger.info("operation.begun", app=name, operation=operation_id, step=int(value))
        return Begun(int(value))

    async def advance(
        self,
        app: AppRef,
        operation_id: str,
        step: int,
        state: OperationState,
        sync: Any = None,
        *,
        origin: int = -1,
    ) -> Landed | None:
        """Store the state after step `step` (and the sync engine's state, if given), handled
        for the message of step `origin`; None if that step landed already or the id moved."""
        _check_id(operation_id)
        name = _name(app)
        data = dump_model(state, what=f"operation of {name}", limit=MAX_OPERATION_BYTES)
        sync_data = (
            b""
            if sync is None
            else dumps(sync, what=f"sync state of {name}", limit=MAX_OPERATION_BYTES)
        )
        landed = int(
            await self._advance(
                keys=[keys.operation(app)],
                args=[operation_id, step, state.phase.value, data, sync_data, origin],
            )
        )
        if not landed:
            logger.info(
                "operation.step_refused",
                app=name,
                operation=operation_id,
                step=step,
                reason="the stored operation is elsewhere (step replayed or a newer operation)",
            )
            return None
        return Landed(terminate=landed == 2)

    async def restore(
        self, app: AppRef, operation_id: str, step: int, state: OperationState
    ) -> bool:
        """Store a running operation again, unplanned, at `step`, from its OperationState as
        the Application holds it (Redis lost it); False if the app has an operation stored."""
        _check_id(operation_id)
        name = _name(app)
        data = dump_model(state, what=f"operation of {name}", limit=MAX_OPERATION_BYTES)
        restored = bool(
            await self._restore(
                keys=[keys.operation(app)], args=[operation_id, step, state.phase.value, data]
            )
        )
        logger.info(
            "operation.restored" if restored else "operation.restore_refused",
            app=name,
            operation=operation_id,
            step=step,
        )
        return restored

    async def request_termination(self, app: AppRef) -> OperationRef | None:
        """Flag the running operation for termination; None if none is running."""
        reply = await self._terminate(keys=[keys.operation(app)])
        if not reply:
            return None
        op_id, step = (as_bytes(v) or b"" for v in reply)
        return OperationRef(op_id.decode(), int(step or b"0"))

    async def mark_finalized(self, app: AppRef, operation_id: str) -> bool:
        """Record that operation `operation_id`'s follow-up is done; False if it was replaced."""
        return bool(await self._finalized(keys=[keys.operation(app)], args=[operation_id]))
