"""A signed GitHub push webhook brings an app to the new commit (issue 5, end to end).

Polling is off and the refs cache keeps listings for a minute, so only the webhook can
bring the new commit in: the API must forget the app's cached ref listing before it
publishes the refresh, or the render would resolve the commit from before the push.
"""

import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from dataclasses import replace

import aiohttp
import pytest

from app.api.server import ApiServer
from app.api.settings import ApiSettings
from app.api.webhooks import WebhookSettings
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from bench.webhook_latency import push_event
from tests.e2e.manifests import application, as_yaml, deployment
from tests.e2e.pipeline import Pipeline
from tests.support.gitrepo import GitRepo
from tests.support.logscan import known_secret

pytestmark = pytest.mark.kubectl

SECRET = known_secret("e2e-webhook-secret", "the webhook secret")
NAMESPACE = "shop"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    timing = replace(settings.timing, git_poll=0.0, refs_cache_ttl=60.0)
    return replace(settings, timing=timing)


@pytest.fixture
async def api(runtime: Runtime) -> AsyncIterator[str]:
    server = ApiServer(runtime, ApiSettings(port=0, webhooks=WebhookSettings(github_secret=SECRET)))
    await server.start()
    try:
        yield server.url
    finally:
        await server.stop()


async def test_a_signed_push_webhook_brings_the_app_to_the_new_commit(
    pipeline: Pipeline, git_repo: GitRepo, api: str
) -> None:
    first = git_repo.commit({"deploy/web.yaml": as_yaml(deployment("web", "nginx:1.27"))})
    await pipeline.apply(
        application("web", git_repo.url, path="deploy", namespace=NAMESPACE, automated={})
    )
    await pipeline.wait_synced("web", first)

    second = git_repo.commit({"deploy/web.yaml": as_yaml(deployment("web", "nginx:1.28"))})
    body = json.dumps(push_event(git_repo.url, first, second, "deploy/web.yaml")).encode()
    signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": "e2e-delivery-1",
        "X-Hub-Signature-256": signature,
    }
    timeout = aiohttp.ClientTimeout(total=10)
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.post(f"{api}/api/webhook", data=body, headers=headers) as response,
    ):
        assert response.status == 200, await response.text()
        answer = await response.json()
    assert answer["matched"] == 1 and answer["delivery"] == "e2e-delivery-1"

    await pipeline.wait_synced("web", second, timeout=20)
    live = await pipeline.live("apps/v1", "Deployment", "web", NAMESPACE)
    assert live is not None
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.28"
