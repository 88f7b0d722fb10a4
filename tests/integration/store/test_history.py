"""History ids count up from 0 as Argo CD's do; only the newest `limit` entries are kept."""

from app.model.identity import AppRef
from app.model.operation import RevisionHistory
from app.store.connection import Redis
from app.store.history import HistoryStore

APP = AppRef("sluice", "guestbook")


def _entry(n: int) -> RevisionHistory:
    return RevisionHistory(id=999, revision=f"{n:040x}", deployed_at=f"2026-01-01T00:00:{n:02d}Z")


async def test_ids_count_from_zero_and_limit_keeps_newest(redis_client: Redis) -> None:
    store = HistoryStore(redis_client)
    appended = [await store.append(APP, _entry(n), limit=3) for n in range(5)]
    assert [e.id for e in appended] == [0, 1, 2, 3, 4]
    kept = await store.load(APP)
    assert [e.id for e in kept] == [2, 3, 4]
    assert [e.revision for e in kept] == [f"{n:040x}" for n in (2, 3, 4)]


async def test_lowering_the_limit_trims_at_next_append(redis_client: Redis) -> None:
    store = HistoryStore(redis_client)
    for n in range(4):
        await store.append(APP, _entry(n), limit=10)
    await store.append(APP, _entry(4), limit=2)
    assert [e.id for e in await store.load(APP)] == [3, 4]


async def test_restore_continues_the_numbering(redis_client: Redis) -> None:
    store = HistoryStore(redis_client)
    restored = [RevisionHistory(id=7, revision="a" * 40), RevisionHistory(id=8, revision="b" * 40)]
    await store.restore(APP, restored)
    assert await store.load(APP) == restored
    assert (await store.append(APP, _entry(9), limit=10)).id == 9
