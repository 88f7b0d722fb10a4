"""`start_comparison`: a place in line and the state to compare from, in one round trip."""

from app.bus.subjects import AppRef
from app.model.operation import Operation, OperationState
from app.model.status import ApplicationStatus
from app.model.sync import OperationPhase, SyncStatusCode
from app.store.connection import Redis
from app.store.operations import OperationStore
from app.store.status import StatusStore

APP = AppRef("sluice", "guestbook")


async def test_a_first_comparison_starts_from_nothing(redis_client: Redis) -> None:
    start = await StatusStore(redis_client).start_comparison(APP)
    assert (start.seq, start.previous, start.operation) == (1, None, None)


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

    start = await store.start_comparison(APP)

    assert start.previous == status
    assert start.operation is not None and start.operation.id == "op-1"
    assert start.operation.state.phase is OperationPhase.RUNNING


async def test_a_started_comparison_is_later_than_every_earlier_one(redis_client: Redis) -> None:
    store = StatusStore(redis_client)
    earlier = await store.begin_comparison(APP)
    started = await store.start_comparison(APP)
    assert started.seq > earlier
    assert (await store.write_comparison(APP, started.seq, ApplicationStatus())).written
    assert not (await store.write_comparison(APP, earlier, ApplicationStatus())).written
