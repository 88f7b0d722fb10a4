"""HTTP verbs on resource URLs: get, list, watch, create, update, patch, delete.

Each handler resolves the URL to a served type, parses the query (and body), calls the
object API, and renders the answer (an object, a list, a Table, or a watch stream).
"""

import base64
import dataclasses
import json
from typing import Any

from aiohttp import web

from app.localcluster import errors
from app.localcluster.api import deletes, patches, writes
from app.localcluster.resources import ResourceType
from app.localcluster.selectors import Matcher, matcher, parse_field_selector, parse_label_selector
from app.localcluster.web import bodies, logs, query, scale, tables
from app.localcluster.web import watch as watching
from app.localcluster.web.context import CONTEXT, Context
from app.localcluster.web.paths import Target
from app.localcluster.web.responses import json_response
from app.model.resource import KubeObject

_WRITE_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}
"""The verb each writing method is counted under (`Context.requests`)."""


def _not_served() -> errors.ApiError:
    return errors.ApiError(404, "NotFound", "the server could not find the requested resource")


def resolve(ctx: Context, target: Target) -> ResourceType:
    """The served type of a resource URL; 404 when the URL names nothing served."""
    rt = ctx.registry.lookup(target.group, target.version, target.resource)
    if rt is None:
        raise _not_served()
    if target.subresource and target.subresource not in rt.subresources:
        raise _not_served()
    if target.namespace is not None and not rt.namespaced:
        raise _not_served()
    return rt


def _wants_table(request: web.Request) -> bool:
    accept = request.headers.get("Accept", "")
    return "as=Table" in accept


def _matcher(rt: ResourceType, opts: query.ListOptions) -> Matcher | None:
    labels = parse_label_selector(opts.label_selector)
    fields = parse_field_selector(opts.field_selector, rt.field_selectors, str(rt.group_resource))
    return matcher(labels, fields)


def _continue_token(revision: int, key: str) -> str:
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": revision, "start": key}).encode()
    return base64.urlsafe_b64encode(raw).decode()


def _page(
    items: list[KubeObject], revision: int, opts: query.ListOptions
) -> tuple[list[KubeObject], int, str, int]:
    """The page `limit`/`continue` ask for: items, list revision, next token, items left."""
    start = ""
    if opts.continue_token:
        try:
            token = json.loads(base64.urlsafe_b64decode(opts.continue_token.encode()))
            revision, start = int(token["rv"]), str(token["start"])
        except (ValueError, KeyError, TypeError):
            raise errors.bad_request(
                "invalid continue token: pass back the token of the previous page"
            ) from None
    if start:
        items = [o for o in items if _key(o) > start]
    if opts.limit is None or len(items) <= opts.limit:
        return items, revision, "", 0
    page = items[: opts.limit]
    return page, revision, _continue_token(revision, _key(page[-1])), len(items) - opts.limit


def _key(obj: KubeObject) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', '')}/{meta['name']}"


async def _get(
    request: web.Request, ctx: Context, rt: ResourceType, target: Target
) -> web.StreamResponse:
    opts = query.list_options(request.query, target.watch)
    namespace = target.namespace
    if target.name and not opts.watch:
        ctx.requests["get"] += 1
        obj = ctx.api.get(rt, namespace or "", target.name)
        if _wants_table(request):
            return json_response(
                tables.table(
                    rt,
                    [obj],
                    str(obj["metadata"].get("resourceVersion", "")),
                    request.query.get("includeObject", "Metadata"),
                )
            )
        return json_response(obj)
    if target.name:
        by_name = f"metadata.name={target.name}"
        fields = f"{opts.field_selector},{by_name}" if opts.field_selector else by_name
        opts = dataclasses.replace(opts, field_selector=fields)
    match = _matcher(rt, opts)
    if opts.watch:
        ctx.requests["watch"] += 1
        return await _watch(request, ctx, rt, namespace=namespace, match=match, opts=opts)
    ctx.requests["list"] += 1
    items, revision = ctx.api.list(rt, namespace, match)
    items, revision, token, remaining = _page(items, revision, opts)
    if _wants_table(request):
        return json_response(
            tables.table(
                rt, items, str(revision), request.query.get("includeObject", "Metadata"), token
            )
        )
    metadata: dict[str, Any] = {"resourceVersion": str(revision)}
    if token:
        metadata["continue"] = token
        metadata["remainingItemCount"] = remaining
    return json_response(
        {"kind": rt.list_kind, "apiVersion": rt.api_version, "metadata": metadata, "items": items}
    )


async def _watch(
    request: web.Request,
    ctx: Context,
    rt: ResourceType,
    *,
    namespace: str | None,
    match: Matcher | None,
    opts: query.ListOptions,
) -> web.StreamResponse:
    render = None
    if _wants_table(request):
        include = request.query.get("includeObject", "Metadata")

        def render(obj: KubeObject) -> Any:
            return tables.table(rt, [obj], str(obj["metadata"].get("resourceVersion", "")), include)

    req = watching.WatchRequest(
        rt=rt,
        namespace=namespace,
        match=match,
        resource_version=opts.resource_version,
        send_initial_events=opts.send_initial_events,
        allow_bookmarks=opts.allow_bookmarks,
        timeout_seconds=opts.timeout_seconds,
        render=render,
    )
    try:
        opened = watching.start(
            ctx.events,
            lambda: ctx.api.list(rt, namespace, match),
            req,
            ctx.watch_limits.buffer_limit,
        )
    except errors.ApiError as e:
        if e.code == 410:
            return await watching.serve_expired(request, e)
        raise
    ctx.watches.add(opened.stream)
    try:
        return await watching.serve(
            request, opened, lambda: ctx.api.store.revision, ctx.watch_limits
        )
    finally:
        opened.stop()
        ctx.watches.discard(opened.stream)


async def _body(
    request: web.Request, ctx: Context, allowed: tuple[str, ...] = bodies.OBJECT_TYPES
) -> Any:
    raw = await bodies.read(request, ctx.max_body_bytes)
    return bodies.decode(raw, bodies.media_type(request), allowed=allowed)


def _write_options(request: web.Request, target: Target) -> Any:
    return query.write_options(
        request.query,
        request.query.getall("dryRun", []),
        request.headers.get("User-Agent", ""),
        target.subresource,
    )


async def handle(request: web.Request, target: Target) -> web.StreamResponse:
    ctx = request.app[CONTEXT]
    rt = resolve(ctx, target)
    namespace = target.namespace or ""
    method = request.method
    if target.subresource in ("scale", "log"):
        if rt.namespaced and target.namespace is None:
            raise _not_served()
        handler = scale.handle if target.subresource == "scale" else logs.handle
        return await handler(request, ctx, rt, target)
    if method == "GET":
        return await _get(request, ctx, rt, target)
    if rt.namespaced and target.namespace is None and method != "DELETE":
        raise _not_served()
    verb = _WRITE_VERBS.get(method, method.lower())
    ctx.requests["deletecollection" if verb == "delete" and not target.name else verb] += 1
    if method == "POST" and not target.name:
        body = await _body(request, ctx)
        opts = _write_options(request, target)
        obj = writes.create(ctx.api, rt, body, namespace=namespace, opts=opts)
        return json_response(obj, status=201)
    if method == "PUT" and target.name:
        body = await _body(request, ctx)
        opts = _write_options(request, target)
        obj = writes.update(ctx.api, rt, body, namespace=namespace, name=target.name, opts=opts)
        return json_response(obj)
    if method == "PATCH" and target.name:
        patch_type = bodies.media_type(request)
        if patch_type == patches.APPLY_PATCH and not request.query.get("fieldManager"):
            raise errors.bad_request(
                "fieldManager is required for apply requests (kubectl apply --server-side "
                "sets it; other clients pass ?fieldManager=NAME)"
            )
        body = await _body(request, ctx, allowed=bodies.PATCH_TYPES)
        opts = _write_options(request, target)
        obj, created = patches.patch(
            ctx.api,
            rt,
            body,
            namespace=namespace,
            name=target.name,
            patch_type=patch_type,
            opts=opts,
        )
        return json_response(obj, status=201 if created else 200)
    if method == "DELETE":
        raw = await bodies.read(request, ctx.max_body_bytes)
        body = (
            bodies.decode(raw, bodies.media_type(request) or bodies.JSON) if raw.strip() else None
        )
        opts = query.delete_options(request.query, request.query.getall("dryRun", []), body)
        if target.name:
            obj, _gone = deletes.delete(ctx.api, rt, namespace, target.name, opts)
            return json_response(obj)
        list_opts = query.list_options(request.query, False)
        items = deletes.delete_collection(
            ctx.api, rt, target.namespace, _matcher(rt, list_opts), opts
        )
        return json_response(
            {
                "kind": rt.list_kind,
                "apiVersion": rt.api_version,
                "metadata": {"resourceVersion": str(ctx.api.store.revision)},
                "items": items,
            }
        )
    raise errors.method_not_allowed(f"{method} is not supported on {request.path}")
