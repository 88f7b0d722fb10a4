"""One operation at a time per app; each step lands once (compare-and-set on the step)."""

import asyncio

import pytest

from app.model.identity import AppRef
from app.model.operation import Operation, OperationState, SyncOperation
from app.model.sync import OperationPhase
from app.store.connection import Redis
from app.store.errors import StoreError
from app.store.operations import MAX_OPERATION_BYTES, OperationStore

APP = AppRef("sluice", "waves")


def _state(phase: OperationPhase, message: str = "") -> OperationState:
    return OperationState(
        operation=Operation(sync=SyncOperation(revision="c" * 40)), phase=phase, message=message
    )


@pytest.mark.parametrize(
    ("stored_phase", "may_begin"),
    [
        pytest.param(OperationPhase.RUNNING, False, id="running-blocks"),
        pytest.param(OperationPhase.TERMINATING, False, id="terminating-blocks"),
        pytest.param(OperationPhase.SUCCEEDED, True, id="succeeded-allows"),
        pytest.param(OperationPhase.FAILED, True, id="failed-allows"),
        pytest.param(OperationPhase.ERROR, True, id="error-allows"),
    ],
)
async def test_begin_only_when_none_is_running(
    redis_client: Redis, stored_phase: OperationPhase, may_begin: bool
) -> None:
    store = OperationStore(redis_client)
    assert await store.begin(APP, "first", _state(stored_phase))
    begun = await store.begin(APP, "second", _state(OperationPhase.RUNNING))
    assert (begun is not None) is may_begin
    stored = await store.load(APP)
    assert stored is not None
    assert stored.id == ("second" if may_begin else "first")


async def test_each_step_lands_once(redis_client: Redis) -> None:
    store = OperationStore(redis_client)
    await store.begin(APP, "op", _state(OperationPhase.RUNNING))
    assert await store.advance(APP, "op", 0, _state(OperationPhase.RUNNING, "wave -1 applied"))
    assert not await store.advance(APP, "op", 0, _state(OperationPhase.RUNNING, "replayed"))
    stored = await store.load(APP)
    assert stored is not None
    assert stored.step == 1 and stored.state.message == "wave -1 applied"


async def test_racing_replicas_on_one_step_one_wins(redis_client: Redis) -> None:
    store = OperationStore(redis_client)
    await store.begin(APP, "op", _state(OperationPhase.RUNNING))
    results = await asyncio.gather(
        *(store.advance(APP, "op", 0, _state(OperationPhase.RUNNING, f"r{i}")) for i in range(10))
    )
    assert sum(landed is not None for landed in results) == 1


async def test_a_step_of_an_older_operation_is_refused(redis_client: Redis) -> None:
    store = OperationStore(redis_client)
    await store.begin(APP, "old", _state(OperationPhase.FAILED))
    await store.begin(APP, "new", _state(OperationPhase.RUNNING))
    assert not await store.advance(APP, "old", 0, _state(OperationPhase.SUCCEEDED))
    stored = await store.load(APP)
    assert stored is not None and stored.id == "new" and stored.step == 1


async def test_invalid_operation_id_is_rejected(redis_client: Redis) -> None:
    with pytest.raises(ValueError, match="operation id"):
        await OperationStore(redis_client).begin(APP, "", _state(OperationPhase.RUNNING))


async def test_a_new_operation_starts_one_step_past_the_last(redis_client: Redis) -> None:
    store = OperationStore(redis_client)
    first = await store.begin(APP, "first", _state(OperationPhase.RUNNING))
    assert first is not None and first.step == 0
    assert await store.advance(APP, "first", 0, _state(OperationPhase.RUNNING))
    assert await store.advance(APP, "first", 1, _state(OperationPhase.SUCCEEDED))
    second = await store.begin(APP, "second", _state(OperationPhase.RUNNING))
    assert second is not None and second.step == 3
    assert not await store.advance(APP, "second", 0, _state(OperationPhase.SUCCEEDED))
    assert await store.advance(APP, "second", 3, _state(OperationPhase.SUCCEEDED))


async def test_sync_state_lands_with_its_step_and_only_then(redis_client: Redis) -> None:
    store = OperationStore(redis_client)
    await store.begin(APP, "op", _state(OperationPhase.RUNNING))
    record = await store.load_sync(APP)
    assert record is not None and (record.id, record.step, record.sync) == ("op", 0, None)
    assert await store.advance(APP, "op", 0, _state(OperationPhase.RUNNING), {"step": 1})
    assert not await store.advance(APP, "op", 0, _state(OperationPhase.RUNNING), {"step": 99})
    record = await store.load_sync(APP)
    assert record is not None and (record.step, record.sync) == (1, {"step": 1})
    assert await store.advance(APP, "op", 1, _state(OperationPhase.RUNNING, "no sync change"))
    record = await store.load_sync(APP)
    assert record is not None and record.sync == {"step": 1}
    stored = await store.load(APP)
    assert stored is not None and stored.state.message == "no sync change"


async def test_termination_is_flagged_only_on_a_running_operation(redis_client: Redis) -> None:
    store = OperationStore(redis_client)
    assert await store.request_termination(APP) is None
    await store.begin(APP, "op", _state(OperationPhase.RUNNING))
    await store.advance(APP, "op", 0, _state(OperationPhase.RUNNING))
    flagged = await store.request_termination(APP)
    assert flagged is not None and (flagged.id, flagged.step) == ("op", 1)
    record = await store.load_sync(APP)
    assert record is not None and record.terminate
    await store.advance(APP, "op", 1, _state(OperationPhase.FAILED, "Operation terminated"))
    assert await store.request_termination(APP) is None
    await store.begin(APP, "next", _state(OperationPhase.RUNNING))
    record = await store.load_sync(APP)
    assert record is not None and not record.terminate and not record.finalized


async def test_finalized_marks_only_the_named_operation(redis_client: Redis) -> None:
    store = OperationStore(redis_client)
    await store.begin(APP, "op", _state(OperationPhase.SUCCEEDED))
    assert not await store.mark_finalized(APP, "other")
    assert await store.mark_finalized(APP, "op")
    record = await store.load_sync(APP)
    assert record is not None and record.finalized


async def test_an_oversized_sync_state_is_refused_and_nothing_changes(
    redis_client: Redis,
) -> None:
    store = OperationStore(redis_client)
    await store.begin(APP, "op", _state(OperationPhase.RUNNING))
    with pytest.raises(StoreError, match=r"sync state of sluice/waves is \d+ bytes, over"):
        await store.advance(
            APP, "op", 0, _state(OperationPhase.RUNNING), {"x": "a" * MAX_OPERATION_BYTES}
        )
    record = await store.load_sync(APP)
    assert record is not None and (record.step, record.sync) == (0, None)


async def test_a_step_records_its_message_and_reports_a_termination_request(
    redis_client: Redis,
) -> None:
    store = OperationStore(redis_client)
    await store.begin(APP, "op", _state(OperationPhase.RUNNING))
    record = await store.load_sync(APP)
    assert record is not None and record.origin == -1
    landed = await store.advance(APP, "op", 0, _state(OperationPhase.RUNNING), origin=0)
    assert landed is not None and not landed.terminate
    await store.request_termination(APP)
    landed = await store.advance(APP, "op", 1, _state(OperationPhase.RUNNING), origin=0)
    assert landed is not None and landed.terminate
    record = await store.load_sync(APP)
    assert record is not None and (record.step, record.origin) == (2, 0)
