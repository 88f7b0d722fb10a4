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

import argparse
import asyncio
import os
import statistics
import sys
from dataclasses import dataclass

from app import log
from bench.support import status
from bench.support.figures import Line, report
from bench.support.fleet import WORKERS, Fleet, FleetOptions
from bench.support.options import new_directory, positive
from bench.support.processes import Usage

TARGET_SECONDS = 60.0
BASELINE = (
    "Flux's published benchmark: 4 min 16 s (256 s) for 1,000 Kustomizations "
    "(fluxcd/flux-benchmark, Flux v2.2 on a kind cluster)"
)


def replicas(text: str) -> dict[str, int]:
    """`compare=2,sync=2` -> {"compare": 2, "sync": 2}."""
    found = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, count = part.partition("=")
        if name not in WORKERS or not count.isdigit() or int(count) < 1:
            raise argparse.ArgumentTypeError(
                f"{part!r}: expected NAME=COUNT with NAME one of {', '.join(WORKERS)} "
                "and COUNT at least 1"
            )
        found[name] = int(count)
    return found


def options_parser(prog: str, description: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--apps", type=positive, default=1000, help="apps to deploy")
    parser.add_argument("--resources", type=positive, default=10, help="objects per app")
    parser.add_argument(
        "--replicas", type=replicas, default={}, help="worker processes, e.g. compare=2,sync=2"
    )
    parser.add_argument(
        "--concurrency", type=positive, default=16, help="handlers per worker process"
    )
    parser.add_argument("--timeout", type=positive, default=600, help="give up after (seconds)")
    parser.add_argument(
        "--log-level",
        default="warning",
        choices=("debug", "info", "warning", "error"),
        help="the workers' log level",
    )
    parser.add_argument(
        "--keep",
        type=new_directory,
        help="work in this new directory and keep it (logs, repository)",
    )
    return parser


def fleet_options(args: argparse.Namespace) -> FleetOptions:
    return FleetOptions(
        apps=args.apps,
        resources=args.resources,
        replicas=args.replicas,
        concurrency=args.concurrency,
        timeout=args.timeout,
        log_level=args.log_level,
        keep=args.keep,
    )


def usage_lines(before: dict[str, Usage], after: dict[str, Usage]) -> list[Line]:
    """CPU seconds used between two readings and peak RSS, per process group."""
    lines = []
    for name, now in after.items():
        cpu = now.cpu_seconds - before[name].cpu_seconds
        lines.append(
            Line(f"  {name}", f"{cpu:7.1f} CPU s, peak RSS {now.peak_rss_bytes >> 20} MiB")
        )
    return lines


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


def difference(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """Requests by verb between two readings of the local cluster's counts."""
    return {verb: n - before.get(verb, 0) for verb, n in after.items() if n != before.get(verb, 0)}


def all_processes(before: dict[str, Usage], after: dict[str, Usage]) -> str:
    """CPU of the workers and the servers together, and the wall time it takes at least."""
    used = sum(
        after[name].cpu_seconds - before[name].cpu_seconds
        for name in after
        if name not in WORKERS  # each worker is in "workers (all)" already
    )
    cores = os.cpu_count() or 1
    return (
        f"{used:.1f} s (workers, NATS, Redis, local cluster): at least {used / cores:.1f} s "
        f"of wall time on {cores} otherwise idle cores"
    )


def comparisons(seqs: list[int]) -> str:
    """Mean and largest number of comparisons stored per app."""
    return f"{statistics.mean(seqs):.1f} on average, at most {max(seqs)}"


def verbs(requests: dict[str, int]) -> str:
    return ", ".join(f"{verb} {n}" for verb, n in sorted(requests.items())) or "none"


def main(argv: list[str]) -> int:
    parser = options_parser("python -m bench pipeline_scale", __doc__)
    args = parser.parse_args(argv)
    log.configure(level="warning")
    options = fleet_options(args)
    try:
        result = asyncio.run(run(options))
    except (TimeoutError, RuntimeError) as e:
        print(f"pipeline_scale: {e}", file=sys.stderr)
        return 1
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
