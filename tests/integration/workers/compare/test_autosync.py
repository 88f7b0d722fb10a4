"""Auto-sync after a comparison (SEMANTICS §6): start, SyncError, skip with its reason, and the
self-heal re-check, each carried out only by the comparison whose status landed."""

import datetime as dt
from dataclasses import replace

import nats.js.errors
import pytest

from app.bus import subjects
from app.bus.messages import REFRESH, SYNC, RefreshRequest, decode
from app.bus.schedules import SCHEDULE
from app.bus.subjects import Purpose
from app.model.application import Application
from app.model.operation import (
    Operation,
    OperationInitiator,
    OperationState,
    SyncOperation,
    SyncOperationResult,
)
from app.model.sync import OperationPhase, RefreshLevel
from app.model.timestamps import format_time, parse_time
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.integration.workers.compare.conftest import (
    COMMIT,
    COMMIT2,
    apply_live,
    compare_now,
    config_map,
    event_types,
    events_of,
    published,
    ref,
    register,
    seed_manifests,
    stored,
)
from workers.compare.worker import CompareWorker

SELF_HEAL_TIMEOUT = 60.0
"""The first self-heal backoff step: long enough that no loaded machine reaches it before
the comparison under test runs, so the re-check is scheduled, never skipped past."""


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, timing=replace(settings.timing, self_heal_timeout=SELF_HEAL_TIMEOUT))


async def last_operation(
    rt: Runtime,
    app: Application,
    phase: OperationPhase,
    message: str,
    *,
    heals: int = 0,
    finished: dt.datetime | None = None,
) -> None:
    """Store a finished automated operation of `app` at COMMIT, as the sync worker would."""
    state = OperationState(
        operation=Operation(
            sync=SyncOperation(revision=COMMIT, auto_heal_attempts_count=heals),
            initiated_by=OperationInitiator(automated=True),
        ),
        phase=phase,
        message=message,
        sync_result=SyncOperationResult(revision=COMMIT, source=app.spec.source),
        started_at=format_time(dt.datetime.now(dt.UTC)),
        finished_at=format_time(finished or dt.datetime.now(dt.UTC), timespec="milliseconds"),
    )
    assert await rt.operations.begin(ref(app), "earlier", state) is not None


async def test_an_out_of_sync_app_with_automated_sync_starts_an_operation(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime, automated={"prune": True})
    await seed_manifests(runtime, app, [config_map("web"), config_map("db")])
    await apply_live(runtime, app, [config_map("web")])

    await compare_now(worker, app)

    started = await runtime.operations.load(ref(app))
    assert started is not None
    state = started.state
    assert state.phase is OperationPhase.RUNNING
    assert state.operation.initiated_by.automated
    assert state.operation.sync is not None
    assert (state.operation.sync.revision, state.operation.sync.prune) == (COMMIT, True)
    (step,) = await published(runtime.bus, SYNC, app)
    assert step.operation == started.id
    started_events = [e for e in await events_of(runtime.bus, app) if e.type.endswith("started")]
    assert [e.data["reason"] for e in started_events] == [f"Initiated automated sync to '{COMMIT}'"]


async def test_a_failed_attempt_at_the_same_revision_is_a_sync_error_until_the_revision_moves(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime, automated={"prune": True})
    await seed_manifests(runtime, app, [config_map("web", colour="green")])
    await seed_manifests(runtime, app, [config_map("web", colour="red")], commit=COMMIT2)
    await apply_live(runtime, app, [config_map("web", colour="blue")])
    await last_operation(runtime, app, OperationPhase.FAILED, "one or more objects failed to apply")

    await compare_now(worker, app)

    status = (await stored(runtime, app)).status
    assert [(c.type, c.message) for c in status.conditions] == [
        (
            "SyncError",
            f"Failed last sync attempt to [{COMMIT}]: one or more objects failed to apply",
        )
    ]
    operation = await runtime.operations.load(ref(app))
    assert operation is not None and operation.id == "earlier"
    assert await published(runtime.bus, SYNC, app) == []

    await compare_now(worker, app, revisions=(COMMIT2,))

    assert (await stored(runtime, app)).status.conditions == []
    started = await runtime.operations.load(ref(app))
    assert started is not None and started.id != "earlier"
    assert started.state.operation.sync is not None
    assert started.state.operation.sync.revision == COMMIT2


async def test_a_skip_is_announced_with_its_reason_once_and_routine_skips_are_not(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime, automated={"prune": False})
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web"), config_map("leftover")])

    await compare_now(worker, app)
    await compare_now(worker, app)

    skipped = [e for e in await events_of(runtime.bus, app) if e.type.endswith("skipped")]
    assert [e.data for e in skipped] == [
        {
            "reason": "Skipping auto-sync: need to prune extra resources only but automated "
            "prune is disabled",
            "revision": COMMIT,
        }
    ]
    assert await runtime.operations.load(ref(app)) is None

    await apply_live(runtime, app, [config_map("web")])
    await compare_now(worker, app)

    assert event_types(await events_of(runtime.bus, app))[-1] == "synced"
    assert len([e for e in await events_of(runtime.bus, app) if e.type.endswith("skipped")]) == 1


async def test_self_heal_backing_off_schedules_a_re_check(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime, automated={"prune": True, "selfHeal": True})
    await seed_manifests(runtime, app, [config_map("web", colour="green")])
    await apply_live(runtime, app, [config_map("web", colour="blue")])
    finished = dt.datetime.now(dt.UTC)
    await last_operation(
        runtime, app, OperationPhase.SUCCEEDED, "successfully synced", heals=1, finished=finished
    )

    await compare_now(worker, app)

    operation = await runtime.operations.load(ref(app))
    assert operation is not None and operation.id == "earlier"
    subject = subjects.schedule(Purpose.SELFHEAL, ref(app))
    try:
        timer = await runtime.bus.js.get_msg(subjects.WORK_STREAM, 1, subject=subject, next=True)
    except nats.js.errors.NotFoundError:
        raise AssertionError("no self-heal timer was scheduled") from None
    assert timer.data is not None
    request = decode(REFRESH, timer.data)
    assert request == RefreshRequest(ref(app), RefreshLevel.LATEST, "self-heal backoff elapsed")
    fires = parse_time((timer.headers or {})[SCHEDULE].removeprefix("@at "))
    due = finished + dt.timedelta(seconds=SELF_HEAL_TIMEOUT)
    assert abs((fires - due).total_seconds()) < 0.01, "backoff measured from the last finish"
