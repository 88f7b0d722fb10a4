"""Events: CloudEvents 1.0 JSON on `sluice.events.<app>.<type>`, kept in SLUICE_EVENTS.

An event is what a user would want to see in an audit trail or a UI stream: an app went
OutOfSync, an operation started or failed, auto-sync was skipped and why. `emit` stores
one; `follow` replays from a stream sequence and then keeps following, so a client that
reconnects with the last sequence it saw (an SSE `Last-Event-ID`) misses nothing.

    {"specversion": "1.0", "id": "3f2a...", "source": "/sluice/compare",
     "type": "dev.sluice.out-of-sync", "subject": "sluice/guestbook",
     "time": "2026-01-02T03:04:05.678Z", "datacontenttype": "application/json",
     "data": {"revision": "...", "message": "..."}}
"""

import contextlib
import datetime as dt
import json
import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import nats.errors
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig, DeliverPolicy

from app import log
from app.bus import subjects
from app.bus.connection import Bus
from app.bus.errors import BusError, MessageError
from app.bus.messages import MAX_BYTES
from app.bus.publish import MSG_ID
from app.bus.subjects import EventType
from app.model.identity import AppRef
from app.model.timestamps import format_time

logger = log.get("bus")

SPEC_VERSION = "1.0"
CONTENT_TYPE = "application/json"
_TYPE_PREFIX = "dev.sluice."


@dataclass(frozen=True, slots=True)
class CloudEvent:
    """A CloudEvents 1.0 event in its JSON format (attribute names as the spec spells them)."""

    id: str
    source: str
    type: str
    subject: str
    time: str
    data: dict[str, Any]
    specversion: str = SPEC_VERSION
    datacontenttype: str = CONTENT_TYPE

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), separators=(",", ":"), ensure_ascii=False).encode()

    @classmethod
    def from_json(cls, data: bytes) -> "CloudEvent":
        """Parse an event; MessageError says which attribute is missing or wrong."""
        try:
            doc = json.loads(data)
        except ValueError as e:
            raise MessageError(f"event: not JSON ({e})") from None
        if not isinstance(doc, dict):
            raise MessageError("event: expected a JSON object")
        if doc.get("specversion") != SPEC_VERSION:
            raise MessageError(f"event: specversion {doc.get('specversion')!r}, expected 1.0")
        values: dict[str, Any] = {}
        for name in ("id", "source", "type", "subject", "time", "datacontenttype"):
            value = doc.get(name)
            if not isinstance(value, str) or not value:
                raise MessageError(f"event.{name}: expected a non-empty string")
            values[name] = value
        data_ = doc.get("data")
        if not isinstance(data_, dict):
            raise MessageError("event.data: expected a JSON object")
        return cls(data=data_, **values)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event with its position in SLUICE_EVENTS (resume after `seq`)."""

    seq: int
    app: AppRef
    type: EventType
    event: CloudEvent


def _now() -> str:
    return format_time(dt.datetime.now(dt.UTC), timespec="milliseconds")


async def emit(
    bus: Bus,
    app: AppRef,
    event_type: EventType,
    data: Mapping[str, Any],
    *,
    component: str,
) -> StoredEvent:
    """Store one event from `component` (compare, sync, ...); its id de-duplicates retries."""
    event = CloudEvent(
        id=uuid.uuid4().hex,
        source=f"/sluice/{component}",
        type=event_type.cloudevent_type,
        subject=str(app),
        time=_now(),
        data=dict(data),
    )
    body = event.to_json()
    if len(body) > MAX_BYTES:
        raise MessageError(
            f"{event_type.value} event for {app} is {len(body)} bytes, over the "
            f"{MAX_BYTES}-byte limit; trim its data"
        )
    subject = subjects.event(app, event_type)
    try:
        ack = await bus.js.publish(
            subject, body, headers={MSG_ID: event.id}, stream=subjects.EVENTS_STREAM
        )
    except (nats.errors.Error, TimeoutError) as e:
        raise BusError(
            f"could not store the {event_type.value} event of {app}: {type(e).__name__}: {e}"
        ) from None
    logger.info("event.emitted", app=str(app), type=event_type.value, seq=ack.seq)
    return StoredEvent(ack.seq, app, event_type, event)


class EventFeed:
    """Events in stream order, from a starting point on, as an async iterator."""

    def __init__(self, sub: JetStreamContext.PushSubscription) -> None:
        self._sub = sub

    def __aiter__(self) -> "EventFeed":
        return self

    async def __anext__(self) -> StoredEvent:
        while True:
            msg = await self._sub.next_msg(timeout=None)
            try:
                return stored_event(msg.subject, msg.metadata.sequence.stream, msg.data)
            except (MessageError, ValueError) as e:
                logger.warning(
                    "event.unreadable",
                    subject=msg.subject,
                    seq=msg.metadata.sequence.stream,
                    error=str(e),
                    action="skipped",
                )


def stored_event(subject: str, seq: int, data: bytes) -> StoredEvent:
    """The event stored at `seq` on `subject`; MessageError or ValueError if unreadable."""
    parts = subject.split(".")
    if len(parts) != 4:
        raise ValueError(f"not an event subject: {subject!r}")
    return StoredEvent(
        seq, subjects.app_from_token(parts[2]), EventType(parts[3]), CloudEvent.from_json(data)
    )


@contextlib.asynccontextmanager
async def follow(
    bus: Bus, *, after: int | None = 0, app: AppRef | None = None
) -> AsyncIterator[EventFeed]:
    """Events after stream sequence `after` (0: all kept; None: only new), optionally one app's.

    The feed is an ordered, ephemeral consumer: nothing to clean up on the server, and
    gaps (a reconnect) are detected and replayed by the client.
    """
    if after is None:
        config = ConsumerConfig(deliver_policy=DeliverPolicy.NEW)
    elif after <= 0:
        config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
    else:
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=after + 1
        )
    try:
        sub = await bus.js.subscribe(
            subjects.events_filter(app),
            stream=subjects.EVENTS_STREAM,
            ordered_consumer=True,
            config=config,
        )
    except (nats.errors.Error, TimeoutError) as e:
        raise BusError(f"could not follow events: {type(e).__name__}: {e}") from None
    try:
        yield EventFeed(sub)
    finally:
        with contextlib.suppress(nats.errors.Error):
            await sub.unsubscribe()
