"""AppProject CRUD, health endpoints and Prometheus metrics."""

from app.api.metrics import REGISTRY
from app.metrics import RECONCILE_DURATION
from app.model.health import HealthStatusCode
from app.model.identity import AppRef
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
)


async def test_project_lifecycle(api: Client, runtime: Runtime) -> None:
    created = await api.post("/api/v1/projects", json=project("team-a-shop"), headers=auth())
    assert created.status == 201, await created.text()
    listed = await api.get("/api/v1/projects", headers=auth(TEAM_A))
    assert [p["metadata"]["name"] for p in (await listed.json())["items"]] == ["team-a-shop"]
    changed = project("team-a-shop", sourceRepos=["https://git.example.com/*"])
    updated = await api.put("/api/v1/projects/team-a-shop", json=changed, headers=auth())
    assert updated.status == 200, await updated.text()
    got = await api.get("/api/v1/projects/team-a-shop", headers=auth())
    assert (await got.json())["spec"]["sourceRepos"] == ["https://git.example.com/*"]
    await seed_app(runtime, application("cart", project="team-a-shop"))
    used = await api.delete("/api/v1/projects/team-a-shop", headers=auth())
    assert used.status == 409 and "sluice/cart" in (await used.json())["message"]
    await runtime.apps.delete(AppRef("sluice", "cart"))
    deleted = await api.delete("/api/v1/projects/team-a-shop", headers=auth())
    assert deleted.status == 200
    gone = await api.get("/api/v1/projects/team-a-shop", headers=auth())
    assert gone.status == 404


async def test_default_project_exists_without_a_resource(api: Client) -> None:
    response = await api.get("/api/v1/projects/default", headers=auth())
    assert response.status == 200
    assert (await response.json())["spec"]["sourceRepos"] == ["*"]


async def test_scoped_tokens_cannot_change_projects(api: Client) -> None:
    response = await api.post("/api/v1/projects", json=project("team-a-x"), headers=auth(TEAM_A))
    assert response.status == 403
    message = (await response.json())["message"]
    assert message == "permission denied: projects, create, team-a-x, sub: team-a"
    hidden = await api.get("/api/v1/projects/default", headers=auth(TEAM_A))
    assert hidden.status == 404


async def test_invalid_project_is_refused(api: Client) -> None:
    doc = project("bad", destinations="everywhere")
    response = await api.post("/api/v1/projects", json=doc, headers=auth())
    assert response.status == 400
    assert "spec.destinations" in (await response.json())["message"]


async def test_readiness_reports_each_dependency(api: Client) -> None:
    response = await api.get("/readyz")
    assert response.status == 200
    assert (await response.json())["checks"] == {"nats": "ok", "redis": "ok"}


async def test_metrics(api: Client, runtime: Runtime) -> None:
    ref = await seed_app(runtime, application("shop"))
    await seed_app(runtime, application("cart"))
    seq = await runtime.status.begin_comparison(ref)
    status = ApplicationStatus(
        sync=SyncStatus(status=SyncStatusCode.SYNCED),
        health=AppHealthStatus(status=HealthStatusCode.HEALTHY),
    )
    await runtime.status.write_comparison(ref, seq, status)
    await api.post("/api/v1/applications/cart/sync", json={}, headers=auth())
    RECONCILE_DURATION.labels("compare").observe(0.01)
    response = await api.get("/metrics", headers=auth())
    assert response.status == 200
    text = await response.text()
    assert 'sluice_apps{health_status="Healthy",sync_status="Synced"} 1.0' in text
    assert 'sluice_apps{health_status="Unknown",sync_status="Unknown"} 1.0' in text
    assert 'sluice_queue_pending_messages{consumer="sluice-sync"}' in text
    assert 'sluice_queue_redelivered_messages{consumer="sluice-compare"}' in text
    assert 'sluice_reconcile_duration_seconds_bucket{le="0.01",stage="compare"}' in text
    assert "sluice_webhook_requests_total" in text or "# TYPE sluice_webhook_requests" in text
    sample = REGISTRY.get_sample_value(
        "sluice_api_requests_total", {"route": "syncApplication", "method": "POST", "code": "202"}
    )
    assert sample is not None and sample >= 1
