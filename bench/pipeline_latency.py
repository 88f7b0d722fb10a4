"""Push-to-synced latency without webhooks: commit, a poller refresh, then Synced + Healthy.

One app of 20 resources (ten kinds, two of each) on the embedded stack in this process
(NATS, Redis, the local cluster with controller delay 0, every worker). Each round
commits a release (a new image tag in both Deployments), then does what the poller does
when it notices: `workers.poller.poll_once` lists the repository, stores the listing in
the refs cache and publishes a `latest` RefreshRequest for the app. The clock runs from
the end of the commit to the moment the status store shows the app Synced + Healthy at
the new commit; the poller's interval is not part of it. p50 and p95 over the rounds,
after one warm-up round.
"""

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from app import log
from bench.support.figures import Line, percentile, report
from bench.support.latency import LatencyRun
from bench.support.options import positive
from workers.poller import poll_once

TARGET_P50 = 0.5


async def run(resources: int, runs: int) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        async with LatencyRun.open(Path(tmp), resources, api=False) as bench:

            async def poll(sha: str) -> None:
                refreshed = await poll_once(bench.runtime)
                if refreshed != 1:
                    raise RuntimeError(
                        f"the poller refreshed {refreshed} apps after commit {sha[:7]}, not 1"
                    )

            return await bench.measure(runs, poll)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench pipeline_latency", description=__doc__)
    parser.add_argument("--resources", type=positive, default=20, help="objects in the app")
    parser.add_argument("--runs", type=positive, default=20, help="timed rounds")
    args = parser.parse_args(argv)
    log.configure(level="warning")
    try:
        samples = asyncio.run(run(args.resources, args.runs))
    except TimeoutError as e:
        print(f"pipeline_latency: {e}", file=sys.stderr)
        return 1
    p50, p95 = percentile(samples, 50), percentile(samples, 95)
    report(
        "pipeline_latency: commit -> poller `latest` refresh -> Synced + Healthy at the commit",
        f"one app of {args.resources} resources; embedded stack in one process, "
        "local cluster controller delay 0",
        [
            Line("p50", f"{p50:.3f} s", f"< {TARGET_P50} s"),
            Line("p95", f"{p95:.3f} s"),
            Line("min / max", f"{min(samples):.3f} / {max(samples):.3f} s"),
            Line("rounds", f"{len(samples)} (after 1 warm-up)"),
        ],
        "Argo CD without webhooks notices a push at its next reconciliation, every 180 s by "
        "default (timeout.reconciliation); Sluice's poller interval is 60 s by default",
        ["python", "-m", "bench", "pipeline_latency", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
