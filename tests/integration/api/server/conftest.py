"""The API on a real aiohttp server over a real Runtime (NATS, Redis, the local cluster).

Three tokens: `ADMIN` (every project), `READER` (read-only) and `TEAM_A` (projects
`team-a*` only). `seed_app` writes an Application to the cluster *and* the registry (the
watcher, which would mirror it, is not running in these tests).
"""

import datetime as dt
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from app.api.server import build_app
from app.api.settings import ApiSettings
from app.api.tokens import Principal, Token, TokenSet, digest
from app.model.application import Application
from app.model.identity import AppRef
from app.model.project import AppProject
from app.model.status import ApplicationStatus, SyncStatus
from app.model.sync import SyncStatusCode
from app.repo.sourcehash import source_hash
from app.runtime.runtime import Runtime
from app.store.manifests import ManifestKey, RenderedManifests
from tests.support.logscan import known_secret

ADMIN = known_secret("admin-token-0123456789abcdef", "an API token")
READER = known_secret("reader-token-0123456789abcdef", "an API token")
TEAM_A = known_secret("team-a-token-0123456789abcdef", "an API token")
EXPIRED = known_secret("expired-token-0123456789abcdef", "an API token")
NAMESPACE = "sluice"
REF = AppRef(NAMESPACE, "shop")
"""The app most tests seed (`application("shop")`)."""

Client = TestClient[Any, Any]


def tokens() -> TokenSet:
    past = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    return TokenSet(
        [
            Token(Principal("admin"), digest(ADMIN)),
            Token(Principal("reader", read_only=True), digest(READER)),
            Token(Principal("team-a", projects=("team-a*",)), digest(TEAM_A)),
            Token(Principal("old"), digest(EXPIRED), expires_at=past),
        ]
    )


def auth(token: str = ADMIN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def application(name: str, *, project: str = "default", **spec: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "project": project,
            "source": {"repoURL": "https://git.example.com/shop.git", "path": "deploy"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "shop"},
        },
    }
    doc["spec"].update(spec)
    return doc


def project(name: str, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "sourceRepos": ["*"],
        "destinations": [{"server": "*", "namespace": "*"}],
    }
    body.update(spec)
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AppProject",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": body,
    }


@pytest.fixture
async def api(runtime: Runtime) -> AsyncIterator[Client]:
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    )
    settings = ApiSettings(tokens=tokens(), request_timeout=10.0, heartbeat=0.5)
    client = TestClient(TestServer(build_app(runtime, settings)))
    await client.start_server()
    yield client
    await client.close()


async def seed_app(rt: Runtime, doc: dict[str, Any]) -> AppRef:
    """Write the Application to the cluster and register it, as the watcher would."""
    written = await rt.control_plane.create(doc)
    await rt.apps.put(Application.from_dict(written))
    return AppRef(NAMESPACE, doc["metadata"]["name"])


async def seed_project(rt: Runtime, doc: dict[str, Any]) -> None:
    written = await rt.control_plane.create(doc)
    await rt.apps.put_project(AppProject.from_dict(written))


COMMIT = "c" * 40


def tracked(kind: str, name: str, **body: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": {
            "name": name,
            "namespace": "shop",
            "annotations": {"argocd.argoproj.io/tracking-id": f"shop:/{kind}:shop/{name}"},
        },
        **body,
    }


async def seed_comparison(runtime: Runtime) -> None:
    """A stored comparison of `shop` at COMMIT: cfg differs, same is equal, the Secret
    creds differs, orphan is live only (requires pruning)."""
    app = await runtime.apps.get(REF)
    assert app is not None and app.spec.source is not None
    targets = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": {"a": "2"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "same"}, "data": {"a": "1"}},
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "creds"},
            "data": {"pw": "bmV3"},
        },
    ]
    key = ManifestKey(app.spec.source.repo_url, COMMIT, source_hash(app.spec.source))
    await runtime.manifests.put(key, RenderedManifests(targets, "Directory"))
    await runtime.live.replace(
        REF,
        [
            tracked("ConfigMap", "cfg", data={"a": "1"}),
            tracked("ConfigMap", "same", data={"a": "1"}),
            tracked("Secret", "creds", data={"pw": "b2xk"}),
            tracked("ConfigMap", "orphan", data={"x": "y"}),
        ],
    )
    seq = await runtime.status.begin_comparison(REF)
    status = ApplicationStatus(sync=SyncStatus(status=SyncStatusCode.OUT_OF_SYNC, revision=COMMIT))
    await runtime.status.write_comparison(REF, seq, status)
