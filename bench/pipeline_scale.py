"""1,000 apps x 10 resources from nothing to all Synced + Healthy: wall time against its floor.

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

Baseline, in the same run on the same local cluster: the floor (`bench.support.floor`),
the cluster client sending only the writes the syncs send (namespace, a server dry run
and a server-side apply of every object), as many apps at a time as the sync worker has
handlers. The wall time is printed as a multiple of it. `--apps 250,1000,4000` runs one
fleet per count and ends with a table of CPU, RSS and comparisons per app (a flat column
is a linear cost) and the watcher's RSS per object it holds; a count that gives up ends
the curve, the counts before it still printed. The default timeout grows with the count.
"""

import statistics
import sys
from dataclasses import dataclass

from bench.support import status
from bench.support.figures import Line, load_average, machine, report
from bench.support.fleet import Fleet, FleetOptions
from bench.support.fleet_command import (
    all_processes,
    difference,
    run_fleet,
    usage_lines,
    verbs,
)
from bench.support.floor import apply_floor
from bench.support.processes import Usage

TARGET_RATIO = 2.0
BASELINE = (
    "the floor: the cluster client creating each namespace, then a server dry run and a "
    "server-side apply of each object, same local cluster, same run, as many apps at once "
    "as the sync worker has handlers. Elsewhere: Flux's published benchmark needs 4 min 16 s "
    "for 1,000 Kustomizations (fluxcd/flux-benchmark, Flux v2.2 on a kind cluster)"
)
FLOOR_PREFIX = "floor-"


@dataclass(frozen=True, slots=True)
class Deployed:
    seconds: float
    before: dict[str, Usage]
    after: dict[str, Usage]
    requests: dict[str, int]
    """Requests the local cluster served during the deployment, by verb."""
    traffic: dict[str, int]
    """Redis commands by name and JetStream messages by stream during the deployment."""
    comparisons: list[int]
    """Comparisons stored per app by the time all were Synced + Healthy."""
    floor_seconds: float
    """The floor's wall time: the same writes from the cluster client, no pipeline."""
    load: str
    """The load average at the end of the deployment."""


async def run(options: FleetOptions) -> Deployed:
    async with Fleet.open(options) as fleet:
        before, counts = fleet.usage(), await fleet.request_counts()
        traffic = await fleet.traffic()
        seconds = await fleet.deploy()
        after = fleet.usage()
        requests = difference(counts, await fleet.request_counts())
        traffic = difference(traffic, await fleet.traffic())
        load = load_average()
        states = await status.read(fleet.runtime.redis, fleet.apps)
        floor = await apply_floor(
            fleet.kubeconfig,
            (FLOOR_PREFIX + ref.name for ref in fleet.apps),
            options.resources,
            options.concurrency,
        )
        seqs = [s.seq for s in states.values()]
        return Deployed(seconds, before, after, requests, traffic, seqs, floor, load)


def comparisons(seqs: list[int]) -> str:
    """Mean and largest number of comparisons stored per app."""
    return f"{statistics.mean(seqs):.1f} on average, at most {max(seqs)}"


def per_app(result: Deployed, options: FleetOptions) -> str:
    """Requests the cluster served per app, by verb (the floor: 1 + 2 x resources creates)."""
    counts = {verb: n / options.apps for verb, n in result.requests.items()}
    return ", ".join(f"{verb} {n:.1f}" for verb, n in sorted(counts.items())) or "none"


def traffic_per_app(result: Deployed, options: FleetOptions, prefix: str, top: int) -> str:
    """The `top` largest counts of `prefix` ("redis " or "nats ") per app, and their sum."""
    counts = {
        name.removeprefix(prefix): n / options.apps
        for name, n in result.traffic.items()
        if name.startswith(prefix)
    }
    largest = sorted(counts.items(), key=lambda item: -item[1])[:top]
    listed = ", ".join(f"{name} {n:.1f}" for name, n in largest)
    return f"{sum(counts.values()):.1f} ({listed})"


def one_report(options: FleetOptions, result: Deployed, argv: list[str]) -> None:
    seconds, before, after = result.seconds, result.before, result.after
    workers = after["workers (all)"].cpu_seconds - before["workers (all)"].cpu_seconds
    rss = after["workers (all)"].peak_rss_bytes >> 20
    ratio = seconds / result.floor_seconds
    report(
        f"pipeline_scale: {options.apps} apps x {options.resources} resources, from nothing "
        "to all Synced + Healthy",
        f"{options.describe()}; local cluster, NATS and Redis in their own processes, "
        "controller delay 0",
        [
            Line("wall time", f"{seconds:.1f} s = {ratio:.2f}x the floor", f"<= {TARGET_RATIO:g}x"),
            Line("floor", f"{result.floor_seconds:.1f} s (the same writes, no pipeline)"),
            Line("load average", f"{result.load} (1 / 5 min) at the end of the deployment"),
            Line("worker CPU", f"{workers:.1f} s ({workers / seconds:.2f} cores)"),
            Line("worker peak RSS", f"{rss} MiB (sum of the worker processes)"),
            Line("all processes CPU", all_processes(before, after)),
            Line("cluster requests", verbs(result.requests)),
            Line("cluster requests per app", per_app(result, options)),
            Line("comparisons per app", comparisons(result.comparisons), "<= 2 on average"),
            Line("Redis commands per app", traffic_per_app(result, options, "redis ", 6)),
            Line("stream messages per app", traffic_per_app(result, options, "nats ", 2)),
            Line("by process", ""),
            *usage_lines(before, after),
        ],
        BASELINE,
        ["python", "-m", "bench", "pipeline_scale", *argv],
    )


def curve(ran: list[tuple[FleetOptions, Deployed]]) -> None:
    """CPU and RSS per app and the watcher's RSS per object, one row per fleet size."""
    print(f"scaling curve (machine: {machine()})")
    print("| apps | wall / floor | worker CPU ms per app | worker RSS growth KiB per app | "
          "comparisons per app | watcher RSS KiB per object (growth from warm-up) | "
          "load average |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for options, result in ran:
        before, after = result.before, result.after
        cpu = after["workers (all)"].cpu_seconds - before["workers (all)"].cpu_seconds
        rss = after["workers (all)"].peak_rss_bytes - before["workers (all)"].peak_rss_bytes
        objects = options.apps * options.resources
        watcher = after["watcher"].peak_rss_bytes - before["watcher"].peak_rss_bytes
        print(
            f"| {options.apps} | {result.seconds / result.floor_seconds:.2f}x "
            f"| {cpu / options.apps * 1000:.1f} | {rss / options.apps / 1024:.0f} "
            f"| {statistics.mean(result.comparisons):.2f} "
            f"| {after['watcher'].peak_rss_bytes / objects / 1024:.1f} "
            f"({watcher / objects / 1024:.1f}) | {result.load} |"
        )


def main(argv: list[str]) -> int:
    ran = run_fleet("pipeline_scale", argv, __doc__, run)
    if ran is None:
        return 1
    for options, result in ran.ran:
        one_report(options, result, argv)
    if len(ran.ran) > 1:
        curve(ran.ran)
    return 1 if ran.gave_up else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
