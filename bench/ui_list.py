"""The web UI with 1,000 apps in Chromium: first render, filter changes, a burst of changes.

An embedded stack without workers (`bench.support.ui_fleet`) holds the apps; headless
Chromium (Debian's, through Playwright) opens the applications list. Figures:

- first render: from navigation start to the list drawn with every app (the UI's
  `sluice:list-rendered` mark), and the part of it after the list's JSON arrived; the
  first round (a server that has not answered this list before) is shown on its own;
- filter change: one search, status, label or view change until the next frame is drawn;
- burst: every app's status changes with its event; how long until the page shows all
  1,000 OutOfSync, the longest frame the page took meanwhile, and the page's answer to
  a user typing in the search box through it (its responsiveness): a key pressed as the
  burst starts and again each time the last one was drawn, each timed from the key's
  event to the next frame after its filter ran, and the first one from the burst's start;
- the server's CPU (this process's) per list request, warm, after a second burst no
  page has read (every app's status new), and per page load, cold and warm.

Baselines, measured in the same run: the same page's first render with 10 apps (the
fleet starts with 10, is measured, then grows), which holds everything a page load
costs that does not grow with the list, and fetching and parsing the list's JSON in the
same page (the request the UI made, again), the floor any UI of this list pays. The
ratios to both are what to compare between runs on a loaded machine.
"""

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from bench.support import chromium
from bench.support.figures import Line, report
from bench.support.options import positive
from bench.support.ui_fleet import UiFleet, ui_fleet

TARGET_MS = 1000.0
BASELINE_APPS = 10

LIST = """() => performance.getEntriesByType('resource')
  .filter((e) => new URL(e.name).pathname === '/api/v1/applications')[0]"""
RENDERED = f"""() => {{
  const mark = performance.getEntriesByName('sluice:list-rendered')[0];
  const list = ({LIST})();
  if (!mark || !list) return null;
  return [mark.startTime, mark.startTime - list.responseEnd, list.responseEnd];
}}"""
FETCH = f"""async () => {{
  const url = ({LIST})().name;
  const t0 = performance.now();
  const r = await fetch(url);
  await r.json();
  return performance.now() - t0;
}}"""
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
KEYS = """() => {
  window.__keys = [];
  document.querySelector('#search').addEventListener('input', (e) => {
    const at = e.timeStamp;
    requestAnimationFrame(() => setTimeout(() => window.__keys.push([at, performance.now()])));
  });
  document.querySelector('#search').focus();
  return performance.now();
}"""
ALL_OUT_OF_SYNC = (
    "(n) => document.querySelector('p.summary').textContent.includes(n + ' OutOfSync')"
)
BURST_DEADLINE_S = 120.0


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


@dataclass(frozen=True)
class Typing:
    """A burst with a user typing through it."""

    published: float
    """Seconds the burst took to write and publish."""
    shown: float
    """Seconds from its start until the page counted every app OutOfSync."""
    longest: float
    """The longest frame meanwhile, ms."""
    first: float
    """The first key's burst start -> drawn, ms."""
    keys: list[float]
    """Each key's event -> its filter drawn, ms."""


def _typing_through(page: Page, apps: int, burst: Callable[[], "Future[float]"]) -> Typing:
    """Start the burst, then press keys in the search box (a digit, then Backspace, each
    changing the filter) one after another until the page shows the burst's end."""
    start = float(page.evaluate(KEYS))
    started = time.monotonic()
    publishing = burst()
    pressed = 0
    while True:
        page.keyboard.press("Backspace" if pressed % 2 else "9")
        pressed += 1
        page.wait_for_function("(n) => window.__keys.length >= n", arg=pressed)
        if page.evaluate(ALL_OUT_OF_SYNC, apps):
            break
        if time.monotonic() - started > BURST_DEADLINE_S:
            raise TimeoutError(f"the page did not show {apps} OutOfSync in {BURST_DEADLINE_S} s")
    shown = time.monotonic() - started
    published = publishing.result()
    longest = float(page.evaluate("() => (window.__stop = true, window.__longest)"))
    keys = [(float(at), float(drawn)) for at, drawn in page.evaluate("() => window.__keys")]
    return Typing(published, shown, longest, keys[0][1] - start, [drawn - at for at, drawn in keys])


def measure(
    fleet: UiFleet,
    apps: int,
    rounds: int,
    grow: Callable[[int], None],
    burst: Callable[[], "Future[float]"],
) -> list[Line]:
    """The page's figures (Playwright's own thread: its work stays off the server's loop)."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(chromium.PATH), args=list(chromium.ARGS))
        small: list[float] = []
        for _ in range(rounds):
            context, page = _signed_in(browser, fleet)
            small.append(_first_render(page, fleet.url)[0])
            context.close()
        grow(apps)
        renders: list[tuple[float, float, float]] = []
        fetches: list[float] = []
        cpu: list[float] = []
        loads: list[float] = []
        changes: list[float] = []
        for _ in range(rounds):
            context, page = _signed_in(browser, fleet)
            started = time.process_time()
            renders.append(_first_render(page, fleet.url))
            loads.append((time.process_time() - started) * 1000)
            started = time.process_time()
            fetches.append(float(page.evaluate(FETCH)))
            cpu.append((time.process_time() - started) * 1000)
            for view in ("tiles", "table"):
                page.evaluate(CHANGE, view)
                changes.extend(float(page.evaluate(CHANGE, step)) for step in STEPS)
            context.close()
        context, page = _signed_in(browser, fleet)
        _first_render(page, fleet.url)
        page.evaluate(WATCH_FRAMES)
        typing = _typing_through(page, fleet.count, burst)
        url = str(page.evaluate(f"() => ({LIST})().name"))
        context.close()
        burst().result()
        context, page = _signed_in(browser, fleet)
        started = time.process_time()
        page.request.get(url)
        changed = (time.process_time() - started) * 1000
        context.close()
        browser.close()
    first = [r[0] for r in renders]
    after_json = [r[1] for r in renders]
    arrived = [r[2] for r in renders]
    render, fetch, floor = (statistics.median(x) for x in (first, fetches, small))
    return [
        Line("apps", f"{fleet.count:,}"),
        Line(
            "first render, navigation -> list drawn (median)",
            f"{render:.0f} ms (max {max(first):.0f}; first round {first[0]:.0f})",
            f"< {TARGET_MS:.0f} ms",
        ),
        Line("  the list's JSON in by (median)", f"{statistics.median(arrived):.0f} ms"),
        Line("  drawing once it was in (median)", f"{statistics.median(after_json):.0f} ms"),
        Line(
            f"baseline: the same page's first render with {BASELINE_APPS} apps (median)",
            f"{floor:.0f} ms",
        ),
        Line(f"  ratio, {apps:,} apps / {BASELINE_APPS} apps", f"{render / floor:.2f}x"),
        Line("baseline: fetch + parse the list JSON again (median)", f"{fetch:.0f} ms"),
        Line("  ratio, first render / fetch + parse", f"{render / fetch:.2f}x"),
        Line(
            "  CPU of this process (the server) per list request (median)",
            f"{statistics.median(cpu):.0f} ms",
        ),
        Line(
            "  its CPU per page load, first (cold) round / the others (median)",
            f"{loads[0]:.0f} ms / {statistics.median(loads[1:] or loads):.0f} ms",
        ),
        Line(
            "  its CPU per list request after a second burst, read by no page",
            f"{changed:.0f} ms",
        ),
        Line(
            "filter change -> next frame (median, max)",
            f"{statistics.median(changes):.0f} ms, {max(changes):.0f} ms over {len(changes)}",
            f"< {TARGET_MS:.0f} ms",
        ),
        Line("burst: 1 status change + event per app, published in", f"{typing.published:.2f} s"),
        Line("burst: page shows every app OutOfSync after", f"{typing.shown:.2f} s"),
        Line("burst: longest frame while it lasted", f"{typing.longest:.0f} ms"),
        Line(
            "burst: first key pressed in search, burst start -> drawn",
            f"{typing.first:.0f} ms",
            f"< {TARGET_MS:.0f} ms",
        ),
        Line(
            "burst: key -> its filter drawn (median, max)",
            f"{statistics.median(typing.keys):.0f} ms, {max(typing.keys):.0f} ms "
            f"over {len(typing.keys)} keys",
            f"< {TARGET_MS:.0f} ms",
        ),
    ]


async def run(apps: int, rounds: int) -> list[Line]:
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory(prefix="sluice-ui-bench-") as state:
        async with ui_fleet(Path(state), BASELINE_APPS) as fleet:

            def grow(count: int) -> None:
                asyncio.run_coroutine_threadsafe(fleet.grow(count), loop).result()

            async def timed() -> float:
                started = time.monotonic()
                await fleet.burst()
                return time.monotonic() - started

            def burst() -> "Future[float]":
                return asyncio.run_coroutine_threadsafe(timed(), loop)

            return await asyncio.to_thread(measure, fleet, apps, rounds, grow, burst)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="just bench ui_list", description=__doc__)
    parser.add_argument("--apps", type=positive, default=1000, help="apps in the list (1000)")
    parser.add_argument("--rounds", type=positive, default=5, help="page loads measured (5)")
    args = parser.parse_args(argv)
    if args.apps <= BASELINE_APPS:
        parser.error(f"--apps must be more than the {BASELINE_APPS} of the baseline")
    if not chromium.PATH.is_file():
        print(chromium.MISSING, file=sys.stderr)
        return 2
    lines = asyncio.run(run(args.apps, args.rounds))
    report(
        "web UI list in headless Chromium",
        f"embedded stack without workers, {args.apps} apps seeded, {args.rounds} page loads",
        lines,
        f"the same page with {BASELINE_APPS} apps, and fetching and parsing the list's "
        "JSON in the same page (lines above)",
        ["just", "bench", "ui_list", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
