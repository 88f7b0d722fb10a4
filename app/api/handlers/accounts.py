"""`/api/v1/account`: local accounts, their tokens, `can-i`, and who is asking.

As Argo CD's AccountService: listing and reading need `accounts, get, <name>` (a list
leaves out the accounts the caller may not get); an account may issue and revoke its
own tokens, others need `accounts, update, <name>`. A token is a signed JWT
(`sub: <name>:apiKey`, with `iat`, `exp` and `jti`) recorded in argocd-secret
`accounts.<name>.tokens`; deleting the record revokes it. `can-i` answers `yes` or `no`
for the caller, exactly as the routes decide.
"""

import datetime as dt
import uuid
from typing import Any

from app import log
from app.api import authz
from app.api.auth_shapes import (
    AccountInfo,
    AccountList,
    CanIResponse,
    TokenInfo,
    TokenRequest,
    TokenResponse,
    UserInfo,
)
from app.api.auth_state import AUTH
from app.api.errors import BadRequest, NotFound
from app.api.identity import IdentityKind
from app.api.routes import Call, Route
from app.api.shapes import Result
from app.engine.rbac import jwt_tokens
from app.engine.rbac import names as n
from app.engine.rbac.accounts import API_KEY, Account, AccountToken
from app.engine.rbac.enforcer import groups

logger = log.get("api")

MAX_FIELD = 256


def _info(account: Account) -> AccountInfo:
    return AccountInfo(
        account.name,
        account.enabled,
        list(account.capabilities),
        [TokenInfo(t.id, t.issued_at, t.expires_at) for t in account.tokens],
    )


def _not_found(name: str) -> NotFound:
    return NotFound(f"account {name} not found")


async def list_accounts(call: Call[None, None]) -> AccountList:
    accounts = call.request.app[AUTH].accounts.by_name.values()
    return AccountList(
        [_info(a) for a in accounts if await authz.allowed(call, n.ACCOUNTS, n.GET, a.name)]
    )


async def _account(call: Call[Any, Any], action: str) -> Account:
    name = call.path("name")
    if len(name) > MAX_FIELD:
        raise BadRequest("name: too long")
    await authz.require(call, n.ACCOUNTS, n.GET, name, hidden=_not_found(name))
    account = call.request.app[AUTH].accounts.get(name)
    if account is None:
        raise _not_found(name)
    own = call.principal.kind is IdentityKind.ACCOUNT and call.principal.name == name
    if action != n.GET and not own:
        await authz.require(call, n.ACCOUNTS, action, name)
    return account


async def get_account(call: Call[None, None]) -> AccountInfo:
    return _info(await _account(call, n.GET))


async def create_token(call: Call[None, TokenRequest]) -> TokenResponse:
    account = await _account(call, n.UPDATE)
    if API_KEY not in account.capabilities:
        raise BadRequest(
            f"account {account.name} does not have the apiKey capability; set "
            f"accounts.{account.name}: apiKey in argocd-cm"
        )
    if not account.enabled:
        raise BadRequest(f"account {account.name} is disabled")
    token_id = call.body.id or str(uuid.uuid4())
    if account.token(token_id) is not None:
        raise BadRequest(f"account {account.name} already has a token with id {token_id}")
    state = call.request.app[AUTH]
    token, claims = jwt_tokens.issue(
        f"{account.name}:{API_KEY}",
        await state.key(),
        now=dt.datetime.now(dt.UTC),
        expires_in=call.body.expires_in,
        token_id=token_id,
    )
    record = AccountToken(token_id, claims["iat"], claims.get("exp", 0))
    await state.set_account_tokens(account.name, [*account.tokens, record])
    logger.info(
        "api.account_token_created",
        account=account.name,
        token_id=token_id,
        expires_at=record.expires_at,
        principal=call.principal.name,
    )
    return TokenResponse(token, token_id, record.issued_at, record.expires_at)


async def delete_token(call: Call[None, None]) -> Result:
    account = await _account(call, n.UPDATE)
    token_id = call.path("id")
    kept = [t for t in account.tokens if t.id != token_id]
    if len(kept) == len(account.tokens):
        raise NotFound(f"account {account.name} has no token with id {token_id}")
    await call.request.app[AUTH].set_account_tokens(account.name, kept)
    logger.info(
        "api.account_token_deleted",
        account=account.name,
        token_id=token_id,
        principal=call.principal.name,
    )
    return Result("", f"token {token_id} of account {account.name} deleted")


async def can_i(call: Call[None, None]) -> CanIResponse:
    resource, action, obj = (call.path(p)[:MAX_FIELD] for p in ("resource", "action", "object"))
    return CanIResponse("yes" if await authz.allowed(call, resource, action, obj) else "no")


async def user_info(call: Call[None, None]) -> UserInfo:
    identity = call.principal
    scopes = call.request.app[AUTH].enforcer.config.scopes
    return UserInfo(
        True,
        identity.name,
        str(identity.claims.get("iss", "")),
        list(groups(identity.claims, scopes)),
        identity.kind.value,
    )


TAG = "accounts"
BASE = "/api/v1/account"
ROUTES = (
    Route(
        method="GET",
        path=BASE,
        handler=list_accounts,
        operation_id="listAccounts",
        summary="Local accounts the caller may get",
        tag=TAG,
        response=AccountList,
    ),
    Route(
        method="GET",
        path=BASE + "/can-i/{resource}/{action}/{object}",
        handler=can_i,
        operation_id="canI",
        summary="Whether the caller may do an action on an object (`yes` or `no`)",
        description="`/` inside the action or object is sent as `%2F`.",
        tag=TAG,
        response=CanIResponse,
    ),
    Route(
        method="GET",
        path=BASE + "/{name}",
        handler=get_account,
        operation_id="getAccount",
        summary="A local account and its tokens (ids and times, never the tokens)",
        tag=TAG,
        response=AccountInfo,
        errors=(400, 404),
    ),
    Route(
        method="POST",
        path=BASE + "/{name}/token",
        handler=create_token,
        operation_id="createAccountToken",
        summary="Issue an API token for an account with the apiKey capability",
        tag=TAG,
        body=TokenRequest,
        response=TokenResponse,
        status=201,
        errors=(400, 403, 404, 413, 415),
    ),
    Route(
        method="DELETE",
        path=BASE + "/{name}/token/{id}",
        handler=delete_token,
        operation_id="deleteAccountToken",
        summary="Revoke an account's token",
        tag=TAG,
        response=Result,
        errors=(400, 403, 404),
    ),
    Route(
        method="GET",
        path="/api/v1/session/userinfo",
        handler=user_info,
        operation_id="getUserInfo",
        summary="Who the token speaks for, and its groups",
        tag=TAG,
        response=UserInfo,
    ),
)
