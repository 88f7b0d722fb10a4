"""`sluice.notify.<app>` → the notification delivered once, retried with backoff.

Each message is one rendered notification for one destination. It is sent unless its
record says it was (a redelivery, or the same notification published twice), under a
lock so two replicas never send it at once. A receiver that fails in a way worth
retrying (no answer, a timeout, 408, 429, 5xx, an SMTP 4xx) gets the message back after
`retry_delay` doubling up to `retry_delay_max`, through the message's redelivery delay:
no handler waits, and other notifications go on meanwhile. After `max_attempts`, or on a
refusal (another 4xx, a Slack error, a template that is not JSON where JSON is needed),
the notification is given up, logged as `notification.failed` with the reason; nothing is
recorded, so the condition's next evaluation may send it again, as Argo CD does.
"""

import json

from app import log
from app.bus.consumer import Delivery
from app.bus.errors import Retry
from app.bus.messages import NotifyRequest
from app.engine.notifications.decide import Notification
from app.notify import DeliveryError, DeliverySettings, deliver
from app.store.notifications import NotificationRecords
from workers.notifications.config_source import ConfigSource
from workers.notifications.settings import NotificationSettings

logger = log.get("notifications", stage="notifications")


class Deliveries:
    """The `sluice.notify.<app>` handler (see the module docstring)."""

    def __init__(
        self,
        config: ConfigSource,
        records: NotificationRecords,
        settings: NotificationSettings,
        delivery: DeliverySettings,
    ) -> None:
        self._config = config
        self._records = records
        self._settings = settings
        self._delivery = delivery

    def _backoff(self, attempt: int) -> float:
        s = self._settings
        return float(min(s.retry_delay * 2 ** min(attempt - 1, 30), s.retry_delay_max))

    async def handle(self, message: Delivery[NotifyRequest]) -> None:
        request, attempt = message.message, message.attempt
        log_ = logger.bind(
            app=str(request.app),
            trigger=request.trigger,
            service=request.service,
            recipient=request.recipient,
            attempt=attempt,
        )
        config = self._config.current
        if config is None:
            raise Retry(self._config.not_ready, 1.0)
        service = config.services.get(request.service)
        if service is None:
            log_.error(
                "notification.failed",
                error=f"service {request.service} is no longer configured",
                final=True,
            )
            return
        app, uid, record = request.app, request.uid, request.record
        if await self._records.was_sent(app, uid, record):
            log_.info("notification.already_sent")
            return
        token = await self._records.lock(app, record, self._settings.lock_ttl)
        if token is None:
            raise Retry("another delivery of this notification is under way", 1.0)
        try:
            if await self._records.was_sent(app, uid, record):
                log_.info("notification.already_sent")
                return
            notification = Notification.from_json(json.loads(request.notification))
            await deliver(service, notification, request.recipient, self._delivery)
            await self._records.record(app, uid, record)
        except DeliveryError as e:
            if e.retriable and attempt < self._settings.max_attempts:
                delay = self._backoff(attempt)
                log_.warning("notification.retry", error=str(e), retry_in_s=delay)
                raise Retry(str(e), delay) from None
            log_.error("notification.failed", error=str(e), final=True)
            return
        finally:
            await self._records.unlock(app, record, token)
        log_.info("notification.sent", service_type=service.type)
