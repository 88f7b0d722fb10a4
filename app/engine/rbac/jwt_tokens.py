"""Signed tokens, as Argo CD issues them: HS256 JWTs keyed by `server.secretkey`.

Claims: `iss: argocd`, `sub`, `iat`, `nbf`, `exp` (absent for a token that does not
expire) and `jti`. A project role's token has `sub: proj:<project>:<role>`; an account's
API token `sub: <account>:apiKey`. Verification accepts HS256 only (no `none`, no key
confusion), requires `iss`, `sub`, `iat` and a signature by the key, and checks `exp`
and `nbf`; what the subject's record says (revocation, account enabled) is checked by
the caller, who has the records.
"""

import datetime as dt
from collections.abc import Mapping
from typing import Any

import jwt

ISSUER = "argocd"
ALGORITHM = "HS256"
MAX_TOKEN_BYTES = 8192
LEEWAY = 5
"""Seconds of clock skew accepted on `iat`, `nbf` and `exp`."""


class TokenInvalid(Exception):
    """The token is not one Sluice issued, or no longer valid; the text says which."""


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2 and token.startswith("eyJ")


def issue(
    subject: str, key: bytes, *, now: dt.datetime, expires_in: int = 0, token_id: str = ""
) -> tuple[str, dict[str, Any]]:
    """A signed token for `subject` and its claims; `expires_in` seconds (0: never)."""
    issued = int(now.timestamp())
    claims: dict[str, Any] = {"iss": ISSUER, "sub": subject, "iat": issued, "nbf": issued}
    if expires_in > 0:
        claims["exp"] = issued + expires_in
    if token_id:
        claims["jti"] = token_id
    return jwt.encode(claims, key, algorithm=ALGORITHM), claims


def verify(token: str, key: bytes, *, now: dt.datetime) -> Mapping[str, Any]:
    """The claims of a token this key signed and that is valid at `now`."""
    if len(token) > MAX_TOKEN_BYTES:
        raise TokenInvalid("the token is too long")
    if not key:
        raise TokenInvalid("the server has no signing key yet; retry in a moment")
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise TokenInvalid("the token is not a JWT") from None
    if header.get("alg") != ALGORITHM:
        raise TokenInvalid(f"the token is not signed with {ALGORITHM}")
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            leeway=LEEWAY,
            options={"require": ["iss", "sub", "iat"], "verify_iat": False},
        )
    except jwt.ExpiredSignatureError:
        raise TokenInvalid("the token has expired; ask for a new one") from None
    except jwt.PyJWTError as e:
        raise TokenInvalid(f"the token is not valid ({type(e).__name__})") from None
    issued = claims.get("iat")
    if not isinstance(issued, int) or issued > now.timestamp() + LEEWAY:
        raise TokenInvalid("the token's iat is not a time in the past")
    expires = claims.get("exp")
    if isinstance(expires, int) and expires + LEEWAY <= now.timestamp():
        raise TokenInvalid("the token has expired; ask for a new one")
    if not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise TokenInvalid("the token has no subject")
    return claims
