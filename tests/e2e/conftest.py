"""End-to-end fixtures: the whole pipeline, in this process or as worker processes.

- `settings`: the pipeline settings with end-to-end timings: the poller lists the test
  repository every half second (a commit reaches its apps as it would in production,
  without a test publishing refreshes), and a sync step waiting on health re-checks after
  half a second when no watcher wake-up came first.
- `pipeline`: every worker started on the test's Runtime (`tests.e2e.pipeline.Pipeline`),
  stopped after the test.
- `changes`: every write the local cluster stores, timed (`tests.e2e.pipeline.Changes`).
- `processes`: `sluice worker <name>` processes on the test's servers
  (`tests.e2e.processes.Processes`), stopped and reaped after the test.
"""

import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.localcluster import LocalCluster
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.e2e.pipeline import Changes, Pipeline
from tests.e2e.processes import Processes
from tests.support.fixtures_cluster import Kubectl

GIT_POLL_SECONDS = 0.5
HEALTH_RECHECK_SECONDS = 0.5


@pytest.fixture
def settings(settings: Settings) -> Settings:
    timing = replace(
        settings.timing, git_poll=GIT_POLL_SECONDS, health_wait_fallback=HEALTH_RECHECK_SECONDS
    )
    return replace(settings, timing=timing)


@pytest.fixture
async def pipeline(runtime: Runtime, kubectl: Kubectl, tmp_path: Path) -> AsyncIterator[Pipeline]:
    running = Pipeline(runtime, kubectl, tmp_path)
    try:
        await running.start()
        yield running
    finally:
        await running.stop()


@pytest.fixture
def changes(local_cluster: LocalCluster) -> Iterator[Changes]:
    recorded = Changes()
    stop = local_cluster.events.listen(None, recorded)
    yield recorded
    stop()


@pytest.fixture
async def processes(
    settings: Settings, local_cluster: LocalCluster, tmp_path: Path
) -> AsyncIterator[Processes]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "NATS_URL": settings.nats.url,
        "REDIS_URL": settings.redis.url,
        "KUBECONFIG": str(local_cluster.kubeconfig_path),
        "SLUICE_NAMESPACE": settings.control_plane.namespace,
        "SLUICE_ALLOW_LOCAL_REPOS": "true",
        "SLUICE_RESYNC_SECONDS": "0",
        "SLUICE_GIT_POLL_SECONDS": str(settings.timing.git_poll),
        "SLUICE_LOG_FORMAT": "json",
        "SLUICE_LOG_LEVEL": "info",
    }
    log_dir = tmp_path / "workers"
    log_dir.mkdir()
    started = Processes(env, log_dir)
    try:
        yield started
    finally:
        await started.close()
