"""`sluice worker <name>`: one worker against external NATS, Redis and clusters.

The production shape: each worker is its own Deployment, scaled horizontally. Settings
come from the environment (NATS_URL, REDIS_URL, KUBECONFIG or the pod's service account,
SLUICE_*; see workers/settings.py); the process stops cleanly on SIGTERM or SIGINT.
"""

import argparse
import asyncio
import signal

from app import log
from workers import registry
from workers.runtime import Runtime
from workers.settings import Settings

logger = log.get("worker")


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser("worker", help="run one worker (production)")
    parser.add_argument("name", choices=registry.WORKERS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env()
    except ValueError as e:
        logger.error("worker.bad_settings", error=str(e))
        return 2
    return asyncio.run(_serve(args.name, settings))


async def _serve(name: str, settings: Settings) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with Runtime.open(settings) as rt:
        worker = registry.build(name, rt)
        await worker.start()
        logger.info("worker.running", worker=name)
        try:
            await stop.wait()
        finally:
            await worker.stop()
    logger.info("worker.stopped", worker=name)
    return 0
