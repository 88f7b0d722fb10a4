"""`sluice up` on a fresh state directory brings both example apps to Synced + Healthy.

The command runs as a user runs it, a process of its own with its embedded NATS, Redis
and local cluster; `--exit-when-synced` makes it exit 0 once every app is Synced and
Healthy, 1 if that takes longer than `--timeout` (issue 4: within 30 s).
"""

import asyncio
import os
import re
from pathlib import Path

import pytest

from app import examples
from tests.e2e.processes import REPO, SLUICE

pytestmark = pytest.mark.slow

WITHIN = 30.0
"""Seconds `sluice up` may take to bring the examples to Synced + Healthy."""
STARTUP = 30.0
"""Seconds more the process may take to start and stop its servers."""


async def test_sluice_up_brings_the_example_apps_to_synced_and_healthy(tmp_path: Path) -> None:
    state = tmp_path / "fresh"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SLUICE_", "REDIS_", "NATS_")) and key != "KUBECONFIG"
    }
    env |= {"HOME": str(tmp_path), "SLUICE_LOG_LEVEL": "warning"}
    process = await asyncio.create_subprocess_exec(
        str(SLUICE),
        "up",
        "--state-dir",
        str(state),
        "--api-port",
        "0",
        "--exit-when-synced",
        "--timeout",
        str(WITHIN),
        cwd=REPO,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(WITHIN + STARTUP):
            out, err = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    shown = out.decode()
    assert process.returncode == 0, f"exit {process.returncode}\n{shown}\n{err.decode()[-3000:]}"

    done = re.search(r"all (\d+) apps Synced and Healthy after ([\d.]+) s", shown)
    assert done is not None, shown
    assert int(done.group(1)) == len(examples.APPS)
    assert float(done.group(2)) <= WITHIN
    for app in examples.APPS:
        assert re.search(rf"{app}\s+Synced\s+Healthy", shown), (app, shown)
    assert (state / "kubeconfig").is_file(), "kubectl needs the kubeconfig in the state dir"
