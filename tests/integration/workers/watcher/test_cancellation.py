"""A stop request a library swallowed (Python 3.11's wait_for) still stops the loop."""

import asyncio

import pytest

from workers.watcher.cancellation import stop_if_cancelled


async def test_a_swallowed_cancellation_is_raised_again_at_the_loop_head() -> None:
    swallowed = asyncio.Event()
    started = asyncio.Event()
    turns = 0

    async def loop() -> None:
        nonlocal turns
        while True:
            stop_if_cancelled()
            turns += 1
            started.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                swallowed.set()

    task = asyncio.create_task(loop())
    await asyncio.wait_for(started.wait(), 5)
    task.cancel()
    await asyncio.wait_for(swallowed.wait(), 5)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 5)
    assert turns == 1


async def test_an_uncancelled_task_carries_on() -> None:
    stop_if_cancelled()
