"""A resumable watch of one resource type: list, then watch from there, forever.

The stream lists (in pages), delivers the differences and a `Synced` marker, then watches
from the list's resourceVersion with bookmarks on. A dropped or timed-out connection is
resumed from the last resourceVersion seen (an event or a bookmark), so nothing is missed
or repeated; a `410 Expired` (history compacted while away) relists and delivers only what
changed. Transient failures back off exponentially with jitter; a permanent one (the type
was removed, permission denied) ends the stream with its error.

The stream runs in the consumer's own task: no task or thread per watch, one connection
each, so watching every type of a cluster costs one socket and a small map per type.
`async with cluster.watch(...) as events:` guarantees the connection is closed on exit,
`break` and cancellation alike.
"""

import asyncio
import json
import random
import time
from collections.abc import AsyncGenerator, Awaitable
from contextlib import aclosing
from dataclasses import replace
from types import TracebackType
from typing import Any, TypeVar

import aiohttp

from app import jsonio, log
from app.cluster.discovery import Discovery
from app.cluster.errors import (
    ClusterError,
    Expired,
    Target,
    error_for_exception,
    error_for_status,
)
from app.cluster.listing import list_pages, selector_query
from app.cluster.paths import collection_path
from app.cluster.resources import ResourceType
from app.cluster.settings import ClusterSettings
from app.cluster.transport import NETWORK_ERRORS, Transport
from app.cluster.watch_events import EventType, KnownObjects, Synced, WatchEvent

T = TypeVar("T")

QUICK_CLOSE_SECONDS = 1.0
"""A watch the server closes this fast without sending anything is reopened after a pause."""


class LineReader:
    """Newline-delimited watch events from a streaming body, each at most `limit` bytes."""

    __slots__ = ("_buffer", "_content", "_limit", "_scanned", "_target")

    def __init__(self, content: aiohttp.StreamReader, limit: int, target: Target) -> None:
        self._content = content
        self._limit = limit
        self._target = target
        self._buffer = bytearray()
        self._scanned = 0

    async def readline(self) -> bytes | None:
        """The next non-empty line, or None when the stream has ended."""
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if (end if end >= 0 else len(self._buffer)) > self._limit:
                raise ClusterError(
                    f"a watch event is over the {self._limit}-byte limit",
                    target=self._target,
                    hint="raise max_event_bytes",
                )
            if end < 0:
                self._scanned = len(self._buffer)
                chunk = await self._content.readany()
                if not chunk:
                    rest = bytes(self._buffer).strip()
                    self._buffer.clear()
                    return rest or None
                self._buffer += chunk
                continue
            line = bytes(self._buffer[:end]).strip()
            del self._buffer[: end + 1]
            self._scanned = 0
            if line:
                return line


class Backoff:
    """Exponential pauses with jitter between reconnection attempts."""

    __slots__ = ("_initial", "_maximum", "_next")

    def __init__(self, initial: float, maximum: float) -> None:
        self._initial = initial
        self._maximum = maximum
        self._next = initial

    def reset(self) -> None:
        self._next = self._initial

    def next_delay(self) -> float:
        delay = self._next * random.uniform(0.5, 1.0)
        self._next = min(self._maximum, self._next * 2)
        return delay


def _decode(line: bytes, target: Target) -> tuple[str, dict[str, Any]]:
    try:
        event = jsonio.loads(line)
    except ValueError as e:
        raise ClusterError("the server sent a watch event that is not JSON", target=target) from e
    if not isinstance(event, dict) or not isinstance(event.get("object"), dict):
        raise ClusterError("the server sent a watch event without an object", target=target)
    return str(event.get("type") or ""), event["object"]


class Watch:
    """Events of one resource type; use as `async with cluster.watch(...) as events:`."""

    def __init__(
        self,
        transport: Transport,
        discovery: Discovery,
        settings: ClusterSettings,
        target: Target,
        *,
        label_selector: str = "",
        field_selector: str = "",
    ) -> None:
        self._transport = transport
        self._discovery = discovery
        self._settings = settings
        self._target = target
        self._label_selector = label_selector
        self._field_selector = field_selector
        self._log = log.get(
            "cluster.watch",
            cluster=target.cluster,
            kind=target.kind,
            api_version=target.api_version,
            namespace=target.namespace,
        )
        self._events: AsyncGenerator[WatchEvent | Synced, None] | None = None
        self.resource_version = ""
        """Where the stream would resume: the last resourceVersion seen in an event, a
        bookmark or a list ("" before the first list and while relisting)."""

    async def __aenter__(self) -> AsyncGenerator[WatchEvent | Synced, None]:
        self._events = self._run()
        return self._events

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        events, self._events = self._events, None
        if events is not None:
            await events.aclose()

    def _query(self, resource_version: str) -> list[tuple[str, str]]:
        seconds = max(1, round(self._settings.watch_timeout * random.uniform(0.9, 1.1)))
        return [
            ("watch", "true"),
            ("resourceVersion", resource_version),
            ("allowWatchBookmarks", "true"),
            ("timeoutSeconds", str(seconds)),
            *selector_query(self._label_selector, self._field_selector),
        ]

    async def _within_deadline(self, call: Awaitable[T], target: Target) -> T:
        limit = self._settings.request_timeout
        try:
            async with asyncio.timeout(limit):
                return await call
        except TimeoutError as e:
            raise error_for_exception(e, target, timeout=limit) from e

    async def _relist(
        self, rt: ResourceType, known: KnownObjects
    ) -> AsyncGenerator[WatchEvent, None]:
        """The differences a list makes, a page at a time (each page within the deadline);
        sets `resource_version` once the last page is in."""
        target = replace(self._target, verb="list")
        pages = list_pages(
            self._transport,
            rt,
            target,
            namespace=self._target.namespace,
            label_selector=self._label_selector,
            field_selector=self._field_selector,
            page_size=self._settings.watch_list_page_size,
        )
        known.begin_relist()
        resource_version = ""
        try:
            while (page := await self._within_deadline(anext(pages, None), target)) is not None:
                if page.restarted:
                    known.begin_relist()
                resource_version = page.resource_version
                for event in known.listed(page.items):
                    yield event
                del page
        finally:
            await pages.aclose()
        for event in known.end_relist():
            yield event
        self.resource_version = resource_version

    async def _pause(self, error: ClusterError, backoff: Backoff) -> None:
        """Wait before the next attempt, or raise `error` if trying again cannot help."""
        if not error.retriable:
            self._log.warning("watch.stopped", error=str(error))
            raise error
        delay = backoff.next_delay()
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            delay = max(delay, float(retry_after))
        self._log.info("watch.retrying", error=str(error), delay=round(delay, 2))
        await asyncio.sleep(delay)

    def _change(
        self, line: bytes, rt: ResourceType, known: KnownObjects, backoff: Backoff
    ) -> WatchEvent | None:
        """What one line of the stream changed: None for a bookmark or an event already
        delivered; an ERROR event raises the error it carries."""
        target = self._target
        kind, obj = _decode(line, target)
        if kind == "ERROR":
            code = obj.get("code")
            status = code if isinstance(code, int) else 500
            raise error_for_status(status, json.dumps(obj).encode(), target)
        meta = obj.get("metadata") or {}
        rv = meta.get("resourceVersion")
        self.resource_version = str(rv or self.resource_version)
        if kind == "BOOKMARK":
            return None
        if kind not in EventType.__members__:
            raise ClusterError(f"unknown watch event type {kind!r}", target=target)
        obj.setdefault("apiVersion", rt.api_version)
        obj.setdefault("kind", rt.kind)
        backoff.reset()
        return known.observe(EventType(kind), obj)

    async def _run(self) -> AsyncGenerator[WatchEvent | Synced, None]:
        target = self._target
        resolving = self._discovery.resolve(target.api_version, target.kind)
        rt = await self._within_deadline(resolving, target)
        known = KnownObjects(rt.api_version, rt.kind)
        path = collection_path(rt, target.namespace, target)
        backoff = Backoff(self._settings.watch_backoff_initial, self._settings.watch_backoff_max)
        self.resource_version = ""
        while True:
            if not self.resource_version:
                try:
                    async with aclosing(self._relist(rt, known)) as relisting:
                        async for event in relisting:
                            yield event
                except ClusterError as e:
                    await self._pause(e, backoff)
                    continue
                self._log.info("watch.listed", objects=len(known), rv=self.resource_version)
                yield Synced(self.resource_version, len(known))
            opened, received = time.monotonic(), 0
            try:
                async with self._transport.stream(
                    path, target, query=self._query(self.resource_version)
                ) as resp:
                    reader = LineReader(resp.content, self._settings.max_event_bytes, target)
                    while (line := await reader.readline()) is not None:
                        received += 1
                        change = self._change(line, rt, known, backoff)
                        if change is not None:
                            yield change
            except Expired as e:
                self._log.info("watch.relisting", reason=e.problem, rv=self.resource_version)
                self.resource_version = ""
                continue
            except ClusterError as e:
                await self._pause(e, backoff)
                continue
            except NETWORK_ERRORS as e:
                limit = self._settings.watch_idle_timeout
                await self._pause(error_for_exception(e, target, timeout=limit), backoff)
                continue
            if received == 0 and time.monotonic() - opened < QUICK_CLOSE_SECONDS:
                await asyncio.sleep(backoff.next_delay())
