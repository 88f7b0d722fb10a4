"""Push-to-synced latency of one app on the embedded stack (`sluice up` in this process).

`LatencyRun` starts a `Stack` (embedded NATS and Redis, the local cluster with controller
delay 0, every worker, optionally the API) with periodic resync and Git polling off,
registers one app of `resources` objects, and waits until it is Synced + Healthy. Each
`measure` round then commits a release of the app (a new image tag in every Deployment),
starts the clock, calls `trigger(sha)` (what tells Sluice about the push), and stops the
clock once the status store shows the app Synced + Healthy at that commit.

`timed_releases` is that clock on its own, for a stack started elsewhere (the fleet of
`pipeline_latency_load`).

`floor` is the baseline of the same run: the runtime's cluster client deploying the same
release to a namespace of its own, with nothing in between: a server dry run and a
server-side apply of every object (all at once), then GETs until every Deployment has
rolled out (observed its generation, every replica updated and available).
"""

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app import log, log_setup
from app.cli.stack import Stack, StackOptions
from app.cluster import Cluster
from app.model.identity import AppRef
from app.model.resource import KubeObject
from app.runtime.runtime import Runtime
from app.runtime.settings import TimingSettings
from app.store.connection import Redis
from bench.support import status
from bench.support.figures import Line, load_average, percentile, report
from bench.support.options import positive
from bench.support.workload import Workload, app_manifests, app_names

NAMESPACE = "sluice"
SETTLE_TIMEOUT = 60.0
"""Seconds one round may take before the benchmark gives up (and says so)."""
TARGET_P50 = 0.5

logger = log.get("bench")


@dataclass
class LatencyRun:
    stack: Stack
    workload: Workload
    app: AppRef

    @property
    def runtime(self) -> Runtime:
        assert self.stack.runtime is not None
        return self.stack.runtime

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, workdir: Path, resources: int, *, api: bool) -> AsyncIterator["LatencyRun"]:
        workload = Workload.create(workdir / "repo", app_names(1), resources)
        timing = replace(TimingSettings(), resync=0.0, git_poll=0.0)
        options = StackOptions(
            state_dir=workdir / "state",
            controller_delay=0.0,
            api_port=0 if api else -1,
            timing=timing,
        )
        async with Stack(options) as stack:
            assert stack.runtime is not None
            rt = stack.runtime
            await rt.control_plane.apply(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
            )
            await rt.control_plane.apply(workload.application(workload.apps[0], NAMESPACE))
            run = cls(stack, workload, AppRef(NAMESPACE, workload.apps[0]))
            await status.wait_until(
                rt.redis,
                [run.app],
                status.AppState.settled(),
                within=SETTLE_TIMEOUT,
                what="Synced + Healthy after registration",
            )
            yield run

    async def floor(self, runs: int, *, warmup: int = 1) -> list[float]:
        """Seconds the cluster client takes to deploy each release and see it rolled out."""
        cluster = self.runtime.control_plane
        namespace = "floor"
        await cluster.apply(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        )
        samples = []
        for round_no in range(warmup + runs):
            objects = app_manifests(namespace, self.workload.resources, round_no + 1)
            started = time.perf_counter()
            for dry_run in (True, False):
                await asyncio.gather(*(cluster.apply(o, dry_run=dry_run) for o in objects))
            deployments = [o for o in objects if o["kind"] == "Deployment"]
            await asyncio.gather(*(_rolled_out(cluster, o) for o in deployments))
            if round_no >= warmup:
                samples.append(time.perf_counter() - started)
        return samples

    async def measure(
        self, runs: int, trigger: Callable[[str], Awaitable[None]], *, warmup: int = 1
    ) -> list[float]:
        """Seconds from each release's commit to Synced + Healthy at it (warm-ups dropped)."""
        return await timed_releases(
            self.runtime.redis, self.workload, self.app, runs, trigger, warmup=warmup
        )


async def timed_releases(
    redis: Redis,
    workload: Workload,
    app: AppRef,
    runs: int,
    trigger: Callable[[str], Awaitable[None]],
    *,
    warmup: int = 1,
) -> list[float]:
    """Commit a release of `app` per round, call `trigger(sha)` and time until the status
    store shows it Synced + Healthy at that commit; the seconds of each round after the
    `warmup` ones."""
    samples = []
    for round_no in range(warmup + runs):
        sha = workload.release(app.name)
        started = time.perf_counter()
        await trigger(sha)
        await status.wait_until(
            redis,
            [app],
            status.AppState.settled(sha),
            within=SETTLE_TIMEOUT,
            what=f"Synced + Healthy at {sha[:7]}",
        )
        elapsed = time.perf_counter() - started
        logger.debug("bench.round", app=str(app), round=round_no, commit=sha[:7], seconds=elapsed)
        if round_no >= warmup:
            samples.append(elapsed)
    return samples


async def _rolled_out(cluster: Cluster, deployment: KubeObject) -> None:
    """Until the Deployment observed its generation and every replica is updated and available."""
    meta = deployment["metadata"]
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while time.monotonic() < deadline:
        live = await cluster.get("apps/v1", "Deployment", meta["name"], meta["namespace"])
        want = live["spec"].get("replicas", 1)
        state = live.get("status") or {}
        if (
            state.get("observedGeneration", 0) >= live["metadata"].get("generation", 0)
            and state.get("updatedReplicas") == want
            and state.get("availableReplicas") == want
        ):
            return
        await asyncio.sleep(status.POLL_SECONDS)
    raise TimeoutError(f"Deployment {meta['name']} did not roll out in {SETTLE_TIMEOUT:g} s")


def latency_main(
    name: str,
    argv: list[str],
    run: Callable[[int, int], Coroutine[Any, Any, tuple[list[float], list[float]]]],
    *,
    description: str | None,
    title: str,
    setup: str,
    baseline: str,
) -> int:
    """A latency benchmark's command: `--resources` and `--runs`, then `run(resources,
    runs)`'s samples and its floor's reported as p50 (held to TARGET_P50), p95, min and
    max, and the p50 as a multiple of the floor's."""
    parser = argparse.ArgumentParser(prog=f"python -m bench {name}", description=description)
    parser.add_argument("--resources", type=positive, default=20, help="objects in the app")
    parser.add_argument("--runs", type=positive, default=20, help="timed rounds")
    args = parser.parse_args(argv)
    log_setup.configure(level="warning")
    try:
        samples, floor = asyncio.run(run(args.resources, args.runs))
    except TimeoutError as e:
        print(f"{name}: {e}", file=sys.stderr)
        return 1
    p50, p95 = percentile(samples, 50), percentile(samples, 95)
    floor_p50 = percentile(floor, 50)
    report(
        f"{name}: {title}",
        f"one app of {args.resources} resources; {setup}",
        [
            Line("p50", f"{p50:.3f} s = {p50 / floor_p50:.2f}x the floor", f"< {TARGET_P50} s"),
            Line(
                "floor p50",
                f"{floor_p50:.3f} s (the cluster client deploying the same "
                "release: dry run, apply, rollout; same run)",
            ),
            Line("p95", f"{p95:.3f} s"),
            Line("min / max", f"{min(samples):.3f} / {max(samples):.3f} s"),
            Line("rounds", f"{len(samples)} (after 1 warm-up)"),
            Line("load average", f"{load_average()} (1 / 5 min) at the end"),
        ],
        f"the floor, same run; {baseline}",
        ["python", "-m", "bench", name, *argv],
    )
    return 0
