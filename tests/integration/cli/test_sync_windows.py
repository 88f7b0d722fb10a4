"""`sluice app get` shows the sync window verdict as `argocd app get` does, and
`sluice app sync-windows` lists the windows selecting the app: the CLI as a real
subprocess against the API on a real runtime."""

from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.api.server import ApiServer
from app.api.settings import ApiSettings
from app.api.tokens import Principal, Token, TokenSet, digest
from app.cli import client
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import application, project, seed_app, seed_project
from tests.integration.cli.test_cycle import TOKEN, sluice_cli

NAMESPACE = "sluice"
ALWAYS = {"schedule": "* * * * *", "duration": "1h"}
"""Active at any time (it fires every minute and lasts an hour)."""
NEVER_NOW = {"schedule": "0 0 1 1 *", "duration": "1m"}
"""Open one minute a year, at midnight on 1 January."""


@pytest.fixture
async def api_url(runtime: Runtime) -> AsyncIterator[str]:
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    )
    tokens = TokenSet([Token(Principal("ci"), digest(TOKEN))])
    server = ApiServer(runtime, ApiSettings(port=0, tokens=tokens, heartbeat=1.0))
    await server.start()
    try:
        yield server.url
    finally:
        await server.stop()


async def seed(rt: Runtime, windows: list[dict[str, Any]]) -> None:
    """Project `payments` with `windows` and its app `shop`, registered as the watcher would."""
    await seed_project(rt, project("payments", syncWindows=windows))
    await seed_app(rt, application("shop", project="payments"))


def lines(text: str) -> dict[str, str]:
    """`Label:   value` lines of `app get` by label."""
    found = {}
    for line in text.splitlines():
        label, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            found.setdefault(label, value.strip())
    return found


async def test_app_get_says_sync_denied_under_an_active_deny_window(
    api_url: str, runtime: Runtime
) -> None:
    await seed(
        runtime,
        [
            {"kind": "deny", "applications": ["shop"], **ALWAYS},
            {"kind": "allow", "namespaces": ["shop"], **NEVER_NOW},
        ],
    )

    shown = await sluice_cli(api_url, "app", "get", "shop")
    listed = await sluice_cli(api_url, "app", "sync-windows", "shop")

    assert shown.code == client.OK, (shown.out, shown.err)
    got = lines(shown.out)
    assert got["SyncWindow"] == "Sync Denied"
    assert got["Window Reason"].startswith("blocked by sync window: project payments window 0")
    assert got["Assigned Windows"] == "deny:* * * * *:1h,allow:0 0 1 1 *:1m"
    assert listed.code == client.NO, (listed.out, listed.err)
    rows = [line.split() for line in listed.out.splitlines()]
    assert rows[0] == ["KIND", "SCHEDULE", "DURATION", "ACTIVE", "MANUALSYNC"]
    assert rows[1] == ["deny", "*", "*", "*", "*", "*", "1h", "Yes", "Disabled"]
    assert rows[2] == ["allow", "0", "0", "1", "1", "*", "1m", "No", "Disabled"]
    assert listed.out.splitlines()[3].startswith("Sync Denied: blocked by sync window")


async def test_app_get_says_manual_allowed_when_the_deny_window_has_manual_sync(
    api_url: str, runtime: Runtime
) -> None:
    await seed(runtime, [{"kind": "deny", "applications": ["shop"], "manualSync": True, **ALWAYS}])

    shown = await sluice_cli(api_url, "app", "get", "shop")
    listed = await sluice_cli(api_url, "app", "sync-windows", "shop", "-o", "json")

    assert shown.code == client.OK, (shown.out, shown.err)
    assert lines(shown.out)["SyncWindow"] == "Manual Allowed"
    assert listed.code == client.OK, (listed.out, listed.err)
    assert '"canSync": true' in listed.out


async def test_app_get_says_sync_allowed_without_windows(api_url: str, runtime: Runtime) -> None:
    await seed(runtime, [{"kind": "deny", "applications": ["cart"], **ALWAYS}])

    shown = await sluice_cli(api_url, "app", "get", "shop")

    assert shown.code == client.OK, (shown.out, shown.err)
    got = lines(shown.out)
    assert got["SyncWindow"] == "Sync Allowed"
    assert "Assigned Windows" not in got and "Window Reason" not in got
