"""The whole pipeline's parts for integration tests: a Runtime on real servers, a git repo.

- `settings`: Settings pointing at the session NATS, this test's Redis database, the
  test's local cluster and a state dir under tmp_path, with local repositories allowed
  and short timings (resync off unless a test turns it on).
- `runtime`: `Runtime.open(settings)` (streams and consumers created), closed after.
- `git_repo`: an empty `GitRepo` served over `file://`.
- `pipeline_workers`: every worker but the poller started on `runtime` in this process
  (refreshes come from the watcher and the test), stopped together after.
"""

import asyncio
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from app.bus.connection import Bus, NatsSettings
from app.localcluster import LocalCluster
from app.runtime.runtime import Runtime
from app.runtime.settings import ControlPlaneSettings, Settings, TimingSettings
from app.runtime.worker import Worker
from app.store.connection import RedisSettings
from tests.support.gitrepo import GitRepo
from workers import registry


@pytest.fixture
def settings(
    tmp_path: Path, nats_url: str, redis_db_url: str, bus: Bus, local_cluster: LocalCluster
) -> Settings:
    """Settings for a pipeline test (the `bus` fixture has cleared earlier tests' streams)."""
    return Settings(
        nats=NatsSettings(url=nats_url, name="sluice-test"),
        redis=RedisSettings(url=redis_db_url),
        control_plane=ControlPlaneSettings(
            namespace="sluice", kubeconfig=str(local_cluster.kubeconfig_path)
        ),
        timing=replace(TimingSettings(), resync=0.0, wave_delay=0.2),
        state_dir=tmp_path / "state",
        allow_local_repos=True,
        concurrency=8,
    )


@pytest.fixture
async def runtime(settings: Settings) -> AsyncIterator[Runtime]:
    async with Runtime.open(settings) as rt:
        yield rt


@pytest.fixture
def git_repo(tmp_path: Path) -> Iterator[GitRepo]:
    repo = GitRepo.create(tmp_path / "repo")
    yield repo
    repo.close()


PIPELINE = ("watcher", "render", "compare", "sync", "hooks")


@pytest.fixture
async def pipeline_workers(runtime: Runtime) -> AsyncIterator[list[Worker]]:
    started: list[Worker] = []
    try:
        for name in PIPELINE:
            worker = registry.build(name, runtime)
            await worker.start()
            started.append(worker)
        yield started
    finally:
        await asyncio.gather(*(worker.stop() for worker in started))
