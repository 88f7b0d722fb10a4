"""HTTP verbs on `…/{name}/scale`: GET, PUT and PATCH of the Scale view (`api.scale`)."""

from aiohttp import web

from app.localcluster import errors
from app.localcluster.api import scale
from app.localcluster.resources import ResourceType
from app.localcluster.web import bodies, query
from app.localcluster.web.context import Context
from app.localcluster.web.paths import Target
from app.localcluster.web.responses import json_response


async def handle(
    request: web.Request, ctx: Context, rt: ResourceType, target: Target
) -> web.StreamResponse:
    namespace = target.namespace or ""
    if request.method == "GET":
        ctx.requests["get"] += 1
        return json_response(scale.read(ctx.api, rt, namespace, target.name))
    opts = query.write_options(
        request.query,
        request.query.getall("dryRun", []),
        request.headers.get("User-Agent", ""),
        "scale",
    )
    raw = await bodies.read(request, ctx.max_body_bytes)
    if request.method == "PUT":
        ctx.requests["update"] += 1
        body = bodies.decode(raw, bodies.media_type(request), allowed=bodies.OBJECT_TYPES)
        return json_response(
            scale.update(ctx.api, rt, body, namespace=namespace, name=target.name, opts=opts)
        )
    if request.method == "PATCH":
        ctx.requests["patch"] += 1
        patch_type = bodies.media_type(request)
        body = bodies.decode(raw, patch_type, allowed=bodies.PATCH_TYPES)
        obj = scale.patch(
            ctx.api,
            rt,
            body,
            namespace=namespace,
            name=target.name,
            patch_type=patch_type,
            opts=opts,
        )
        return json_response(obj)
    raise errors.method_not_allowed(f"{request.method} is not supported on {request.path}")
