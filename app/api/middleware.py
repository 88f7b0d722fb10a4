"""What every request goes through, outermost first: error answers, request metrics,
authentication, the JSON-only rule for changes, and the request deadline.

- Errors: an `ApiError` (and the errors of the layers below: cluster, bus, store) becomes
  a `Status` JSON answer here and nowhere else; anything unexpected is logged with the
  route and answered 500 without details (never a traceback to the client).
- Authentication: every route but the public ones (health, webhook, sign-in, the web UI's
  files) needs `Authorization: Bearer <token>`, or the web UI's session cookie holding a
  token (`handlers/session.py`), checked by `authn.py`; a missing, unknown, expired or
  revoked token is 401, whatever the path, so probing for routes without a token learns
  nothing. What the caller may then do is decided by each handler against its object
  (`authz.py`), the same for the web UI as for any client.
- CSRF: POST, PUT and PATCH, and a DELETE with a body, must send
  `Content-Type: application/json` (415 otherwise; webhooks excepted). Browsers cannot
  send that cross-site without a preflight, and a bearer token is never sent by a browser
  on its own. The session cookie is SameSite=Strict, and a request it authenticates that
  changes something must come from this origin: one whose `Sec-Fetch-Site` says another
  site sent it, or whose `Origin` names another host, is refused (403).
- Deadline: a request (its cluster, Redis and NATS calls) gets `request_timeout` seconds;
  event streams are exempt (they are long-lived by design and send heartbeats), and so is
  the webhook, which bounds each of its steps itself (a slow body is its 408, not a 504).
"""

import asyncio
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import redis.exceptions
from aiohttp import web

from app import log
from app.api import errors
from app.api.auth_state import AUTH
from app.api.authn import authenticate
from app.api.metrics import API_REQUESTS
from app.api.routes import PRINCIPAL, ROUTE_TABLE, RUNTIME, SETTINGS, Route
from app.api.tokens import SESSION_COOKIE, Refused
from app.api.webhooks import PATH as WEBHOOK_PATH
from app.bus.errors import BusError
from app.cluster import errors as cluster_errors
from app.store.errors import StoreError

logger = log.get("api")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_CHANGES = ("POST", "PUT", "PATCH")
_READS = ("GET", "HEAD", "OPTIONS")
_JSON = "application/json"
PUBLIC_FILES = frozenset({"ui-index", "ui-file"})
"""Route names of the web UI's static files (served without a token; `app.api.ui`)."""


def route_name(request: web.Request) -> str:
    """The matched route's operation id (a fixed set: metric labels come from it)."""
    name = request.match_info.route.name
    if name:
        return name
    resource = request.match_info.route.resource
    if resource is not None and resource.canonical == WEBHOOK_PATH:
        return "webhook"
    return "unmatched"


def _route(request: web.Request) -> Route | None:
    name = request.match_info.route.name
    return request.app[ROUTE_TABLE].get(name) if name else None


def _public(request: web.Request) -> bool:
    route = _route(request)
    if route is not None:
        return route.public
    return route_name(request) == "webhook" or route_name(request) in PUBLIC_FILES


def _cross_site(request: web.Request) -> bool:
    """Whether a browser says another site made this request."""
    if request.headers.get("Sec-Fetch-Site", "") in ("cross-site", "same-site"):
        return True
    origin = request.headers.get("Origin", "")
    if not origin:
        return False
    # The host only: behind a TLS-terminating proxy the scheme seen here is http.
    return urlsplit(origin).netloc != request.host


def _from_cluster(e: cluster_errors.ClusterError) -> errors.ApiError:
    text = str(e)
    if isinstance(e, cluster_errors.UnknownKind):
        return errors.Unavailable(
            f"{text}; install Argo CD's Application and AppProject CRDs (deploy/crds.yaml)"
        )
    if isinstance(e, cluster_errors.NotFound):
        return errors.NotFound(text)
    if isinstance(e, cluster_errors.Conflict | cluster_errors.Expired):
        return errors.Conflict(f"{text}; read the object again and retry")
    if isinstance(e, cluster_errors.Invalid):
        return errors.Invalid(text)
    if isinstance(e, cluster_errors.Forbidden | cluster_errors.Unauthorized):
        return errors.Unavailable(
            f"the control-plane cluster refused Sluice's own credentials: {text}; "
            "check Sluice's service account (deploy/rbac.yaml)"
        )
    return errors.Unavailable(f"the control-plane cluster is unavailable: {text}")


def _from_http(e: web.HTTPException) -> errors.ApiError:
    if e.status == 404:
        return errors.NotFound("no such API path; see /api/openapi.json")
    if e.status == 405:
        return errors.MethodNotAllowed(f"method not allowed here: {e.reason}")
    if e.status == 413:
        return errors.PayloadTooLarge("request body too large")
    return errors.BadRequest(e.text or e.reason)


def _answer(error: errors.ApiError) -> web.Response:
    return web.json_response(error.body(), status=error.status, headers=error.headers)


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except errors.ApiError as e:
        failure: errors.ApiError = e
    except web.HTTPException as e:
        if e.status < 400:
            raise
        failure = _from_http(e)
    except cluster_errors.ClusterError as e:
        failure = _from_cluster(e)
    except BusError as e:
        failure = errors.Unavailable(f"the event bus is unavailable: {e}")
    except (StoreError, redis.exceptions.RedisError) as e:
        failure = errors.Unavailable(f"the state store is unavailable: {type(e).__name__}: {e}")
    except TimeoutError:
        failure = errors.Timeout(
            f"the request did not finish within {request.app[SETTINGS].request_timeout:g} s; retry"
        )
    except (ConnectionResetError, asyncio.CancelledError):
        raise
    except Exception:  # a bug answers 500 with the traceback in the log only
        logger.exception("api.internal_error", route=route_name(request), method=request.method)
        failure = errors.ApiError("internal error; the server log has the details")
    if failure.status >= 500:
        logger.warning(
            "api.failed", route=route_name(request), status=failure.status, reason=failure.message
        )
    return _answer(failure)


@web.middleware
async def metrics_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    response = await handler(request)
    API_REQUESTS.labels(route_name(request), request.method, str(response.status)).inc()
    return response


@web.middleware
async def auth_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    if _public(request):
        return await handler(request)
    header = request.headers.get("Authorization", "")
    scheme, _, presented = header.partition(" ")
    if not header and SESSION_COOKIE in request.cookies:
        scheme, presented = "bearer", request.cookies[SESSION_COOKIE]
        if request.method not in _READS and _cross_site(request):
            raise errors.Forbidden(
                "a request from another site may not use the session cookie; "
                "send `Authorization: Bearer <token>`"
            )
    if scheme.lower() != "bearer" or not presented.strip():
        raise errors.Unauthorized(
            "authentication required: send `Authorization: Bearer <token>` "
            "(the CLI reads --token or SLUICE_TOKEN; the web UI signs in at /)"
        )
    try:
        principal = await authenticate(
            request.app[RUNTIME],
            request.app[AUTH],
            request.app[SETTINGS].tokens,
            presented.strip(),
        )
    except Refused as e:
        logger.info("api.unauthenticated", route=route_name(request), reason=str(e))
        raise errors.Unauthorized(str(e)) from None
    request[PRINCIPAL] = principal
    return await handler(request)


@web.middleware
async def json_only_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    if route_name(request) == "webhook":
        return await handler(request)
    has_body = request.body_exists
    changes = request.method in _CHANGES or (request.method == "DELETE" and has_body)
    if changes and request.content_type != _JSON:
        raise errors.UnsupportedMediaType(
            f"{request.method} requests must send Content-Type: {_JSON} "
            f"(got {request.content_type or 'none'}); forms are refused"
        )
    return await handler(request)


@web.middleware
async def deadline_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    route = _route(request)
    if (route is not None and route.streaming) or request.path == WEBHOOK_PATH:
        return await handler(request)
    async with asyncio.timeout(request.app[SETTINGS].request_timeout):
        return await handler(request)


MIDDLEWARES = (
    metrics_middleware,
    error_middleware,
    auth_middleware,
    json_only_middleware,
    deadline_middleware,
)
