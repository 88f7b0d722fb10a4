"""The sync operation of an app: one at a time, advanced step by step with compare-and-set.

An operation has an id (chosen by whoever starts it; it names the operation in step
messages) and a step counter. `begin` starts one unless one is running (phase Running or
Terminating). `advance(id, step, state)` stores the state after step `step` only if the
stored operation is still `id` at step `step`; it then stands at `step + 1`. A step
replayed after a crash, a step message of an older operation, or a second replica racing
on the same step all find the counter moved and are refused: each step lands once.
"""

from dataclasses import dataclass

from app import log
from app.model.operation import OperationState
from app.store import keys
from app.store.connection import Redis
from app.store.keys import AppIdentity
from app.store.values import Fields, dump_model, field, load_model

logger = log.get("store")

MAX_OPERATION_BYTES = 4 << 20
"""Largest operation state stored (its sync result lists every resource)."""
MAX_ID_LENGTH = 128

_BEGIN = """
local phase = redis.call('HGET', KEYS[1], 'phase')
if phase == 'Running' or phase == 'Terminating' then
  return redis.call('HGET', KEYS[1], 'id')
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'step', 0, 'phase', ARGV[2], 'state', ARGV[3])
return false
"""

_ADVANCE = """
local fields = redis.call('HMGET', KEYS[1], 'id', 'step')
if fields[1] ~= ARGV[1] or tonumber(fields[2]) ~= tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], 'step', tonumber(ARGV[2]) + 1, 'phase', ARGV[3], 'state', ARGV[4])
return 1
"""


@dataclass(frozen=True, slots=True)
class StoredOperation:
    id: str
    step: int
    """Steps completed; the next `advance` must name this number."""
    state: OperationState


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
    return StoredOperation((field(fields, "id") or b"").decode(), step, state)


def _check_id(operation_id: str) -> None:
    if not operation_id or len(operation_id) > MAX_ID_LENGTH:
        raise ValueError(f"operation id must be 1-{MAX_ID_LENGTH} characters: {operation_id!r}")


class OperationStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._begin = redis.register_script(_BEGIN)
        self._advance = redis.register_script(_ADVANCE)

    async def load(self, app: AppIdentity) -> StoredOperation | None:
        fields = await self._redis.hgetall(keys.operation(app))
        return decode_operation(fields, what=f"operation of {app.namespace}/{app.name}")

    async def begin(self, app: AppIdentity, operation_id: str, state: OperationState) -> bool:
        """Start operation `operation_id` at step 0; False if another one is running."""
        _check_id(operation_id)
        name = f"{app.namespace}/{app.name}"
        data = dump_model(state, what=f"operation of {name}", limit=MAX_OPERATION_BYTES)
        running = await self._begin(
            keys=[keys.operation(app)], args=[operation_id, state.phase.value, data]
        )
        if running is not None:
            logger.info(
                "operation.begin_refused",
                app=name,
                operation=operation_id,
                running=running.decode(),
                reason="another operation is running",
            )
            return False
        logger.info("operation.begun", app=name, operation=operation_id)
        return True

    async def advance(
        self, app: AppIdentity, operation_id: str, step: int, state: OperationState
    ) -> bool:
        """Store the state after step `step`; False if that step landed already or the id moved."""
        _check_id(operation_id)
        name = f"{app.namespace}/{app.name}"
        data = dump_model(state, what=f"operation of {name}", limit=MAX_OPERATION_BYTES)
        landed = await self._advance(
            keys=[keys.operation(app)], args=[operation_id, step, state.phase.value, data]
        )
        if not landed:
            logger.info(
                "operation.step_refused",
                app=name,
                operation=operation_id,
                step=step,
                reason="the stored operation is elsewhere (step replayed or a newer operation)",
            )
        return bool(landed)
