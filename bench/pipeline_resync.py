"""Steady state: one full resync of 1,000 unchanged apps; worker CPU and cluster LIST calls.

The fleet of `pipeline_scale` (every part in its own process) is brought to all Synced +
Healthy and left until its workers are idle. Then the benchmark publishes one `latest`
resync per app where the periodic resync timers fire theirs (`schedules.RESYNC`: the
render stage), and waits until every app has stored a new comparison and the workers
are idle again. Figures: the workers' CPU seconds over that span (user + system, with
their `git` children), and the requests the local cluster served in it, by verb: a
resync reads live state from the watcher's cache, so it should LIST nothing.
"""

import asyncio
import sys
import time
from dataclasses import dataclass

from app.bus import schedules
from app.bus.messages import RenderRequest
from app.bus.publish import publish
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
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

TARGET_CPU = 5.0
TARGET_LISTS = 0
PUBLISH_CONCURRENCY = 64
REASON = "resync (benchmark)"


@dataclass(frozen=True, slots=True)
class Resync:
    deploy_seconds: float
    deploy_cpu: float
    """Worker CPU seconds of the deployment before it: the baseline of the same run."""
    seconds: float
    """From the first refresh published to the last app's new comparison stored."""
    before: dict[str, Usage]
    after: dict[str, Usage]
    requests: dict[str, int]
    """Requests the local cluster served during the resync, by verb."""


async def resync(fleet: Fleet) -> tuple[float, dict[str, int]]:
    """Publish a `latest` refresh per app; seconds until all compared, and cluster requests."""
    apps = fleet.apps
    seqs = {ref: state.seq for ref, state in (await status.read(fleet.runtime.redis, apps)).items()}
    counts = await fleet.request_counts()
    limit = asyncio.Semaphore(PUBLISH_CONCURRENCY)

    async def refresh(ref: AppRef) -> None:
        async with limit:
            await publish(
                fleet.runtime.bus,
                schedules.RESYNC.channel,
                RenderRequest(ref, RefreshLevel.LATEST, REASON),
            )

    started = time.perf_counter()
    await asyncio.gather(*(refresh(ref) for ref in apps))
    await fleet.wait(
        apps,
        lambda ref, state: state.seq > seqs[ref] and state.settled_at(),
        within=fleet.options.timeout,
        what="compared again, Synced + Healthy",
    )
    seconds = time.perf_counter() - started
    await fleet.wait_idle()
    return seconds, difference(counts, await fleet.request_counts())


async def run(options: FleetOptions) -> Resync:
    async with Fleet.open(options) as fleet:
        started = fleet.worker_cpu()
        deployed = await fleet.deploy()
        deploy_cpu = fleet.worker_cpu() - started
        await fleet.wait_idle()
        before = fleet.usage()
        seconds, requests = await resync(fleet)
        return Resync(deployed, deploy_cpu, seconds, before, fleet.usage(), requests)


def main(argv: list[str]) -> int:
    ran = run_fleet("pipeline_resync", argv, __doc__, run)
    if ran is None:
        return 1
    for options, result in ran.ran:
        resync_report(options, result, argv)
    return 1 if ran.gave_up else 0


def resync_report(options: FleetOptions, result: Resync, argv: list[str]) -> None:
    workers = result.after["workers (all)"].cpu_seconds - result.before["workers (all)"].cpu_seconds
    report(
        f"pipeline_resync: one `latest` refresh of each of {options.apps} unchanged apps "
        f"x {options.resources} resources",
        f"{options.describe()}; local cluster, NATS and Redis in their own processes; "
        f"deployed first in {result.deploy_seconds:.1f} s, then left until idle",
        [
            Line(
                "worker CPU",
                f"{workers:.2f} s = {workers / result.deploy_cpu:.3f}x the deployment's "
                f"{result.deploy_cpu:.1f} s",
                f"< {TARGET_CPU:g} CPU s",
            ),
            Line("all processes CPU", all_processes(result.before, result.after)),
            Line("LIST calls", str(result.requests.get("list", 0)), f"{TARGET_LISTS}"),
            Line("cluster requests", verbs(result.requests)),
            Line("all compared after", f"{result.seconds:.1f} s"),
            Line("by process", ""),
            *usage_lines(result.before, result.after),
        ],
        "the worker CPU of deploying the same apps, same fleet, same run; Argo CD's application "
        "controller LISTs nothing on a resync either (its cluster cache is watch-based); "
        "Sluice's watcher cache plays that part",
        ["python", "-m", "bench", "pipeline_resync", *argv],
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
