"""Authentication: a presented bearer token becomes an `Identity`, or 401.

A signed token (a JWT, `app.engine.rbac.jwt_tokens`) must be signed by `server.secretkey`
and still be on record: a project role's token listed in its role's `jwtTokens` (so
removing it revokes it), an account's token listed in the account's tokens in
argocd-secret, the account existing, enabled and with the `apiKey` capability. Any other
token is looked up among the configured ones (`tokens.py`), in constant time. A token
that fails is refused, never downgraded to anonymous.
"""

import datetime as dt

from app.api.auth_state import AuthState
from app.api.identity import Identity, IdentityKind
from app.api.tokens import Refused, TokenSet
from app.cluster.errors import NotFound as ClusterNotFound
from app.engine.rbac import jwt_tokens
from app.engine.rbac.accounts import API_KEY
from app.engine.rbac.project_roles import issued_token, parse_role_subject
from app.model import project as project_model
from app.model.errors import SpecError
from app.model.project import AppProject
from app.runtime.runtime import Runtime

REVOKED = "the token was revoked (or never issued); ask for a new one"


async def _project(rt: Runtime, name: str) -> AppProject | None:
    try:
        doc = await rt.control_plane.get(
            project_model.API_VERSION,
            project_model.KIND,
            name,
            namespace=rt.settings.control_plane.namespace,
        )
    except ClusterNotFound:
        return None
    try:
        return AppProject.from_dict(doc, source=f"AppProject {name}")
    except SpecError:
        return None


async def _signed(rt: Runtime, state: AuthState, presented: str) -> Identity:
    try:
        claims = jwt_tokens.verify(presented, state.signing_key, now=dt.datetime.now(dt.UTC))
    except jwt_tokens.TokenInvalid as e:
        raise Refused(str(e)) from None
    subject, token_id = str(claims["sub"]), str(claims.get("jti") or "")
    role = parse_role_subject(subject)
    if role is not None:
        project = await _project(rt, role[0])
        if project is None or issued_token(project, role[1], claims["iat"], token_id) is None:
            raise Refused(REVOKED)
        return Identity(subject, IdentityKind.PROJECT_ROLE, claims, token_id)
    name, _, capability = subject.partition(":")
    account = state.accounts.get(name)
    if account is None:
        raise Refused(f"account {name!r} does not exist")
    if not account.enabled:
        raise Refused(f"account {name!r} is disabled")
    if (capability or API_KEY) != API_KEY or API_KEY not in account.capabilities:
        raise Refused(f"account {name!r} does not have the apiKey capability")
    if not token_id or account.token(token_id) is None:
        raise Refused(REVOKED)
    return Identity(name, IdentityKind.ACCOUNT, {**claims, "sub": name}, token_id)


async def authenticate(rt: Runtime, state: AuthState, tokens: TokenSet, presented: str) -> Identity:
    """The identity of a presented token; `Refused` (its text says why) otherwise."""
    if jwt_tokens.looks_like_jwt(presented):
        return await _signed(rt, state, presented)
    principal = tokens.authenticate(presented)
    claims = {"sub": principal.name, "groups": list(principal.groups)}
    return Identity(principal.name, IdentityKind.TOKEN, claims)
