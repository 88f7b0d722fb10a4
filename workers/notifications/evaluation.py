"""Every event → the app's triggers evaluated → one `sluice.notify.<app>` per notification.

For each event of SLUICE_EVENTS (any type: it says that something about the app
changed), the app is read as Argo CD's notifications controller sees it: the
Application with the status the pipeline stored, and its AppProject. A `deleted` event
carries the last registered Application (the registry no longer has it), marked deleted.
Then, per the decision (`app.engine.notifications.decide`): records of conditions no
longer true are forgotten, and each notification due is rendered and published (its
`Nats-Msg-Id` de-duplicates the same notification published twice within the stream's
window; the delivery's lock and record do beyond it). The event is acknowledged only
after every publish, so a worker that dies midway has the event delivered again.
"""

import json
from typing import Any

from app import log
from app.bus.errors import Retry
from app.bus.events import StoredEvent
from app.bus.messages import NOTIFY, NotifyRequest
from app.bus.publish import publish
from app.bus.subjects import EventType
from app.engine.notifications.decide import decide, render
from app.engine.notifications.functions import EvalError
from app.engine.notifications.subscriptions import destinations
from app.model import codec
from app.model.application import Application
from app.model.errors import SpecError
from app.model.status import ApplicationStatus
from app.model.timestamps import format_time, parse_time
from app.runtime.runtime import Runtime
from app.store.notifications import NotificationRecords
from workers.notifications.config_source import ConfigSource
from workers.notifications.settings import NotificationSettings

logger = log.get("notifications", stage="notifications")


def deleted_application(event: StoredEvent) -> Application | None:
    """The Application a `deleted` event carries, with its deletion time set."""
    doc = event.event.data.get("application")
    if not isinstance(doc, dict):
        return None
    try:
        app = Application.from_dict(doc)
    except SpecError:
        return None
    if not app.metadata.deletion_timestamp:
        try:
            app.metadata.deletion_timestamp = format_time(parse_time(event.event.time))
        except ValueError:
            return None
    return app


class Evaluation:
    """The event handler (see the module docstring)."""

    def __init__(
        self,
        rt: Runtime,
        config: ConfigSource,
        records: NotificationRecords,
        settings: NotificationSettings,
    ) -> None:
        self._rt = rt
        self._config = config
        self._records = records
        self._settings = settings

    async def _application(self, event: StoredEvent) -> Application | None:
        if event.type is EventType.DELETED:
            return deleted_application(event)
        return await self._rt.apps.get(event.app)

    async def handle(self, event: StoredEvent, attempt: int) -> None:
        rt, ref = self._rt, event.app
        config = self._config.current
        if config is None:
            raise Retry(self._config.not_ready, 1.0)
        log_ = logger.bind(app=str(ref), event=event.type.value, seq=event.seq)
        app = await self._application(event)
        if app is None:
            log_.debug("notifications.no_app", reason="the Application is not registered")
            return
        project = await rt.apps.get_project(rt.settings.control_plane.namespace, app.spec.project)
        project_annotations = project.metadata.annotations if project is not None else {}
        wanted = destinations(
            app.metadata.annotations, app.metadata.labels, project_annotations, config
        )
        if not wanted:
            return
        stored = await rt.status.read_status(ref)
        app.status = stored.status if stored is not None else ApplicationStatus()
        doc: dict[str, Any] = codec.encode(app)
        project_doc: dict[str, Any] = codec.encode(project) if project is not None else {}
        uid = app.metadata.uid
        sent = await self._records.sent(ref, uid)
        waited = attempt >= self._settings.stale_attempts
        decision = decide(config, doc, project_doc, wanted, sent, ignore_stale=waited)
        if decision.stale:
            log_.debug("notifications.waiting", reason=decision.stale)
            raise Retry(decision.stale, self._settings.stale_delay)
        for problem in decision.problems:
            log_.warning("notification.not_evaluated", problem=problem)
        await self._records.forget(ref, uid, list(decision.clear))
        for send in decision.sends:
            dest = send.destination
            service = config.services.get(dest.service)
            if service is None:
                state = "refused" if f"service.{dest.service}" in config.refused else "unknown"
                log_.warning(
                    "notification.no_service",
                    trigger=send.trigger,
                    service=dest.service,
                    problem=f"service {dest.service} is {state}; define service.<type>."
                    f"{dest.service} in {self._settings.configmap}",
                )
                continue
            try:
                rendered = render(config, send, service, doc, project_doc)
            except EvalError as e:
                log_.warning(
                    "notification.not_rendered",
                    trigger=send.trigger,
                    service=dest.service,
                    problem=str(e),
                )
                continue
            request = NotifyRequest(
                app=ref,
                uid=uid,
                record=send.record,
                trigger=send.trigger,
                service=dest.service,
                recipient=dest.recipient,
                notification=json.dumps(rendered.to_json(), separators=(",", ":")),
            )
            await publish(rt.bus, NOTIFY, request)
            log_.info(
                "notification.queued",
                trigger=send.trigger,
                condition=send.condition,
                service=dest.service,
                recipient=dest.recipient,
                once_per=send.once_per if send.has_once_per else None,
            )
