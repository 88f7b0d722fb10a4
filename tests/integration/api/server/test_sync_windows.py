"""Manual syncs and rollbacks through the API under the project's sync windows: refused
with 403 naming the project and window while blocked, nothing started; let through by
`manualSync`. `GET …/syncwindows` shows the windows selecting the app and whether it may
sync now, with the same reason."""

from typing import Any

from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import (
    ADMIN,
    READER,
    REF,
    TEAM_A,
    Client,
    application,
    auth,
    project,
    seed_app,
    seed_project,
)

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


# ---- GET /api/v1/applications/{name}/syncwindows ----------------------------------------


async def _windows(api: Client, name: str = "shop", token: str = ADMIN, **query: str) -> Any:
    response = await api.get(
        f"/api/v1/applications/{name}/syncwindows", params=query, headers=auth(token)
    )
    assert response.status == 200, await response.text()
    return await response.json()


async def test_an_active_deny_window_is_listed_and_forbids_syncing(
    api: Client, runtime: Runtime
) -> None:
    later = {"kind": "allow", "schedule": "0 0 1 1 *", "duration": "1m", "namespaces": ["shop"]}
    other = {"kind": "deny", **ALWAYS, "applications": ["cart"]}
    deny = {"kind": "deny", **ALWAYS}
    await seed_project(runtime, project("payments", syncWindows=[later, other, deny]))
    await seed_app(runtime, application("shop", project="payments"))

    answer = await _windows(api)

    shown_deny = {"kind": "deny", "schedule": "* * * * *", "duration": "1h", "manualSync": False}
    shown_later = {"kind": "allow", "schedule": "0 0 1 1 *", "duration": "1m", "manualSync": False}
    assert answer["canSync"] is False
    assert answer["activeWindows"] == [shown_deny]
    assert answer["assignedWindows"] == [shown_later, shown_deny]
    assert answer["message"].startswith(
        "blocked by sync window: project payments window 2 (deny '* * * * *' for 1h, UTC) "
        "active until "
    )


async def test_manual_sync_on_an_active_deny_window_lets_a_manual_sync_through(
    api: Client, runtime: Runtime
) -> None:
    deny = {"kind": "deny", "manualSync": True, **ALWAYS}
    await seed_project(runtime, project("payments", syncWindows=[deny]))
    await seed_app(runtime, application("shop", project="payments"))

    answer = await _windows(api)

    assert answer["canSync"] is True
    assert [w["manualSync"] for w in answer["activeWindows"]] == [True]
    assert "(manualSync)" in answer["message"]


async def test_without_windows_selecting_the_app_it_may_sync(api: Client, runtime: Runtime) -> None:
    elsewhere = {"kind": "deny", **ALWAYS, "applications": ["cart"]}
    await seed_project(runtime, project("payments", syncWindows=[elsewhere]))
    await seed_app(runtime, application("shop", project="payments"))

    answer = await _windows(api)

    assert answer == {"activeWindows": [], "assignedWindows": [], "canSync": True, "message": ""}


async def test_an_invalid_window_is_listed_and_forbids_syncing_naming_the_field(
    api: Client, runtime: Runtime
) -> None:
    broken = {**ALWAYS, "kind": "allow", "timeZone": "Mars/Olympus"}
    await seed_project(runtime, project("payments", syncWindows=[broken]))
    await seed_app(runtime, application("shop", project="payments"))

    answer = await _windows(api)

    assert answer["canSync"] is False
    assert answer["activeWindows"] == []
    assert [w["kind"] for w in answer["assignedWindows"]] == ["allow"]
    assert answer["message"].startswith(
        "invalid sync window: project payments: spec.syncWindows[0].timeZone: "
        "timeZone 'Mars/Olympus' is not an IANA time zone"
    )


async def test_an_app_whose_project_is_missing_may_not_sync(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop", project="ghost"))

    answer = await _windows(api)

    assert answer["canSync"] is False
    assert answer["message"].startswith("spec.project: project 'ghost' does not exist")


async def test_windows_of_an_app_in_another_namespace_are_found_through_app_namespace(
    api: Client, runtime: Runtime
) -> None:
    deny = {"kind": "deny", **ALWAYS}
    await seed_project(runtime, project("payments", syncWindows=[deny]))
    await seed_app(runtime, application("shop", project="payments"))

    missing = await api.get(
        "/api/v1/applications/shop/syncwindows",
        params={"appNamespace": "elsewhere"},
        headers=auth(),
    )
    answer = await _windows(api, appNamespace="sluice")

    assert missing.status == 404
    assert answer["canSync"] is False


async def test_an_app_outside_the_tokens_projects_is_not_found(
    api: Client, runtime: Runtime
) -> None:
    await seed_project(runtime, project("payments", syncWindows=[{"kind": "deny", **ALWAYS}]))
    await seed_app(runtime, application("shop", project="payments"))

    hidden = await api.get("/api/v1/applications/shop/syncwindows", headers=auth(TEAM_A))
    absent = await api.get("/api/v1/applications/nothing/syncwindows", headers=auth())
    anonymous = await api.get("/api/v1/applications/shop/syncwindows")

    assert hidden.status == 404
    assert (await hidden.json())["message"] == "application sluice/shop not found"
    assert absent.status == 404
    assert anonymous.status == 401
    assert (await _windows(api, token=READER))["canSync"] is False
