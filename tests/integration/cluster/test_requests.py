"""What the cluster client puts on the wire: the kubeconfig's token, the user agent and
the body as JSON, exactly once per request, read by a real HTTP server."""

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from app import jsonio
from app.cluster import Cluster, ClusterSettings
from app.cluster.config import load_kubeconfig_dict
from app.cluster.errors import Target
from tests.support.logscan import known_secret

TOKEN = known_secret("wire-token-0123456789", "a cluster bearer token")
PATH = "/api/v1/namespaces/default/configmaps/web"


@dataclass
class Seen:
    requests: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, Seen]]:
    seen = Seen()

    async def answer(request: web.Request) -> web.Response:
        body = await request.read()
        seen.requests.append((request.method, request.path_qs, dict(request.headers), body))
        if request.method == "GET":
            return web.json_response({"kind": "ConfigMap", "metadata": {"name": "web"}})
        return web.Response(body=body, content_type="application/json")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    yield f"http://127.0.0.1:{port}", seen
    await runner.cleanup()


async def cluster_at(url: str) -> Cluster:
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "wire",
        "clusters": [{"name": "wire", "cluster": {"server": url}}],
        "contexts": [{"name": "wire", "context": {"cluster": "wire", "user": "me"}}],
        "users": [{"name": "me", "user": {"token": TOKEN}}],
    }
    return Cluster(await load_kubeconfig_dict(doc), ClusterSettings(user_agent="sluice/test"))


async def test_a_request_carries_the_token_and_user_agent(server: tuple[str, Seen]) -> None:
    url, seen = server
    async with await cluster_at(url) as cluster:
        answer = await cluster.transport.call(
            "GET", PATH, Target("get", "ConfigMap", "v1", "default", "web"),
            query=[("resourceVersion", "0")],
        )  # fmt: skip
    assert answer == {"kind": "ConfigMap", "metadata": {"name": "web"}}
    [(method, path, headers, body)] = seen.requests
    assert (method, path, body) == (
        "GET",
        f"{PATH}?resourceVersion=0",
        b"",
    )
    assert headers["Authorization"] == f"Bearer {TOKEN}"
    assert headers["User-Agent"] == "sluice/test"
    assert headers["Accept"] == "application/json"


async def test_a_body_goes_out_as_its_json_in_the_content_type_asked(
    server: tuple[str, Seen],
) -> None:
    url, seen = server
    patch = {"metadata": {"labels": {"team": "café"}}, "data": {"n": "1"}}
    async with await cluster_at(url) as cluster:
        answer = await cluster.transport.call(
            "PATCH", PATH, Target("patch", "ConfigMap", "v1", "default", "web"),
            body=patch, content_type="application/merge-patch+json",
        )  # fmt: skip
    assert answer == patch
    [(method, _, headers, body)] = seen.requests
    assert method == "PATCH"
    assert headers["Content-Type"] == "application/merge-patch+json"
    assert jsonio.loads(body) == patch
