"""Routes as data: method, path, the shapes they take and give, and the handler.

A `Route` declares everything a client can rely on: its query parameters, its body and
its response as dataclasses (`shapes.py`), the errors it may answer, and whether it needs
a token. `bind` turns a route into an aiohttp handler that decodes the query and the body
into those dataclasses before the handler runs, and encodes what it returns; `openapi.py`
writes the document from the same declarations. A handler therefore only ever sees
well-formed input, and the document says exactly what is accepted.
"""

import dataclasses
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from aiohttp import web

from app.api.errors import BadRequest, PayloadTooLarge
from app.api.identity import NOBODY, Identity
from app.api.schema import DecodeError, decode, decode_query, fields_of, open_ended
from app.api.settings import ApiSettings
from app.model import codec
from app.model.errors import SpecError
from app.runtime.runtime import Runtime

Q = TypeVar("Q")
B = TypeVar("B")

PRINCIPAL = web.RequestKey("principal", Identity)
"""Request key of the authenticated `Identity` (set by the auth middleware)."""
RUNTIME = web.AppKey("runtime", Runtime)
SETTINGS = web.AppKey("settings", ApiSettings)


@dataclass(frozen=True)
class Call(Generic[Q, B]):
    """One request, decoded: who asks, the query and body as their dataclasses."""

    request: web.Request
    rt: Runtime
    settings: ApiSettings
    principal: Identity
    query: Q
    body: B

    def path(self, name: str) -> str:
        return self.request.match_info[name]


Handler = Callable[[Call[Any, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    handler: Handler
    operation_id: str
    summary: str
    tag: str
    query: type | None = None
    body: type | None = None
    response: type | None = None
    """The dataclass returned (encoded as JSON); None for a custom response."""
    status: int = 200
    errors: tuple[int, ...] = ()
    public: bool = False
    """Served without a token (health and webhook endpoints only)."""
    produces: str = "application/json"
    description: str = ""
    example: dict[str, Any] | None = None
    """A request body that works, shown in the document (and tried first by fuzzers)."""

    @property
    def streaming(self) -> bool:
        """Long-lived (Server-Sent Events): exempt from the request deadline."""
        return self.produces == "text/event-stream"

    @property
    def path_params(self) -> list[str]:
        return re.findall(r"{(\w+)}", self.path)


async def _read_json(request: web.Request, limit: int) -> Any:
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(
            f"request body is {request.content_length} bytes; the limit is {limit}"
        )
    data = bytearray()
    async for chunk in request.content.iter_chunked(64 * 1024):
        data.extend(chunk)
        if len(data) > limit:
            raise PayloadTooLarge(f"request body is over the {limit}-byte limit")
    if not data.strip():
        return {}
    try:
        return json.loads(data)
    except ValueError as e:
        raise BadRequest(f"request body is not valid JSON: {e}") from None
    except RecursionError:
        raise BadRequest("request body is nested too deeply") from None


def decode_body(cls: type[B], doc: Any) -> B:
    """A body as `cls`: model classes through their own validation, others strictly."""
    from_dict = getattr(cls, "from_dict", None)
    try:
        if from_dict is not None:
            result: B = from_dict(doc, source="request body")
            return result
        return decode(cls, doc)
    except (SpecError, DecodeError) as e:
        raise BadRequest(f"invalid request body: {e}") from None
    except RecursionError:
        raise BadRequest("request body is nested too deeply") from None


def encode(value: Any) -> Any:
    """A response value as JSON: model objects as Argo CD writes them, API shapes in full."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if open_ended(type(value)):
            return codec.encode(value)
        return {key: encode(getattr(value, f.name)) for f, key, _ in fields_of(type(value))}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if hasattr(value, "value") and not isinstance(value, str | int | float | bool):
        return value.value
    return value


ROUTE_TABLE = web.AppKey("routes", dict[str, Route])
"""Every declared route by operation id (the middlewares read their flags)."""


def bind(route: Route) -> web.RouteDef:
    """The aiohttp route: decode query and body, call the handler, encode its answer."""

    async def handle(request: web.Request) -> web.StreamResponse:
        query: Any = None
        if route.query is not None:
            try:
                query = decode_query(route.query, request.query, request.query.getall)
            except DecodeError as e:
                raise BadRequest(f"invalid query parameter {e}") from None
        body: Any = None
        if route.body is not None:
            settings = request.app[SETTINGS]
            body = decode_body(route.body, await _read_json(request, settings.max_body_bytes))
        call: Call[Any, Any] = Call(
            request,
            request.app[RUNTIME],
            request.app[SETTINGS],
            request.get(PRINCIPAL, NOBODY),
            query,
            body,
        )
        result = await route.handler(call)
        if isinstance(result, web.StreamResponse):
            return result
        return web.json_response(encode(result), status=route.status)

    return web.route(route.method, route.path, handle, name=route.operation_id)
