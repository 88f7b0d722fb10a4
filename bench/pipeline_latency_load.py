"""Push-to-synced latency of one app while 1,000 others are managed and resynced.

The fleet of `pipeline_scale` (NATS, Redis, the local cluster and every worker in its own
process), started with a short periodic resync (`--resync`, default 20 s, plus up to
`--resync-jitter` 10 s at random) so the resync timers fire all through the measurement.
One more app, of `--resources` objects (default 20, as `pipeline_latency`), lives in a
repository of its own. Each round commits a release of it and publishes what a push
webhook publishes (`FreshRefsPublisher`: the repository's cached listing dropped, then a
`latest` RefreshRequest); the clock stops when the status store shows it Synced + Healthy
at the new commit.

Baseline, in the same run on the same processes: the same rounds before the fleet's
`--apps` apps are registered (only the warm-up app is managed besides it). Then the fleet
is deployed, the benchmark waits until every app has been compared again by its resync
timer (proof the resync runs), and measures the loaded rounds. It prints both p50 and p95,
the loaded p50 as a multiple of the idle one, how many comparisons the fleet made while
the loaded rounds ran and the workers' CPU over them, and the load average after each
phase.
"""

import argparse
import asyncio
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from app import log_setup
from app.api.server import FreshRefsPublisher
from app.bus.messages import RefreshRequest
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from bench.support import status
from bench.support.figures import Line, load_average, percentile, report
from bench.support.fleet import NAMESPACE, Fleet, FleetOptions
from bench.support.latency import SETTLE_TIMEOUT, timed_releases
from bench.support.options import positive
from bench.support.workload import Workload

TARGET_P50 = 0.3
APP = "latency"
REASON = "push (benchmark)"
WARMUP_ROUNDS = 3
"""Rounds dropped at the start of each phase (the first ones pay cold caches)."""


@dataclass(frozen=True, slots=True)
class Phase:
    """The rounds of one phase and what the fleet did meanwhile."""

    samples: list[float]
    load: str
    """The load average at the end of the phase."""
    comparisons: int
    """Comparisons the fleet's other apps stored while the rounds ran."""
    seconds: float
    """Wall time of the rounds."""
    worker_cpu: float
    """The workers' CPU seconds while the rounds ran."""

    @property
    def p50(self) -> float:
        return percentile(self.samples, 50)

    @property
    def p95(self) -> float:
        return percentile(self.samples, 95)


async def _phase(fleet: Fleet, latency: Workload, runs: int) -> Phase:
    app = AppRef(NAMESPACE, APP)
    publisher = FreshRefsPublisher(fleet.runtime)

    async def push(_sha: str) -> None:
        await publisher(RefreshRequest(app, RefreshLevel.LATEST, REASON))

    others = fleet.apps
    before = await status.read(fleet.runtime.redis, others)
    cpu = fleet.worker_cpu()
    started = asyncio.get_running_loop().time()
    samples = await timed_releases(
        fleet.runtime.redis, latency, app, runs, push, warmup=WARMUP_ROUNDS
    )
    seconds = asyncio.get_running_loop().time() - started
    cpu = fleet.worker_cpu() - cpu
    after = await status.read(fleet.runtime.redis, others)
    compared = sum(after[ref].seq - before[ref].seq for ref in others)
    return Phase(samples, load_average(), compared, seconds, cpu)


async def _resynced(fleet: Fleet) -> None:
    """Until every app of the fleet stored a comparison after now: its resync timer fired."""
    seqs = {ref: s.seq for ref, s in (await status.read(fleet.runtime.redis, fleet.apps)).items()}
    await fleet.wait(
        fleet.apps,
        lambda ref, state: state.seq > seqs[ref],
        within=fleet.options.timeout,
        what="compared again by the resync",
    )


async def run(options: FleetOptions, resources: int, runs: int) -> tuple[Phase, Phase, float]:
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        latency = Workload.create(Path(tmp) / "repo", [APP], resources)
        async with Fleet.open(options) as fleet:
            await fleet.runtime.control_plane.apply(latency.application(APP, NAMESPACE))
            await fleet.wait(
                [AppRef(NAMESPACE, APP)],
                status.AppState.settled(),
                within=SETTLE_TIMEOUT,
                what="Synced + Healthy after registration",
            )
            idle = await _phase(fleet, latency, runs)
            deployed = await fleet.deploy()
            await _resynced(fleet)
            loaded = await _phase(fleet, latency, runs)
            return idle, loaded, deployed


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench pipeline_latency_load", description=__doc__
    )
    parser.add_argument("--apps", type=positive, default=1000, help="other apps managed meanwhile")
    parser.add_argument("--resources", type=positive, default=20, help="objects in the timed app")
    parser.add_argument("--runs", type=positive, default=20, help="timed rounds per phase")
    parser.add_argument(
        "--resync", type=positive, default=20, help="seconds between an app's periodic resyncs"
    )
    parser.add_argument(
        "--resync-jitter", type=int, default=10, help="seconds added at random to each resync"
    )
    parser.add_argument("--timeout", type=positive, default=600, help="give up after (seconds)")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    log_setup.configure(level="warning")
    options = FleetOptions(
        apps=args.apps,
        timeout=args.timeout,
        resync=args.resync,
        resync_jitter=max(0, args.resync_jitter),
    )
    try:
        idle, loaded, deployed = asyncio.run(run(options, args.resources, args.runs))
    except (TimeoutError, RuntimeError) as e:
        print(f"pipeline_latency_load: {e}", file=sys.stderr)
        return 1
    rate = loaded.comparisons / loaded.seconds
    report(
        f"pipeline_latency_load: push -> Synced + Healthy of one app of {args.resources} "
        f"resources while {args.apps} others are managed and resynced",
        f"{options.describe()}; resync every {args.resync} s + up to {args.resync_jitter} s; "
        f"the {args.apps} apps of {options.resources} resources deployed in {deployed:.1f} s "
        "between the phases",
        [
            Line(
                "p50 under load",
                f"{loaded.p50:.3f} s = {loaded.p50 / idle.p50:.2f}x idle",
                f"< {TARGET_P50} s",
            ),
            Line("p95 under load", f"{loaded.p95:.3f} s = {loaded.p95 / idle.p95:.2f}x idle"),
            Line(
                "p50 / p95 idle",
                f"{idle.p50:.3f} / {idle.p95:.3f} s (same processes, "
                "before the fleet was registered)",
            ),
            Line(
                "min / max under load", f"{min(loaded.samples):.3f} / {max(loaded.samples):.3f} s"
            ),
            Line(
                "rounds", f"{len(loaded.samples)} per phase (after {WARMUP_ROUNDS} warm-ups each)"
            ),
            Line(
                "fleet comparisons meanwhile",
                f"{loaded.comparisons} in {loaded.seconds:.1f} s "
                f"({rate:.1f} per second; idle phase: {idle.comparisons})",
            ),
            Line(
                "worker CPU meanwhile",
                f"{loaded.worker_cpu:.1f} s "
                f"({loaded.worker_cpu / loaded.seconds:.2f} cores; idle phase "
                f"{idle.worker_cpu / idle.seconds:.2f} cores)",
            ),
            Line(
                "load average",
                f"{idle.load} after the idle phase, {loaded.load} after the loaded one (1 / 5 min)",
            ),
        ],
        "the same rounds on the same processes before the fleet was registered (idle); "
        "pipeline_latency measures the idle case on the embedded stack",
        ["python", "-m", "bench", "pipeline_latency_load", *argv],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
