"""Terminating an operation that waits for health: it stops at once, also after the step
it waits in was woken (a woken step that still waits is stored as the next one, so the
termination's step message is not a duplicate of the wake-up's)."""

from dataclasses import replace

import pytest

from app.bus import subjects
from app.bus.messages import SYNC, SyncStep
from app.bus.publish import publish
from app.bus.subjects import Work
from app.model.operation import Operation, OperationInitiator, SyncOperation
from app.model.sync import OperationPhase
from app.runtime.operations import request_termination, start_operation
from app.runtime.settings import Settings
from tests.integration.workers.sync.conftest import (
    NEVER_READY,
    WAVE,
    Shop,
    deployment,
    service,
)
from tests.support.waiting import eventually


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """A step waiting on health re-checks only when something wakes it."""
    return replace(settings, timing=replace(settings.timing, health_wait_fallback=600.0))


async def test_a_termination_after_a_wake_up_of_the_same_step_stops_the_operation(
    shop: Shop, sync_workers: None
) -> None:
    await shop.deploy(deployment("web", {NEVER_READY: "true"}), service("web", {WAVE: "1"}))
    operation = Operation(sync=SyncOperation(), initiated_by=OperationInitiator(username="me"))
    started = await start_operation(shop.rt, shop.application(), operation, reason="test")
    assert started is not None

    async def waiting() -> int | None:
        stored = await shop.rt.operations.load(shop.ref)
        if stored is None or "healthy" not in stored.state.message:
            return None
        return stored.step

    step = await eventually(waiting, what="the operation waiting for the Deployment")
    assert step is not None
    await publish(shop.rt.bus, SYNC, SyncStep(shop.ref, started, step, "cluster changed"))

    async def taken() -> bool:
        info = await shop.rt.bus.js.stream_info(
            subjects.WORK_STREAM, subjects_filter=subjects.work(Work.SYNC, shop.ref)
        )
        return not info.state.subjects

    await eventually(taken, what="the wake-up taken by the sync worker")
    assert await request_termination(shop.rt, shop.application())
    state = await shop.finished(started)
    assert (state.phase, state.message) == (OperationPhase.FAILED, "Operation terminated")
