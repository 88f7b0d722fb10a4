"""The compare stage's marks: read back as saved, only changes written, absent reads empty."""

import datetime as dt

from app.engine.autosync import REASON_KEPT, remembered_reason
from app.model.identity import AppRef
from app.store import keys
from app.store.compare_marks import CompareMarks, CompareMarksStore
from app.store.connection import Redis

APP = AppRef("sluice", "shop")
WHEN = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)


async def test_marks_round_trip_and_absent_marks_are_empty(redis_client: Redis) -> None:
    store = CompareMarksStore(redis_client)
    empty = await store.read(APP)
    assert empty == CompareMarks()
    marks = CompareMarks(written_at=1_800_000_000.5)
    marks = marks.with_repo_error_since(WHEN).with_reason("Skipping auto-sync: x")
    assert await store.save(APP, empty, marks)
    read = await store.read(APP)
    assert read == marks
    assert read.repo_error_time == WHEN
    assert await redis_client.ttl(keys.compare_marks(APP)) > 0


async def test_only_changes_are_written_and_cleared_fields_removed(redis_client: Redis) -> None:
    store = CompareMarksStore(redis_client)
    marks = CompareMarks(autosync_reason="a").with_repo_error_since(WHEN)
    await store.save(APP, CompareMarks(), marks)
    assert not await store.save(APP, marks, marks)
    await store.save(APP, marks, marks.cleared_repo_error())
    assert await redis_client.hkeys(keys.compare_marks(APP)) == [b"autosync_reason"]


async def test_long_reasons_are_kept_cut_and_still_compare_equal(redis_client: Redis) -> None:
    store = CompareMarksStore(redis_client)
    reason = "r" * (REASON_KEPT + 50)
    await store.save(APP, CompareMarks(), CompareMarks().with_reason(reason))
    read = await store.read(APP)
    assert len(read.autosync_reason) == REASON_KEPT
    assert read.autosync_reason == remembered_reason(reason)
    assert not await store.save(APP, read, read.with_reason(reason))


async def test_unreadable_fields_read_as_unset(redis_client: Redis) -> None:
    await redis_client.hset(
        keys.compare_marks(APP), mapping={"written_at": "soon", "repo_error_since": "yesterday"}
    )
    read = await CompareMarksStore(redis_client).read(APP)
    assert read.written_at == 0.0
    assert read.repo_error_time is None
