"""The notifications worker: `sluice worker notifications` (see `__init__.py`).

Any number of replicas share the event consumer and the delivery queue; none of them
holds up the pipeline: the other stages only emit events, and a slow or failing receiver
only delays its own notifications.
"""

from app import log
from app.bus import subjects, topology
from app.bus.consumer import Consumer, ConsumerSettings
from app.bus.event_consumer import EventConsumer, EventConsumerSettings
from app.bus.messages import NOTIFY, NotifyRequest
from app.notify import DeliverySettings
from app.notify.http import HttpSettings
from app.runtime.runtime import Runtime
from app.store.notifications import NotificationRecords
from workers.notifications.config_source import ConfigSource
from workers.notifications.delivery import Deliveries
from workers.notifications.evaluation import Evaluation
from workers.notifications.settings import NotificationSettings

logger = log.get("notifications", stage="notifications")


class NotificationsWorker:
    name = "notifications"

    def __init__(self, rt: Runtime, settings: NotificationSettings | None = None) -> None:
        self._rt = rt
        self.settings = s = settings or NotificationSettings()
        self.config = ConfigSource(
            rt.control_plane, rt.settings.control_plane.namespace, s.configmap, s.secret
        )
        records = NotificationRecords(rt.redis)
        evaluation = Evaluation(rt, self.config, records, s)
        deliveries = Deliveries(
            self.config,
            records,
            s,
            DeliverySettings(
                http=HttpSettings(timeout=s.http_timeout), smtp_timeout=s.smtp_timeout
            ),
        )
        self._events = EventConsumer(
            rt.bus,
            subjects.NOTIFICATIONS_CONSUMER,
            evaluation.handle,
            EventConsumerSettings(concurrency=s.concurrency),
        )
        self._deliveries: Consumer[NotifyRequest] = Consumer(
            rt.bus, NOTIFY, deliveries.handle, ConsumerSettings(concurrency=s.concurrency)
        )

    async def start(self) -> None:
        await topology.ensure_notifications_consumer(self._rt.bus)
        await self.config.start()
        await self._deliveries.start()
        await self._events.start()
        logger.info("notifications.started", configmap=self.settings.configmap)

    async def stop(self) -> None:
        await self._events.stop()
        await self._deliveries.stop()
        await self.config.stop()
        logger.info("notifications.stopped")


def build(runtime: Runtime) -> NotificationsWorker:
    return NotificationsWorker(runtime)
