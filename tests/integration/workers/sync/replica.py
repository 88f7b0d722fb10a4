"""A sync worker replica in a process of its own, for the crash test.

    python -m tests.integration.workers.sync.replica '<json settings>'

It opens a Runtime on the test's servers, shortens the work consumers' ack_wait (so a
killed replica's message comes back within seconds) and its own leases to match, starts
a SyncWorker and a HookWorker, records its pid in Redis (`test:replica:<name>`) and runs
until it is killed or terminated.
"""

import asyncio
import json
import os
import signal
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from app import log_setup
from app.bus import topology
from app.bus.connection import NatsSettings
from app.bus.consumer import ConsumerSettings
from app.bus.topology import TopologySettings
from app.runtime.runtime import Runtime
from app.runtime.settings import ControlPlaneSettings, Settings, TimingSettings
from app.runtime.worker import Worker
from app.store.coalescing import CoalesceSettings
from app.store.connection import RedisSettings
from workers.sync.hook_worker import HookWorker
from workers.sync.sync_worker import SyncWorker

ACK_WAIT = 2.0
LEASE_TTL = 0.8


def ready_key(name: str) -> str:
    return f"test:replica:{name}"


async def main(config: dict[str, Any]) -> None:
    settings = Settings(
        nats=NatsSettings(url=config["nats"], name=f"replica-{config['name']}"),
        redis=RedisSettings(url=config["redis"]),
        control_plane=ControlPlaneSettings(namespace="sluice", kubeconfig=config["kubeconfig"]),
        timing=replace(
            TimingSettings(),
            resync=0.0,
            wave_delay=config["wave_delay"],
            health_wait_fallback=config["health_wait_fallback"],
        ),
        state_dir=Path(config["state_dir"]),
        allow_local_repos=True,
        concurrency=4,
    )
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with Runtime.open(settings) as rt:
        await topology.ensure(rt.bus, TopologySettings(ack_wait=ACK_WAIT))
        consumer = ConsumerSettings(concurrency=4, fetch_wait=0.2)
        coalesce = CoalesceSettings(lease_ttl=LEASE_TTL)
        workers: list[Worker] = [
            SyncWorker(rt, consumer=consumer, coalesce=coalesce),
            HookWorker(rt, consumer=consumer, coalesce=coalesce),
        ]
        for worker in workers:
            await worker.start()
        await rt.redis.set(ready_key(config["name"]), os.getpid())
        await stop.wait()
        for worker in workers:
            await worker.stop()


if __name__ == "__main__":
    log_setup.configure(level="info", fmt="json")
    asyncio.run(main(json.loads(sys.argv[1])))
