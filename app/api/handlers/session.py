"""`/api/v1/session`: sign a browser in with an API token, as an HttpOnly cookie.

The web UI cannot keep a token where page scripts could read it, and `EventSource` cannot
send an `Authorization` header, so `POST /api/v1/session {"token": ...}` checks the token
exactly as the bearer header is checked and answers with a cookie (`SESSION_COOKIE`)
holding it: `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's page
makes the browser send it), `Path=/api`, `Secure` when the request came over TLS. The
auth middleware accepts that cookie as it accepts the header, so every token rule (file
scopes, read-only, expiry, a token removed from the file) holds on every request; nothing
is stored on the server. `GET` says who is signed in, `DELETE` clears the cookie.
"""

from dataclasses import dataclass, field

from aiohttp import web

from app import log
from app.api.auth_state import AUTH
from app.api.authn import authenticate
from app.api.errors import Unauthorized
from app.api.identity import Identity, IdentityKind
from app.api.routes import Call, Route
from app.api.shapes import Empty
from app.api.tokens import MAX_TOKEN_LENGTH, SESSION_COOKIE, Refused, TokenSet

logger = log.get("api")

PATH = "/api/v1/session"


@dataclass
class SessionRequest:
    """The API token to sign in with (as `sluice` reads it from .sluice/api-token)."""

    token: str = field(metadata={"doc": "an API token", "max_length": MAX_TOKEN_LENGTH})


@dataclass
class SessionInfo:
    """Who the session speaks for and what it may do."""

    name: str
    projects: list[str] = field(
        metadata={"doc": "a configured token's project globs; empty for signed tokens"}
    )
    read_only: bool = field(metadata={"doc": "a configured read-only token"})


def _info(identity: Identity, tokens: TokenSet) -> SessionInfo:
    """What the UI shows of the caller; what it may do is RBAC's answer per request."""
    grant = next((t.principal for t in tokens.tokens if t.principal.name == identity.name), None)
    if identity.kind is not IdentityKind.TOKEN or grant is None:
        return SessionInfo(identity.name, [], False)
    return SessionInfo(identity.name, list(grant.projects), grant.read_only)


def _json(info: SessionInfo) -> web.Response:
    return web.json_response(
        {"name": info.name, "projects": info.projects, "readOnly": info.read_only}
    )


async def sign_in(call: Call[None, SessionRequest]) -> web.Response:
    token = call.body.token.strip()
    try:
        principal = await authenticate(call.rt, call.request.app[AUTH], call.settings.tokens, token)
    except Refused as e:
        logger.info("api.sign_in_refused", reason=str(e))
        raise Unauthorized(f"sign-in refused: {e}") from None
    response = _json(_info(principal, call.settings.tokens))
    response.set_cookie(
        SESSION_COOKIE,
        token,
        path="/api",
        httponly=True,
        samesite="Strict",
        secure=call.request.secure,
    )
    logger.info("api.signed_in", principal=principal.name)
    return response


async def who(call: Call[None, None]) -> web.Response:
    return _json(_info(call.principal, call.settings.tokens))


async def sign_out(call: Call[None, None]) -> web.Response:
    response = web.json_response({})
    response.del_cookie(SESSION_COOKIE, path="/api")
    return response


TAG = "session"
ROUTES = (
    Route(
        method="POST",
        path=PATH,
        handler=sign_in,
        operation_id="signIn",
        summary="Sign a browser in: the token becomes an HttpOnly, SameSite=Strict cookie",
        tag=TAG,
        body=SessionRequest,
        response=SessionInfo,
        public=True,
        errors=(400, 401, 413, 415),
    ),
    Route(
        method="GET",
        path=PATH,
        handler=who,
        operation_id="getSession",
        summary="Who the token (header or session cookie) speaks for",
        tag=TAG,
        response=SessionInfo,
    ),
    Route(
        method="DELETE",
        path=PATH,
        handler=sign_out,
        operation_id="signOut",
        summary="Sign out: clear the session cookie",
        tag=TAG,
        response=Empty,
        public=True,
    ),
)
