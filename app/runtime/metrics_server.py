"""The metrics port: `GET /metrics` without authentication, as Argo CD's components and
every Prometheus exporter serve it.

Each Sluice process (`sluice worker <name>`, `sluice api`, `sluice up`) serves its own
registry (`app.metrics.REGISTRY`) here when `SLUICE_METRICS_PORT` is set; a Prometheus
ServiceMonitor scrapes the `metrics` port of deploy/metrics.yaml's Services. The server
runs on the process's event loop, so the scrape-time gauges (`app.metrics.scrape`) are
refreshed by the components that own them right before the exposition is written. It
answers nothing but `/metrics` and `/healthz`: no application data, no write.
"""

from dataclasses import dataclass

from aiohttp import web
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from app import log
from app.metrics import REGISTRY
from app.metrics.scrape import HOOKS

logger = log.get("metrics")


@dataclass(frozen=True, slots=True)
class MetricsEndpoint:
    address: str = "0.0.0.0"
    port: int = 0
    """0: any free port (tests)."""


async def _metrics(_request: web.Request) -> web.Response:
    await HOOKS.run()
    body = generate_latest(REGISTRY)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})


async def _healthz(_request: web.Request) -> web.Response:
    return web.Response(text="ok")


class MetricsServer:
    """Serves the registry on one address and port until stopped."""

    def __init__(self, endpoint: MetricsEndpoint) -> None:
        self.endpoint = endpoint
        self.port = endpoint.port
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.endpoint.address in ("0.0.0.0", "") else self.endpoint.address
        return f"http://{host}:{self.port}/metrics"

    async def start(self) -> None:
        app = web.Application(client_max_size=1024)
        app.router.add_get("/metrics", _metrics)
        app.router.add_get("/healthz", _healthz)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.endpoint.address, self.endpoint.port)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = sockets[0].getsockname()[1]
        logger.info("metrics.serving", address=self.endpoint.address, port=self.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
