"""Names, labels and messages are data, never markup: an app whose labels hold HTML and
whose condition message holds a script renders them as text, in the list and on its page
(errors listed before warnings, each marked by a sign as well as its colour).

The registry takes what the cluster stores; a real API server validates label values,
so this app is written straight into the registry, as a compromised or buggy writer
could, to prove the page itself holds the line.
"""

from pathlib import Path

import pytest
from playwright.async_api import async_playwright, expect

from app.model.identity import AppRef
from app.model.status import ApplicationCondition, ApplicationStatus, SyncStatus
from app.model.sync import SyncStatusCode
from bench.support import chromium as chromium_support
from bench.support.ui_fleet import REVISION, application, ui_fleet

pytestmark = pytest.mark.slow

LABEL = "<img src=x onerror=window.__owned=1>"
SCRIPT = "<script>window.__owned = 1</script>"


async def test_html_labels_and_script_messages_render_as_text(
    chromium: Path, tmp_path: Path
) -> None:
    async with ui_fleet(tmp_path / "state", 1) as fleet, async_playwright() as pw:
        app = application(1)
        app.metadata.name = "hostile"
        app.metadata.labels = {"<b>team</b>": LABEL}
        await fleet.rt.apps.put(app)
        ref = AppRef("sluice", "hostile")
        seq = await fleet.rt.status.begin_comparison(ref)
        status = ApplicationStatus(
            sync=SyncStatus(status=SyncStatusCode.UNKNOWN, revision=REVISION),
            conditions=[
                ApplicationCondition(type="OrphanedResourceWarning", message="1 orphan"),
                ApplicationCondition(type="ComparisonError", message=SCRIPT),
            ],
        )
        await fleet.rt.status.write_comparison(ref, seq, status)
        browser = await pw.chromium.launch(
            executable_path=str(chromium), args=list(chromium_support.ARGS)
        )
        try:
            page = await browser.new_page(viewport={"width": 1400, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            signed = await page.request.post(
                f"{fleet.url}/api/v1/session", data={"token": fleet.token}
            )
            assert signed.ok
            await page.goto(f"{fleet.url}/#/applications")
            tile = page.locator("[data-app='sluice/hostile']")
            await expect(tile).to_contain_text(f"<b>team</b>={LABEL}")
            await page.goto(f"{fleet.url}/#/applications/sluice/hostile/tree")
            await expect(page.locator(".conditions")).to_contain_text(SCRIPT)
            await expect(page.locator(".conditions li")).to_have_text(
                [f"✖ ComparisonError: {SCRIPT}", "⚠ OrphanedResourceWarning: 1 orphan"]
            )
            await expect(page.locator(".summary .chip")).to_have_text(f"<b>team</b>={LABEL}")
            assert await page.evaluate("window.__owned") is None
            injected = page.locator(".app-page img, .app-page b, .app-page script, .tile img")
            assert await injected.count() == 0
            assert not errors, errors
        finally:
            await browser.close()
