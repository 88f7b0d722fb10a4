"""Timers are NATS message schedules: they fire on time, a newer one replaces the older, and
cancelling removes it. Each test proves "did not fire" by a later sentinel timer that did."""

import asyncio
import datetime as dt
import time
from collections.abc import AsyncIterator

import pytest

from app.bus import schedules, subjects
from app.bus.connection import Bus
from app.bus.consumer import Consumer, ConsumerSettings, Delivery
from app.bus.messages import REFRESH, RENDER, RefreshRequest, RenderRequest
from app.bus.schedules import RESYNC, SELFHEAL, SYNC_WINDOW
from app.bus.subjects import Purpose
from app.engine.autosync import RecheckCause
from app.model.identity import AppRef
from app.model.sync import RefreshLevel

APP = AppRef("sluice", "guestbook")


def _in(seconds: float) -> dt.datetime:
    return dt.datetime.now(dt.UTC) + dt.timedelta(seconds=seconds)


def _refresh(reason: str, app: AppRef = APP) -> RefreshRequest:
    return RefreshRequest(app, RefreshLevel.LATEST, reason)


@pytest.fixture
async def fired(
    ready_bus: Bus,
) -> AsyncIterator[asyncio.Queue[tuple[float, Delivery[RefreshRequest]]]]:
    """Refresh messages as they arrive, with their arrival time (time.time())."""
    queue: asyncio.Queue[tuple[float, Delivery[RefreshRequest]]] = asyncio.Queue()

    async def handle(d: Delivery[RefreshRequest]) -> None:
        queue.put_nowait((time.time(), d))

    async with Consumer(ready_bus, REFRESH, handle, ConsumerSettings(fetch_wait=0.2)):
        yield queue


async def _next(
    queue: asyncio.Queue[tuple[float, Delivery[RefreshRequest]]],
) -> tuple[float, Delivery[RefreshRequest]]:
    return await asyncio.wait_for(queue.get(), 5)


async def test_fires_at_its_time_on_the_target_subject(
    ready_bus: Bus, fired: asyncio.Queue
) -> None:
    when = _in(0.7)
    await schedules.schedule(ready_bus, SYNC_WINDOW, _refresh("window"), when)
    arrived, delivery = await _next(fired)
    assert arrived >= when.timestamp() - 0.05, "fired early"
    assert delivery.message == _refresh("window")
    assert delivery.subject == subjects.work(subjects.Work.REFRESH, APP)
    assert delivery.scheduled_by == subjects.schedule(Purpose.SYNC_WINDOW, APP)


async def test_a_newer_timer_replaces_the_older(ready_bus: Bus, fired: asyncio.Queue) -> None:
    await schedules.schedule(ready_bus, SYNC_WINDOW, _refresh("older, due first"), _in(0.4))
    await schedules.schedule(ready_bus, SYNC_WINDOW, _refresh("newer, due later"), _in(0.9))
    _, delivery = await _next(fired)
    assert delivery.message.reason == "newer, due later"
    assert fired.empty()


async def test_cancel_removes_the_pending_timer(ready_bus: Bus, fired: asyncio.Queue) -> None:
    await schedules.schedule(ready_bus, SYNC_WINDOW, _refresh("cancelled"), _in(0.4))
    assert await schedules.cancel(ready_bus, SYNC_WINDOW, APP)
    assert not await schedules.cancel(ready_bus, SYNC_WINDOW, APP), "nothing left to cancel"
    await schedules.schedule(ready_bus, SELFHEAL, _refresh("sentinel"), _in(0.8))
    _, delivery = await _next(fired)
    assert delivery.message.reason == "sentinel"


async def test_purposes_and_apps_have_timers_of_their_own(
    ready_bus: Bus, fired: asyncio.Queue
) -> None:
    other = AppRef("sluice", "other")
    await schedules.schedule(ready_bus, SYNC_WINDOW, _refresh("window"), _in(0.3))
    await schedules.schedule(ready_bus, SELFHEAL, _refresh("selfheal"), _in(0.3))
    await schedules.schedule(ready_bus, SYNC_WINDOW, _refresh("other app", other), _in(0.3))
    reasons = {(await _next(fired))[1].message.reason for _ in range(3)}
    assert reasons == {"window", "selfheal", "other app"}


async def test_a_time_in_the_past_fires_at_once(ready_bus: Bus, fired: asyncio.Queue) -> None:
    await schedules.schedule(ready_bus, SYNC_WINDOW, _refresh("overdue"), _in(-30))
    await schedules.schedule(ready_bus, SELFHEAL, _refresh("due soon"), _in(2.0))
    reasons = [(await _next(fired))[1].message.reason for _ in range(2)]
    assert reasons == ["overdue", "due soon"]


async def test_a_resync_timer_fires_a_render_request_into_the_render_stage(
    ready_bus: Bus,
) -> None:
    rendered: asyncio.Queue[Delivery[RenderRequest]] = asyncio.Queue()

    async def handle(d: Delivery[RenderRequest]) -> None:
        rendered.put_nowait(d)

    request = RenderRequest(APP, RefreshLevel.LATEST, "resync")
    async with Consumer(ready_bus, RENDER, handle, ConsumerSettings(fetch_wait=0.2)):
        await schedules.schedule(ready_bus, RESYNC, request, _in(0.3))
        delivery = await asyncio.wait_for(rendered.get(), 5)
    assert delivery.message == request
    assert delivery.subject == subjects.work(subjects.Work.RENDER, APP)
    assert delivery.scheduled_by == subjects.schedule(Purpose.RESYNC, APP)


@pytest.mark.parametrize(
    ("when", "header"),
    [
        pytest.param(
            dt.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=dt.UTC),
            "@at 2026-01-02T03:04:05.678Z",
            id="utc",
        ),
        pytest.param(
            dt.datetime(2026, 1, 2, 4, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=1))),
            "@at 2026-01-02T03:04:05.000Z",
            id="offset-converted-to-utc",
        ),
    ],
)
def test_at_header_is_rfc3339_utc(when: dt.datetime, header: str) -> None:
    assert schedules.at_header(when) == header


def test_naive_time_is_refused() -> None:
    with pytest.raises(ValueError, match="no time zone"):
        schedules.at_header(dt.datetime(2026, 1, 1))


def test_each_recheck_cause_has_its_own_refresh_timer() -> None:
    timers = [schedules.RECHECKS[cause] for cause in RecheckCause]
    assert len({t.purpose for t in timers}) == len(RecheckCause)
    assert all(t.channel is REFRESH for t in timers)
    assert schedules.RECHECKS[RecheckCause.SYNC_WINDOW].purpose is Purpose.SYNC_WINDOW
