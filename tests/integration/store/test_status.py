"""Status never goes backwards: a comparison that began earlier never overwrites a later one."""

import asyncio
import random

from app.model.app_spec import ApplicationDestination, ApplicationSource
from app.model.health import HealthStatusCode
from app.model.identity import AppRef
from app.model.operation import Operation, OperationState, RevisionHistory, SyncOperation
from app.model.status import AppHealthStatus, ApplicationStatus, ComparedTo, SyncStatus
from app.model.sync import OperationPhase, SyncStatusCode
from app.store.connection import Redis
from app.store.history import HistoryStore
from app.store.operations import OperationStore
from app.store.status import StatusStore, decode_raw

APP = AppRef("sluice", "guestbook")


def _status(revision: str, sync: SyncStatusCode = SyncStatusCode.SYNCED) -> ApplicationStatus:
    return ApplicationStatus(
        sync=SyncStatus(
            status=sync,
            revision=revision,
            compared_to=ComparedTo(
                source=ApplicationSource(repo_url="https://git.example/apps.git", path="guestbook"),
                destination=ApplicationDestination(server="https://kubernetes.default.svc"),
            ),
        ),
        health=AppHealthStatus(status=HealthStatusCode.HEALTHY),
        reconciled_at="2026-01-01T00:00:00Z",
    )


async def test_older_comparison_finishing_late_is_dropped(redis_client: Redis) -> None:
    store = StatusStore(redis_client)
    slow = await store.begin_comparison(APP)
    fast = await store.begin_comparison(APP)
    assert fast > slow

    first = await store.write_comparison(APP, fast, _status("b" * 40))
    assert first.written and first.previous is None

    late = await store.write_comparison(APP, slow, _status("a" * 40, SyncStatusCode.OUT_OF_SYNC))
    assert not late.written and late.seq == fast

    stored = await store.read_status(APP)
    assert stored is not None
    assert stored.status == _status("b" * 40)


async def test_write_reports_what_it_replaced(redis_client: Redis) -> None:
    store = StatusStore(redis_client)
    await store.write_comparison(APP, await store.begin_comparison(APP), _status("a" * 40))
    second = await store.write_comparison(
        APP, await store.begin_comparison(APP), _status("b" * 40, SyncStatusCode.OUT_OF_SYNC)
    )
    assert second.written
    assert second.previous is not None and second.previous.sync.revision == "a" * 40


async def test_racing_comparisons_leave_the_latest_begun(redis_client: Redis) -> None:
    store = StatusStore(redis_client)
    seqs = [await store.begin_comparison(APP) for _ in range(40)]
    order = seqs[:]
    random.Random(7).shuffle(order)

    async def finish(seq: int) -> bool:
        await asyncio.sleep(0)
        return (await store.write_comparison(APP, seq, _status(f"{seq:040d}"))).written

    await asyncio.gather(*(finish(seq) for seq in order))
    stored = await store.read_status(APP)
    assert stored is not None
    assert stored.seq == max(seqs)
    assert stored.status.sync.revision == f"{max(seqs):040d}"


async def test_sequence_survives_a_lost_counter(redis_client: Redis) -> None:
    store = StatusStore(redis_client)
    for _ in range(5):
        seq = await store.begin_comparison(APP)
    await store.write_comparison(APP, seq, _status("a" * 40))
    await redis_client.delete("sluice:compare-seq:{sluice/guestbook}")
    after = await store.begin_comparison(APP)
    assert after == seq + 1, "a counter lost alone must not freeze later writes"
    assert (await store.write_comparison(APP, after, _status("b" * 40))).written


async def test_read_assembles_operation_and_history(redis_client: Redis) -> None:
    store = StatusStore(redis_client)
    assert await store.read_status(APP) is None
    await store.write_comparison(APP, await store.begin_comparison(APP), _status("a" * 40))
    state = OperationState(
        operation=Operation(sync=SyncOperation(revision="a" * 40)), phase=OperationPhase.RUNNING
    )
    assert await OperationStore(redis_client).begin(APP, "op-1", state)
    await HistoryStore(redis_client).append(APP, RevisionHistory(id=0, revision="a" * 40), 10)

    stored = await store.read_status(APP)
    assert stored is not None and stored.operation is not None
    assert stored.status.operation_state is not None
    assert stored.status.operation_state.phase is OperationPhase.RUNNING
    assert [h.revision for h in stored.status.history] == ["a" * 40]
    other = AppRef("sluice", "never-compared")
    refs = [APP, other, APP]
    raw = await store.read_raw(refs, history=False)
    many = [decode_raw(ref, found) for ref, found in zip(refs, raw, strict=True)]
    assert many[1] is None and raw[0] == raw[2]
    for found in (many[0], many[2]):
        assert found is not None and found.status.operation_state is not None
        assert found.status.history == [], "a list without history does not read it"


async def test_unreadable_status_is_absent_not_an_error(redis_client: Redis) -> None:
    store = StatusStore(redis_client)
    await redis_client.hset("sluice:status:{sluice/guestbook}", mapping={"seq": 3, "status": "{"})
    assert await store.read_status(APP) is None
