"""Every comparison schedules the next resync (one pending timer per app), and a resync of
an unchanged app does not rewrite the Application for its reconcile time alone."""

import datetime as dt
from dataclasses import replace

import nats.js.errors
import pytest

from app.bus import subjects
from app.bus.messages import RENDER, RenderRequest, decode
from app.bus.schedules import SCHEDULE, SCHEDULE_TARGET
from app.bus.subjects import Purpose
from app.engine.resync import HARD_REASON
from app.model.application import Application
from app.model.sync import RefreshLevel
from app.model.timestamps import parse_time
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.integration.workers.compare.conftest import (
    NAMESPACE,
    apply_live,
    compare_now,
    config_map,
    ref,
    register,
    seed_manifests,
)
from tests.support.system_settings import put_settings
from workers.compare.worker import CompareWorker

PERIOD, JITTER = 120.0, 60.0


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, timing=replace(settings.timing, resync=PERIOD, resync_jitter=JITTER))


async def timers(rt: Runtime, app: Application) -> list[tuple[dict[str, str], RenderRequest]]:
    """The pending resync timers of `app`: headers and the request each will fire."""
    subject = subjects.schedule(Purpose.RESYNC, ref(app))
    found: list[tuple[dict[str, str], RenderRequest]] = []
    seq = 1
    while True:
        try:
            msg = await rt.bus.js.get_msg(subjects.WORK_STREAM, seq, subject=subject, next=True)
        except nats.js.errors.NotFoundError:
            return found
        assert msg.data is not None and msg.seq is not None
        found.append((dict(msg.headers or {}), decode(RENDER, msg.data)))
        seq = msg.seq + 1


async def test_a_comparison_schedules_the_next_resync_and_replaces_the_pending_one(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])

    before = dt.datetime.now(dt.UTC)
    await compare_now(worker, app)
    await compare_now(worker, app)
    after = dt.datetime.now(dt.UTC)

    ((headers, request),) = await timers(runtime, app)
    assert request == RenderRequest(ref(app), RefreshLevel.LATEST, "resync")
    assert headers[SCHEDULE_TARGET] == subjects.work(subjects.Work.RENDER, ref(app))
    fires = parse_time(headers[SCHEDULE].removeprefix("@at "))
    assert before + dt.timedelta(seconds=PERIOD) <= fires + dt.timedelta(milliseconds=1)
    assert fires < after + dt.timedelta(seconds=PERIOD + JITTER)


async def application_version(rt: Runtime, app: Application) -> str:
    obj = await rt.control_plane.get("argoproj.io/v1alpha1", "Application", app.name, NAMESPACE)
    return str(obj["metadata"]["resourceVersion"])


async def test_an_unchanged_status_is_not_rewritten_within_the_resync_period(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    await compare_now(worker, app)
    written = await application_version(runtime, app)

    await compare_now(worker, app)
    assert await application_version(runtime, app) == written

    await apply_live(runtime, app, [config_map("web", drift="yes")])
    await compare_now(worker, app)
    assert await application_version(runtime, app) != written


def fires_in(headers: dict[str, str], before: dt.datetime) -> float:
    """Seconds from `before` (at the schedule's millisecond precision) to when the timer
    fires."""
    before = before.replace(microsecond=before.microsecond // 1000 * 1000)
    return (parse_time(headers[SCHEDULE].removeprefix("@at ")) - before).total_seconds()


async def test_argocd_cm_timeouts_set_the_resync_live_and_a_hard_one_forces(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    settings = {"timeout.reconciliation": "10m", "timeout.reconciliation.jitter": "0"}
    await put_settings(runtime, settings)

    forced = dt.datetime.now(dt.UTC)
    await compare_now(worker, app, RefreshLevel.FORCE)
    ((headers, request),) = await timers(runtime, app)
    assert request == RenderRequest(ref(app), RefreshLevel.LATEST, "resync")
    assert 600 <= fires_in(headers, forced) < 610

    await put_settings(runtime, {**settings, "timeout.hard.reconciliation": "5m"})
    await compare_now(worker, app, RefreshLevel.LATEST)
    ((headers, request),) = await timers(runtime, app)
    assert request == RenderRequest(ref(app), RefreshLevel.FORCE, HARD_REASON)
    assert 300 <= fires_in(headers, forced) < 310, "the hard one counts from the last hard one"

    await compare_now(worker, app, RefreshLevel.LATEST)
    ((again, _),) = await timers(runtime, app)
    assert again[SCHEDULE] == headers[SCHEDULE], "a soft comparison does not move the hard one"
