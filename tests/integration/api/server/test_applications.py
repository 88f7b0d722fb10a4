"""Applications: list with filters, get with status, create/update/delete through the cluster."""

from typing import Any

import pytest

from app.cluster.errors import NotFound
from app.model.health import HealthStatusCode
from app.model.identity import AppRef
from app.model.operation import RevisionHistory
from app.model.status import AppHealthStatus, ApplicationStatus, SyncStatus
from app.model.sync import SyncStatusCode
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import (
    TEAM_A,
    Client,
    application,
    auth,
    project,
    seed_app,
    seed_project,
)

APP = ("argoproj.io/v1alpha1", "Application")


async def in_cluster(rt: Runtime, name: str) -> dict[str, Any] | None:
    try:
        return await rt.control_plane.get(*APP, name, namespace="sluice")
    except NotFound:
        return None


async def set_status(
    rt: Runtime, ref: AppRef, sync: SyncStatusCode, health: HealthStatusCode
) -> None:
    seq = await rt.status.begin_comparison(ref)
    status = ApplicationStatus(
        sync=SyncStatus(status=sync, revision="a" * 40), health=AppHealthStatus(status=health)
    )
    await rt.status.write_comparison(ref, seq, status)


async def test_create_writes_the_resource(api: Client, runtime: Runtime) -> None:
    doc = application("shop", syncPolicy={"automated": {"prune": True}})
    response = await api.post("/api/v1/applications", json=doc, headers=auth())
    assert response.status == 201, await response.text()
    body = await response.json()
    assert body["metadata"]["uid"] and body["spec"]["syncPolicy"]["automated"]["prune"] is True
    stored = await in_cluster(runtime, "shop")
    assert stored is not None and stored["spec"]["source"]["path"] == "deploy"
    again = await api.post("/api/v1/applications", json=doc, headers=auth())
    assert again.status == 409 and "upsert" in (await again.json())["message"]


async def test_upsert_replaces_the_spec(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    changed = application("shop")
    changed["spec"]["source"]["path"] = "other"
    response = await api.post("/api/v1/applications?upsert=true", json=changed, headers=auth())
    assert response.status == 201, await response.text()
    stored = await in_cluster(runtime, "shop")
    assert stored is not None and stored["spec"]["source"]["path"] == "other"


def _without(doc: dict[str, Any], *path: str) -> dict[str, Any]:
    target = doc
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return doc


@pytest.mark.parametrize(
    ("doc", "status", "names"),
    [
        pytest.param(
            _without(application("bad"), "spec", "destination"),
            400,
            "spec.destination",
            id="destination required",
        ),
        pytest.param(
            _without(application("bad"), "spec", "source", "repoURL"),
            400,
            "spec.source.repoURL",
            id="repoURL required",
        ),
        pytest.param(
            application("bad", revisionHistoryLimit="ten"),
            400,
            "spec.revisionHistoryLimit",
            id="wrong type",
        ),
        pytest.param({**application("bad"), "kind": "Deployment"}, 400, "kind", id="wrong kind"),
        pytest.param(
            {**application("bad"), "metadata": {"name": "Bad_Name"}},
            400,
            "Bad_Name",
            id="invalid name",
        ),
        pytest.param(application("bad", project="nope"), 400, "spec.project", id="unknown project"),
        pytest.param(
            application("bad", destination={"server": "https://x.example", "namespace": "a"}),
            400,
            "spec.destination.server",
            id="unknown cluster",
        ),
        pytest.param(
            {**application("bad"), "operation": {"sync": {}}},
            400,
            "operation",
            id="operation refused",
        ),
        pytest.param(
            {**application("bad"), "metadata": {"name": "bad", "namespace": "elsewhere"}},
            400,
            "metadata.namespace",
            id="unmanaged namespace",
        ),
    ],
)
async def test_bad_application_changes_nothing(
    api: Client, runtime: Runtime, doc: dict[str, Any], status: int, names: str
) -> None:
    response = await api.post("/api/v1/applications", json=doc, headers=auth())
    assert response.status == status, await response.text()
    assert names in (await response.json())["message"]
    assert await in_cluster(runtime, "bad") is None


@pytest.mark.parametrize(
    ("spec", "names"),
    [
        pytest.param(
            {"sourceRepos": ["https://git.example.com/other.git"]},
            "spec.source.repoURL",
            id="repo not permitted",
        ),
        pytest.param(
            {"destinations": [{"server": "*", "namespace": "prod"}]},
            "spec.destination",
            id="destination not permitted",
        ),
    ],
)
async def test_project_limits_are_enforced(
    api: Client, runtime: Runtime, spec: dict[str, Any], names: str
) -> None:
    await seed_project(runtime, project("strict", **spec))
    response = await api.post(
        "/api/v1/applications", json=application("bad", project="strict"), headers=auth()
    )
    assert response.status == 403
    message = (await response.json())["message"]
    assert names in message and "strict" in message
    assert await in_cluster(runtime, "bad") is None


async def test_scoped_token_cannot_create_in_other_projects(api: Client, runtime: Runtime) -> None:
    response = await api.post("/api/v1/applications", json=application("bad"), headers=auth(TEAM_A))
    assert response.status == 403
    assert "team-a" in (await response.json())["message"]
    assert await in_cluster(runtime, "bad") is None


async def test_unknown_body_field_is_named(api: Client) -> None:
    response = await api.post(
        "/api/v1/applications/shop/sync", json={"prnue": True}, headers=auth()
    )
    assert response.status == 400
    assert "prnue" in (await response.json())["message"]


async def test_list_filters(api: Client, runtime: Runtime) -> None:
    await seed_project(runtime, project("team-a-shop"))
    web = await seed_app(
        runtime,
        {
            **application("web"),
            "metadata": {"name": "web", "namespace": "sluice", "labels": {"tier": "web"}},
        },
    )
    api_ = await seed_app(
        runtime,
        {
            **application("api", project="team-a-shop"),
            "metadata": {"name": "api", "namespace": "sluice", "labels": {"tier": "api"}},
        },
    )
    await seed_app(runtime, application("new"))
    await set_status(runtime, web, SyncStatusCode.SYNCED, HealthStatusCode.HEALTHY)
    await set_status(runtime, api_, SyncStatusCode.OUT_OF_SYNC, HealthStatusCode.DEGRADED)

    async def names(query: str) -> list[str]:
        response = await api.get(f"/api/v1/applications{query}", headers=auth())
        assert response.status == 200, await response.text()
        return [a["metadata"]["name"] for a in (await response.json())["items"]]

    assert await names("") == ["api", "new", "web"]
    assert await names("?project=team-a-shop") == ["api"]
    assert await names("?project=team-a-shop&project=default") == ["api", "new", "web"]
    assert await names("?selector=tier%3Dweb") == ["web"]
    assert await names("?selector=tier+in+(web,api),tier!%3Dapi") == ["web"]
    assert await names("?sync=OutOfSync") == ["api"]
    assert await names("?health=Healthy") == ["web"]
    assert await names("?sync=Unknown") == ["new"]
    bad = await api.get("/api/v1/applications?selector=tier+in+web", headers=auth())
    assert bad.status == 400 and "selector" in (await bad.json())["message"]
    bad = await api.get("/api/v1/applications?sync=Green", headers=auth())
    assert bad.status == 400 and "sync" in (await bad.json())["message"]


async def test_list_fields_keep_only_what_is_asked_and_skip_history(
    api: Client, runtime: Runtime
) -> None:
    ref = await seed_app(
        runtime,
        {
            **application("web"),
            "metadata": {"name": "web", "namespace": "sluice", "labels": {"a": "b"}},
        },
    )
    await set_status(runtime, ref, SyncStatusCode.SYNCED, HealthStatusCode.HEALTHY)
    await runtime.history.append(ref, RevisionHistory(id=0, revision="a" * 40), limit=10)

    async def listed(fields: str) -> dict[str, Any]:
        response = await api.get("/api/v1/applications", params={"fields": fields}, headers=auth())
        assert response.status == 200, await response.text()
        body: dict[str, Any] = await response.json()
        return body

    wanted = "items.metadata.name,items.metadata.labels,items.status.sync.status"
    assert await listed(wanted) == {
        "items": [
            {
                "metadata": {"name": "web", "labels": {"a": "b"}},
                "status": {"sync": {"status": "Synced"}},
            }
        ]
    }
    full = (await listed("-items.spec"))["items"][0]
    assert "spec" not in full and full["status"]["history"][0]["revision"] == "a" * 40
    assert "history" not in (await listed("-items.status.history"))["items"][0]["status"]
    await set_status(runtime, ref, SyncStatusCode.OUT_OF_SYNC, HealthStatusCode.DEGRADED)
    again = (await listed("items.status.sync.status,items.status.health.status"))["items"]
    assert again == [
        {"status": {"sync": {"status": "OutOfSync"}, "health": {"status": "Degraded"}}}
    ]
    bad = await api.get("/api/v1/applications?fields=items..name", headers=auth())
    assert bad.status == 400
    assert "fields: 'items..name' is not a dotted path" in (await bad.json())["message"]


async def test_get_includes_status(api: Client, runtime: Runtime) -> None:
    ref = await seed_app(runtime, application("shop"))
    await set_status(runtime, ref, SyncStatusCode.SYNCED, HealthStatusCode.PROGRESSING)
    response = await api.get("/api/v1/applications/shop", headers=auth())
    body = await response.json()
    assert body["status"]["sync"]["status"] == "Synced"
    assert body["status"]["health"]["status"] == "Progressing"
    assert body["spec"]["destination"]["namespace"] == "shop"


async def test_update_replaces_spec_and_keeps_status(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    stored = await in_cluster(runtime, "shop")
    assert stored is not None
    await runtime.control_plane.patch(
        *APP, "shop", {"status": {"reconciledAt": "2026-01-01T00:00:00Z"}}, namespace="sluice"
    )
    changed = application("shop")
    changed["spec"]["source"]["targetRevision"] = "v2"
    response = await api.put("/api/v1/applications/shop", json=changed, headers=auth())
    assert response.status == 200, await response.text()
    stored = await in_cluster(runtime, "shop")
    assert stored is not None
    assert stored["spec"]["source"]["targetRevision"] == "v2"
    assert stored["status"]["reconciledAt"] == "2026-01-01T00:00:00Z"
    renamed = await api.put("/api/v1/applications/shop", json=application("other"), headers=auth())
    assert renamed.status == 400 and "metadata.name" in (await renamed.json())["message"]
    missing = await api.put("/api/v1/applications/gone", json=application("gone"), headers=auth())
    assert missing.status == 404


@pytest.mark.parametrize(("cascade", "finalizer"), [("true", True), ("false", False)])
async def test_delete(api: Client, runtime: Runtime, cascade: str, finalizer: bool) -> None:
    doc = application("shop")
    doc["metadata"]["finalizers"] = ["keep-me"]
    await seed_app(runtime, doc)
    response = await api.delete(f"/api/v1/applications/shop?cascade={cascade}", headers=auth())
    assert response.status == 200, await response.text()
    stored = await in_cluster(runtime, "shop")
    assert stored is not None and stored["metadata"].get("deletionTimestamp")
    finalizers = stored["metadata"]["finalizers"]
    assert ("resources-finalizer.argocd.argoproj.io" in finalizers) is finalizer
    assert "keep-me" in finalizers
    missing = await api.delete("/api/v1/applications/gone", headers=auth())
    assert missing.status == 404
