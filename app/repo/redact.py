"""Removing credentials from git's messages before they reach a log, error or status.

Git repeats the URL it was given, so every message that leaves this package passes
through `redact`: first the secret strings the operator configured (passwords, tokens,
the Basic header built from them, ssh keys) are masked wherever they appear, then the
engine's single choke point (`app.engine.redact.redact_text`) masks URL userinfo,
token-like query parameters, auth header values and PEM keys.
"""

from collections.abc import Iterable

from app.engine.redact import HIDDEN, redact_text

_MIN_SECRET_LENGTH = 4


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with `secrets` and every credential-looking part masked.

    Secrets shorter than 4 characters are not searched for: masking every "a" would make
    messages unreadable and protect nothing.
    """
    for secret in sorted({s for s in secrets if len(s) >= _MIN_SECRET_LENGTH}, key=len)[::-1]:
        text = text.replace(secret, HIDDEN)
    return redact_text(text)
