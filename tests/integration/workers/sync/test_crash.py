"""A sync worker killed (-9) in the middle of a wave: another replica finishes the operation.

Two replicas run as processes of their own. The first takes the operation alone; when
the first object of wave 0 has been written, every further API request of the cluster
is held (an injected fault), so that replica is caught with the wave's actions persisted
as in flight and half performed. It is killed with SIGKILL; the fault is lifted; the
second replica, started before the kill, must take the step over from its redelivered
message and finish the operation, and no hook may have been created twice.
"""

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.localcluster import LocalCluster
from app.localcluster.eventlog import Change
from app.model.sync import OperationPhase
from app.runtime.settings import Settings
from tests.integration.workers.sync.conftest import (
    HOOK,
    WAVE,
    Recorder,
    Shop,
    config_map,
    deployment,
    job,
    service,
)
from tests.integration.workers.sync.replica import ready_key
from tests.support.waiting import eventually

REPO = Path(__file__).resolve().parents[4]


class Replicas:
    """Replica processes of this test, killed (if still running) when it ends."""

    def __init__(self, settings: Settings, local_cluster: LocalCluster, tmp_path: Path) -> None:
        self._settings = settings
        self._cluster = local_cluster
        self._tmp = tmp_path
        self.processes: dict[str, asyncio.subprocess.Process] = {}

    async def start(self, name: str, shop: Shop) -> asyncio.subprocess.Process:
        timing = self._settings.timing
        config = {
            "name": name,
            "nats": self._settings.nats.url,
            "redis": self._settings.redis.url,
            "kubeconfig": str(self._cluster.kubeconfig_path),
            "state_dir": str(self._tmp / f"state-{name}"),
            "wave_delay": timing.wave_delay,
            "health_wait_fallback": timing.health_wait_fallback,
        }
        log = (self._tmp / f"replica-{name}.log").open("wb")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.integration.workers.sync.replica",
            json.dumps(config),
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        log.close()
        self.processes[name] = process

        async def ready() -> bool:
            return await shop.rt.redis.get(ready_key(name)) == str(process.pid).encode()

        await eventually(ready, timeout=30, what=f"replica {name} to start")
        return process

    async def close(self) -> None:
        for process in self.processes.values():
            if process.returncode is None:
                process.kill()
            await process.wait()


@pytest.fixture
async def replicas(
    settings: Settings, local_cluster: LocalCluster, tmp_path: Path
) -> AsyncIterator[Replicas]:
    running = Replicas(settings, local_cluster, tmp_path)
    try:
        yield running
    finally:
        await running.close()


def smoke_hook() -> dict[str, Any]:
    """A PostSync hook named by the operation (`generateName`): the same on every replica."""
    hook = job("", {HOOK: "PostSync"})
    hook["metadata"] = {"generateName": "smoke-", "annotations": {HOOK: "PostSync"}}
    return hook


@pytest.mark.parametrize(
    "hooks",
    [
        pytest.param(["migrate", "smoke"], id="hook-worker-killed"),
        pytest.param(["smoke"], id="sync-worker-killed"),
    ],
)
async def test_a_replica_killed_mid_wave_is_taken_over_and_no_hook_runs_twice(
    shop: Shop,
    replicas: Replicas,
    recorder: Recorder,
    local_cluster: LocalCluster,
    hooks: list[str],
) -> None:
    """With a PreSync hook (`migrate`), the wave's step also releases that hook's finalizer,
    so the hook worker performs it; without one, the sync worker does."""
    presync = "migrate" in hooks
    await shop.deploy(
        *([job("migrate", {HOOK: "PreSync"})] if presync else []),
        service("front"),
        deployment("web"),
        config_map("late", {WAVE: "1"}),
        smoke_hook(),
    )
    first = await replicas.start("first", shop)
    caught = asyncio.Event()

    def hold_the_cluster(change: Change) -> None:
        if (change.type, change.resource.resource) == ("ADDED", "services"):
            local_cluster.faults.configure(timeout_rate=1.0, timeout_seconds=60.0)
            caught.set()

    stop_listening = local_cluster.events.listen(None, hold_the_cluster)
    try:
        operation_id = await shop.start()
        await asyncio.wait_for(caught.wait(), 20)
        stored = await shop.rt.operations.load_sync(shop.ref)
        assert stored is not None and stored.sync["inFlight"], "the wave is not in flight"
        await replicas.start("second", shop)
        first.kill()
        await first.wait()
    finally:
        stop_listening()
        local_cluster.faults.clear()
    state = await shop.finished(operation_id, timeout=40)
    assert (state.phase, state.message) == (
        OperationPhase.SUCCEEDED,
        "successfully synced (no more tasks)",
    )
    created = [name for _, name in recorder.added("jobs")]
    assert sorted(name.split("-")[0] for name in created) == hooks, created
    for resource, name in (("services", "front"), ("deployments", "web"), ("configmaps", "late")):
        recorder.created_at(resource, name)
