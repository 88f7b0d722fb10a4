"""CPU per unit of worker-shaped I/O on asyncio's event loop and on uvloop, same run.

A worker's handler run is mostly small round trips: Redis scripts and pipelines, a
JetStream publish with its acknowledgement. Embedded NATS and Redis (as `sluice up` runs
them) serve this process; each unit is one JetStream publish of a RefreshRequest (with
its ack), one Redis pipeline of an HSET and an HGETALL and one Redis GET, `--concurrency`
units at a time (a worker's handlers). The same units run on each loop in alternating
rounds; the figure is this process's CPU seconds per unit (the best round of each), and
uvloop's as a multiple of asyncio's.
"""

import argparse
import asyncio
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import uvloop

from app import log_setup
from app.bus import topology
from app.bus.connection import NatsSettings, connect
from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.embedded.nats import NatsOptions, NatsServer
from app.embedded.redis import RedisOptions, RedisServer
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.store.connection import RedisSettings
from app.store.connection import connect as connect_redis
from bench.support.cpu import ratio
from bench.support.figures import Line, report
from bench.support.options import positive

ROUNDS = 3


async def units(nats_url: str, redis_url: str, count: int, concurrency: int) -> float:
    """CPU seconds of this process per unit, `concurrency` units in flight."""
    bus = await connect(NatsSettings(url=nats_url, name="bench-loop"))
    redis = await connect_redis(RedisSettings(url=redis_url))
    try:
        await topology.ensure(bus)
        pending = iter(range(count))

        async def worker() -> None:
            for i in pending:
                app = AppRef("bench", f"app-{i % 500}")
                await publish(bus, REFRESH, RefreshRequest(app, RefreshLevel.LATEST, "bench"))
                async with redis.pipeline(transaction=False) as pipe:
                    pipe.hset(f"bench:{i % 500}", mapping={"seq": i, "status": "x" * 200})
                    pipe.hgetall(f"bench:{i % 500}")
                    await pipe.execute()
                await redis.get(f"bench:{i % 500}:missing")

        started = time.process_time()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return (time.process_time() - started) / count
    finally:
        await bus.close()
        await redis.aclose()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench event_loop", description=__doc__)
    parser.add_argument("--units", type=positive, default=3000, help="units per round")
    parser.add_argument("--concurrency", type=positive, default=16, help="units in flight")
    args = parser.parse_args(argv)
    log_setup.configure(level="warning")
    loops: dict[str, Callable[[Coroutine[Any, Any, float]], float]] = {
        "asyncio": asyncio.run,
        "uvloop": uvloop.run,
    }
    best = dict.fromkeys(loops, float("inf"))
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        state = Path(tmp)
        with (
            NatsServer.start(NatsOptions(state_dir=state)) as nats,
            RedisServer.start(RedisOptions(state_dir=state)) as redis,
        ):
            for _ in range(ROUNDS):
                for name, run in loops.items():
                    spent = run(units(nats.url, redis.url, args.units, args.concurrency))
                    best[name] = min(best[name], spent)
    report(
        "event_loop: CPU per worker-shaped unit of I/O (a JetStream publish, two Redis round "
        "trips)",
        f"{args.units} units per round, {args.concurrency} in flight, best of {ROUNDS} rounds "
        "per loop, alternating; embedded NATS and Redis",
        [
            Line("asyncio", f"{best['asyncio'] * 1e6:.0f} µs CPU per unit"),
            Line(
                "uvloop",
                f"{best['uvloop'] * 1e6:.0f} µs CPU per unit "
                f"({ratio(best['uvloop'], best['asyncio'])} asyncio)",
            ),
        ],
        "asyncio's default event loop on the same units, same run",
        ["python", "-m", "bench", "event_loop", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
