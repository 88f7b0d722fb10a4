"""The web UI with 1,000 apps in Chromium: first render, filter changes, a burst of changes.

An embedded stack without workers (`bench.support.ui_fleet`) holds 1,000 apps; headless
Chromium (Debian's, through Playwright) opens the applications list. Figures:

- first render: from navigation start to the list drawn with every app (the UI's
  `sluice:list-rendered` mark), and the part of it after the list's JSON arrived;
- filter change: one search, status, label or view change until the next frame is drawn;
- burst: every app's status changes with its event; how long until the page shows all
  1,000 OutOfSync, and the longest frame the page took meanwhile (its responsiveness).

Baseline, measured in the same page and run: fetching and parsing the same JSON
(`fetch('/api/v1/applications')` + `json()`), the floor any UI of this list pays.
"""

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from bench.support import chromium
from bench.support.figures import Line, report
from bench.support.options import positive
from bench.support.ui_fleet import UiFleet, ui_fleet

TARGET_MS = 1000.0

FETCH = """async () => {
  const t0 = performance.now();
  const r = await fetch('/api/v1/applications');
  await r.json();
  return performance.now() - t0;
}"""
RENDERED = """() => {
  const mark = performance.getEntriesByName('sluice:list-rendered')[0];
  const list = performance.getEntriesByType('resource')
    .filter((e) => e.name.endsWith('/api/v1/applications'))[0];
  if (!mark || !list) return null;
  return [mark.startTime, mark.startTime - list.responseEnd, list.responseEnd];
}"""
CHANGE = """async (step) => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
  const set = (selector, value) => {
    const el = document.querySelector(selector);
    el.value = value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  };
  const click = (selector) => document.querySelector(selector).click();
  const t0 = performance.now();
  if (step === 'search') set('#search', 'app-05');
  if (step === 'clear-search') set('#search', '');
  if (step === 'out-of-sync') click('#f-sync-OutOfSync');
  if (step === 'all-sync') click('#f-sync-OutOfSync');
  if (step === 'labels') set('#f-labels', 'tier=db');
  if (step === 'clear-labels') set('#f-labels', '');
  if (step === 'table') click('[data-view=table]');
  if (step === 'tiles') click('[data-view=tiles]');
  await frame();
  return performance.now() - t0;
}"""
STEPS = ("search", "clear-search", "out-of-sync", "all-sync", "labels", "clear-labels")
WATCH_FRAMES = """() => {
  window.__longest = 0;
  let last = performance.now();
  const tick = (now) => {
    window.__longest = Math.max(window.__longest, now - last);
    last = now;
    if (!window.__stop) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def _first_render(page: Page, url: str) -> tuple[float, float, float]:
    page.goto(f"{url}/#/applications")
    page.wait_for_function(RENDERED, timeout=60_000)
    found = page.evaluate(RENDERED)
    return float(found[0]), float(found[1]), float(found[2])


def _signed_in(browser: Browser, fleet: UiFleet) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.request.post(f"{fleet.url}/api/v1/session", data={"token": fleet.token})
    return context, page


def measure(fleet: UiFleet, rounds: int, burst: Callable[[], float]) -> list[Line]:
    """The page's figures (Playwright's own thread: its work stays off the server's loop)."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium.PATH), args=list(chromium.ARGS))
        renders: list[tuple[float, float, float]] = []
        fetches: list[float] = []
        changes: list[float] = []
        for _ in range(rounds):
            context, page = _signed_in(browser, fleet)
            renders.append(_first_render(page, fleet.url))
            fetches.append(float(page.evaluate(FETCH)))
            for view in ("tiles", "table"):
                page.evaluate(CHANGE, view)
                changes.extend(float(page.evaluate(CHANGE, step)) for step in STEPS)
            context.close()
        context, page = _signed_in(browser, fleet)
        _first_render(page, fleet.url)
        page.evaluate(WATCH_FRAMES)
        started = time.monotonic()
        published = burst()
        page.wait_for_function(
            "(n) => document.querySelector('p.summary').textContent.includes(n + ' OutOfSync')",
            arg=fleet.count,
            timeout=120_000,
        )
        shown = time.monotonic() - started
        longest = float(page.evaluate("() => (window.__stop = true, window.__longest)"))
        context.close()
        browser.close()
    first = [r[0] for r in renders]
    after_json = [r[1] for r in renders]
    arrived = [r[2] for r in renders]
    return [
        Line("apps", f"{fleet.count:,}"),
        Line(
            "first render, navigation -> list drawn (median)",
            f"{statistics.median(first):.0f} ms (max {max(first):.0f})",
            f"< {TARGET_MS:.0f} ms",
        ),
        Line("  the list's JSON in by (median)", f"{statistics.median(arrived):.0f} ms"),
        Line("  drawing once it was in (median)", f"{statistics.median(after_json):.0f} ms"),
        Line(
            "filter change -> next frame (median, max)",
            f"{statistics.median(changes):.0f} ms, {max(changes):.0f} ms over {len(changes)}",
            f"< {TARGET_MS:.0f} ms",
        ),
        Line(
            "baseline: fetch + parse the list JSON (median)",
            f"{statistics.median(fetches):.0f} ms",
        ),
        Line("burst: 1 status change + event per app, published in", f"{published:.2f} s"),
        Line("burst: page shows every app OutOfSync after", f"{shown:.2f} s"),
        Line("burst: longest frame while it lasted", f"{longest:.0f} ms"),
    ]


async def run(apps: int, rounds: int) -> list[Line]:
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory(prefix="sluice-ui-bench-") as state:
        async with ui_fleet(Path(state), apps) as fleet:

            def burst() -> float:
                started = time.monotonic()
                asyncio.run_coroutine_threadsafe(fleet.burst(), loop).result()
                return time.monotonic() - started

            return await asyncio.to_thread(measure, fleet, rounds, burst)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="just bench ui_list", description=__doc__)
    parser.add_argument("--apps", type=positive, default=1000, help="apps in the list (1000)")
    parser.add_argument("--rounds", type=positive, default=5, help="page loads measured (5)")
    args = parser.parse_args(argv)
    if not chromium.PATH.is_file():
        print(chromium.MISSING, file=sys.stderr)
        return 2
    lines = asyncio.run(run(args.apps, args.rounds))
    report(
        "web UI list in headless Chromium",
        f"embedded stack without workers, {args.apps} apps seeded, {args.rounds} page loads",
        lines,
        "fetching and parsing the same JSON in the same page (line above)",
        ["just", "bench", "ui_list", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
