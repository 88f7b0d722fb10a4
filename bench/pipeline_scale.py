"""1,000 apps x 10 resources from nothing to all Synced + Healthy: wall time, CPU, peak RSS.

Everything runs in its own process (`bench.support.fleet`): NATS, Redis, the local cluster
(controller delay 0) and each worker (`sluice worker NAME`, settings from the
environment, `--replicas` processes of a worker if asked). One repository holds a
directory per app; each app deploys ten objects (ConfigMaps, Secret, ServiceAccount,
Service, Deployment, Role, RoleBinding, Ingress, PodDisruptionBudget) into a namespace of
its own, created by the sync. After a warm-up app proves every worker is up, the clock
starts, the benchmark applies the 1,000 Applications (16 at a time) and the clock stops
when the status store shows every app Synced + Healthy. CPU seconds are the workers'
(user + system, with their `git` children) from the start to the end of the clock; peak
RSS is each worker process's high-water mark, added up.
"""

import statistics
import sys
from dataclasses import dataclass

from bench.support import status
from bench.support.figures import Line, report
from bench.support.fleet import Fleet, FleetOptions
from bench.support.fleet_command import (
    all_processes,
    difference,
    run_fleet,
    usage_lines,
    verbs,
)
from bench.support.processes import Usage

TARGET_SECONDS = 60.0
BASELINE = (
    "Flux's published benchmark: 4 min 16 s (256 s) for 1,000 Kustomizations "
    "(fluxcd/flux-benchmark, Flux v2.2 on a kind cluster)"
)


@dataclass(frozen=True, slots=True)
class Deployed:
    seconds: float
    before: dict[str, Usage]
    after: dict[str, Usage]
    requests: dict[str, int]
    """Requests the local cluster served during the deployment, by verb."""
    comparisons: list[int]
    """Comparisons stored per app by the time all were Synced + Healthy."""


async def run(options: FleetOptions) -> Deployed:
    async with Fleet.open(options) as fleet:
        before, counts = fleet.usage(), await fleet.request_counts()
        seconds = await fleet.deploy()
        after = fleet.usage()
        requests = difference(counts, await fleet.request_counts())
        states = await status.read(fleet.runtime.redis, fleet.apps)
        return Deployed(seconds, before, after, requests, [s.seq for s in states.values()])


def comparisons(seqs: list[int]) -> str:
    """Mean and largest number of comparisons stored per app."""
    return f"{statistics.mean(seqs):.1f} on average, at most {max(seqs)}"


def main(argv: list[str]) -> int:
    ran = run_fleet("pipeline_scale", argv, __doc__, run)
    if ran is None:
        return 1
    args, options, result = ran
    seconds, before, after = result.seconds, result.before, result.after
    workers = after["workers (all)"].cpu_seconds - before["workers (all)"].cpu_seconds
    rss = after["workers (all)"].peak_rss_bytes >> 20
    report(
        f"pipeline_scale: {args.apps} apps x {args.resources} resources, from nothing to all "
        "Synced + Healthy",
        f"{options.describe()}; local cluster, NATS and Redis in their own processes, "
        "controller delay 0",
        [
            Line("wall time", f"{seconds:.1f} s", f"< {TARGET_SECONDS:g} s"),
            Line("worker CPU", f"{workers:.1f} s ({workers / seconds:.2f} cores)"),
            Line("worker peak RSS", f"{rss} MiB (sum of the worker processes)"),
            Line("all processes CPU", all_processes(before, after)),
            Line("cluster requests", verbs(result.requests)),
            Line("comparisons per app", comparisons(result.comparisons)),
            Line("by process", ""),
            *usage_lines(before, after),
        ],
        BASELINE,
        ["python", "-m", "bench", "pipeline_scale", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
