"""`/api/v1/stream`: Server-Sent Events, every event or one app's, resumable.

Each event is sent as

    id: <stream sequence>
    event: <type, e.g. operation-started>
    data: <the CloudEvent JSON>

so a client that reconnects with `Last-Event-ID` (what EventSource does by itself) gets
every event after the last it saw, and nothing twice. Without it, or `?after=`, the
stream starts with events that happen from now on. A comment `: ready` follows the
subscription (a client may start what it wants to watch once it sees it), and
`: keepalive` every `heartbeat` seconds of silence. A caller sees only the events of
apps it may `get`.
"""

import asyncio
import json
import time
from dataclasses import asdict

from aiohttp import web

from app import log
from app.api import access, authz, eventlog
from app.api.errors import BadRequest, Unavailable
from app.api.routes import Call, Route
from app.api.shapes import StreamQuery
from app.bus.events import StoredEvent
from app.engine.rbac import names
from app.model.identity import AppRef

logger = log.get("api")

_PROJECT_TTL = 5.0
"""Seconds an app's project is remembered while filtering a scoped token's stream."""


class _Visibility:
    """Whether the caller may get an app, to see its events (briefly cached per app)."""

    def __init__(self, call: Call[StreamQuery, None]) -> None:
        self._call = call
        self._seen: dict[AppRef, tuple[float, bool]] = {}

    async def allows(self, app: AppRef) -> bool:
        cached = self._seen.get(app)
        now = time.monotonic()
        if cached is not None and now - cached[0] < _PROJECT_TTL:
            return cached[1]
        found = await self._call.rt.apps.get(app)
        visible = found is not None and await access.may(self._call, found, names.GET)
        self._call.request.pop(authz.POLICIES, None)
        self._seen[app] = (now, visible)
        return visible


def _resume_point(call: Call[StreamQuery, None]) -> int | None:
    header = call.request.headers.get("Last-Event-ID", "").strip()
    if header:
        if not header.isdigit() or len(header) > 20:
            raise BadRequest(
                f"Last-Event-ID: expected a stream sequence number, got {header[:40]!r}"
            )
        return int(header)
    return call.query.after


def _frame(event: StoredEvent) -> bytes:
    data = json.dumps(asdict(event.event), separators=(",", ":"), ensure_ascii=False)
    return f"id: {event.seq}\nevent: {event.type.value}\ndata: {data}\n\n".encode()


class OpenStreams:
    """The streams one server has open (bounded by `max_streams`; ended at shutdown)."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[object]] = set()

    @property
    def count(self) -> int:
        return len(self.tasks)

    async def close(self, _app: web.Application) -> None:
        """`on_shutdown`: end every stream (clients reconnect with Last-Event-ID)."""
        for task in list(self.tasks):
            task.cancel()


OPEN_STREAMS = web.AppKey("open_streams", OpenStreams)


async def stream_events(call: Call[StreamQuery, None]) -> web.StreamResponse:
    app: AppRef | None = None
    if call.query.app:
        app = access.app_ref(call, call.query.app, call.query.app_namespace)
        await access.find_app(call, app)
    after = _resume_point(call)
    streams = call.request.app[OPEN_STREAMS]
    if streams.count >= call.settings.max_streams:
        raise Unavailable(f"{streams.count} event streams are open, the most at once; retry later")
    visibility = _Visibility(call)
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        }
    )
    log_ = logger.bind(app=str(app) if app else "*", after=after, principal=call.principal.name)
    task = asyncio.current_task()
    assert task is not None
    streams.tasks.add(task)
    sent = 0
    try:
        async with eventlog.relay(call.rt.bus, after=after, app=app) as feed:
            await response.prepare(call.request)
            await response.write(b": ready\n\n")
            log_.info("api.stream_opened")
            while True:
                try:
                    event = await asyncio.wait_for(feed.queue.get(), call.settings.heartbeat)
                except TimeoutError:
                    if feed.task.done():
                        break
                    await response.write(b": keepalive\n\n")
                    continue
                if await visibility.allows(event.app):
                    await response.write(_frame(event))
                    sent += 1
    except ConnectionResetError:
        # Found at the next write once the page is gone: the stream is over, not failed.
        log_.info("api.stream_closed", sent=sent, reason="client went away")
        return response
    except asyncio.CancelledError:
        log_.info("api.stream_closed", sent=sent, reason="client went away")
        raise
    finally:
        streams.tasks.discard(task)
    log_.info("api.stream_closed", sent=sent, reason="event feed ended")
    return response


ROUTES = (
    Route(
        method="GET",
        path="/api/v1/stream",
        handler=stream_events,
        operation_id="streamEvents",
        summary="Server-Sent Events: every event or one app's; resumable with Last-Event-ID",
        tag="events",
        query=StreamQuery,
        produces="text/event-stream",
        errors=(400, 404, 503),
    ),
)
