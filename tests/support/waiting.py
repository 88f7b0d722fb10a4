"""Waiting on a condition with a deadline, never a fixed sleep."""

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def eventually(
    probe: Callable[[], Awaitable[T]],
    *,
    timeout: float = 10.0,
    interval: float = 0.02,
    what: str = "condition",
) -> T:
    """Await `probe()` until it returns a truthy value; fail with `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while True:
        last = await probe()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {last!r}")
        await asyncio.sleep(interval)


def until(probe: Callable[[], T | None], *, timeout: float, what: str) -> T:
    """Call `probe` until it returns a value (not None/False), failing after `timeout` s:
    `eventually` for synchronous code (Playwright's sync API, fixtures around a process)."""
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.1)
