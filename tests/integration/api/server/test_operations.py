"""Operations through the API: sync, rollback, terminate, refresh."""

from typing import Any

import pytest

from app.bus import subjects
from app.bus.messages import REFRESH, decode
from app.model.operation import RevisionHistory
from app.model.status import ApplicationStatus, ResourceStatus
from app.model.sync import RefreshLevel, SyncStrategy
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import (
    ADMIN,
    READER,
    REF,
    Client,
    application,
    auth,
    project,
    seed_app,
    seed_project,
)


async def test_sync_starts_one_operation(api: Client, runtime: Runtime) -> None:
    await seed_app(
        runtime, application("shop", syncPolicy={"syncOptions": ["CreateNamespace=true"]})
    )
    body = {
        "revision": "v1.2.0",
        "prune": True,
        "dryRun": True,
        "resources": [{"group": "apps", "kind": "Deployment", "name": "web"}],
        "strategy": "apply",
        "force": True,
        "retry": {"limit": 3, "backoff": {"duration": "1s", "factor": 2, "maxDuration": "10s"}},
    }
    response = await api.post("/api/v1/applications/shop/sync", json=body, headers=auth())
    assert response.status == 202, await response.text()
    started = await response.json()
    assert started["app"] == "sluice/shop" and started["operation"]
    stored = await runtime.operations.load(REF)
    assert stored is not None and stored.id == started["operation"]
    operation = stored.state.operation
    assert operation.sync is not None
    assert operation.sync.revision == "v1.2.0" and operation.sync.prune and operation.sync.dry_run
    assert operation.sync.strategy is SyncStrategy.APPLY and operation.sync.sync_strategy
    assert operation.sync.sync_strategy.force
    assert [(r.group, r.kind, r.name) for r in operation.sync.resources] == [
        ("apps", "Deployment", "web")
    ]
    assert operation.sync.sync_options == ["CreateNamespace=true"], "the app's options by default"
    assert operation.retry is not None and operation.retry.limit == 3
    assert operation.initiated_by.username == "admin" and not operation.initiated_by.automated
    again = await api.post("/api/v1/applications/shop/sync", json={}, headers=auth())
    assert again.status == 409
    assert "already in progress" in (await again.json())["message"]


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        pytest.param(
            {"retry": {"limit": 1, "backoff": {"duration": "soon"}}},
            400,
            "retry.backoff.duration",
            id="bad backoff",
        ),
        pytest.param({"strategy": "yolo"}, 400, "strategy", id="bad strategy"),
        pytest.param({"retry": {"limit": 5000}}, 400, "retry.limit", id="too many retries"),
        pytest.param(
            {"resources": [{"kind": "Gizmo", "name": "x"}]}, 400, "Gizmo", id="unknown kind"
        ),
        pytest.param(
            {"resources": [{"kind": "ConfigMap", "name": "x"}]},
            403,
            "ConfigMap",
            id="kind the project forbids",
        ),
        pytest.param(
            {
                "resources": [
                    {"group": "apps", "kind": "Deployment", "name": "x", "namespace": "kube-system"}
                ]
            },
            403,
            "kube-system",
            id="namespace the project forbids",
        ),
    ],
)
async def test_sync_refusals(
    api: Client, runtime: Runtime, body: dict[str, Any], status: int, says: str
) -> None:
    await seed_project(
        runtime,
        project(
            "strict",
            destinations=[{"server": "*", "namespace": "shop"}],
            namespaceResourceBlacklist=[{"group": "", "kind": "ConfigMap"}],
        ),
    )
    await seed_app(runtime, application("shop", project="strict"))
    response = await api.post("/api/v1/applications/shop/sync", json=body, headers=auth())
    assert response.status == status, await response.text()
    assert says in (await response.json())["message"]
    assert await runtime.operations.load(REF) is None


async def test_sync_of_a_missing_app_is_404(api: Client) -> None:
    response = await api.post("/api/v1/applications/gone/sync", json={}, headers=auth())
    assert response.status == 404


async def test_rollback_syncs_the_entry_without_hooks(api: Client, runtime: Runtime) -> None:
    doc = application("shop")
    await seed_app(runtime, doc)
    app = await runtime.apps.get(REF)
    assert app is not None
    source = app.spec.source
    for revision in ("a" * 40, "b" * 40):
        await runtime.history.append(
            REF, RevisionHistory(id=0, revision=revision, source=source), limit=10
        )
    response = await api.post("/api/v1/applications/shop/rollback", json={"id": 0}, headers=auth())
    assert response.status == 202, await response.text()
    stored = await runtime.operations.load(REF)
    assert stored is not None and stored.state.operation.sync is not None
    assert stored.state.operation.sync.revision == "a" * 40
    assert stored.state.operation.sync.strategy is SyncStrategy.APPLY


@pytest.mark.parametrize(
    ("automated", "entry", "says"),
    [
        pytest.param(True, 0, "auto-sync is enabled", id="auto-sync on"),
        pytest.param(False, 7, "does not have deployment with id 7", id="unknown entry"),
    ],
)
async def test_rollback_refusals(
    api: Client, runtime: Runtime, automated: bool, entry: int, says: str
) -> None:
    policy = {"syncPolicy": {"automated": {}}} if automated else {}
    await seed_app(runtime, application("shop", **policy))
    await runtime.history.append(REF, RevisionHistory(id=0, revision="a" * 40), limit=10)
    response = await api.post(
        "/api/v1/applications/shop/rollback", json={"id": entry}, headers=auth()
    )
    assert response.status == 400
    assert says in (await response.json())["message"]
    assert await runtime.operations.load(REF) is None


async def test_terminate(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    nothing = await api.delete("/api/v1/applications/shop/operation", headers=auth())
    assert nothing.status == 409 and "no operation" in (await nothing.json())["message"]
    await api.post("/api/v1/applications/shop/sync", json={}, headers=auth())
    response = await api.delete("/api/v1/applications/shop/operation", headers=auth())
    assert response.status == 200, await response.text()


@pytest.mark.parametrize(
    ("query", "level", "token", "who"),
    [
        ("", RefreshLevel.LATEST, ADMIN, "admin"),
        ("?hard=true", RefreshLevel.FORCE, ADMIN, "admin"),
        pytest.param(
            "?hard=true", RefreshLevel.FORCE, READER, "reader", id="read-only, as in Argo CD"
        ),
    ],
)
async def test_refresh_publishes_the_level(
    api: Client, runtime: Runtime, *, query: str, level: RefreshLevel, token: str, who: str
) -> None:
    await seed_app(runtime, application("shop"))
    response = await api.post(
        f"/api/v1/applications/shop/refresh{query}", json={}, headers=auth(token)
    )
    assert response.status == 202, await response.text()
    subject = subjects.work(subjects.Work.REFRESH, REF)
    message = await runtime.bus.js.get_last_msg(subjects.WORK_STREAM, subject)
    assert message.data is not None
    request = decode(REFRESH, message.data)
    assert request.level is level and who in request.reason


async def test_a_selective_sync_of_resources_the_app_does_not_track_is_refused_naming_them(
    api: Client, runtime: Runtime
) -> None:
    await seed_app(runtime, application("shop"))
    seq = await runtime.status.begin_comparison(REF)
    status = ApplicationStatus(
        resources=[ResourceStatus(kind="Deployment", name="web", group="apps", namespace="shop")]
    )
    await runtime.status.write_comparison(REF, seq, status)
    body = {
        "resources": [
            {"group": "apps", "kind": "Deployment", "name": "web"},
            {"group": "apps", "kind": "Deployment", "name": "wbe"},
            {"group": "apps", "kind": "Deployment", "name": "web", "namespace": "other"},
        ]
    }
    response = await api.post("/api/v1/applications/shop/sync", json=body, headers=auth())
    assert response.status == 400, await response.text()
    assert (await response.json())["message"] == (
        "resources: apps:Deployment:wbe, apps:Deployment:other/web match none of the resources "
        "of application sluice/shop; select resources it manages (sluice app resources shop "
        "lists them)"
    )
    assert await runtime.operations.load(REF) is None
    tracked_only = {"resources": body["resources"][:1]}
    response = await api.post("/api/v1/applications/shop/sync", json=tracked_only, headers=auth())
    assert response.status == 202, await response.text()
