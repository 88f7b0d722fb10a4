"""Liveness, readiness, metrics and the OpenAPI document."""

import asyncio

from aiohttp import web

from app.api.errors import Unavailable
from app.api.metrics import Snapshot, exposition
from app.api.routes import Call, Route
from app.api.shapes import Health
from app.metrics.scrape import HOOKS
from app.runtime.runtime import Runtime

OPENAPI = web.AppKey("openapi", dict)
METRICS = web.AppKey("metrics", Snapshot)
READY_TIMEOUT = 2.0
"""Seconds each readiness check may take."""


async def healthz(call: Call[None, None]) -> Health:
    return Health("ok", {})


async def _nats(rt: Runtime) -> str:
    if not rt.bus.client.is_connected:
        return "not connected"
    await rt.bus.client.flush(timeout=int(READY_TIMEOUT))
    return "ok"


async def _redis(rt: Runtime) -> str:
    await asyncio.wait_for(rt.redis.ping(), READY_TIMEOUT)
    return "ok"


async def readyz(call: Call[None, None]) -> Health:
    checks: dict[str, str] = {}
    for name, check in (("nats", _nats), ("redis", _redis)):
        try:
            checks[name] = await check(call.rt)
        except Exception as e:  # noqa: BLE001 - every failure is "not ready", said in its words
            checks[name] = f"{type(e).__name__}: {e}"[:300] or "unreachable"
    failing = {name: text for name, text in checks.items() if text != "ok"}
    if failing:
        raise Unavailable(
            "not ready: " + "; ".join(f"{name}: {text}" for name, text in failing.items())
        )
    return Health("ok", checks)


async def metrics(call: Call[None, None]) -> web.Response:
    await call.request.app[METRICS].refresh()
    await HOOKS.run()
    data, content_type = exposition()
    response = web.Response(body=data)
    response.headers["Content-Type"] = content_type
    return response


async def openapi(call: Call[None, None]) -> web.Response:
    return web.json_response(call.request.app[OPENAPI])


ROUTES = (
    Route(
        method="GET",
        path="/healthz",
        handler=healthz,
        operation_id="healthz",
        summary="The process is alive",
        tag="system",
        response=Health,
        public=True,
    ),
    Route(
        method="GET",
        path="/readyz",
        handler=readyz,
        operation_id="readyz",
        summary="NATS and Redis are reachable (503 naming the one that is not)",
        tag="system",
        response=Health,
        public=True,
        errors=(503,),
    ),
    Route(
        method="GET",
        path="/metrics",
        handler=metrics,
        operation_id="metrics",
        summary="Prometheus metrics",
        tag="system",
        produces="text/plain",
        errors=(503,),
    ),
    Route(
        method="GET",
        path="/api/openapi.json",
        handler=openapi,
        operation_id="openapi",
        summary="This document",
        tag="system",
    ),
)
