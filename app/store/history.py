"""Deployment history (`status.history`): ids handed out atomically, the newest N kept.

Argo CD numbers history entries from 0, each one more than the last, and keeps the
newest `revisionHistoryLimit` (default 10). `append` does both in one Lua step. After
Redis was lost, `restore` puts back the entries from the Application resource so ids
continue where they were.
"""

from dataclasses import replace

from app.model.identity import AppRef
from app.model.operation import RevisionHistory
from app.store import keys
from app.store.connection import Redis
from app.store.values import Fields, as_bytes, dump_model, load_model

MAX_ENTRY_BYTES = 256 << 10

_APPEND = """
local id = redis.call('INCR', KEYS[2]) - 1
redis.call('HSET', KEYS[1], id, ARGV[1])
local oldest = id - tonumber(ARGV[2])
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if tonumber(field) <= oldest then
    redis.call('HDEL', KEYS[1], field)
  end
end
return id
"""


def _entry_json(entry: RevisionHistory, what: str) -> bytes:
    return dump_model(replace(entry, id=0), what=what, limit=MAX_ENTRY_BYTES)


def decode_history(fields: Fields, *, what: str) -> list[RevisionHistory]:
    """Stored entries, oldest first (Argo CD's order); unreadable entries are left out."""
    entries = []
    for name, data in fields.items():
        try:
            entry_id = int(name)
        except ValueError:
            continue
        entry = load_model(RevisionHistory, as_bytes(data), what=what, overrides={"id": entry_id})
        if entry is not None:
            entries.append(entry)
    return sorted(entries, key=lambda e: e.id)


class HistoryStore:
    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._append = redis.register_script(_APPEND)

    async def append(self, app: AppRef, entry: RevisionHistory, limit: int) -> RevisionHistory:
        """Add `entry` with the next id, keep the newest `limit`; the entry as stored."""
        if limit < 0:
            raise ValueError(f"history limit must not be negative, got {limit}")
        what = f"history entry of {app.namespace}/{app.name}"
        new_id = await self._append(
            keys=[keys.history(app), keys.history_seq(app)], args=[_entry_json(entry, what), limit]
        )
        return replace(entry, id=int(new_id))

    async def load(self, app: AppRef) -> list[RevisionHistory]:
        fields = await self._redis.hgetall(keys.history(app))
        return decode_history(fields, what=f"history of {app.namespace}/{app.name}")

    async def restore(self, app: AppRef, entries: list[RevisionHistory]) -> None:
        """Replace the stored history with `entries` (from Application.status.history)."""
        what = f"history entry of {app.namespace}/{app.name}"
        next_id = max((e.id for e in entries), default=-1) + 1
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(keys.history(app))
            if entries:
                pipe.hset(
                    keys.history(app),
                    mapping={str(e.id): _entry_json(e, what) for e in entries},
                )
            pipe.set(keys.history_seq(app), next_id)
            await pipe.execute()
