"""10,000 refresh requests over 1,000 apps at once, three replicas of each worker: comparisons.

The fleet of `pipeline_scale` (every part in its own process), but with three processes of
each worker unless `--replicas` says otherwise, is deployed and left until idle. Then:

- baseline: one `latest` refresh per app (what a resync sends), until every app has
  stored a new comparison and the workers are idle: worker CPU and comparisons per app;
- storm: `--per-app` (10) `latest` refreshes per app, shuffled across apps and published
  64 at a time, then until the workers are idle. An app's refresh is lost unless either a
  comparison began after its last request was published (the app's comparison counter,
  `compare-seq`, read right after the publish returned, is below the sequence of its
  last stored comparison), or a refresh or render run that began after the request was
  stored has answered it (the app's `answered` mark for that level is at or above the
  request's stream sequence; that run's comparison may have begun before the publish
  returned).

Figures: comparisons per app in the storm (average and largest; the coalescer folds what
arrives while one runs, and drops what a run that began later has answered), apps whose
last refresh was lost, and the storm's worker CPU as a multiple of the baseline's.
"""

import asyncio
import random
import statistics
import sys
import time
from dataclasses import dataclass, replace

from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.store import keys
from bench.support import status
from bench.support.figures import Line, load_average, report
from bench.support.fleet import WORKERS, Fleet, FleetOptions
from bench.support.fleet_command import all_processes, run_fleet, usage_lines
from bench.support.processes import Usage

PER_APP = 10
REPLICAS = 3
PUBLISH_CONCURRENCY = 64
TARGET_MEAN = 2.0
TARGET_MAX = 3
SEED = 16


@dataclass(frozen=True, slots=True)
class Round:
    """What one round of refreshes cost."""

    seconds: float
    """From the first request published to the workers idle again."""
    comparisons: list[int]
    """Comparisons stored per app during the round."""
    lost: int
    """Apps whose last request was neither followed by a comparison nor answered by a run."""
    answered: int
    """Apps whose last request was answered by a run whose comparison began before the
    benchmark could read the counter (not lost, counted apart)."""
    before: dict[str, Usage]
    after: dict[str, Usage]
    load: str
    """The load average at the end of the round."""

    @property
    def worker_cpu(self) -> float:
        return self.after["workers (all)"].cpu_seconds - self.before["workers (all)"].cpu_seconds


@dataclass(frozen=True, slots=True)
class Storm:
    options: FleetOptions
    baseline: Round
    storm: Round


async def _round(fleet: Fleet, requests: list[AppRef]) -> Round:
    """Publish one `latest` refresh per entry, wait until idle; what it cost, what was lost."""
    apps = fleet.apps
    redis = fleet.runtime.redis
    seqs = {ref: state.seq for ref, state in (await status.read(redis, apps)).items()}
    remaining = {ref: 0 for ref in apps}
    for ref in requests:
        remaining[ref] += 1
    begun_after: dict[AppRef, int] = {}
    last_seq: dict[AppRef, int] = {}
    limit = asyncio.Semaphore(PUBLISH_CONCURRENCY)
    before = fleet.usage()

    async def refresh(i: int, ref: AppRef) -> None:
        async with limit:
            message = RefreshRequest(ref, RefreshLevel.LATEST, f"storm request {i}")
            seq = await publish(fleet.runtime.bus, REFRESH, message)
            last_seq[ref] = max(seq, last_seq.get(ref, 0))
            remaining[ref] -= 1
            if remaining[ref] == 0:
                begun_after[ref] = int(await redis.get(keys.compare_seq(ref)) or 0)

    started = time.perf_counter()
    await asyncio.gather(*(refresh(i, ref) for i, ref in enumerate(requests)))
    await fleet.wait(
        apps, lambda _ref, state: state.settled_at(), within=fleet.options.timeout, what="settled"
    )
    await fleet.wait_idle()
    seconds = time.perf_counter() - started
    after_states = await status.read(redis, apps)
    counts = [after_states[ref].seq - seqs[ref] for ref in apps]
    late = [ref for ref in apps if after_states[ref].seq <= begun_after[ref]]
    marks = [
        await redis.hget(keys.answered(REFRESH.work.value, ref), f"l{int(RefreshLevel.LATEST)}")
        for ref in late
    ]
    lost = sum(1 for ref, mark in zip(late, marks, strict=True) if int(mark or 0) < last_seq[ref])
    return Round(seconds, counts, lost, len(late) - lost, before, fleet.usage(), load_average())


async def run(options: FleetOptions) -> Storm:
    if not options.replicas:
        options = replace(options, replicas=dict.fromkeys(WORKERS, REPLICAS))
    async with Fleet.open(options) as fleet:
        await fleet.deploy()
        await fleet.wait_idle()
        baseline = await _round(fleet, fleet.apps)
        requests = [ref for ref in fleet.apps for _ in range(PER_APP)]
        random.Random(SEED).shuffle(requests)
        storm = await _round(fleet, requests)
        return Storm(options, baseline, storm)


def _spread(counts: list[int]) -> str:
    return f"{statistics.mean(counts):.2f} on average, at most {max(counts)}"


def main(argv: list[str]) -> int:
    ran = run_fleet("refresh_storm", argv, __doc__, run)
    if ran is None:
        return 1
    for _, result in ran.ran:
        options, baseline, storm = result.options, result.baseline, result.storm
        ratio = storm.worker_cpu / baseline.worker_cpu if baseline.worker_cpu else float("nan")
        report(
            f"refresh_storm: {PER_APP * options.apps:,} `latest` refreshes over {options.apps} "
            f"apps x {options.resources} resources",
            f"{options.describe()}; local cluster, NATS and Redis in their own processes",
            [
                Line(
                    "comparisons per app",
                    _spread(storm.comparisons),
                    f"<= {TARGET_MEAN:g} on average, <= {TARGET_MAX} at most",
                ),
                Line("apps whose last refresh was lost", str(storm.lost), "0"),
                Line(
                    "  answered by a run, compared before the publish returned",
                    str(storm.answered),
                ),
                Line("storm worker CPU", f"{storm.worker_cpu:.2f} s = {ratio:.2f}x the baseline"),
                Line(
                    "baseline worker CPU",
                    f"{baseline.worker_cpu:.2f} s (one refresh per app, "
                    f"{_spread(baseline.comparisons)} comparisons)",
                ),
                Line("storm: idle again after", f"{storm.seconds:.1f} s"),
                Line("load average", f"{storm.load} (1 / 5 min) at the end of the storm"),
                Line("all processes CPU", all_processes(storm.before, storm.after)),
                Line("by process", ""),
                *usage_lines(storm.before, storm.after),
            ],
            "one `latest` refresh per app (a resync), same fleet, same run",
            ["python", "-m", "bench", "refresh_storm", *argv],
        )
    return 1 if ran.gave_up else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
