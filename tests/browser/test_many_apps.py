"""A thousand apps in the web UI: the list, its counts and filters, and a burst of a
thousand status changes the page takes without losing its responsiveness.

The apps are written straight into the registry and status store of an embedded stack
with no workers (`bench.support.ui_fleet`), so what the page must show is known exactly.
How fast this is goes to `bench/ui_list.py` (docs/benchmarks.md), not into a test.
"""

import asyncio
import re
from pathlib import Path

import pytest
from playwright.async_api import async_playwright, expect

from bench.support import chromium as chromium_support
from bench.support.ui_fleet import ui_fleet

pytestmark = pytest.mark.slow

APPS = 1000
OUT_OF_SYNC = sum(1 for i in range(APPS) if i % 3 == 2)
"""Apps the fleet seeds OutOfSync (the rest are Synced)."""
HEALTHY = sum(1 for i in range(APPS) if i % 5 < 3)
"""Apps the fleet seeds Healthy (the rest Progressing or Degraded)."""
LIVE = 60_000


async def test_a_thousand_apps_list_filter_and_take_a_burst_of_changes(
    chromium: Path, tmp_path: Path
) -> None:
    async with ui_fleet(tmp_path / "state", APPS) as fleet, async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(chromium), args=list(chromium_support.ARGS)
        )
        try:
            context = await browser.new_context(viewport={"width": 1400, "height": 900})
            page = await context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            signed = await page.request.post(
                f"{fleet.url}/api/v1/session", data={"token": fleet.token}
            )
            assert signed.ok, await signed.text()
            await page.goto(f"{fleet.url}/#/applications")
            summary = page.locator("p.summary")
            await expect(summary).to_contain_text(f"{APPS} of {APPS} applications", timeout=LIVE)
            await expect(summary).to_contain_text(
                f"{APPS - OUT_OF_SYNC} Synced, {OUT_OF_SYNC} OutOfSync"
            )
            await expect(page.locator(".tiles .tile")).to_have_count(60)
            await page.get_by_role("button", name="Table").click()
            await expect(page.locator("table.apps tbody tr")).to_have_count(100)
            await expect(page.locator(".pager")).to_contain_text("Page 1 of 10")

            await page.get_by_label("OutOfSync").check()
            await expect(summary).to_contain_text(f"{OUT_OF_SYNC} of {APPS} applications")
            await page.get_by_label("OutOfSync").uncheck()
            await page.get_by_label("Healthy", exact=True).check()
            await expect(summary).to_contain_text(f"{HEALTHY} of {APPS} applications")
            await page.get_by_label("Healthy", exact=True).uncheck()
            await page.get_by_label("ns-3", exact=True).check()
            await expect(summary).to_contain_text(f"{APPS // 25} of {APPS} applications")
            await page.get_by_label("ns-3", exact=True).uncheck()
            await page.get_by_label("Labels").fill("tier=db, team=team-3")
            await expect(summary).to_contain_text("33 of 1000 applications")
            await page.get_by_label("Labels").fill("")

            burst = asyncio.create_task(fleet.burst())
            search = page.get_by_label("Search applications")
            await search.fill("app-0500")
            await expect(page.locator("table.apps tbody tr")).to_have_count(1)
            await expect(page.locator("table.apps tbody tr")).to_contain_text("app-0500")
            await burst
            await search.fill("")
            await expect(summary).to_contain_text(f"{APPS} OutOfSync", timeout=LIVE)
            await expect(page.locator("table.apps tbody tr").first).to_contain_text(
                re.compile("OutOfSync")
            )
            await search.fill("app-0999")
            await expect(page.locator("table.apps tbody tr")).to_have_count(1)
            assert not errors, errors
            await context.close()
        finally:
            await browser.close()
