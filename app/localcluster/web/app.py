"""The aiohttp application: middlewares (errors, faults) and routes.

There is no authentication: kubectl refuses to send credentials over plain HTTP, and the
server listens on loopback only unless told otherwise.
"""

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import web

from app import log
from app.localcluster import errors
from app.localcluster.faults import SLOW, TIMEOUT, fault_error
from app.localcluster.web import admin, discovery, objects, paths
from app.localcluster.web.context import CONTEXT, Context
from app.localcluster.web.responses import encode, error_response, json_response, raw_json

logger = log.get("localcluster.http")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
VERSION = {
    "major": "1",
    "minor": "32",
    "gitVersion": "v1.32.0-sluice",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-01-01T00:00:00Z",
    "goVersion": "go1.23.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}
_FAULTED_PREFIXES = ("/api", "/version", "/openapi")


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except errors.ApiError as e:
        return error_response(e)
    except web.HTTPException:
        raise
    except (ConnectionResetError, asyncio.CancelledError):
        raise
    except Exception as e:  # a bug answers a 500 Status, the server stays up
        logger.exception("request failed", method=request.method, path=request.path)
        return error_response(
            errors.ApiError(
                500, "InternalError", f"internal error in the local cluster: {type(e).__name__}"
            )
        )


@web.middleware
async def fault_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path.startswith(_FAULTED_PREFIXES):
        faults = request.app[CONTEXT].faults
        kind = faults.pick()
        if kind == SLOW:
            await asyncio.sleep(faults.rates.slow_seconds)
        elif kind is not None:
            if kind == TIMEOUT:
                await asyncio.sleep(faults.rates.timeout_seconds)
            raise fault_error(kind)
    return await handler(request)


async def version(request: web.Request) -> web.Response:
    return json_response(VERSION)


async def healthy(request: web.Request) -> web.Response:
    return web.Response(text="ok")


async def openapi_root(request: web.Request) -> web.Response:
    return raw_json(request.app[CONTEXT].openapi.root())


async def openapi_document(request: web.Request) -> web.Response:
    body = request.app[CONTEXT].openapi.document(request.match_info["tail"].strip("/"))
    if body is None:
        raise errors.ApiError(404, "NotFound", f"no OpenAPI document at {request.path}")
    return raw_json(body)


async def openapi_v2(request: web.Request) -> web.Response:
    raise errors.ApiError(404, "NotFound", "OpenAPI v2 is not served; use /openapi/v3")


def _discovery(request: web.Request, ctx: Context) -> web.Response | None:
    path = request.path.rstrip("/")
    docs = ctx.discovery
    if path in ("/api", "/apis"):
        if discovery.wants_aggregated(request.headers.get("Accept", "")):
            return raw_json(
                encode(docs.aggregated(core=path == "/api")), discovery.AGGREGATED_CONTENT_TYPE
            )
        if path == "/api":
            return json_response(docs.api_versions(ctx.server_address))
        return json_response(docs.group_list())
    parts = [p for p in path.split("/") if p]
    if len(parts) == 2 and parts[0] == "apis":
        group = docs.group(parts[1])
        if group is None:
            raise errors.ApiError(
                404, "NotFound", "the server could not find the requested resource"
            )
        return json_response(group)
    split = paths.group_version(path)
    if split is not None and not split[2]:
        resources = docs.resource_list(split[0], split[1])
        if resources is None:
            raise errors.ApiError(
                404, "NotFound", "the server could not find the requested resource"
            )
        return json_response(resources)
    return None


async def api(request: web.Request) -> web.StreamResponse:
    ctx = request.app[CONTEXT]
    if request.method == "GET":
        answer = _discovery(request, ctx)
        if answer is not None:
            return answer
    target = paths.parse(request.path)
    if target is None:
        raise errors.ApiError(404, "NotFound", "the server could not find the requested resource")
    return await objects.handle(request, target)


def build(ctx: Context) -> web.Application:
    application = web.Application(
        middlewares=[error_middleware, fault_middleware],
        client_max_size=ctx.max_body_bytes + 1024,
    )
    application[CONTEXT] = ctx
    application.add_routes(
        [
            web.get("/version", version),
            web.get("/healthz", healthy),
            web.get("/livez", healthy),
            web.get("/readyz", healthy),
            web.get("/openapi/v3", openapi_root),
            web.get("/openapi/v3/{tail:.+}", openapi_document),
            web.get("/openapi/v2", openapi_v2),
            *admin.routes(),
            web.route("*", "/api{tail:(/.*)?}", api),
            web.route("*", "/apis{tail:(/.*)?}", api),
        ]
    )
    return application
