"""The render worker: resolves an app's revisions and makes sure their manifests are cached.

Consumes RenderRequest (`sluice.render.<app>`) through a Stage, so one render per app
runs at a time and a burst of requests becomes one run at the highest level asked.
For the app in the registry, once its project permits it (`app.runtime.projects`: its
namespace, repositories and destination; a refused app is fetched from nowhere and its
ManifestsReady carries the refusal), it calls `app.runtime.manifests.manifests_for` (`force` at the
`force` level: fresh ls-remote, no manifest cache) and publishes ManifestsReady on
`sluice.compare.<app>` with one commit per source, or with the error a user has to fix
and no revisions; the compare stage decides what a repository error means for the
status (the 180 s grace period). An app no longer registered is dropped.
"""

from app import log
from app.bus.consumer import ConsumerSettings
from app.bus.messages import COMPARE, REFRESH, RENDER, ManifestsReady, RenderRequest
from app.bus.publish import publish
from app.model.sync import RefreshLevel
from app.runtime.manifests import ManifestsError, manifests_for
from app.runtime.projects import project_verdict
from app.runtime.runtime import Runtime
from app.runtime.stage import Stage
from app.runtime.worker import Worker
from app.store.coalescing import Pending

logger = log.get("render", stage="render")


class RenderWorker:
    """Answers every RenderRequest with a ManifestsReady."""

    name = "render"

    def __init__(self, runtime: Runtime, *, consumer: ConsumerSettings | None = None) -> None:
        self._rt = runtime
        self._stage = Stage(
            runtime,
            RENDER,
            self._handle,
            level=lambda m: int(m.level),
            consumer=consumer,
            answers=REFRESH.work.value,
        )

    async def start(self) -> None:
        await self._stage.start()

    async def stop(self) -> None:
        await self._stage.stop()

    async def _handle(self, request: RenderRequest, pending: Pending) -> None:
        log_ = logger.bind(
            app=str(request.app), level=request.level.name.lower(), reason=request.reason
        )
        app = await self._rt.apps.get(request.app)
        if app is None:
            log_.info("render.dropped", reason="the Application is not registered (deleted?)")
            return
        verdict = await project_verdict(self._rt, app)
        if verdict.refused:
            await publish(
                self._rt.bus,
                COMPARE,
                ManifestsReady(request.app, request.level, (), error=verdict.message),
            )
            log_.warning("render.refused", reason=verdict.message, consequence="nothing fetched")
            return
        try:
            result = await manifests_for(self._rt, app, force=request.level >= RefreshLevel.FORCE)
        except ManifestsError as e:
            await publish(
                self._rt.bus,
                COMPARE,
                ManifestsReady(request.app, request.level, (), error=e.message),
            )
            log_.warning("render.failed", error=e.message, transient=e.transient)
            return
        await publish(
            self._rt.bus, COMPARE, ManifestsReady(request.app, request.level, result.revisions)
        )
        event = log_.info if result.rendered else log_.debug
        event(
            "render.ready",
            revisions=list(result.revisions),
            rendered=result.rendered,
            cached=len(result.sources) - result.rendered,
            requests=pending.count,
        )


def build(runtime: Runtime) -> Worker:
    return RenderWorker(runtime)
