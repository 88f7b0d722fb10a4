"""Who gets in: bearer tokens, no anonymous access, JSON-only changes, scoped visibility."""

import pytest

from app.model.identity import AppRef
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import (
    ADMIN,
    EXPIRED,
    READER,
    TEAM_A,
    Client,
    application,
    auth,
    seed_app,
)


@pytest.mark.parametrize(
    ("method", "path", "headers", "status"),
    [
        pytest.param("GET", "/api/v1/applications", {}, 401, id="no token"),
        pytest.param(
            "GET", "/api/v1/applications", {"Authorization": "Basic YTpi"}, 401, id="not bearer"
        ),
        pytest.param("GET", "/api/v1/applications", auth("x" * 32), 401, id="unknown token"),
        pytest.param("GET", "/api/v1/applications", auth(EXPIRED), 401, id="expired token"),
        pytest.param("GET", "/api/v1/nothing", {}, 401, id="unknown path needs a token too"),
        pytest.param("GET", "/metrics", {}, 401, id="metrics need a token"),
        pytest.param("GET", "/api/openapi.json", {}, 401, id="openapi needs a token"),
        pytest.param("GET", "/healthz", {}, 200, id="health is public"),
        pytest.param("GET", "/readyz", {}, 200, id="readiness is public"),
        pytest.param("GET", "/api/v1/applications", auth(ADMIN), 200, id="valid token"),
    ],
)
async def test_tokens(
    api: Client, method: str, path: str, headers: dict[str, str], status: int
) -> None:
    response = await api.request(method, path, headers=headers)
    assert response.status == status, await response.text()
    if status == 401:
        body = await response.json()
        assert body["kind"] == "Status" and body["code"] == 401 and body["reason"] == "Unauthorized"
        assert response.headers["WWW-Authenticate"].startswith("Bearer")


async def test_expired_token_is_told_so(api: Client) -> None:
    response = await api.get("/api/v1/applications", headers=auth(EXPIRED))
    assert "expired" in (await response.json())["message"]


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        pytest.param("application/x-www-form-urlencoded", "prune=true", id="form post"),
        pytest.param("multipart/form-data; boundary=x", "--x--", id="multipart form"),
        pytest.param("text/plain", "{}", id="plain text"),
        pytest.param("", "", id="no content type"),
    ],
)
async def test_state_changes_must_be_json(
    api: Client, runtime: Runtime, content_type: str, body: str
) -> None:
    ref = await seed_app(runtime, application("shop"))
    headers = auth() | ({"Content-Type": content_type} if content_type else {})
    response = await api.post(
        f"/api/v1/applications/{ref.name}/refresh", data=body, headers=headers
    )
    assert response.status == 415
    status = await response.json()
    assert status["reason"] == "UnsupportedMediaType"
    assert "application/json" in status["message"]


async def test_read_only_token_changes_nothing(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    response = await api.post("/api/v1/applications/shop/sync", json={}, headers=auth(READER))
    assert response.status == 403
    message = (await response.json())["message"]
    assert message == "permission denied: applications, sync, default/shop, sub: reader"
    assert await runtime.operations.load(AppRef("sluice", "shop")) is None


async def test_missing_and_forbidden_apps_answer_alike(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("billing", project="default"))
    await seed_app(runtime, application("cart", project="team-a-shop"))
    forbidden = await api.get("/api/v1/applications/billing", headers=auth(TEAM_A))
    missing = await api.get("/api/v1/applications/billinx", headers=auth(TEAM_A))
    assert forbidden.status == missing.status == 404
    assert (await forbidden.json())["message"].replace("billing", "X") == (await missing.json())[
        "message"
    ].replace("billinx", "X")
    listed = await api.get("/api/v1/applications", headers=auth(TEAM_A))
    assert [a["metadata"]["name"] for a in (await listed.json())["items"]] == ["cart"]
    visible = await api.get("/api/v1/applications/cart", headers=auth(TEAM_A))
    assert visible.status == 200
