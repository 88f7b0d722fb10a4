"""Starting and stopping: `sluice localcluster` as a process, and snapshots across restarts."""

import asyncio
import json
import os
import signal
import stat
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import aiohttp
import pytest
import yaml

from app.localcluster import LocalCluster
from app.localcluster.snapshot import SnapshotError
from tests.integration.localcluster.conftest import (
    CONFIGMAPS,
    DEPLOYMENTS,
    Http,
    conditions,
    configmap,
    deployment,
)
from tests.support.fixtures_cluster import cluster_settings
from tests.support.waiting import eventually

Factory = Callable[..., AbstractAsyncContextManager[LocalCluster]]
REPO = Path(__file__).resolve().parents[3]


async def sluice(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "app.cli.main", "--log-format", "json", "localcluster", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip


async def test_the_command_serves_writes_a_kubeconfig_and_saves_on_ctrl_c(tmp_path: Path) -> None:
    kubeconfig, snapshot = tmp_path / "kubeconfig", tmp_path / "cluster.json"
    proc = await sluice(
        "--port", "0", "--kubeconfig", str(kubeconfig), "--snapshot", str(snapshot), "--delay", "0"
    )
    try:
        assert proc.stdout is not None
        first = await asyncio.wait_for(proc.stdout.readline(), 30)
        assert first.startswith(b"local cluster listening on http://127.0.0.1:")
        url = first.decode().split()[-1]
        config = yaml.safe_load(kubeconfig.read_text())
        assert config["clusters"][0]["cluster"]["server"] == url
        assert stat.S_IMODE(kubeconfig.stat().st_mode) == 0o600
        async with aiohttp.ClientSession() as session:
            await Http(session, url).ok("POST", CONFIGMAPS, configmap("kept", {"k": "v"}))
        proc.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    saved = json.loads(snapshot.read_text())
    names = {
        o["object"]["metadata"]["name"] for o in saved["objects"] if o["resource"] == "configmaps"
    }
    assert names == {"kept"}


async def test_the_command_refuses_a_bad_snapshot_with_its_path(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    proc = await sluice("--snapshot", str(bad), "--kubeconfig", str(tmp_path / "kubeconfig"))
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 1
    assert f"snapshot {bad}: is not a local cluster snapshot" in err.decode()


async def test_a_snapshot_keeps_the_cluster_across_restarts(
    local_cluster_factory: Factory, tmp_path: Path
) -> None:
    path = tmp_path / "state" / "cluster.json"
    async with (
        local_cluster_factory(snapshot_path=path, controllers_enabled=False) as first,
        aiohttp.ClientSession() as session,
    ):
        http = Http(session, first.url)
        await http.ok("POST", DEPLOYMENTS, deployment(replicas=1))
        before = (await http.ok("GET", CONFIGMAPS))["metadata"]["resourceVersion"]
    async with (
        local_cluster_factory(snapshot_path=path) as second,
        aiohttp.ClientSession() as session,
    ):
        http = Http(session, second.url)
        restored = await http.ok("GET", f"{DEPLOYMENTS}/web")
        assert restored["metadata"]["generation"] == 1

        async def available() -> bool:
            obj = await http.ok("GET", f"{DEPLOYMENTS}/web")
            return conditions(obj).get("Available", ("", ""))[0] == "True"

        await eventually(available, timeout=5, what="the restored Deployment reconciled")
        old = int(before) - 1
        stale = await http.get(f"{CONFIGMAPS}?watch=1&resourceVersion={old}")
        assert stale.body["type"] == "ERROR" and stale.body["object"]["code"] == 410


async def test_a_failed_start_leaves_nothing_running_and_keeps_the_snapshot(
    local_cluster: LocalCluster, tmp_path: Path
) -> None:
    path = tmp_path / "cluster.json"
    path.write_text('{"format": "unknown"}')
    port = int(local_cluster.url.rsplit(":", 1)[1])
    taken = LocalCluster(cluster_settings(tmp_path / "second", port=port, snapshot_path=path))
    with pytest.raises(SnapshotError):
        await taken.start()
    assert path.read_text() == '{"format": "unknown"}'
    path.unlink()
    busy = LocalCluster(cluster_settings(tmp_path / "third", port=port, snapshot_path=path))
    with pytest.raises(OSError):
        await busy.start()
    assert not path.exists()
