"""Read-only views of an app: resource tree, deployment history, recent events."""

from dataclasses import asdict
from typing import Any

from aiohttp import web

from app.api import access, eventlog
from app.api.routes import Call, Route
from app.api.shapes import (
    AppQuery,
    EventEntry,
    EventList,
    EventsQuery,
    HistoryResponse,
    TreeResponse,
)
from app.engine.rbac import names
from app.model import codec


async def resource_tree(call: Call[AppQuery, None]) -> TreeResponse:
    ref, _ = await access.named_app(call, names.GET)
    nodes = await call.rt.tree.load(ref)
    orphaned = await call.rt.tree.load_orphaned(ref)
    return TreeResponse([dict(node) for node in nodes or []], [dict(n) for n in orphaned])


async def history(call: Call[AppQuery, None]) -> web.Response:
    ref, _ = await access.named_app(call, names.GET)
    entries = await call.rt.history.load(ref)
    # Argo CD writes `id` even when it is 0; the model codec leaves zeros out.
    items: list[dict[str, Any]] = [codec.encode(e) | {"id": e.id} for e in entries]
    return web.json_response({"items": items})


async def recent_events(call: Call[EventsQuery, None]) -> EventList:
    ref, _ = await access.named_app(call, names.GET)
    found = await eventlog.recent(call.rt.bus, ref, call.query.limit)
    return EventList([EventEntry(e.seq, str(e.app), e.type.value, asdict(e.event)) for e in found])


TAG = "applications"
BASE = "/api/v1/applications/{name}"
ROUTES = (
    Route(
        method="GET",
        path=BASE + "/resource-tree",
        handler=resource_tree,
        operation_id="getResourceTree",
        summary="The app's managed objects and what they own, with health",
        tag=TAG,
        query=AppQuery,
        response=TreeResponse,
        errors=(400, 404),
    ),
    Route(
        method="GET",
        path=BASE + "/history",
        handler=history,
        operation_id="getHistory",
        summary="Deployment history, oldest first",
        tag=TAG,
        query=AppQuery,
        response=HistoryResponse,
        errors=(400, 404),
    ),
    Route(
        method="GET",
        path=BASE + "/events",
        handler=recent_events,
        operation_id="getEvents",
        summary="The app's recent events (CloudEvents), oldest first",
        tag=TAG,
        query=EventsQuery,
        response=EventList,
        errors=(400, 404, 503),
    ),
)
