"""API errors: one small hierarchy, each answered as a Kubernetes-style `Status` object.

    {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404,
     "reason": "NotFound", "message": "application sluice/shop not found"}

Handlers raise these; the error middleware (`middleware.py`) turns them, and the errors of
the layers below (cluster, bus, store, model), into responses in one place. Messages are
redacted before they leave (no credentials in errors), and say what to do next.
"""

from typing import Any, ClassVar

from app.engine.redact import redact_text

MAX_MESSAGE = 2000
"""Characters of an error message sent to a client."""


class ApiError(Exception):
    """An answer other than success: HTTP status, Kubernetes reason, actionable message."""

    status: ClassVar[int] = 500
    reason: ClassVar[str] = "InternalError"

    def __init__(self, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        return status_body(self.status, self.reason, self.message)


class BadRequest(ApiError):
    status = 400
    reason = "BadRequest"


class Unauthorized(ApiError):
    status = 401
    reason = "Unauthorized"

    def __init__(self, message: str) -> None:
        super().__init__(message, headers={"WWW-Authenticate": 'Bearer realm="sluice"'})


class Forbidden(ApiError):
    status = 403
    reason = "Forbidden"


class NotFound(ApiError):
    status = 404
    reason = "NotFound"


class MethodNotAllowed(ApiError):
    status = 405
    reason = "MethodNotAllowed"


class Conflict(ApiError):
    status = 409
    reason = "Conflict"


class PayloadTooLarge(ApiError):
    status = 413
    reason = "RequestEntityTooLarge"


class UnsupportedMediaType(ApiError):
    status = 415
    reason = "UnsupportedMediaType"


class Invalid(ApiError):
    """The cluster refused the object as invalid (422)."""

    status = 422
    reason = "Invalid"


class Unavailable(ApiError):
    status = 503
    reason = "ServiceUnavailable"

    def __init__(self, message: str) -> None:
        super().__init__(message, headers={"Retry-After": "5"})


class Timeout(ApiError):
    status = 504
    reason = "Timeout"


def status_body(code: int, reason: str, message: str) -> dict[str, Any]:
    """A `Status` object; the message redacted and bounded."""
    text = redact_text(message)
    if len(text) > MAX_MESSAGE:
        text = text[: MAX_MESSAGE - 3] + "..."
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "code": code,
        "reason": reason,
        "message": text,
    }
