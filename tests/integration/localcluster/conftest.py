"""A small raw HTTP client for the local cluster: status code and decoded body, nothing else.

The protocol tests need to see exactly what went over the wire (codes, content types,
Status bodies), which client libraries hide; the lifecycle tests use it for brevity.
"""

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from app.localcluster import LocalCluster


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any
    content_type: str


class Http:
    def __init__(self, session: aiohttp.ClientSession, url: str) -> None:
        self.session = session
        self.url = url

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> Reply:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        sent = {"Content-Type": content_type, **(headers or {})}
        async with self.session.request(method, self.url + path, data=data, headers=sent) as resp:
            text = await resp.read()
            try:
                decoded = json.loads(text) if text else None
            except ValueError:
                decoded = text.decode()
            return Reply(resp.status, decoded, resp.headers.get("Content-Type", ""))

    async def get(self, path: str, **kw: Any) -> Reply:
        return await self.call("GET", path, **kw)

    async def post(self, path: str, body: Any, **kw: Any) -> Reply:
        return await self.call("POST", path, body, **kw)

    async def put(self, path: str, body: Any, **kw: Any) -> Reply:
        return await self.call("PUT", path, body, **kw)

    async def patch(self, path: str, body: Any, content_type: str, **kw: Any) -> Reply:
        return await self.call("PATCH", path, body, content_type=content_type, **kw)

    async def delete(self, path: str, body: Any = None, **kw: Any) -> Reply:
        return await self.call("DELETE", path, body, **kw)

    async def ok(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        """The body of a call that must succeed (fails the test with the Status otherwise)."""
        reply = await self.call(method, path, body, **kw)
        assert 200 <= reply.status < 300, f"{method} {path}: {reply.status} {reply.body}"
        return reply.body


@pytest.fixture
async def http(local_cluster: LocalCluster) -> AsyncIterator[Http]:
    async with aiohttp.ClientSession() as session:
        yield Http(session, local_cluster.url)


def deployment(
    name: str = "web", replicas: int = 2, annotations: dict[str, str] | None = None
) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "annotations": annotations or {}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": "nginx:1"}]},
            },
        },
    }


def configmap(name: str, data: dict[str, str] | None = None, **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, **meta},
        "data": data or {},
    }


def conditions(obj: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """type -> (status, reason) of obj.status.conditions."""
    return {
        c["type"]: (c["status"], c.get("reason", ""))
        for c in (obj.get("status") or {}).get("conditions") or ()
    }


DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


WIDGETS_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object"}},
            }
        ],
    },
}
