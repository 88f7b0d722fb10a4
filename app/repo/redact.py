"""Removing credentials from text before it reaches a log, an error, a status or an event.

Git's own messages repeat the URL it was given, so anything that leaves this package
passes through `redact`: userinfo in URLs (`https://user:token@host` becomes
`https://***@host`), HTTP authorization headers, token-like query parameters, and every
secret string the operator configured.
"""

import re
from collections.abc import Iterable

MASK = "***"
_MIN_SECRET_LENGTH = 4

_URL_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/?#@\s]+)@")
_AUTH_HEADER = re.compile(r"(?i)(authorization:\s*(?:basic|bearer|token)\s+)\S+")
_TOKEN_PARAM = re.compile(
    r"(?i)([?&](?:access_token|private_token|token|password|passwd|secret|key)=)[^&\s#]+"
)


def _mask_userinfo(match: re.Match[str]) -> str:
    scheme, userinfo = match["scheme"], match["userinfo"]
    if scheme.lower().startswith("ssh") and ":" not in userinfo:
        return match[0]
    return f"{scheme}{MASK}@"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with URL credentials, auth headers, token parameters and `secrets` masked.

    An ssh user without a password (`ssh://git@host`) is kept: it is an account name the
    reader needs, not a secret. Secrets shorter than 4 characters are not searched for
    (masking every "a" would make messages unreadable and protect nothing).
    """
    for secret in sorted({s for s in secrets if len(s) >= _MIN_SECRET_LENGTH}, key=len)[::-1]:
        text = text.replace(secret, MASK)
    text = _URL_USERINFO.sub(_mask_userinfo, text)
    text = _AUTH_HEADER.sub(lambda m: m[1] + MASK, text)
    return _TOKEN_PARAM.sub(lambda m: m[1] + MASK, text)
