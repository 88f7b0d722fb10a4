"""A local cluster (controller delay 0) in a process of its own, for benchmarks that
measure a client: `running(kubeconfig)` starts it, waits until it serves and stops it.

Run as `python -m bench.support.local_cluster KUBECONFIG`, it serves until its standard
input closes and prints `ready` once up.
"""

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from app import log_setup
from app.localcluster.cluster import LocalCluster
from app.localcluster.settings import ControllerSettings, LocalClusterSettings

STOP_TIMEOUT = 30.0


async def serve(kubeconfig: Path) -> None:
    """Run a local cluster (controller delay 0) until stdin closes; print `ready` once up."""
    settings = LocalClusterSettings(
        kubeconfig_path=kubeconfig, controllers=ControllerSettings(delay_seconds=0)
    )
    async with LocalCluster(settings):
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.read)


@contextlib.contextmanager
def running(kubeconfig: Path) -> Iterator[None]:
    """A local cluster writing `kubeconfig`, serving until the block ends (RuntimeError
    if it does not start)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.support.local_cluster", str(kubeconfig)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        if server.stdout.readline().strip() != "ready":
            raise RuntimeError("the local cluster did not start")
        yield
    finally:
        if server.stdin is not None:
            server.stdin.close()
        server.wait(timeout=STOP_TIMEOUT)


if __name__ == "__main__":
    log_setup.configure(level="warning")
    asyncio.run(serve(Path(sys.argv[1])))
