"""Single-flight sharing and the bounded LRU that the repository caches are built on."""

import asyncio

import pytest

from app.repo.lru import LRU
from app.repo.singleflight import SingleFlight


async def test_concurrent_callers_share_one_execution() -> None:
    flight: SingleFlight[str, int] = SingleFlight()
    calls = 0
    release = asyncio.Event()

    async def work() -> int:
        nonlocal calls
        calls += 1
        await release.wait()
        return 42

    waiters = [asyncio.ensure_future(flight.run("k", work)) for _ in range(20)]
    await asyncio.sleep(0)
    release.set()
    assert await asyncio.gather(*waiters) == [42] * 20
    assert calls == 1
    assert not flight.in_flight("k")


async def test_a_later_call_runs_again() -> None:
    flight: SingleFlight[str, int] = SingleFlight()
    calls = 0

    async def work() -> int:
        nonlocal calls
        calls += 1
        return calls

    assert await flight.run("k", work) == 1
    assert await flight.run("k", work) == 2


async def test_errors_reach_every_caller() -> None:
    flight: SingleFlight[str, int] = SingleFlight()
    release = asyncio.Event()

    async def work() -> int:
        await release.wait()
        raise ValueError("boom")

    waiters = [asyncio.ensure_future(flight.run("k", work)) for _ in range(3)]
    await asyncio.sleep(0)
    release.set()
    results = await asyncio.gather(*waiters, return_exceptions=True)
    assert all(isinstance(r, ValueError) for r in results)


async def test_one_cancelled_caller_does_not_cancel_the_others() -> None:
    flight: SingleFlight[str, int] = SingleFlight()
    release = asyncio.Event()
    started = asyncio.Event()

    async def work() -> int:
        started.set()
        await release.wait()
        return 7

    first = asyncio.ensure_future(flight.run("k", work))
    second = asyncio.ensure_future(flight.run("k", work))
    await started.wait()
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    release.set()
    assert await second == 7


async def test_work_is_cancelled_when_every_caller_leaves() -> None:
    flight: SingleFlight[str, int] = SingleFlight()
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def work() -> int:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return 0

    only = asyncio.ensure_future(flight.run("k", work))
    await started.wait()
    only.cancel()
    with pytest.raises(asyncio.CancelledError):
        await only
    await asyncio.wait_for(cancelled.wait(), timeout=5)
    assert not flight.in_flight("k")


def test_lru_evicts_least_recently_used_by_weight() -> None:
    cache: LRU[str, str] = LRU(10, len)
    cache.put("a", "aaaa")
    cache.put("b", "bbbb")
    assert cache.get("a") == "aaaa"
    cache.put("c", "cccc")
    assert cache.get("b") is None
    assert cache.get("a") == "aaaa"
    assert cache.get("c") == "cccc"


def test_lru_skips_items_heavier_than_capacity() -> None:
    cache: LRU[str, str] = LRU(3, len)
    cache.put("big", "xxxx")
    assert cache.get("big") is None
    assert len(cache) == 0
