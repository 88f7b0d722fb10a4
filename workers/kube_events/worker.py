"""The events worker: `sluice worker events` (see `__init__.py`).

Each event, top to bottom: decide the Event it becomes (none for most), find the
Application it is about (its uid), spend budget, write it aggregated, log the decision.
"""

import time

from app import log
from app.bus import subjects, topology
from app.bus.errors import Retry
from app.bus.event_consumer import EventConsumer, EventConsumerSettings
from app.bus.events import StoredEvent
from app.bus.subjects import EventType
from app.cluster import ClusterError, NotFound
from app.engine.event_budget import EventBudget
from app.engine.kube_events import Involved, event_for, involved_from
from app.model import application
from app.runtime.kube_events import record
from app.runtime.runtime import Runtime
from workers.kube_events.settings import KubeEventSettings

logger = log.get("kube_events", stage="events")


class KubeEventsWorker:
    name = "events"

    def __init__(self, rt: Runtime, settings: KubeEventSettings | None = None) -> None:
        self._rt = rt
        self.settings = s = settings or KubeEventSettings()
        self._budget = EventBudget(s.budget)
        self._events = EventConsumer(
            rt.bus,
            subjects.KUBE_EVENTS_CONSUMER,
            self.handle,
            EventConsumerSettings(concurrency=s.concurrency),
        )

    async def start(self) -> None:
        await topology.ensure_kube_events_consumer(self._rt.bus)
        await self._events.start()
        logger.info("kube_events.started")

    async def stop(self) -> None:
        await self._events.stop()
        logger.info("kube_events.stopped")

    async def handle(self, stored: StoredEvent, attempt: int) -> None:
        spec = event_for(stored.type.value, stored.event.data)
        if spec is None:
            return
        ref = stored.app
        log_ = logger.bind(app=str(ref), reason=spec.reason, seq=stored.seq)
        involved = await self._involved(stored)
        if involved is None:
            log_.info("kube_event.skipped", why="the Application is gone or has no uid yet")
            return
        if attempt == 1 and not self._budget.allow(str(ref), time.monotonic()):
            log_.warning("kube_event.dropped", why="over the app's or the process's Event budget")
            return
        component = "sluice-" + stored.event.source.rsplit("/", 1)[-1]
        try:
            written = await record(self._rt.control_plane, involved, spec, component=component)
        except ClusterError as e:
            if attempt >= self.settings.max_attempts:
                log_.error("kube_event.given_up", error=str(e), attempts=attempt)
                return
            raise Retry(
                f"the Event of {ref} was not written: {e}", self.settings.retry_delay
            ) from None
        log_.info(
            "kube_event.written",
            event_name=written.get("metadata", {}).get("name"),
            count=written.get("count"),
            message=spec.message,
        )

    async def _involved(self, stored: StoredEvent) -> Involved | None:
        """The Application the event is about: the copy a `deleted` event carries, else
        the registry's, else the cluster's."""
        if stored.type is EventType.DELETED:
            doc = stored.event.data.get("application")
            return involved_from(doc) if isinstance(doc, dict) else None
        app = await self._rt.apps.get(stored.app)
        if app is not None and app.metadata.uid:
            meta = app.metadata
            return Involved(meta.name, meta.namespace, meta.uid, meta.resource_version)
        try:
            obj = await self._rt.control_plane.get(
                application.API_VERSION, application.KIND, stored.app.name, stored.app.namespace
            )
        except NotFound:
            return None
        return involved_from(obj)


def build(runtime: Runtime) -> KubeEventsWorker:
    return KubeEventsWorker(runtime)
