"""Why a webhook was refused: one exception per HTTP answer, each carrying the text to show.

Every refusal is a `WebhookError` with the status code the Git host receives, the metric
outcome it counts as, and a message saying what is wrong and what to change. The handler
maps them to responses in one place; nothing else decides a status code.
"""

from typing import ClassVar


class WebhookError(Exception):
    """A refused webhook; `str(error)` is the message sent back and logged."""

    status: ClassVar[int] = 400
    outcome: ClassVar[str] = "bad_request"
    """The `outcome` label of `sluice_webhook_requests_total`."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class PayloadError(WebhookError):
    """The body is not the provider's documented payload: `field` is where it differs."""

    outcome = "bad_payload"

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class UnknownEvent(WebhookError):
    """No provider's headers are present, or the provider's event is not one Sluice handles."""

    outcome = "unknown_event"


class Unauthorized(WebhookError):
    """A secret is configured and the request's signature, token or credentials do not match.

    Argo CD answers 400 here; Sluice answers 401 so a misconfigured secret is told apart
    from a malformed payload in the Git host's delivery log.
    """

    status = 401
    outcome = "unauthorized"


class MethodNotAllowed(WebhookError):
    status = 405
    outcome = "method_not_allowed"


class BodyTimeout(WebhookError):
    """The body did not arrive within the read deadline (a stalled or trickling sender)."""

    status = 408
    outcome = "timeout"


class TooLarge(WebhookError):
    """The body is larger than the configured limit (from Content-Length, or while streaming)."""

    status = 413
    outcome = "too_large"


class Unavailable(WebhookError):
    """Sluice cannot take the webhook now (bus down, apps unlistable, too many in flight)."""

    status = 503
    outcome = "unavailable"
