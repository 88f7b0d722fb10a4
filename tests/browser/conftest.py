"""Browser tests: headless Debian Chromium driven by Playwright against a real server.

`chromium` skips a test with the reason when Chromium is absent, except in CI
(`CI=true`), where its absence fails: CI installs it (`.ci/run`). `sluice_up` runs one
real `sluice up` per module (a process of its own, as a user runs it), checks that it
prints the web UI's URL, and waits for every example app to be Synced and Healthy;
`browser` is one Chromium per module; `page` a fresh browser context per test, signed in
through `POST /api/v1/session`.
Screenshots go to `SLUICE_SCREENSHOTS` when set (docs/screenshots is made that way),
else to the test's temporary directory.
"""

import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from bench.support import chromium as chromium_support
from tests.support import procs
from tests.support.waiting import until

REPO = Path(__file__).resolve().parents[2]
SLUICE = Path(sys.executable).with_name("sluice")
UP_TIMEOUT = 90.0
"""Seconds `sluice up` may take to bring the examples to Synced + Healthy."""
STOP_TIMEOUT = 20.0


@pytest.fixture(scope="module")
def chromium() -> Path:
    if chromium_support.PATH.is_file():
        return chromium_support.PATH
    if os.environ.get("CI") == "true":
        pytest.fail(f"{chromium_support.MISSING}; CI must run the browser tests")
    pytest.skip(chromium_support.MISSING)


@dataclass(frozen=True)
class Up:
    url: str
    token: str
    state: Path
    env: dict[str, str]

    def kubectl(self, *args: str) -> str:
        command = ["kubectl", *args]
        done = subprocess.run(
            command, check=False, env=self.env, capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 0, f"kubectl {' '.join(args)}: {done.stderr}"
        return done.stdout


@pytest.fixture(scope="module")
def sluice_up(tmp_path_factory: pytest.TempPathFactory, chromium: Path) -> Iterator[Up]:
    root = tmp_path_factory.mktemp("sluice-up")
    state = root / "state"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SLUICE_", "REDIS_", "NATS_")) and k != "KUBECONFIG"
    }
    env |= {"HOME": str(root), "SLUICE_LOG_LEVEL": "warning"}
    log = root / "up.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [str(SLUICE), "up", "--state-dir", str(state), "--api-port", "0"],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    procs.allow(process.pid)

    def synced() -> str | None:
        if process.poll() is not None:
            raise AssertionError(f"sluice up exited {process.returncode}:\n{log.read_text()}")
        text = log.read_text(errors="replace")
        return text if "Synced and Healthy after" in text else None

    try:
        text = until(synced, timeout=UP_TIMEOUT, what="sluice up: examples Synced and Healthy")
        found = re.search(r"^API\s+(http://\S+)", text, re.MULTILINE)
        assert found is not None, text
        ui = re.search(r"^web UI\s+(http://\S+)", text, re.MULTILINE)
        assert ui is not None and ui.group(1) == f"{found.group(1)}/", "sluice up names the UI"
        token = (state / "api-token").read_text().strip()
        yield Up(found.group(1), token, state, env | {"KUBECONFIG": str(state / "kubeconfig")})
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            stack = psutil.Process(process.pid).children(recursive=True)
            process.kill()
            process.wait()
            for child in stack:
                with contextlib.suppress(psutil.NoSuchProcess):
                    child.kill()


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with sync_playwright() as started:
        for child in psutil.Process().children(recursive=True):
            if child.pid not in before:
                procs.allow(child.pid)
        yield started


@pytest.fixture(scope="module")
def browser(playwright: Playwright, chromium: Path) -> Iterator[Browser]:
    launched = playwright.chromium.launch(
        executable_path=str(chromium), args=list(chromium_support.ARGS)
    )
    yield launched
    launched.close()


def sign_in(page: Page, up: Up) -> None:
    answer = page.request.post(f"{up.url}/api/v1/session", data={"token": up.token})
    assert answer.ok, answer.text()


@pytest.fixture
def page(browser: Browser, sluice_up: Up) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda e: errors.append(str(e)))
    sign_in(opened, sluice_up)
    yield opened
    context.close()
    assert not errors, f"the page threw: {errors}"


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    target = Path(os.environ.get("SLUICE_SCREENSHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    return target
