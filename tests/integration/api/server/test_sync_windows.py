"""Manual syncs and rollbacks through the API under the project's sync windows: refused
with 403 naming the project and window while blocked, nothing started; let through by
`manualSync`."""

from typing import Any

from aiohttp.test_utils import TestClient

from app.bus.subjects import AppRef
from tests.integration.api.server.conftest import (
    application,
    auth,
    project,
    seed_app,
    seed_project,
)
from workers.runtime import Runtime

Client = TestClient[Any, Any]
REF = AppRef("sluice", "shop")
ALWAYS = {"schedule": "* * * * *", "duration": "1h", "applications": ["shop"]}
"""A window that is active at any time (it fires every minute and lasts an hour)."""


async def test_a_manual_sync_under_an_active_deny_window_is_refused(
    api: Client, runtime: Runtime
) -> None:
    await seed_project(runtime, project("payments", syncWindows=[{"kind": "deny", **ALWAYS}]))
    await seed_app(runtime, application("shop", project="payments"))

    response = await api.post("/api/v1/applications/shop/sync", json={}, headers=auth())

    assert response.status == 403, await response.text()
    message = (await response.json())["message"]
    assert message.startswith(
        "cannot sync application sluice/shop: blocked by sync window: project payments "
        "window 0 (deny '* * * * *' for 1h, UTC) active until "
    )
    assert message.endswith("; wait for the window, or set manualSync on it")
    assert await runtime.operations.load(REF) is None
    rollback = await api.post("/api/v1/applications/shop/rollback", json={"id": 1}, headers=auth())
    assert rollback.status == 403
    assert (await rollback.json())["message"].startswith("cannot roll back application")


async def test_manual_sync_on_the_window_lets_a_manual_sync_through(
    api: Client, runtime: Runtime
) -> None:
    deny = {"kind": "deny", "manualSync": True, **ALWAYS}
    await seed_project(runtime, project("payments", syncWindows=[deny]))
    await seed_app(runtime, application("shop", project="payments"))

    response = await api.post("/api/v1/applications/shop/sync", json={}, headers=auth())

    assert response.status == 202, await response.text()
    assert await runtime.operations.load(REF) is not None


async def test_an_invalid_window_refuses_the_sync_naming_the_field(
    api: Client, runtime: Runtime
) -> None:
    broken = {**ALWAYS, "kind": "allow", "timeZone": "Mars/Olympus"}
    await seed_project(runtime, project("payments", syncWindows=[broken]))
    await seed_app(runtime, application("shop", project="payments"))

    response = await api.post("/api/v1/applications/shop/sync", json={}, headers=auth())

    assert response.status == 403
    assert (await response.json())["message"].startswith(
        "cannot sync application sluice/shop: invalid sync window: project payments: "
        "spec.syncWindows[0].timeZone: timeZone 'Mars/Olympus' is not an IANA time zone"
    )
    assert await runtime.operations.load(REF) is None
