"""Events are CloudEvents 1.0 JSON in SLUICE_EVENTS, replayable from any stream sequence."""

import asyncio
import json

import pytest

from app.bus import events, subjects
from app.bus.connection import Bus
from app.bus.errors import MessageError
from app.bus.events import EventFeed, StoredEvent
from app.bus.subjects import EventType
from app.model.identity import AppRef

APP = AppRef("sluice", "guestbook")
OTHER = AppRef("team-a", "web.frontend")


async def _take(feed: EventFeed, n: int) -> list[StoredEvent]:
    return [await asyncio.wait_for(anext(feed), 5) for _ in range(n)]


async def test_event_is_a_cloudevent_on_its_subject(ready_bus: Bus) -> None:
    stored = await events.emit(
        ready_bus, APP, EventType.OUT_OF_SYNC, {"revision": "a" * 40}, component="compare"
    )
    msg = await ready_bus.js.get_msg(subjects.EVENTS_STREAM, stored.seq)
    assert msg.subject == "sluice.events.sluice~guestbook.out-of-sync"
    doc = json.loads(msg.data or b"")
    assert doc == {
        "specversion": "1.0",
        "id": stored.event.id,
        "source": "/sluice/compare",
        "type": "dev.sluice.out-of-sync",
        "subject": "sluice/guestbook",
        "time": stored.event.time,
        "datacontenttype": "application/json",
        "data": {"revision": "a" * 40},
    }
    assert doc["time"].endswith("Z")


async def test_follow_resumes_after_the_last_sequence_seen(ready_bus: Bus) -> None:
    emitted = [
        await events.emit(ready_bus, APP, t, {}, component="sync")
        for t in (
            EventType.OPERATION_STARTED,
            EventType.HOOK_PHASE_CHANGED,
            EventType.OPERATION_SUCCEEDED,
        )
    ]
    async with events.follow(ready_bus, after=emitted[0].seq) as feed:
        resumed = await _take(feed, 2)
    assert [e.type for e in resumed] == [
        EventType.HOOK_PHASE_CHANGED,
        EventType.OPERATION_SUCCEEDED,
    ]
    assert [e.seq for e in resumed] == [e.seq for e in emitted[1:]]
    assert resumed[0].event == emitted[1].event


async def test_follow_one_app_and_then_live_events(ready_bus: Bus) -> None:
    await events.emit(ready_bus, OTHER, EventType.SYNCED, {}, component="compare")
    await events.emit(ready_bus, APP, EventType.SYNCED, {"n": 1}, component="compare")
    async with events.follow(ready_bus, app=APP) as feed:
        (first,) = await _take(feed, 1)
        await events.emit(ready_bus, OTHER, EventType.HEALTH_CHANGED, {}, component="compare")
        await events.emit(ready_bus, APP, EventType.HEALTH_CHANGED, {"n": 2}, component="compare")
        (second,) = await _take(feed, 1)
    assert (first.app, first.event.data) == (APP, {"n": 1})
    assert (second.app, second.type, second.event.data) == (APP, EventType.HEALTH_CHANGED, {"n": 2})


async def test_follow_only_new_skips_history(ready_bus: Bus) -> None:
    await events.emit(ready_bus, APP, EventType.SYNCED, {"old": True}, component="compare")
    async with events.follow(ready_bus, after=None) as feed:
        await events.emit(ready_bus, APP, EventType.SYNCED, {"old": False}, component="compare")
        (only,) = await _take(feed, 1)
    assert only.event.data == {"old": False}


async def test_an_unreadable_event_is_skipped_and_following_goes_on(ready_bus: Bus) -> None:
    await ready_bus.js.publish(subjects.event(APP, EventType.SYNCED), b"garbage")
    await events.emit(ready_bus, APP, EventType.SYNCED, {"ok": True}, component="compare")
    async with events.follow(ready_bus) as feed:
        (good,) = await _take(feed, 1)
    assert good.event.data == {"ok": True}


async def test_oversized_event_is_refused(ready_bus: Bus) -> None:
    with pytest.raises(MessageError, match="over the"):
        await events.emit(
            ready_bus, APP, EventType.OPERATION_FAILED, {"message": "x" * 70_000}, component="sync"
        )


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        pytest.param({"specversion": "0.3"}, "specversion", id="old-spec"),
        pytest.param(
            {"specversion": "1.0", "id": "", "source": "s", "type": "t", "subject": "x",
             "time": "t", "datacontenttype": "application/json", "data": {}},
            "event.id",
            id="empty-id",
        ),
        pytest.param(
            {"specversion": "1.0", "id": "i", "source": "s", "type": "t", "subject": "x",
             "time": "t", "datacontenttype": "application/json", "data": []},
            "event.data",
            id="data-not-object",
        ),
    ],
)  # fmt: skip
def test_malformed_cloudevents_name_the_attribute(doc: dict[str, object], problem: str) -> None:
    with pytest.raises(MessageError, match=problem):
        events.CloudEvent.from_json(json.dumps(doc).encode())
