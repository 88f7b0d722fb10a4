"""Bounded everything: body size while streaming, read deadline, in-flight webhooks, app listing,
the bus; and the log of a delivery tells its story without secrets or the body."""

import asyncio
import zlib
from collections.abc import AsyncIterator
from dataclasses import replace

import psutil
import structlog

from app.api.webhooks import AppSourceError, BusPublisher, webhook_routes
from app.api.webhooks.settings import WebhookSettings
from app.bus.connection import Bus, NatsSettings, connect
from app.bus.messages import RefreshRequest
from app.model.application import Application
from tests.integration.api.webhooks.conftest import Start, nothing_published, refreshes
from tests.unit.api.webhooks.samples import HOSTS_BY_NAME, SECRET, expected, fleet

GITHUB = HOSTS_BY_NAME["github"]
GIB = 1 << 30
MIB = 1 << 20


class Streamed:
    """A 1 GiB body produced chunk by chunk, counting how much anyone asked for."""

    def __init__(self, total: int = GIB, chunk: int = MIB) -> None:
        self.total = total
        self.chunk = b"x" * chunk
        self.produced = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while self.produced < self.total:
            self.produced += len(self.chunk)
            yield self.chunk


def _rss() -> int:
    return int(psutil.Process().memory_info().rss)


async def test_gib_body_without_length_is_413_without_being_read(
    start_webhook: Start, ready_bus: Bus
) -> None:
    client = await start_webhook(GITHUB.settings(), fleet(GITHUB.repo_url))
    body = Streamed()
    rss_before = _rss()

    async with client.post(
        "/api/webhook", data=body.__aiter__(), headers={"X-GitHub-Event": "push"}
    ) as response:
        status, answer = response.status, await response.json()

    assert status == 413
    assert "over the 10485760-byte limit" in answer["message"]
    assert body.produced < 128 * MIB, f"{body.produced >> 20} MiB were sent"
    assert _rss() - rss_before < 64 * MIB
    assert await nothing_published(ready_bus)


async def test_gzip_bomb_of_256_mib_is_413_with_memory_flat(
    start_webhook: Start, ready_bus: Bus
) -> None:
    client = await start_webhook(GITHUB.settings(), fleet(GITHUB.repo_url))
    deflate = zlib.compressobj(1, zlib.DEFLATED, 31)
    zeros = b"\0" * MIB
    bomb = b"".join(deflate.compress(zeros) for _ in range(256)) + deflate.flush()
    headers = {"X-GitHub-Event": "push", "Content-Encoding": "gzip"}
    rss_before = _rss()

    response = await client.post("/api/webhook", data=bomb, headers=headers)

    assert len(bomb) < 2 * MIB
    assert response.status == 413
    assert "decompressed" in (await response.json())["message"]
    assert _rss() - rss_before < 64 * MIB
    assert await nothing_published(ready_bus)


async def test_declared_gib_body_is_413_before_reading(
    start_webhook: Start, ready_bus: Bus
) -> None:
    client = await start_webhook(GITHUB.settings(), fleet(GITHUB.repo_url))
    body = Streamed()
    headers = {"X-GitHub-Event": "push", "Content-Length": str(GIB)}

    async with client.post("/api/webhook", data=body.__aiter__(), headers=headers) as response:
        status, answer = response.status, await response.json()

    assert status == 413
    assert f"of {GIB} bytes (Content-Length)" in answer["message"]
    assert body.produced < 128 * MIB
    assert await nothing_published(ready_bus)


async def test_body_limit_is_configurable(start_webhook: Start, ready_bus: Bus) -> None:
    body, headers = GITHUB.request(GITHUB.payload(), SECRET)
    at_limit = await start_webhook(
        GITHUB.settings(max_body_bytes=len(body)), fleet(GITHUB.repo_url)
    )
    below = await start_webhook(GITHUB.settings(max_body_bytes=len(body) - 1), [])

    refused = await below.post("/api/webhook", data=body, headers=headers)
    accepted = await at_limit.post("/api/webhook", data=body, headers=headers)

    assert refused.status == 413
    assert accepted.status == 200
    assert set(await refreshes(ready_bus)) == expected(GITHUB, "refs/heads/main")


async def test_body_that_stalls_is_408(start_webhook: Start, ready_bus: Bus) -> None:
    client = await start_webhook(GITHUB.settings("", read_timeout=0.3), fleet(GITHUB.repo_url))
    stalled = asyncio.Event()

    async def trickle() -> AsyncIterator[bytes]:
        yield b'{"ref": "refs/heads/main",'
        await stalled.wait()

    try:
        async with client.post(
            "/api/webhook", data=trickle(), headers={"X-GitHub-Event": "push"}
        ) as response:
            status, answer = response.status, await response.json()
    finally:
        stalled.set()

    assert status == 408
    assert "did not arrive within 0.3 s" in answer["message"]
    assert await nothing_published(ready_bus)


class Gate:
    """An app source that holds every caller until released."""

    def __init__(self, applications: list[Application]) -> None:
        self.items = applications
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def applications(self) -> list[Application]:
        self.entered.set()
        await self.release.wait()
        return self.items


async def test_webhooks_beyond_the_in_flight_bound_are_503_at_once(
    start_webhook: Start, ready_bus: Bus
) -> None:
    gate = Gate(fleet(GITHUB.repo_url))
    client = await start_webhook(GITHUB.settings(max_in_flight=1), gate)
    body, headers = GITHUB.request(GITHUB.payload(), SECRET)
    first = asyncio.create_task(client.post("/api/webhook", data=body, headers=headers))
    try:
        await asyncio.wait_for(gate.entered.wait(), 5.0)
        second = await client.post("/api/webhook", data=body, headers=headers)
    finally:
        gate.release.set()
    accepted = await first

    assert second.status == 503
    assert second.headers["Retry-After"] == "5"
    assert accepted.status == 200
    assert (await accepted.json())["matched"] == len(expected(GITHUB, "refs/heads/main"))


async def test_apps_that_cannot_be_listed_in_time_are_503(
    start_webhook: Start, ready_bus: Bus
) -> None:
    gate = Gate(fleet(GITHUB.repo_url))
    client = await start_webhook(GITHUB.settings(apps_timeout=0.2), gate)
    body, headers = GITHUB.request(GITHUB.payload(), SECRET)

    try:
        response = await client.post("/api/webhook", data=body, headers=headers)
    finally:
        gate.release.set()

    assert response.status == 503
    assert "within 0.2 s" in (await response.json())["message"]
    assert await nothing_published(ready_bus)


class Broken:
    async def applications(self) -> list[Application]:
        raise AppSourceError("the Application informer has not synced yet")


async def test_app_source_failure_is_503(start_webhook: Start, ready_bus: Bus) -> None:
    client = await start_webhook(GITHUB.settings(), Broken())
    body, headers = GITHUB.request(GITHUB.payload(), SECRET)

    with structlog.testing.capture_logs() as logs:
        response = await client.post("/api/webhook", data=body, headers=headers)

    assert response.status == 503
    assert "Applications cannot be listed now" in (await response.json())["message"]
    cause = next(e for e in logs if e["event"] == "webhook.apps_unavailable")
    assert "informer has not synced" in cause["error"]


async def test_bus_unavailable_is_503_and_nothing_is_published(
    start_webhook: Start, ready_bus: Bus, nats_url: str
) -> None:
    gone = await connect(NatsSettings(url=nats_url, name="gone"))
    await gone.close()
    client = await start_webhook(GITHUB.settings(), fleet(GITHUB.repo_url), BusPublisher(gone))
    body, headers = GITHUB.request(GITHUB.payload(), SECRET)

    with structlog.testing.capture_logs() as logs:
        response = await client.post("/api/webhook", data=body, headers=headers)

    assert response.status == 503
    assert "the bus is unavailable: 0 of 6 refreshes" in (await response.json())["message"]
    cause = next(e for e in logs if e["event"] == "webhook.publish_failed")
    assert "not connected to NATS" in cause["error"]
    assert await nothing_published(ready_bus)


async def test_delivery_is_logged_received_matched_published_without_secret_or_body(
    start_webhook: Start, ready_bus: Bus
) -> None:
    client = await start_webhook(GITHUB.settings(), fleet(GITHUB.repo_url))
    body, headers = GITHUB.request(GITHUB.payload(), SECRET, delivery="d-7f3a")

    with structlog.testing.capture_logs() as logs:
        response = await client.post("/api/webhook", data=body, headers=headers)

    assert response.status == 200
    story = [e["event"] for e in logs if e.get("delivery") == "d-7f3a"]
    assert story[0] == "webhook.received"
    assert story[-2:] == ["webhook.matched", "webhook.published"]
    matched = next(e for e in logs if e["event"] == "webhook.matched")
    assert matched["apps"] == len(expected(GITHUB, "refs/heads/main"))
    text = repr(logs)
    assert SECRET not in text
    assert "Scale the guestbook frontend" not in text


async def _never_called(request: RefreshRequest) -> None:
    raise AssertionError(f"nothing may be published at start-up, got {request}")


def test_providers_without_a_secret_are_warned_about_in_one_line_at_start() -> None:
    settings = replace(WebhookSettings(), github_secret=SECRET, gogs_secret=SECRET)

    with structlog.testing.capture_logs() as logs:
        webhook_routes(settings, _never_called, Broken())

    warned = [e["providers"] for e in logs if e["event"] == "webhook.unchecked"]
    assert [sorted(providers) for providers in warned] == [
        ["azuredevops", "bitbucket", "bitbucketserver", "gitlab"]
    ]
    assert all(e["log_level"] == "warning" for e in logs)


async def _half_sent(host: str, port: int, headers: dict[str, str]) -> asyncio.StreamWriter:
    """A POST that declares a body and sends only its first bytes (then waits)."""
    _, writer = await asyncio.open_connection(host, port)
    lines = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    writer.write(
        f"POST /api/webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n{lines}\r\n{{".encode()
    )
    await writer.drain()
    return writer


async def test_unauthenticated_bodies_being_read_take_no_slot_from_a_signed_push(
    start_webhook: Start, ready_bus: Bus
) -> None:
    client = await start_webhook(GITHUB.settings(max_in_flight=2), fleet(GITHUB.repo_url))
    host, port = str(client.server.host), int(client.server.port or 0)
    stalled = [
        await _half_sent(host, port, {"X-GitHub-Event": "push", "X-Hub-Signature-256": "x"})
        for _ in range(8)
    ]
    try:
        body, headers = GITHUB.request(GITHUB.payload(), SECRET)
        signed = await client.post("/api/webhook", data=body, headers=headers)
        assert signed.status == 200, await signed.text()
        assert set(await refreshes(ready_bus)) == expected(GITHUB, "refs/heads/main")
    finally:
        for writer in stalled:
            writer.transport.abort()
