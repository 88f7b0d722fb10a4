"""Server-Sent Events: live events, resumable with Last-Event-ID, filtered by token scope."""

import asyncio
import json
import logging

import aiohttp
import pytest
from aiohttp import ClientResponse

from app.api.handlers.stream import OPEN_STREAMS
from app.api.server import ApiServer
from app.api.settings import ApiSettings
from app.bus.events import emit
from app.bus.subjects import EventType
from app.model.identity import AppRef
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import (
    TEAM_A,
    Client,
    application,
    auth,
    seed_app,
    tokens,
)
from tests.support.waiting import eventually

SHOP = AppRef("sluice", "shop")
CART = AppRef("sluice", "cart")


async def read_frame(response: ClientResponse, timeout: float = 5.0) -> dict[str, str]:
    """The next SSE frame's fields (comments come back as {"comment": ...})."""
    fields: dict[str, str] = {}
    async with asyncio.timeout(timeout):
        while True:
            line = (await response.content.readline()).decode().rstrip("\n")
            if not line:
                if fields:
                    return fields
                continue
            name, _, value = line.partition(":")
            fields[name or "comment"] = value.strip()


async def next_event(response: ClientResponse) -> dict[str, str]:
    while True:
        frame = await read_frame(response)
        if "comment" not in frame:
            return frame


async def test_stream_follows_one_app_and_resumes(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    async with api.get("/api/v1/stream?app=shop", headers=auth()) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
        assert (await read_frame(response)) == {"comment": "ready"}
        await emit(runtime.bus, CART, EventType.SYNCED, {"n": 0}, component="test")
        for i in range(3):
            await emit(runtime.bus, SHOP, EventType.OPERATION_STARTED, {"n": i}, component="test")
        frames = [await next_event(response) for _ in range(3)]
    assert [f["event"] for f in frames] == ["operation-started"] * 3
    assert [json.loads(f["data"])["data"]["n"] for f in frames] == [0, 1, 2]
    assert json.loads(frames[0]["data"])["type"] == "dev.sluice.operation-started"
    resume = frames[0]["id"]
    headers = auth() | {"Last-Event-ID": resume}
    async with api.get("/api/v1/stream?app=shop", headers=headers) as response:
        replayed = [await next_event(response) for _ in range(2)]
    assert [f["id"] for f in replayed] == [frames[1]["id"], frames[2]["id"]]


async def test_stream_of_everything_respects_the_token_scope(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    await seed_app(runtime, application("cart", project="team-a-shop"))
    async with api.get("/api/v1/stream?after=0", headers=auth(TEAM_A)) as response:
        await emit(runtime.bus, SHOP, EventType.SYNCED, {}, component="test")
        await emit(runtime.bus, CART, EventType.SYNCED, {}, component="test")
        frame = await next_event(response)
    assert json.loads(frame["data"])["subject"] == "sluice/cart"


async def test_stream_sends_keepalives(api: Client, runtime: Runtime) -> None:
    async with api.get("/api/v1/stream", headers=auth()) as response:
        assert await read_frame(response) == {"comment": "ready"}
        assert await read_frame(response) == {"comment": "keepalive"}


async def test_a_closed_page_ends_its_stream_without_an_error(
    runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    """The server as `sluice api` runs it (handlers are not cancelled when a client goes)
    finds the page gone at its next keepalive."""
    caplog.set_level(logging.ERROR, logger="aiohttp.server")
    settings = ApiSettings(tokens=tokens(), port=0, request_timeout=10.0, heartbeat=0.2)
    server = ApiServer(runtime, settings)
    await server.start()
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{server.url}/api/v1/stream", headers=auth()) as response,
        ):
            assert await read_frame(response) == {"comment": "ready"}
            response.connection.transport.close()  # type: ignore[union-attr]
        assert server._runner is not None
        streams = server._runner.app[OPEN_STREAMS]

        async def ended() -> bool:
            return not streams.tasks

        await eventually(ended, what="the server to end the stream of the closed page")
    finally:
        await server.stop()
    assert not caplog.records, [r.getMessage() for r in caplog.records]


async def test_stream_refusals(api: Client, runtime: Runtime) -> None:
    missing = await api.get("/api/v1/stream?app=gone", headers=auth())
    assert missing.status == 404
    bad = await api.get("/api/v1/stream", headers=auth() | {"Last-Event-ID": "yesterday"})
    assert bad.status == 400 and "Last-Event-ID" in (await bad.json())["message"]
