"""A running webhook route on a real aiohttp server, publishing to the real NATS of the fixtures."""

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from app.api.webhooks import (
    AppSource,
    BusPublisher,
    RefreshPublisher,
    WebhookSettings,
    webhook_routes,
)
from app.bus import subjects
from app.bus.connection import Bus
from app.bus.messages import REFRESH, RefreshRequest, decode
from app.model.application import Application


class StaticApps:
    """An app source holding a fixed list (what the API server's cache returns)."""

    def __init__(self, applications: list[Application]) -> None:
        self.items = applications

    async def applications(self) -> list[Application]:
        return list(self.items)


Start = Callable[..., Awaitable[TestClient[web.Request, web.Application]]]


@pytest.fixture
async def start_webhook(ready_bus: Bus) -> AsyncIterator[Start]:
    """Start the webhook route: `await start_webhook(settings, apps, publisher=None)`."""
    clients: list[TestClient[web.Request, web.Application]] = []

    async def start(
        settings: WebhookSettings,
        apps: list[Application] | AppSource,
        publisher: RefreshPublisher | None = None,
    ) -> TestClient[web.Request, web.Application]:
        source = StaticApps(apps) if isinstance(apps, list) else apps
        app = web.Application()
        app.add_routes(webhook_routes(settings, publisher or BusPublisher(ready_bus), source))
        client = TestClient(TestServer(app))
        await client.start_server()
        clients.append(client)
        return client

    yield start
    for client in clients:
        await client.close()


async def refreshes(bus: Bus) -> dict[str, tuple[int, RefreshRequest]]:
    """Refresh requests waiting on the work stream: per app name, how many and the last one."""
    info = await bus.js.stream_info(
        subjects.WORK_STREAM, subjects_filter=subjects.work_filter(subjects.Work.REFRESH)
    )
    found: dict[str, tuple[int, RefreshRequest]] = {}
    for subject, count in (info.state.subjects or {}).items():
        app = subjects.app_from_token(subject.split(".")[2])
        last = await bus.js.get_last_msg(subjects.WORK_STREAM, subject)
        assert last.data is not None
        found[app.name] = (count, decode(REFRESH, last.data))
    return found


async def nothing_published(bus: Bus) -> bool:
    info = await bus.js.stream_info(subjects.WORK_STREAM)
    return info.state.messages == 0
