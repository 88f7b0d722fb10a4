"""The API server: every route on one aiohttp application, and a worker that serves it.

    app = build_app(runtime, ApiSettings.from_env())        # for tests and embedding
    server = ApiServer(runtime, settings); await server.start(); server.url; await server.stop()

`ApiServer` has the shape of a pipeline worker (`name`, `start`, `stop`), so `sluice up`
runs it beside the workers; it lives here rather than in `workers/` because the API sits
above the workers in the import layers.
"""

from aiohttp import web
from redis.exceptions import RedisError

from app import log
from app.api.auth_state import AUTH, AuthState
from app.api.handlers import (
    accounts,
    app_details,
    applications,
    clusters,
    diff,
    operations,
    project_roles,
    project_windows,
    projects,
    repositories,
    resource_actions,
    resource_ops,
    resources,
    revisions,
    session,
    stream,
    sync_windows,
    system,
    views,
)
from app.api.metrics import Snapshot
from app.api.middleware import MIDDLEWARES
from app.api.openapi import document
from app.api.routes import ROUTE_TABLE, RUNTIME, SETTINGS, Route, bind
from app.api.settings import ApiSettings
from app.api.ui import routes as ui_routes
from app.api.webhooks import AppSourceError, BusPublisher, webhook_routes
from app.bus.errors import BusError
from app.bus.messages import RefreshRequest
from app.model.application import Application
from app.repo.errors import RepoError
from app.runtime.runtime import Runtime
from app.store.refs import RefsCache

logger = log.get("api")

SHUTDOWN_TIMEOUT = 5.0
"""Seconds requests in flight get to finish when the server stops."""


def routes() -> list[Route]:
    """Every route the API declares (the webhook route is mounted beside them)."""
    return [
        *applications.ROUTES,
        *operations.ROUTES,
        *diff.ROUTES,
        *views.ROUTES,
        *resources.ROUTES,
        *revisions.ROUTES,
        *session.ROUTES,
        *resource_ops.ROUTES,
        *resource_actions.ROUTES,
        *sync_windows.ROUTES,
        *projects.ROUTES,
        *project_windows.ROUTES,
        *project_roles.ROUTES,
        *repositories.ROUTES,
        *app_details.ROUTES,
        *accounts.ROUTES,
        *clusters.ROUTES,
        *stream.ROUTES,
        *system.ROUTES,
    ]


class RegistryApps:
    """The webhook's app source: the app registry."""

    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    async def applications(self) -> list[Application]:
        try:
            return await self._rt.apps.all()
        except Exception as e:  # noqa: BLE001 - any store failure means "cannot list now"
            raise AppSourceError(f"{type(e).__name__}: {e}") from None


class FreshRefsPublisher:
    """Publishes a webhook's refreshes after forgetting the app's cached ref listings.

    The render worker resolves revisions through a short-lived listing cache; a push makes
    that listing stale, so it is dropped first and the render sees the pushed commit.
    """

    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._publish = BusPublisher(rt.bus)
        self._refs = RefsCache(rt.redis, rt.settings.timing.refs_cache_ttl)

    async def __call__(self, request: RefreshRequest) -> None:
        try:
            app = await self._rt.apps.get(request.app)
            for source in app.spec.all_sources if app is not None else []:
                project = app.spec.project if app is not None else ""
                try:
                    identity = self._rt.repos.cache_identity(source.repo_url, project=project)
                except RepoError:
                    identity = source.repo_url
                await self._refs.forget(identity)
        except (RedisError, OSError) as e:
            raise BusError(f"cannot drop the cached refs of {request.app}: {e}") from None
        await self._publish(request)


def build_app(rt: Runtime, settings: ApiSettings) -> web.Application:
    """The aiohttp application serving the REST API, the event stream, metrics, webhooks
    and the web UI."""
    declared = routes()
    app = web.Application(middlewares=MIDDLEWARES, client_max_size=settings.max_body_bytes)
    app[RUNTIME] = rt
    app[SETTINGS] = settings
    app[ROUTE_TABLE] = {route.operation_id: route for route in declared}
    auth = AuthState(
        rt.control_plane,
        rt.settings.control_plane.namespace,
        rt.settings.control_plane.settings_configmap,
        settings,
        settings.tokens.rules(),
    )
    app[AUTH] = auth

    async def start_auth(_app: web.Application) -> None:
        await auth.start()

    async def stop_auth(_app: web.Application) -> None:
        await auth.stop()

    app.on_startup.append(start_auth)
    app.on_cleanup.append(stop_auth)
    app[system.OPENAPI] = document(declared)
    app[system.METRICS] = Snapshot(rt, settings.metrics_min_interval)
    streams = stream.OpenStreams()
    app[stream.OPEN_STREAMS] = streams
    app.on_shutdown.append(streams.close)
    app.add_routes([bind(route) for route in declared])
    app.add_routes(webhook_routes(settings.webhooks, FreshRefsPublisher(rt), RegistryApps(rt)))
    app.add_routes(ui_routes())
    if not len(settings.tokens):
        logger.warning(
            "api.no_tokens",
            reason="no API tokens are configured: only local accounts' and project roles' "
            "tokens are accepted; set SLUICE_API_TOKENS or SLUICE_API_TOKEN_FILE",
        )
    return app


class ApiServer:
    """The API on a TCP port, started and stopped like a worker."""

    name = "api"

    def __init__(self, rt: Runtime, settings: ApiSettings) -> None:
        self._rt = rt
        self.settings = settings
        self._runner: web.AppRunner | None = None
        self.port = settings.port

    @property
    def url(self) -> str:
        return f"http://{self.settings.address}:{self.port}"

    async def start(self) -> None:
        runner = web.AppRunner(
            build_app(self._rt, self.settings),
            access_log=None,
            shutdown_timeout=SHUTDOWN_TIMEOUT,
        )
        await runner.setup()
        site = web.TCPSite(runner, self.settings.address, self.settings.port)
        try:
            await site.start()
        except OSError as e:
            await runner.cleanup()
            raise OSError(
                f"the API cannot listen on {self.settings.address}:{self.settings.port} "
                f"({e.strerror}); set SLUICE_API_PORT to a free port"
            ) from None
        self._runner = runner
        addresses = runner.addresses
        if addresses:
            self.port = int(addresses[0][1])
        logger.info("api.listening", url=self.url, tokens=len(self.settings.tokens))

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
            logger.info("api.stopped")


def build(rt: Runtime) -> ApiServer:
    """The API server configured from the environment (`ApiSettings.from_env`)."""
    return ApiServer(rt, ApiSettings.from_env())
