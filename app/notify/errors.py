"""Why a notification was not delivered, and whether trying again may help."""

from collections.abc import Iterable
from urllib.parse import parse_qsl, urlsplit

from app.engine.redact import HIDDEN, redact_text

MAX_DETAIL = 200
"""Characters of a receiver's answer kept in an error."""


class DeliveryError(Exception):
    def __init__(self, message: str, *, retriable: bool) -> None:
        super().__init__(message)
        self.retriable = retriable


def secret_parts(values: Iterable[str]) -> tuple[str, ...]:
    """What must never be repeated from a service's configuration: each credential, and
    each word of it and each path or query of a URL long enough to be one."""
    out: set[str] = set()
    for value in values:
        if not value:
            continue
        out.add(value)
        out.update(word for word in value.split() if len(word) >= 8)
        parts = urlsplit(value)
        if parts.scheme and parts.netloc:
            out.update(p for p in (parts.path, parts.query) if len(p) >= 8)
            out.update(v for _, v in parse_qsl(parts.query) if len(v) >= 8)
    return tuple(sorted(out, key=len, reverse=True))


def answer_detail(body: bytes, secrets: Iterable[str] = ()) -> str:
    """A receiver's answer as an error may show it: decoded, without the service's
    credentials (a receiver may echo what it was sent), redacted, cut short."""
    text = body.decode("utf-8", "replace").strip()
    for secret in secret_parts(secrets):
        text = text.replace(secret, HIDDEN)
    text = redact_text(text)
    return text[:MAX_DETAIL] + ("…" if len(text) > MAX_DETAIL else "")


def retriable_status(status: int) -> bool:
    return status in (408, 429) or status >= 500
