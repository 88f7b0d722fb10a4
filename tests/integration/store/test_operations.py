"""One operation at a time per app; each step lands once (compare-and-set on the step)."""

import asyncio

import pytest

from app.bus.subjects import AppRef
from app.model.operation import Operation, OperationState, SyncOperation
from app.model.sync import OperationPhase
from app.store.connection import Redis
from app.store.operations import OperationStore

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
    assert await store.begin(APP, "second", _state(OperationPhase.RUNNING)) is may_begin
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
    assert results.count(True) == 1


async def test_a_step_of_an_older_operation_is_refused(redis_client: Redis) -> None:
    store = OperationStore(redis_client)
    await store.begin(APP, "old", _state(OperationPhase.FAILED))
    await store.begin(APP, "new", _state(OperationPhase.RUNNING))
    assert not await store.advance(APP, "old", 0, _state(OperationPhase.SUCCEEDED))
    stored = await store.load(APP)
    assert stored is not None and stored.id == "new" and stored.step == 0


async def test_invalid_operation_id_is_rejected(redis_client: Redis) -> None:
    with pytest.raises(ValueError, match="operation id"):
        await OperationStore(redis_client).begin(APP, "", _state(OperationPhase.RUNNING))
