"""Serving a long-running component until SIGTERM/SIGINT, with its metrics on a port.

`sluice worker <name>` and `sluice api` share this: open the Runtime from the environment,
start the component, optionally expose `app.metrics.REGISTRY` on `SLUICE_METRICS_PORT`
(`app.runtime.metrics_server`, unauthenticated as Argo CD's metrics ports are; each
process has its own copy of the registry), and stop cleanly on a signal.
"""

import asyncio
import os
import signal
from collections.abc import Callable, Mapping
from dataclasses import replace

from app import log
from app.cli.running import serve_forever
from app.runtime.metrics_server import MetricsEndpoint, MetricsServer
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.runtime.system_settings import SettingsRefused
from app.runtime.worker import Worker

logger = log.get("serve")

METRICS_PORT = "SLUICE_METRICS_PORT"
METRICS_ADDRESS = "SLUICE_METRICS_ADDRESS"


def metrics_endpoint(env: Mapping[str, str] | None = None) -> MetricsEndpoint | None:
    """Where to serve metrics, from the environment; None when they are not served."""
    e = os.environ if env is None else env
    raw = e.get(METRICS_PORT, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise ValueError(f"{METRICS_PORT}={raw[:20]!r} is not a port number (1-65535)")
    return MetricsEndpoint(e.get(METRICS_ADDRESS, "0.0.0.0") or "0.0.0.0", int(raw))


def serve(name: str, build: Callable[[Runtime], Worker]) -> int:
    """Run the component `build` makes until a signal; the process exit code."""
    try:
        settings = Settings.from_env()
        settings = replace(settings, redis=replace(settings.redis, client_name=f"sluice-{name}"))
        endpoint = metrics_endpoint()
    except ValueError as e:
        logger.error("serve.bad_settings", component=name, error=str(e))
        return 2
    try:
        return serve_forever(_serve(name, build, settings, endpoint))
    except SettingsRefused as e:
        logger.error("serve.settings_refused", component=name, error=str(e))
        return 2


async def _serve(
    name: str,
    build: Callable[[Runtime], Worker],
    settings: Settings,
    endpoint: MetricsEndpoint | None,
) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with Runtime.open(settings) as rt:
        component = build(rt)
        await component.start()
        metrics = MetricsServer(endpoint) if endpoint is not None else None
        try:
            if metrics is not None:
                await metrics.start()
                logger.info(
                    "serve.metrics",
                    component=name,
                    address=metrics.endpoint.address,
                    port=metrics.port,
                )
            logger.info("serve.running", component=name)
            await stop.wait()
        finally:
            if metrics is not None:
                await metrics.stop()
            await component.stop()
    logger.info("serve.stopped", component=name)
    return 0
