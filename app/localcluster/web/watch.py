"""Watch streams: chunked newline-delimited JSON events, served from the change log.

A watch subscribes to its resource's changes in the same synchronous step that reads
its starting point (the current objects, or the history after the requested
resourceVersion), so no change falls between the two and none is sent twice. A
selector watch sees an object enter (ADDED) and leave (DELETED) its selection as real
watches do. A watch that falls more than `buffer_limit` events behind is closed, and
the client resumes from the last resourceVersion it saw. A watch of a custom resource
ends when its CRD is deleted, as the real server ends it.
"""

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from app import log
from app.localcluster import errors
from app.localcluster.api.server import in_version
from app.localcluster.crds import CRDS
from app.localcluster.eventlog import ADDED, DELETED, MODIFIED, Change, EventLog, encode_event
from app.localcluster.resources import ResourceType
from app.localcluster.selectors import Matcher
from app.model.resource import KubeObject

logger = log.get("localcluster.watch")

INITIAL_EVENTS_END = "k8s.io/initial-events-end"
Render = Callable[[KubeObject], Any]


@dataclass(frozen=True, slots=True)
class WatchLimits:
    bookmark_interval: float
    """Seconds of quiet after which a watch that allows bookmarks gets one."""
    max_seconds: float
    """Longest a watch stays open (timeoutSeconds may ask for less)."""
    buffer_limit: int
    """Events a watch may fall behind before it is closed."""


class WatchStream:
    """One open watch: filters changes, buffers encoded lines, wakes the writer."""

    def __init__(
        self,
        rt: ResourceType,
        namespace: str | None,
        match: Matcher | None,
        render: Render | None,
        limit: int,
    ) -> None:
        self.rt = rt
        self.namespace = namespace
        self.match = match
        self.render = render
        self.limit = limit
        self.closed = False
        self.close_reason = ""
        self._buffer: list[bytes] = []
        self._wake = asyncio.Event()

    def selects(self, change: Change) -> str | None:
        """The event type this watch sees for `change`, or None if it sees nothing."""
        if self.namespace is not None and change.namespace != self.namespace:
            return None
        if self.match is None:
            return change.type
        now_in = self.match(change.obj)
        if change.type == MODIFIED and change.old is not None:
            was_in = self.match(change.old)
            if was_in and now_in:
                return MODIFIED
            if was_in:
                return DELETED
            return ADDED if now_in else None
        return change.type if now_in else None

    def line(self, kind: str, obj: KubeObject, change: Change | None = None) -> bytes:
        if self.render is not None:
            return encode_event(kind, self.render(in_version(self.rt, obj)))
        if (
            change is not None
            and kind == change.type
            and obj.get("apiVersion") == self.rt.api_version
        ):
            return change.line()
        return encode_event(kind, in_version(self.rt, obj))

    def offer(self, change: Change) -> None:
        """Listener: queue the event `change` means for this watch."""
        if self.closed:
            return
        kind = self.selects(change)
        if kind is None:
            return
        self._buffer.append(self.line(kind, change.obj, change))
        self._wake.set()
        if len(self._buffer) > self.limit:
            self.close(f"fell more than {self.limit} events behind")

    def close(self, reason: str) -> None:
        if not self.closed:
            self.closed = True
            self.close_reason = reason
            self._wake.set()

    async def drain(self, wait_seconds: float) -> list[bytes]:
        """Lines queued so far, waiting up to `wait_seconds` for the first."""
        if not self._buffer and not self.closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), wait_seconds)
        self._wake.clear()
        lines, self._buffer = self._buffer, []
        return lines


def bookmark(rt: ResourceType, revision: int, initial_end: bool = False) -> bytes:
    meta: dict[str, Any] = {"resourceVersion": str(revision)}
    if initial_end:
        meta["annotations"] = {INITIAL_EVENTS_END: "true"}
    return encode_event(
        "BOOKMARK", {"kind": rt.kind, "apiVersion": rt.api_version, "metadata": meta}
    )


@dataclass(slots=True)
class WatchRequest:
    rt: ResourceType
    namespace: str | None
    match: Matcher | None
    resource_version: str
    send_initial_events: bool
    allow_bookmarks: bool
    timeout_seconds: int | None
    render: Render | None = None


@dataclass(slots=True)
class OpenWatch:
    """A subscribed watch: its stream, the lines to send first, and how to unsubscribe."""

    req: WatchRequest
    stream: WatchStream
    initial: list[bytes]
    stop: Callable[[], None]


def start(
    events: EventLog,
    current: Callable[[], tuple[list[KubeObject], int]],
    req: WatchRequest,
    limit: int,
) -> OpenWatch:
    """Subscribe and compute the initial lines in one synchronous step.

    Raises the 410 Expired ApiError when the resourceVersion was compacted away.
    """
    stream = WatchStream(req.rt, req.namespace, req.match, req.render, limit)
    rv = req.resource_version
    initial: list[bytes] = []
    if req.send_initial_events or rv in ("", "0"):
        items, revision = current()
        initial = [stream.line(ADDED, obj) for obj in items]
        if req.send_initial_events:
            initial.append(bookmark(req.rt, revision, initial_end=True))
    else:
        try:
            since = int(rv)
        except ValueError:
            raise errors.bad_request(
                f"invalid resourceVersion {rv!r}: must be an integer"
            ) from None
        changes = events.since(req.rt.group_resource, since)
        if changes is None:
            oldest = events.oldest_resumable(req.rt.group_resource)
            raise errors.expired(f"too old resource version: {since} ({oldest})")
        for change in changes:
            kind = stream.selects(change)
            if kind is not None:
                initial.append(stream.line(kind, change.obj, change))
    stops = [events.listen(req.rt.group_resource, stream.offer)]
    if req.rt.crd:
        stops.append(events.listen(CRDS, _closes_when_deleted(stream, req.rt.crd)))

    def stop() -> None:
        for each in stops:
            each()

    return OpenWatch(req, stream, initial, stop)


def _closes_when_deleted(stream: WatchStream, crd_name: str) -> Callable[[Change], None]:
    """A listener that ends `stream` when its type's CRD is deleted (its API is gone)."""

    def listener(change: Change) -> None:
        if change.type == DELETED and change.obj["metadata"]["name"] == crd_name:
            stream.close(f"the CustomResourceDefinition {crd_name} was deleted")

    return listener


async def serve(
    request: web.Request, watch: OpenWatch, revision: Callable[[], int], limits: WatchLimits
) -> web.StreamResponse:
    """Write the stream until timeout, server stop, a dropped-watches fault, or client exit."""
    req, stream = watch.req, watch.stream
    response = web.StreamResponse(
        headers={"Content-Type": "application/json", "Cache-Control": "no-cache, private"}
    )
    response.enable_chunked_encoding()
    await response.prepare(request)
    loop = asyncio.get_running_loop()
    wanted = float(req.timeout_seconds) if req.timeout_seconds else limits.max_seconds
    deadline = loop.time() + min(wanted, limits.max_seconds)
    if watch.initial:
        await response.write(b"".join(watch.initial))
    while True:
        remaining = deadline - loop.time()
        if remaining <= 0 or stream.closed:
            break
        lines = await stream.drain(min(remaining, limits.bookmark_interval))
        if lines:
            await response.write(b"".join(lines))
        elif req.allow_bookmarks and not stream.closed and deadline - loop.time() > 0:
            await response.write(bookmark(req.rt, revision()))
        if request.transport is None or request.transport.is_closing():
            break
    if stream.close_reason:
        logger.info("watch closed", resource=str(req.rt.group_resource), reason=stream.close_reason)
    await response.write_eof()
    return response


async def serve_expired(request: web.Request, error: errors.ApiError) -> web.StreamResponse:
    """A watch from a compacted resourceVersion: one ERROR event carrying 410, then EOF."""
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    response.enable_chunked_encoding()
    await response.prepare(request)
    await response.write(encode_event("ERROR", error.status()))
    await response.write_eof()
    return response
