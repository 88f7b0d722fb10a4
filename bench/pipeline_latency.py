"""Push-to-synced latency without webhooks: commit, a poller refresh, then Synced + Healthy.

One app of 20 resources (ten kinds, two of each) on the embedded stack in this process
(NATS, Redis, the local cluster with controller delay 0, every worker). Each round
commits a release (a new image tag in both Deployments), then does what the poller does
when it notices: `workers.poller.worker.poll_once` lists the repository, stores the listing in
the refs cache and publishes a `latest` RefreshRequest for the app. The clock runs from
the end of the commit to the moment the status store shows the app Synced + Healthy at
the new commit; the poller's interval is not part of it. p50 and p95 over the rounds,
after one warm-up round.
"""

import sys
import tempfile
from pathlib import Path

from bench.support.latency import LatencyRun, latency_main
from workers.poller.worker import poll_once


async def run(resources: int, runs: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        async with LatencyRun.open(Path(tmp), resources, api=False) as bench:

            async def poll(sha: str) -> None:
                refreshed = await poll_once(bench.runtime)
                if refreshed != 1:
                    raise RuntimeError(
                        f"the poller refreshed {refreshed} apps after commit {sha[:7]}, not 1"
                    )

            return await bench.measure(runs, poll), await bench.floor(runs)


def main(argv: list[str]) -> int:
    return latency_main(
        "pipeline_latency",
        argv,
        run,
        description=__doc__,
        title="commit -> poller `latest` refresh -> Synced + Healthy at the commit",
        setup="embedded stack in one process, local cluster controller delay 0",
        baseline="Argo CD without webhooks notices a push at its next reconciliation, every "
        "180 s by default (timeout.reconciliation); Sluice's poller interval is 60 s by default",
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
