"""AppProject sync windows in the compare stage: an automated sync a window blocks is not
started, the skip says why and a re-check is scheduled for when the window changes; the
re-check (a real NATS timer) syncs the app once the window lets it."""

import datetime as dt
from typing import Any

import nats.js.errors

from app.bus import subjects
from app.bus.messages import REFRESH, RefreshRequest, decode
from app.bus.schedules import SCHEDULE
from app.bus.subjects import Purpose
from app.model.identity import AppRef
from app.model.project import AppProject
from app.model.sync import OperationPhase, RefreshLevel
from app.model.timestamps import parse_time
from app.runtime.runtime import Runtime
from tests.integration.workers.compare.conftest import (
    NAMESPACE,
    apply_live,
    compare_now,
    config_map,
    events_of,
    ref,
    register,
    seed_manifests,
    stored,
)
from tests.support.waiting import eventually
from workers.compare.worker import CompareWorker


async def put_project(rt: Runtime, *windows: dict[str, Any]) -> None:
    await rt.apps.put_project(
        AppProject.from_dict(
            {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "AppProject",
                "metadata": {"name": "payments", "namespace": NAMESPACE},
                "spec": {
                    "sourceRepos": ["*"],
                    "destinations": [{"server": "*", "namespace": "*"}],
                    "syncWindows": list(windows),
                },
            }
        )
    )


async def window_timer(rt: Runtime, app_ref: AppRef) -> tuple[RefreshRequest, dt.datetime]:
    subject = subjects.schedule(Purpose.SYNC_WINDOW, app_ref)
    try:
        timer = await rt.bus.js.get_msg(subjects.WORK_STREAM, 1, subject=subject, next=True)
    except nats.js.errors.NotFoundError:
        raise AssertionError("no sync-window timer was scheduled") from None
    assert timer.data is not None
    fires = parse_time((timer.headers or {})[SCHEDULE].removeprefix("@at "))
    return decode(REFRESH, timer.data), fires


async def test_an_active_deny_window_blocks_auto_sync_and_says_why(
    runtime: Runtime, worker: CompareWorker
) -> None:
    deny = {"kind": "deny", "schedule": "* * * * *", "duration": "1h", "namespaces": ["def*"]}
    await put_project(runtime, deny)
    app = await register(runtime, automated={"prune": True}, project="payments")
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [])

    await compare_now(worker, app)
    await compare_now(worker, app)

    assert await runtime.operations.load(ref(app)) is None
    status = (await stored(runtime, app)).status
    assert status.sync.status.value == "OutOfSync" and status.conditions == []
    skipped = [e for e in await events_of(runtime.bus, app) if e.type.endswith("skipped")]
    assert len(skipped) == 1, "the same reason is announced once"
    assert (
        skipped[0]
        .data["reason"]
        .startswith(
            "Skipping auto-sync: blocked by sync window: project payments window 0 "
            "(deny '* * * * *' for 1h, UTC) active until "
        )
    )
    request, fires = await window_timer(runtime, ref(app))
    assert request == RefreshRequest(ref(app), RefreshLevel.RECENT, "sync window opened or closed")
    assert fires > dt.datetime.now(dt.UTC) + dt.timedelta(minutes=59)


async def test_an_unreadable_window_is_a_sync_error_naming_it(
    runtime: Runtime, worker: CompareWorker
) -> None:
    await put_project(
        runtime, {"kind": "deny", "schedule": "daily", "duration": "1h", "applications": ["*"]}
    )
    app = await register(runtime, automated={"prune": True}, project="payments")
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [])

    await compare_now(worker, app)

    assert await runtime.operations.load(ref(app)) is None
    ((kind, message),) = [
        (c.type, c.message) for c in (await stored(runtime, app)).status.conditions
    ]
    assert kind == "SyncError"
    assert message.startswith(
        "Skipping auto-sync: invalid sync window: project payments: spec.syncWindows[0].schedule: "
        "schedule 'daily' is not a five-field cron expression"
    )


async def test_the_app_syncs_by_itself_when_the_blocking_window_closes(
    runtime: Runtime, running_worker: CompareWorker
) -> None:
    now = dt.datetime.now(dt.UTC)
    fired = now.replace(second=0, microsecond=0)
    closes = now + dt.timedelta(seconds=3)
    duration = f"{(closes - fired).total_seconds():.3f}s"
    deny = {
        "kind": "deny",
        "schedule": f"{fired.minute} {fired.hour} * * *",
        "duration": duration,
        "applications": ["shop"],
    }
    await put_project(runtime, deny)
    app = await register(runtime, automated={"prune": True}, project="payments")
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [])

    await compare_now(running_worker, app)

    assert await runtime.operations.load(ref(app)) is None, "blocked while the window is open"
    _, fires = await window_timer(runtime, ref(app))
    assert abs((fires - closes).total_seconds()) < 0.01

    started = await eventually(
        lambda: runtime.operations.load(ref(app)), timeout=15, what="the automated sync"
    )
    assert dt.datetime.now(dt.UTC) >= closes
    assert started.state.phase is OperationPhase.RUNNING
    assert started.state.operation.initiated_by.automated
