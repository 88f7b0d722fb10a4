"""`POST /api/webhook`: from a Git host's request to refresh requests on the bus.

`webhook_routes(settings, publisher, apps)` returns the route the API server mounts. Each
request goes through, in order: method (405), provider headers (400), body size, deadline
and the bytes all bodies being read may hold together (413, 408, 503), the provider's
authentication (401), the in-flight bound (503), payload (400; pings answered 200 and
ignored), listing Applications (503), matching, and one `RefreshRequest` at level
`latest` per matched app (503 when the bus is unavailable). A request takes one of the
in-flight slots only once authenticated, so unauthenticated senders, however slow or
many, never keep a signed push out; what they can hold is bounded in bytes
(`max_reading_bytes`) and time (`read_timeout`). The webhook bounds its own steps, so
the API's request deadline does not apply to it (a slow body is 408, not 504).
The answer is 200 with the number of apps matched. A refused request's unread body is
never read: the response closes the connection.

The log tells each delivery's story under its delivery id (`webhook.received`,
`webhook.decision` per app on the pushed repository, `webhook.matched`,
`webhook.published`, or `webhook.rejected` with the reason); it never holds a secret or
the body. Every request counts once in `sluice_webhook_requests_total`.
"""

import asyncio
import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from aiohttp import web
from structlog.typing import FilteringBoundLogger

from app import log
from app.api.metrics import WEBHOOK_REFRESHES, WEBHOOK_REQUESTS
from app.api.webhooks import payload
from app.api.webhooks.body import ByteBudget, read_body
from app.api.webhooks.errors import (
    MethodNotAllowed,
    Unauthorized,
    Unavailable,
    UnknownEvent,
    WebhookError,
)
from app.api.webhooks.matching import Decision, decide_all
from app.api.webhooks.providers import PROVIDERS, Provider, identify
from app.api.webhooks.pushes import Ignored
from app.api.webhooks.settings import WebhookSettings
from app.bus.errors import BusError
from app.bus.messages import RefreshRequest
from app.cluster.errors import ClusterError
from app.engine.redact import redact_text
from app.model.application import Application
from app.model.identity import AppRef
from app.model.sync import RefreshLevel

logger = log.get("webhook")

PATH = "/api/webhook"
MAX_REASON = 1024
"""Characters of a refresh reason (provider, delivery id, the matching rule)."""
PUBLISH_BATCH = 100
"""Refresh requests awaiting their acknowledgement at once."""
_DELIVERY_UNSAFE = re.compile(r"[^A-Za-z0-9._:{}-]")
_HTTP_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    405: "MethodNotAllowed",
    408: "Timeout",
    413: "RequestEntityTooLarge",
    503: "ServiceUnavailable",
}


class AppSource(Protocol):
    """Where the webhook finds the Applications to match (the API server's app cache)."""

    async def applications(self) -> list[Application]:
        """Every Application Sluice manages; AppSourceError when they cannot be listed now."""
        ...


class AppSourceError(Exception):
    """The app source cannot list Applications now; the webhook answers 503."""


RefreshPublisher = Callable[[RefreshRequest], Awaitable[None]]
"""Publishes one refresh request; raises BusError when the bus cannot take it."""


def delivery_id(provider: Provider, request: web.BaseRequest) -> str:
    """The host's delivery id made safe for logs (bounded, plain); generated when absent."""
    cleaned = _DELIVERY_UNSAFE.sub("_", provider.delivery_id(request.headers)[:128])
    return cleaned or f"sluice-{uuid.uuid4().hex[:16]}"


def _status(error: WebhookError) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "code": error.status,
        "reason": _HTTP_REASONS.get(error.status, "BadRequest"),
        "message": error.message,
    }


class WebhookHandler:
    """The request handler; one per API server (it holds the in-flight count)."""

    def __init__(
        self, settings: WebhookSettings, publisher: RefreshPublisher, apps: AppSource
    ) -> None:
        self.settings = settings
        self.publisher = publisher
        self.apps = apps
        self.in_flight = 0
        """Authenticated webhooks being handled (bounded by `max_in_flight`)."""
        self.reading = ByteBudget(settings.max_reading_bytes)
        """Bytes held by the bodies being read, before anyone is authenticated."""

    def warn_unchecked(self) -> None:
        """Log once which providers accept requests without checking who sent them."""
        unchecked = [p.name for p in PROVIDERS if not p.secret_setting(self.settings)]
        if unchecked:
            logger.warning(
                "webhook.unchecked",
                providers=unchecked,
                reason="no webhook secret is configured for these providers: their requests "
                "are accepted without checking who sent them (they can only trigger "
                "refreshes); configure secrets to check them",
            )

    async def handle(self, request: web.Request) -> web.StreamResponse:
        provider = identify(request.headers)
        name = provider.name if provider is not None else "unknown"
        delivery = delivery_id(provider, request) if provider is not None else ""
        log_ = logger.bind(provider=name, delivery=delivery)
        try:
            if request.method != "POST":
                raise MethodNotAllowed(f"{request.method} is not allowed: send webhooks as POST")
            if provider is None:
                raise UnknownEvent(
                    "no Git host webhook headers (X-GitHub-Event, X-Gitlab-Event, X-Event-Key, "
                    "X-Hook-UUID, X-Vss-Activityid, X-Gitea-Event, X-Gogs-Event): point only "
                    "Git host push webhooks at this URL"
                )
            log_.info("webhook.received", content_length=request.content_length)
            body = await read_body(
                request,
                limit=self.settings.max_body_bytes,
                deadline=self.settings.read_timeout,
                budget=self.reading,
            )
            provider.authenticate(self.settings, request.headers, body)
            if self.in_flight >= self.settings.max_in_flight:
                raise Unavailable(
                    f"{self.in_flight} webhooks are being handled, the most at once; retry later"
                )
            self.in_flight += 1
            try:
                response, outcome = await self._process(request, provider, body, delivery, log_)
            finally:
                self.in_flight -= 1
        except WebhookError as e:
            log_.warning("webhook.rejected", status=e.status, outcome=e.outcome, reason=e.message)
            response, outcome = self._refusal(request, e), e.outcome
        WEBHOOK_REQUESTS.labels(name, outcome).inc()
        return response

    def _refusal(self, request: web.Request, error: WebhookError) -> web.Response:
        response = web.json_response(_status(error), status=error.status)
        if isinstance(error, MethodNotAllowed):
            response.headers["Allow"] = "POST"
        if isinstance(error, Unauthorized):
            response.headers["WWW-Authenticate"] = 'Basic realm="sluice-webhook"'
        if isinstance(error, Unavailable):
            response.headers["Retry-After"] = "5"
        if not request.content.at_eof():
            response.force_close()
        return response

    async def _process(
        self,
        request: web.Request,
        provider: Provider,
        body: bytes,
        delivery: str,
        log_: FilteringBoundLogger,
    ) -> tuple[web.Response, str]:
        event = provider.parse(request.headers, payload.decode(body))
        answer: dict[str, Any] = {"provider": provider.name, "event": event.event}
        answer["delivery"] = delivery
        if isinstance(event, Ignored):
            log_.info("webhook.ignored", hook_event=event.event, reason=event.reason)
            return web.json_response(answer | {"matched": 0, "ignored": event.reason}), "ignored"
        log_ = log_.bind(
            hook_event=event.event,
            repo=[redact_text(url) for url in event.repo.urls],
            refs=[str(change.ref) for change in event.changes[:10]],
        )
        for problem in event.repo.unusable:
            log_.warning("webhook.url_unusable", reason=redact_text(problem))
        decisions = decide_all(event, await self._applications(log_))
        for decision in decisions:
            log_.info(
                "webhook.decision",
                app=f"{decision.application.namespace}/{decision.application.name}",
                refresh=decision.refresh,
                reason=decision.reason,
            )
        refreshes = [d for d in decisions if d.refresh]
        log_.info("webhook.matched", apps=len(refreshes), on_repo=len(decisions))
        published = await self._publish(provider, event.event, delivery, refreshes, log_)
        log_.info("webhook.published", refreshes=published)
        WEBHOOK_REFRESHES.labels(provider.name).inc(published)
        outcome = "refreshed" if refreshes else "no_match"
        return web.json_response(answer | {"matched": len(refreshes)}), outcome

    async def _applications(self, log_: FilteringBoundLogger) -> list[Application]:
        try:
            async with asyncio.timeout(self.settings.apps_timeout):
                return await self.apps.applications()
        except TimeoutError:
            raise Unavailable(
                f"Applications could not be listed within {self.settings.apps_timeout:g} s; "
                "redeliver the webhook later"
            ) from None
        except (AppSourceError, ClusterError, OSError) as e:
            log_.warning("webhook.apps_unavailable", error=redact_text(str(e))[:500])
            raise Unavailable(
                "Applications cannot be listed now (the cause is in Sluice's log under this "
                "delivery id); redeliver the webhook later"
            ) from None

    async def _publish(
        self,
        provider: Provider,
        event: str,
        delivery: str,
        refreshes: list[Decision],
        log_: FilteringBoundLogger,
    ) -> int:
        requests: list[RefreshRequest] = []
        for decision in refreshes:
            app = decision.application
            try:
                ref = AppRef(app.namespace, app.name)
            except ValueError as e:
                log_.warning(
                    "webhook.unaddressable", app=f"{app.namespace}/{app.name}", reason=str(e)
                )
                continue
            reason = f"{provider.title} {event} webhook (delivery {delivery}): {decision.reason}"
            requests.append(RefreshRequest(ref, RefreshLevel.LATEST, reason[:MAX_REASON]))
        published = 0
        for start in range(0, len(requests), PUBLISH_BATCH):
            batch = requests[start : start + PUBLISH_BATCH]
            results = await asyncio.gather(
                *(self.publisher(r) for r in batch), return_exceptions=True
            )
            failures = [r for r in results if isinstance(r, BaseException)]
            published += len(batch) - len(failures)
            for failure in failures:
                if not isinstance(failure, BusError):
                    raise failure
            if failures:
                log_.warning("webhook.publish_failed", published=published, error=str(failures[0]))
                raise Unavailable(
                    f"the bus is unavailable: {published} of {len(requests)} refreshes were "
                    "published (the cause is in Sluice's log); redeliver the webhook later"
                )
        return published


def webhook_routes(
    settings: WebhookSettings, publisher: RefreshPublisher, apps: AppSource
) -> list[web.RouteDef]:
    """The webhook route for `app.add_routes`; logs which providers go unchecked, once."""
    handler = WebhookHandler(settings, publisher, apps)
    handler.warn_unchecked()
    return [web.route("*", PATH, handler.handle)]
