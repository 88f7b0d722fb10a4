"""Delivering through each service to a real local HTTP receiver: what is sent, what an
error says (never a secret), and which failures are worth retrying."""

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from app.engine.notifications.decide import Notification
from app.engine.notifications.services import SlackService, WebhookService
from app.notify import DeliveryError, DeliverySettings, deliver
from tests.support.logscan import known_secret

TOKEN = known_secret("xoxb-very-secret-token", "the Slack token")


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []

    async def handle(request: web.Request) -> web.StreamResponse:
        body = await request.text()
        seen.append({"path": request.path, "headers": dict(request.headers), "body": body})
        if request.path == "/api/chat.postMessage":
            channel = json.loads(body).get("channel")
            ok = channel == "known"
            return web.json_response(
                {"ok": ok} if ok else {"ok": False, "error": "channel_not_found"}
            )
        if request.path.startswith("/status/"):
            return web.Response(status=int(request.path.rsplit("/", 1)[1]), text=f"echo {TOKEN}")
        if request.path == "/redirect":
            raise web.HTTPFound("/elsewhere")
        return web.Response(text="ok")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}", seen
    finally:
        await runner.cleanup()


async def test_slack_web_api_posts_to_the_channel_with_the_token(
    receiver: tuple[str, list[dict[str, Any]]],
) -> None:
    base, seen = receiver
    service = SlackService(name="slack", token=TOKEN, api_url=f"{base}/api/", icon=":rocket:")
    note = Notification(message="hello", slack={"attachments": '[{"title": "gb"}]'})
    await deliver(service, note, "known", DeliverySettings())
    (request,) = seen
    assert request["headers"]["Authorization"] == f"Bearer {TOKEN}"
    assert json.loads(request["body"]) == {
        "text": "hello",
        "channel": "known",
        "attachments": [{"title": "gb"}],
        "icon_emoji": ":rocket:",
    }
    with pytest.raises(DeliveryError) as refused:
        await deliver(service, note, "unknown", DeliverySettings())
    assert not refused.value.retriable
    assert "channel_not_found" in str(refused.value) and TOKEN not in str(refused.value)


async def test_attachments_that_are_not_json_are_refused_before_anything_is_sent(
    receiver: tuple[str, list[dict[str, Any]]],
) -> None:
    base, seen = receiver
    service = SlackService(name="slack", webhook_url=f"{base}/hook/secret-path")
    with pytest.raises(DeliveryError, match="attachments is not JSON") as refused:
        await deliver(service, Notification(slack={"attachments": "[{"}), "", DeliverySettings())
    assert not refused.value.retriable and seen == []


@pytest.mark.parametrize(("status", "retriable"), [(503, True), (429, True), (400, False)])
async def test_a_webhook_failure_says_what_failed_without_the_url_or_secrets(
    receiver: tuple[str, list[dict[str, Any]]], status: int, retriable: bool
) -> None:
    base, _ = receiver
    service = WebhookService(name="hook", url=f"{base}/status/{status}?token={TOKEN}")
    with pytest.raises(DeliveryError) as failed:
        await deliver(service, Notification(message="m"), "", DeliverySettings())
    assert failed.value.retriable is retriable
    text = str(failed.value)
    assert f"answered HTTP {status}" in text and base in text
    assert TOKEN not in text and "/status/" not in text


async def test_a_webhook_is_not_redirected_and_an_unreachable_one_is_retried(
    receiver: tuple[str, list[dict[str, Any]]],
) -> None:
    base, seen = receiver
    with pytest.raises(DeliveryError, match="HTTP 302") as redirected:
        await deliver(
            WebhookService("hook", f"{base}/redirect"), Notification(), "", DeliverySettings()
        )
    assert not redirected.value.retriable
    assert [r["path"] for r in seen] == ["/redirect"]
    with pytest.raises(DeliveryError, match="cannot reach") as unreachable:
        await deliver(
            WebhookService("hook", "http://127.0.0.1:9/x"), Notification(), "", DeliverySettings()
        )
    assert unreachable.value.retriable
