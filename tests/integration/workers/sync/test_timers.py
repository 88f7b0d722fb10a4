"""A step timer replaced by a late follow-up, or a wake-up coalesced with a redelivery,
never strands an operation.

Timers replace the app's pending one of their purpose. Seen under a slow API server: the
hook worker followed a state late, after the sync worker (woken by a change) had taken it
further and scheduled the next step's wave delay; the hook worker's stale timer replaced
that one, fired, was dropped, and the operation waited for ever.
"""

import datetime as dt
from dataclasses import replace

import pytest

from app.bus import schedules
from app.bus.messages import SYNC, SyncStep
from app.bus.publish import publish
from app.engine.sync import Continue, SyncState, Wait, operation_state
from app.model.sync import OperationPhase
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.store.operations import SyncRecord
from tests.integration.workers.sync.conftest import WAVE, Shop, config_map
from tests.support.waiting import eventually


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """A wave delay long enough to catch the operation waiting it out."""
    return replace(settings, timing=replace(settings.timing, wave_delay=3.0))


async def waiting_out_the_wave_delay(runtime: Runtime, shop: Shop, operation: str) -> SyncRecord:
    """The stored operation once it waits out a wave delay."""

    async def waiting() -> SyncRecord | None:
        record = await runtime.operations.load_sync(shop.ref)
        if record is None or record.id != operation or record.sync is None:
            return None
        then = SyncState.from_dict(record.sync).next
        return record if isinstance(then, Wait) and not then.wakeable else None

    record = await eventually(waiting, what="the wave delay")
    assert record is not None
    return record


async def test_a_stale_timer_replacing_the_wave_delay_does_not_strand_the_operation(
    runtime: Runtime, shop: Shop, sync_workers: None
) -> None:
    await shop.deploy(config_map("first", {WAVE: "0"}), config_map("second", {WAVE: "1"}))
    operation = await shop.start()

    record = await waiting_out_the_wave_delay(runtime, shop, operation)
    earlier = [step for step in range(record.step) if step != record.origin]
    assert earlier, f"no step taken before {record.step} but the storing one"
    late = SyncStep(shop.ref, operation, earlier[-1], "a late follow-up of an earlier step")
    await schedules.schedule(runtime.bus, schedules.WAIT, late, dt.datetime.now(dt.UTC))

    state = await shop.finished(operation)
    assert state.phase is OperationPhase.SUCCEEDED, state.message
    assert (await shop.live("ConfigMap", "second"))["metadata"]["name"] == "second"


async def test_a_wake_up_coalesced_with_a_redelivery_takes_the_step_due_at_once(
    runtime: Runtime, shop: Shop, sync_workers: None
) -> None:
    """Seen with 5 % API errors: a handler stored a step due at once ("a task failed"),
    then failed reading the cluster; its redelivered message coalesced with a wake-up the
    watcher had published for a step that handling passed through, the highest step won,
    and the wake-up was dropped as stale: the operation stayed Running for good."""
    await shop.deploy(config_map("first", {WAVE: "0"}), config_map("second", {WAVE: "1"}))
    operation = await shop.start()

    record = await waiting_out_the_wave_delay(runtime, shop, operation)
    assert record.sync is not None
    due = replace(SyncState.from_dict(record.sync), next=Continue("a task failed"))
    stored = await runtime.operations.advance(
        shop.ref, operation, record.step, operation_state(due), due.to_dict(), origin=record.origin
    )
    assert stored is not None, "the wave delay moved on before the test stored its state"
    passed = SyncStep(shop.ref, operation, record.step, "a wake-up of a step passed through")
    await publish(runtime.bus, SYNC, passed)

    state = await shop.finished(operation)
    assert state.phase is OperationPhase.SUCCEEDED, state.message
    assert (await shop.live("ConfigMap", "second"))["metadata"]["name"] == "second"
