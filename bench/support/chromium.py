"""Debian's Chromium driven by Playwright: where it is and how it is launched.

No browser is downloaded: Playwright launches the system's `chromium` through
`executable_path` (`SLUICE_CHROMIUM` overrides the path), headless, sandbox off (tests
run as root in CI), with the background services that would reach the network disabled.
"""

import os
from pathlib import Path

PATH = Path(os.environ.get("SLUICE_CHROMIUM", "/usr/bin/chromium"))
ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--no-first-run",
)
MISSING = (
    f"Chromium is not installed at {PATH} (apt-get install -y chromium, or set "
    "SLUICE_CHROMIUM); .ci/run installs it"
)
