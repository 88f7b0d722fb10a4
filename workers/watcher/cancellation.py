"""Cancellation that Python 3.11 can lose, restored at the top of every loop.

`asyncio.wait_for` in Python 3.11 returns the inner result, and forgets the request, when
a task is cancelled just as the awaited future completes (CPython gh-86296, fixed in
3.12 where `wait_for` is built on `asyncio.timeout`). nats-py awaits every publish
acknowledgement with `wait_for`, so a watcher stopped while it publishes could go on
running. The request is still recorded on the task (`Task.cancelling()`), so each
long-running loop of the watcher checks it once per turn and stops as it was asked to.
"""

import asyncio


def stop_if_cancelled() -> None:
    """Raise CancelledError if the current task was asked to stop (even if the
    CancelledError itself was lost)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
