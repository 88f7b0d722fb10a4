"""The webhook as the API server mounts it: its own deadlines, not the API's (issue 13, 11)."""

import asyncio
from collections.abc import AsyncIterator

from aiohttp.test_utils import TestClient, TestServer

from app.api.server import build_app
from app.api.settings import ApiSettings
from app.api.webhooks import WebhookSettings
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import NAMESPACE, tokens


async def test_a_webhook_body_slower_than_the_api_deadline_is_408_not_504(
    runtime: Runtime,
) -> None:
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    )
    settings = ApiSettings(
        tokens=tokens(), request_timeout=0.3, webhooks=WebhookSettings(read_timeout=1.0)
    )
    client = TestClient(TestServer(build_app(runtime, settings)))
    await client.start_server()
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
        await client.close()
    assert status == 408, answer
    assert "did not arrive within 1 s" in answer["message"]
