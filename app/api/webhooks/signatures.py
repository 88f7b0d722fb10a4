"""Checking who sent a webhook, the way each Git host proves it, in constant time.

Three proofs exist: an HMAC-SHA256 of the raw body under a shared secret (GitHub,
Bitbucket Server, Gitea, Gogs), a shared token or UUID echoed in a header (GitLab,
Bitbucket Cloud), and HTTP Basic credentials (Azure DevOps). Every comparison goes
through `hmac.compare_digest` on bytes, so timing says nothing about how much of a guess
was right; header values are encoded before comparing, so no header can make the
comparison raise. Messages name the header and the setting, never a secret or the value
received.
"""

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping

from app.api.webhooks.errors import Unauthorized


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "replace")


def _equal(expected: str, received: str) -> bool:
    return hmac.compare_digest(_bytes(expected), _bytes(received))


def check_hmac(
    headers: Mapping[str, str],
    *,
    header: str,
    prefix: str,
    secret: str,
    body: bytes,
    provider: str,
    setting: str,
) -> None:
    """Unauthorized unless `header` is `prefix` + hex HMAC-SHA256(secret, body)."""
    received = headers.get(header, "").strip()
    if not received:
        raise Unauthorized(
            f"{provider} webhook has no {header} header, but a secret is configured "
            f"({setting}): set the same secret in the {provider} webhook"
        )
    digest = hmac.new(_bytes(secret), body, hashlib.sha256).hexdigest()
    if not _equal(prefix + digest, received.lower()):
        raise Unauthorized(
            f"{provider} webhook signature in {header} does not match the body: the secret "
            f"in the {provider} webhook differs from {setting}, or the body was altered"
        )


def check_token(
    headers: Mapping[str, str], *, header: str, secret: str, provider: str, setting: str
) -> None:
    """Unauthorized unless `header` equals the configured secret."""
    received = headers.get(header, "")
    if not received:
        raise Unauthorized(
            f"{provider} webhook has no {header} header, but {setting} is configured: "
            f"set it in the {provider} webhook"
        )
    if not _equal(secret, received):
        raise Unauthorized(
            f"{provider} webhook {header} does not match {setting}: set the same value in "
            f"the {provider} webhook"
        )


def check_basic_auth(
    headers: Mapping[str, str],
    *,
    username: str,
    password: str,
    provider: str,
    setting: str,
) -> None:
    """Unauthorized unless the Authorization header carries these Basic credentials."""
    scheme, _, encoded = headers.get("Authorization", "").strip().partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        raise Unauthorized(
            f"{provider} webhook has no HTTP Basic credentials, but {setting} is configured: "
            f"set the user name and password in the {provider} service hook"
        )
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise Unauthorized(
            f"{provider} webhook Authorization header is not valid HTTP Basic credentials"
        ) from None
    user, _, secret = decoded.partition(b":")
    user_ok = hmac.compare_digest(_bytes(username), user)
    password_ok = hmac.compare_digest(_bytes(password), secret)
    if not (user_ok & password_ok):
        raise Unauthorized(
            f"{provider} webhook credentials do not match {setting}: set the same user name "
            f"and password in the {provider} service hook"
        )
