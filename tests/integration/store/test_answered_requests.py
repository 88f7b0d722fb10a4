"""A refresh made before a run began is answered by that run: the coalescer drops it.

`Order` places a request in its stream: a request whose sequence is at or below the bound
of a finished run of its level or higher was stored before that run began, so it asks
nothing that run has not looked at.
"""

import asyncio

from app.model.identity import AppRef
from app.store.coalescing import Coalescer, Order, Pending
from app.store.connection import Redis
from tests.support.waiting import eventually

APP = AppRef("sluice", "guestbook")
EPOCH = "SLUICE_WORK/sluice-refresh@2026-01-01T00:00:00"


async def _nothing(_work: Pending) -> None:
    return None


async def test_requests_stored_before_a_finished_run_began_are_answered(
    redis_client: Redis,
) -> None:
    coalescer = Coalescer(redis_client, "refresh")
    ran: list[Pending] = []

    async def compare(work: Pending) -> None:
        ran.append(work)

    assert await coalescer.run(APP, 2, b"first", compare, order=Order(5, 100, EPOCH)) == 1
    assert await coalescer.run(APP, 2, b"queued", compare, order=Order(50, 120, EPOCH)) == 0
    assert await coalescer.run(APP, 1, b"lower", compare, order=Order(99, 140, EPOCH)) == 0
    assert len(ran) == 1, "a request stored before the run began was compared again"

    assert await coalescer.run(APP, 3, b"higher", compare, order=Order(60, 150, EPOCH)) == 1
    assert await coalescer.run(APP, 1, b"after", compare, order=Order(151, 160, EPOCH)) == 1
    assert await coalescer.run(APP, 1, b"new stream", compare, order=Order(7, 8, "other")) == 1
    assert await coalescer.run(APP, 1, b"unordered", compare) == 1
    assert [w.payload for w in ran] == [b"first", b"higher", b"after", b"new stream", b"unordered"]


async def test_work_waiting_for_a_run_is_dropped_when_that_run_answered_all_of_it(
    redis_client: Redis,
) -> None:
    coalescer = Coalescer(redis_client, "refresh")
    gates = {b"a": asyncio.Event(), b"c": asyncio.Event()}
    ran: list[bytes] = []

    async def compare(work: Pending) -> None:
        ran.append(work.payload)
        if work.payload in gates:
            await gates[work.payload].wait()

    async def started(count: int) -> bool:
        return len(ran) >= count

    first = asyncio.create_task(coalescer.run(APP, 2, b"a", compare, order=Order(5, 100, EPOCH)))
    await eventually(lambda: started(1), timeout=5, what="the first run")
    for seq in (40, 70):
        assert await coalescer.run(APP, 2, b"b", compare, order=Order(seq, 200, EPOCH)) == 0
    gates[b"a"].set()
    assert await first == 1, "requests stored before the run began got a run of their own"

    second = asyncio.create_task(coalescer.run(APP, 2, b"c", compare, order=Order(300, 400, EPOCH)))
    await eventually(lambda: started(2), timeout=5, what="the second run")
    assert await coalescer.run(APP, 2, b"d", compare, order=Order(350, 420, EPOCH)) == 0
    assert await coalescer.run(APP, 2, b"e", compare, order=Order(401, 450, EPOCH)) == 0
    gates[b"c"].set()
    assert await second == 2, "a request stored after the run began was dropped"
    assert ran == [b"a", b"c", b"e"]


async def test_a_render_run_answers_the_refreshes_made_before_it_began(
    redis_client: Redis,
) -> None:
    refresh = Coalescer(redis_client, "refresh")
    render = Coalescer(redis_client, "render", marks_for="refresh")
    ran: list[bytes] = []

    async def work(pending: Pending) -> None:
        ran.append(pending.payload)

    assert await render.run(APP, 2, b"render", work, order=Order(0, 100, EPOCH)) == 1
    assert await render.run(APP, 2, b"render again", work, order=Order(0, 90, EPOCH)) == 1
    assert await refresh.run(APP, 2, b"latest", work, order=Order(60, 130, EPOCH)) == 0
    assert await refresh.run(APP, 3, b"hard", work, order=Order(70, 140, EPOCH)) == 1
    assert ran == [b"render", b"render again", b"hard"]
