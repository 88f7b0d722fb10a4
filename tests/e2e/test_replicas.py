"""Three replicas of every worker, each a process of its own, under a storm (issue 4).

Every worker runs as `sluice worker <name>` three times over, on the test's NATS, Redis
and local cluster. Fifty apps are applied with kubectl; while they sync, 2,000 refreshes
at mixed levels are published for them. Every app must end Synced + Healthy at the
commit; the sync and hook workers' logged runs must never overlap for one app, across
all replicas; and the coalescing must keep the comparisons per app to a handful.
"""

import asyncio
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from app.bus.messages import REFRESH, RefreshRequest
from app.bus.publish import publish
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.runtime.runtime import Runtime
from tests.e2e.manifests import CONTROL, application, as_yaml, config_map, deployment, service
from tests.e2e.pipeline import APPLICATION, operation_done, synced_healthy
from tests.e2e.processes import Processes
from tests.e2e.spans import overlaps, spans
from tests.support.fixtures_cluster import Kubectl
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually
from workers import registry

pytestmark = [pytest.mark.kubectl, pytest.mark.slow, pytest.mark.timeout(300)]

APPS = 50
REPLICAS = 3
STORM = 2000
STORM_LEVELS = (RefreshLevel.RECENT, RefreshLevel.LATEST, RefreshLevel.FORCE)
MAX_COMPARES_PER_APP = 44
"""Without the storm an app is compared about 5 times (7 at most, seen on 2 loaded cores);
one comparison per storm refresh would make that 45. Coalescing merges only the requests
that arrive while a comparison runs, so how far below 45 an app stays depends on how fast
the storm arrives against how fast a comparison finishes: 14 to 18 when the test runs
alone, up to 38 in one CI run on the same 2-core machine."""
MAX_MEAN_COMPARES = 32
"""The mean over the apps moves less than the maximum: 11.9 to 23.7 seen."""


def names() -> list[str]:
    return [f"svc-{i:02d}" for i in range(APPS)]


def fleet() -> dict[str, str]:
    """One directory per app: a ConfigMap, a Deployment and its Service."""
    return {
        f"apps/{name}/app.yaml": as_yaml(
            config_map(f"{name}-config", owner=name), deployment(name), service(name)
        )
        for name in names()
    }


async def storm(runtime: Runtime) -> None:
    """STORM refreshes spread over the apps, levels mixed, published 50 at a time."""
    chosen = random.Random(4)
    requests = [
        RefreshRequest(
            AppRef(CONTROL, names()[i % APPS]), chosen.choice(STORM_LEVELS), f"storm #{i}"
        )
        for i in range(STORM)
    ]
    for first in range(0, STORM, 50):
        await asyncio.gather(
            *(publish(runtime.bus, REFRESH, r) for r in requests[first : first + 50])
        )


async def test_three_replicas_of_every_worker_sync_fifty_apps_through_a_storm(
    runtime: Runtime, processes: Processes, kubectl: Kubectl, git_repo: GitRepo, tmp_path: Path
) -> None:
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CONTROL}}
    )
    began = time.monotonic()
    await asyncio.gather(
        *(
            processes.start(name, replica)
            for name in registry.WORKERS
            for replica in range(REPLICAS)
        )
    )
    started = time.monotonic()
    commit = git_repo.commit(fleet())
    manifest = tmp_path / "fleet.yaml"
    manifest.write_text(
        as_yaml(
            *(
                application(
                    name,
                    git_repo.url,
                    path=f"apps/{name}",
                    namespace=name,
                    automated={"prune": True},
                )
                for name in names()
            )
        )
    )
    await kubectl("apply", "-f", str(manifest))
    await storm(runtime)

    async def all_synced() -> int | None:
        listed = await runtime.control_plane.list(APPLICATION, "Application", namespace=CONTROL)
        done = sum(
            1
            for app in listed.items
            if synced_healthy(app.get("status") or {}, commit)
            and operation_done(app.get("status") or {})
        )
        return done if done == APPS else None

    await eventually(all_synced, timeout=120, interval=0.5, what=f"all {APPS} apps synced")
    synced = time.monotonic()
    await processes.close()

    sync_runs, sync_open = spans(processes.named("sync"), "sync")
    hook_runs, hook_open = spans(processes.named("hooks"), "hooks")
    assert sync_open == 0 and hook_open == 0, "a run started and never ended"
    assert {r.app for r in sync_runs} == {f"{CONTROL}/{name}" for name in names()}
    assert overlaps(sync_runs) == []
    assert overlaps(hook_runs) == []
    by_replica = Counter(r.replica for r in sync_runs)
    assert len(by_replica) > 1, f"one replica took every sync run: {by_replica}"

    compares = Counter(
        str(record["app"])
        for _, record in processes.named("compare")
        if record.get("event") == "compare.compared"
    )
    assert set(compares) == {f"{CONTROL}/{name}" for name in names()}
    most, mean = max(compares.values()), sum(compares.values()) / APPS
    print(
        f"\n{STORM} refreshes for {APPS} apps: compares per app max {most}, mean {mean:.1f}; "
        f"sync runs {len(sync_runs)} over replicas {dict(by_replica)}; workers started in "
        f"{started - began:.1f} s, apps synced {synced - started:.1f} s later"
    )
    assert most <= MAX_COMPARES_PER_APP, compares.most_common(5)
    assert mean <= MAX_MEAN_COMPARES, f"compares per app: mean {mean:.1f}"
