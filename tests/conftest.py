"""Suite-wide guards: no test may leave asyncio tasks or child processes behind, and no log
written during the run may hold a test secret or a traceback (`tests.support.logscan`)."""

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Iterator

import psutil
import pytest

from app import log_setup
from tests.support import procs
from tests.support.logscan import PROCESS_LOG, TEE, scan

log_setup.configure(level="info", fmt="json", stream=TEE)

pytest_plugins = [
    "tests.support.fixtures_servers",
    "tests.support.fixtures_cluster",
    "tests.support.fixtures_pipeline",
    "tests.support.fixtures_git_servers",
]


MAX_SHOWN = 20
"""Log findings shown in the failure (the count covers them all)."""


@pytest.fixture(scope="session", autouse=True)
def _log_scan(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Fail the run if any log written during it holds a test secret or a traceback."""
    base = tmp_path_factory.getbasetemp()
    TEE.open(base / PROCESS_LOG)
    try:
        yield
    finally:
        TEE.close()
    findings = scan(base.rglob("*.log"))
    if findings:
        shown = "\n".join(str(f) for f in findings[:MAX_SHOWN])
        pytest.fail(
            f"{len(findings)} log line(s) written during the run hold a test secret or a "
            f"traceback:\n{shown}",
            pytrace=False,
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every coroutine test the task-leak guard, set up first and checked last."""
    for item in items:
        if isinstance(item, pytest.Function) and inspect.iscoroutinefunction(item.obj):
            item.fixturenames.insert(0, "_no_leaked_tasks")


@pytest.fixture
async def _no_leaked_tasks() -> AsyncIterator[None]:
    """Fail a test that leaves asyncio tasks pending on its loop."""
    before = asyncio.all_tasks()
    yield
    current = asyncio.current_task()
    deadline = time.monotonic() + 2.0
    while True:
        leaked = [t for t in asyncio.all_tasks() - before if t is not current and not t.done()]
        if not leaked or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.01)
    for task in leaked:
        task.cancel()
    if leaked:
        names = ", ".join(sorted(t.get_name() + ":" + repr(t.get_coro()) for t in leaked))
        pytest.fail(f"test left {len(leaked)} asyncio task(s) running: {names}")


@pytest.fixture(autouse=True)
def _no_leaked_processes() -> Iterator[None]:
    """Fail a test that leaves a child process running (session servers are registered)."""
    before = procs.children()
    yield
    deadline = time.monotonic() + 5.0
    leaked = procs.children() - before
    while leaked and time.monotonic() < deadline:
        time.sleep(0.05)
        leaked = procs.children() - before
    for pid in leaked:
        try:
            psutil.Process(pid).kill()
        except psutil.NoSuchProcess:
            continue
    if leaked:
        pytest.fail(f"test left child process(es) running: {sorted(leaked)}")
