"""`GET …/pods/{name}/log`: a simulated container's log, plain text, optionally followed.

Query parameters as the kubelet reads them: container, follow, previous, timestamps,
tailLines, sinceSeconds, sinceTime, limitBytes. A followed log stays open and gets the
lines the pod's next status changes add; it ends when the container ends, when the pod
is deleted (after its SIGTERM line), after the longest watch time, or when the client
goes away.
"""

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from app.localcluster import errors, podlogs
from app.localcluster.eventlog import DELETED, Change
from app.localcluster.resources import ResourceType
from app.localcluster.web import query
from app.localcluster.web.context import Context
from app.localcluster.web.paths import Target
from app.model.resource import KubeObject

TEXT = "text/plain"


def _options(request: web.Request) -> podlogs.LogOptions:
    q = request.query
    return podlogs.LogOptions(
        container=q.get("container", ""),
        previous=query.parse_bool(q, "previous"),
        timestamps=query.parse_bool(q, "timestamps"),
        tail_lines=query.parse_int(q, "tailLines"),
        since_seconds=query.parse_int(q, "sinceSeconds", minimum=1),
        since_time=q.get("sinceTime", ""),
        limit_bytes=query.parse_int(q, "limitBytes", minimum=1),
    )


class _Budget:
    """What limitBytes still lets through."""

    def __init__(self, limit: int | None) -> None:
        self.left = limit

    def take(self, data: bytes) -> bytes:
        if self.left is None:
            return data
        data = data[: self.left]
        self.left -= len(data)
        return data

    @property
    def spent(self) -> bool:
        return self.left is not None and self.left <= 0


async def handle(
    request: web.Request, ctx: Context, rt: ResourceType, target: Target
) -> web.StreamResponse:
    if request.method != "GET":
        raise errors.method_not_allowed(f"{request.method} is not supported on {request.path}")
    ctx.requests["get"] += 1
    namespace = target.namespace or ""
    pod = ctx.api.get(rt, namespace, target.name)
    options = _options(request)
    container = podlogs.container_of(pod, options)
    if options.previous:
        found = podlogs.previous_lines(pod, container)
    else:
        found = podlogs.lines(pod, container)
    budget = _Budget(options.limit_bytes)
    first = budget.take(podlogs.render(podlogs.select(found, options, time.time()), options))
    follow = query.parse_bool(request.query, "follow")
    if not follow or options.previous or podlogs.finished(pod, container) or budget.spent:
        return web.Response(body=first, content_type=TEXT)
    followed = _Followed(rt, pod, container, options, budget, len(found))
    return await _follow(request, ctx, followed, first)


@dataclass(slots=True)
class _Followed:
    """A followed log: whose, how it is shown, and how many lines were sent."""

    rt: ResourceType
    pod: KubeObject
    container: dict[str, Any]
    options: podlogs.LogOptions
    budget: _Budget
    sent: int


async def _follow(
    request: web.Request, ctx: Context, log: _Followed, first: bytes
) -> web.StreamResponse:
    changed = asyncio.Event()
    latest: list[tuple[KubeObject, bool]] = []
    uid = log.pod["metadata"].get("uid")

    def listener(change: Change) -> None:
        if change.obj["metadata"].get("uid") == uid:
            latest.append((change.obj, change.type == DELETED))
            changed.set()

    stop = ctx.events.listen(log.rt.group_resource, listener)
    response = web.StreamResponse(headers={"Content-Type": TEXT, "Cache-Control": "no-cache"})
    response.enable_chunked_encoding()
    try:
        await response.prepare(request)
        if first:
            await response.write(first)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ctx.watch_limits.max_seconds
        done = False
        while not done and not log.budget.spent and loop.time() < deadline:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), deadline - loop.time())
            changed.clear()
            while latest and not done:
                current, deleted = latest.pop(0)
                found = podlogs.lines(current, log.container, deleted=deleted)
                chunk = log.budget.take(podlogs.render(found[log.sent :], log.options))
                log.sent = len(found)
                if chunk:
                    await response.write(chunk)
                done = deleted or podlogs.finished(current, log.container)
            if request.transport is None or request.transport.is_closing():
                break
        await response.write_eof()
    finally:
        stop()
    return response
