"""The errors of a cluster call, mapped from HTTP status and transport failures in one place.

Every error names the call (`apply Deployment shop/web (apps/v1) on cluster prod`), the
server's own message (truncated, credentials and Secret values scrubbed) and, where it
helps, what to do next. `retriable` says whether trying again later may succeed.
"""

import asyncio
import json
import re
import ssl
from dataclasses import dataclass
from typing import Any, ClassVar

import aiohttp

from app.engine.redact import redact_text

MAX_MESSAGE_CHARS = 512
"""Server messages are cut to this length before they reach an error, a log or a status."""
MAX_CAUSES = 10
"""At most this many field causes are kept from a Status."""


@dataclass(frozen=True, slots=True)
class Target:
    """What a call was doing, for messages: the verb and the object or type it touched."""

    verb: str
    kind: str = ""
    api_version: str = ""
    namespace: str = ""
    name: str = ""
    cluster: str = ""

    def __str__(self) -> str:
        parts = [self.verb]
        if self.kind:
            parts.append(self.kind)
        if self.name:
            parts.append(f"{self.namespace}/{self.name}" if self.namespace else self.name)
        elif self.namespace:
            parts.append(f"in namespace {self.namespace}")
        if self.api_version:
            parts.append(f"({self.api_version})")
        if self.cluster:
            parts.append(f"on cluster {self.cluster}")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Cause:
    """One field-level reason from a Status (`details.causes[]`)."""

    field: str
    reason: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message


class ClusterError(Exception):
    """A cluster call failed. `problem` is what went wrong, `hint` what to do about it."""

    retriable: ClassVar[bool] = False

    def __init__(
        self,
        problem: str,
        *,
        target: Target | None = None,
        status: int = 0,
        reason: str = "",
        causes: tuple[Cause, ...] = (),
        hint: str = "",
    ) -> None:
        self.problem = problem
        self.target = target
        self.status = status
        self.reason = reason
        self.causes = causes
        self.hint = hint
        super().__init__(self._text())

    def _text(self) -> str:
        text = f"{self.target}: {self.problem}" if self.target else self.problem
        if self.causes and not all(c.message in self.problem for c in self.causes):
            text += " [" + "; ".join(str(c) for c in self.causes) + "]"
        return f"{text} ({self.hint})" if self.hint else text


class NotFound(ClusterError):
    """404: the object, its namespace or its resource type does not exist."""


class UnknownKind(NotFound):
    """The server serves no resource for this apiVersion and kind (a CRD not installed yet?)."""


class Conflict(ClusterError):
    """409: AlreadyExists, a stale resourceVersion, a failed precondition or an SSA conflict."""


class Invalid(ClusterError):
    """The request was refused as malformed (400, 405, 413, 415, 422); `causes` name the fields.

    Also raised before sending when the object itself cannot be addressed (no name, no
    namespace for a namespaced kind, a name that is not a URL path segment).
    """


class Forbidden(ClusterError):
    """403: the credentials are valid but not allowed to do this (RBAC, terminating namespace)."""


class Unauthorized(ClusterError):
    """401: the server did not accept the credentials."""


class Expired(ClusterError):
    """410: a resourceVersion or continue token is too old; list again."""


class Unavailable(ClusterError):
    """The server could not answer now (5xx, 429, timeout, connection failure): retry later."""

    retriable: ClassVar[bool] = True

    def __init__(self, problem: str, *, retry_after: float | None = None, **kw: Any) -> None:
        self.retry_after = retry_after
        super().__init__(problem, **kw)


class ConfigError(ClusterError):
    """The kubeconfig or in-cluster configuration cannot be used."""


_SECRET_VALUE = re.compile(r"""(Invalid value: )(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")


def scrub(text: str, *, secret: bool = False) -> str:
    """`text` cut to MAX_MESSAGE_CHARS with credentials removed; for Secrets, values masked."""
    text = redact_text(text)
    if secret:
        text = _SECRET_VALUE.sub(r'\1"++++++++"', text)
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 3] + "..."
    return text


def _status_of(body: bytes) -> dict[str, Any]:
    """The Status object in an error body, or {} if the body is not one."""
    try:
        decoded = json.loads(body)
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


def _causes(status: dict[str, Any], secret: bool) -> tuple[Cause, ...]:
    details = status.get("details")
    raw = details.get("causes") if isinstance(details, dict) else None
    if not isinstance(raw, list):
        return ()
    return tuple(
        Cause(
            field=scrub(str(c.get("field") or "")),
            reason=str(c.get("reason") or ""),
            message=scrub(str(c.get("message") or ""), secret=secret),
        )
        for c in raw[:MAX_CAUSES]
        if isinstance(c, dict)
    )


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


_INVALID_STATUSES = frozenset({400, 405, 406, 413, 415, 422})


def error_for_status(
    status: int, body: bytes, target: Target, *, retry_after: str | None = None
) -> ClusterError:
    """The error for an HTTP answer outside 2xx, from its Status body if it has one."""
    secret = target.kind == "Secret"
    decoded = _status_of(body)
    message = decoded.get("message")
    if not isinstance(message, str) or not message:
        text = body[:200].decode("utf-8", "replace").strip()
        message = f"HTTP {status}" + (f": {text}" if text else "")
    problem = scrub(message, secret=secret)
    reason = str(decoded.get("reason") or "")
    kw: dict[str, Any] = {
        "target": target,
        "status": status,
        "reason": reason,
        "causes": _causes(decoded, secret),
    }
    if status == 401:
        hint = "check the kubeconfig user or service-account token; it may have expired"
        return Unauthorized(problem, hint=hint, **kw)
    if status == 403:
        return Forbidden(problem, hint="grant this permission to Sluice's identity", **kw)
    if status == 404:
        details = decoded.get("details")
        if isinstance(details, dict) and details.get("kind") == "namespaces":
            hint = "create the namespace first, or sync with CreateNamespace=true"
            return NotFound(problem, hint=hint, **kw)
        return NotFound(problem, **kw)
    if status == 409:
        return Conflict(problem, **kw)
    if status == 410:
        return Expired(problem, **kw)
    if status in _INVALID_STATUSES:
        return Invalid(problem, **kw)
    if status == 429 or status >= 500:
        return Unavailable(problem, retry_after=_retry_after(retry_after), hint="retry later", **kw)
    return ClusterError(problem, **kw)


def error_for_exception(exc: BaseException, target: Target, *, timeout: float) -> ClusterError:
    """The error for a call that got no HTTP answer: timeout, TLS, connection failure."""
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return Unavailable(f"no answer within {timeout:g} s", target=target, hint="retry later")
    if isinstance(exc, aiohttp.ClientConnectorCertificateError | ssl.SSLCertVerificationError):
        return ClusterError(
            f"the server's TLS certificate is not trusted: {scrub(str(exc))}",
            target=target,
            hint="check certificate-authority in the kubeconfig",
        )
    detail = scrub(str(exc)) or type(exc).__name__
    return Unavailable(f"cannot reach the API server: {detail}", target=target, hint="retry later")
