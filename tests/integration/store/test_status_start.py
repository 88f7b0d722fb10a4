"""`start_comparison`: a place in line and the state to compare from, in one round trip."""

from app.model.identity import AppRef
from app.model.operation import Operation, OperationState
from app.model.status import ApplicationStatus
from app.model.sync import OperationPhase, SyncStatusCode
from app.store.compare_marks import CompareMarks, CompareMarksStore
from app.store.connection import Redis
from app.store.operations import OperationStore
from app.store.status import StatusStore

APP = AppRef("sluice", "guestbook")


async def test_a_first_comparison_starts_from_nothing(redis_client: Redis) -> None:
    start = await StatusStore(redis_client).start_comparison(APP)
    assert (start.seq, start.previous, start.previous_seq, start.operation) == (1, None, 0, None)
    assert start.marks == CompareMarks()


async def test_a_comparison_starts_from_the_stored_result_and_operation(
    redis_client: Redis,
) -> None:
    store = StatusStore(redis_client)
    status = ApplicationStatus()
    status.sync.status = SyncStatusCode.OUT_OF_SYNC
    status.sync.revision = "a" * 40
    await store.write_comparison(APP, await store.begin_comparison(APP), status)
    state = OperationState(operation=Operation(), phase=OperationPhase.RUNNING, message="m")
    await OperationStore(redis_client).begin(APP, "op-1", state)

    marks = CompareMarks(autosync_reason="Skipping auto-sync: x")
    await CompareMarksStore(redis_client).save(APP, CompareMarks(), marks)

    start = await store.start_comparison(APP)

    assert start.previous == status
    assert start.previous_seq == 1
    assert start.operation is not None and start.operation.id == "op-1"
    assert start.operation.state.phase is OperationPhase.RUNNING
    assert start.marks == marks


async def test_a_started_comparison_is_later_than_every_earlier_one(redis_client: Redis) -> None:
    store = StatusStore(redis_client)
    earlier = await store.begin_comparison(APP)
    started = await store.start_comparison(APP)
    assert started.seq > earlier
    assert (await store.write_comparison(APP, started.seq, ApplicationStatus())).written
    assert not (await store.write_comparison(APP, earlier, ApplicationStatus())).written


async def test_a_write_reports_what_it_replaced_even_when_another_wrote_since_the_start(
    redis_client: Redis,
) -> None:
    store = StatusStore(redis_client)
    first = ApplicationStatus()
    first.sync.revision = "a" * 40
    await store.write_comparison(APP, await store.begin_comparison(APP), first)
    start = await store.start_comparison(APP)
    unchanged = await store.write_comparison(APP, start.seq, ApplicationStatus(), replacing=start)
    assert unchanged.previous is start.previous

    slow = await store.start_comparison(APP)
    between = ApplicationStatus()
    between.sync.revision = "b" * 40
    await store.write_comparison(APP, await store.begin_comparison(APP), between)
    late_but_newer = await store.start_comparison(APP)
    replaced = await store.write_comparison(APP, late_but_newer.seq, first, replacing=slow)
    assert replaced.previous == between
