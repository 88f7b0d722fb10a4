"""A Jsonnet app and a plugin app through `sluice up`, as a user runs them.

One `sluice up` with a plugins directory holding a small plugin the test writes (found by
discovery: a `*.colour` file in the app directory). The Jsonnet app takes TLAs (a string
and code) and ext vars (one from the build environment); both apps reach Synced +
Healthy, their ConfigMaps land in the cluster with what Jsonnet and the plugin computed,
and a change in Git (`sluice app refresh`) moves each app to the new revision.
"""

import asyncio
import contextlib
import json
import os
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from app.cluster import Cluster, load_kubeconfig
from tests.e2e.processes import REPO, SLUICE
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

SYNC_TIMEOUT = 120.0
GENERATE = (
    "import json, os; colour = open('app.colour').read().strip(); "
    "print(json.dumps({'apiVersion': 'v1', 'kind': 'ConfigMap', "
    "'metadata': {'name': os.environ['ARGOCD_APP_NAME'] + '-colour'}, "
    "'data': {'colour': colour, 'revision': os.environ['ARGOCD_APP_REVISION_SHORT'], "
    "'greeting': os.environ.get('ARGOCD_ENV_GREETING', '')}}))"
)
LIB = """
{
  configMap(name, data): {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: name}, data: data},
  size: 'S',
}
"""
MAIN_JSONNET = """
local lib = import 'cm.libsonnet';
function(colour, replicas) [lib.configMap(std.extVar('app') + '-jsonnet', {
  colour: colour, replicas: std.toString(replicas), env: std.extVar('env'), size: lib.size,
})]
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Up:
    def __init__(self, state: Path, url: str, log: Path) -> None:
        self.state, self.url, self.log = state, url, log

    @property
    def token(self) -> str:
        return (self.state / "api-token").read_text().strip()

    async def cli(self, *args: str) -> tuple[int, str]:
        env = os.environ | {"SLUICE_SERVER": self.url, "SLUICE_TOKEN": self.token}
        process = await asyncio.create_subprocess_exec(
            str(SLUICE), *args, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, env=env | {"SLUICE_LOG_LEVEL": "warning"}, cwd=REPO,
        )  # fmt: skip
        try:
            async with asyncio.timeout(SYNC_TIMEOUT + 30):
                out, _ = await process.communicate()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        return process.returncode or 0, out.decode()

    async def app(self, name: str) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{self.url}/api/v1/applications/{name}", headers=headers) as answer,
        ):
            found: dict[str, Any] = json.loads(await answer.text())
            return found


@pytest.fixture
def plugins_dir(tmp_path: Path) -> Path:
    plugin = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ConfigManagementPlugin",
        "metadata": {"name": "colour"},
        "spec": {
            "version": "v1.0",
            "generate": {"command": [sys.executable, "-c", GENERATE]},
            "discover": {"fileName": "*.colour"},
        },
    }
    root = tmp_path / "plugins"
    (root / "colour").mkdir(parents=True)
    (root / "colour" / "plugin.yaml").write_text(yaml.safe_dump(plugin))
    return root


@pytest.fixture
async def up(tmp_path: Path, plugins_dir: Path) -> AsyncIterator[Up]:
    state = tmp_path / "state"
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SLUICE_", "REDIS_", "NATS_")) and key != "KUBECONFIG"
    }
    env |= {"HOME": str(tmp_path), "SLUICE_LOG_LEVEL": "info", "SLUICE_LOG_FORMAT": "json"}
    log = tmp_path / "up.log"
    out = os.open(log, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        process = await asyncio.create_subprocess_exec(
            str(SLUICE), "up", "--state-dir", str(state), "--api-port", str(port), "--no-examples",
            "--plugins-dir", str(plugins_dir),
            cwd=REPO, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=out,
        )  # fmt: skip
    finally:
        os.close(out)
    running = Up(state, f"http://127.0.0.1:{port}", log)
    try:

        async def answering() -> bool:
            if not (state / "api-token").is_file():
                return False
            with contextlib.suppress(aiohttp.ClientError, OSError, ValueError):
                await running.app("none")
                return True
            return False

        await eventually(answering, timeout=60, what="sluice up answers")
        yield running
    finally:
        if process.returncode is None:
            process.send_signal(2)
            try:
                async with asyncio.timeout(60):
                    await process.wait()
            except TimeoutError:
                process.kill()
                await process.wait()


def application(name: str, url: str, path: str, **source: Any) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": "sluice"},
        "spec": {
            "project": "default",
            "source": {"repoURL": url, "path": path, "targetRevision": "main", **source},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": name},
            "syncPolicy": {"automated": {}, "syncOptions": ["CreateNamespace=true"]},
        },
    }


JSONNET = {
    "tlas": [
        {"name": "colour", "value": "blue"},
        {"name": "replicas", "value": "1 + 2", "code": True},
    ],
    "extVars": [{"name": "app", "value": "${ARGOCD_APP_NAME}"}, {"name": "env", "value": "prod"}],
    "libs": ["vendor"],
}


async def config_map(up: Up, namespace: str, name: str) -> dict[str, str]:
    config = await load_kubeconfig(str(up.state / "kubeconfig"), None, allow_exec=False)
    async with Cluster(config) as cluster:
        found = await cluster.get("v1", "ConfigMap", name, namespace)
    data: dict[str, str] = found["data"]
    return data


async def test_jsonnet_and_plugin_apps_sync_and_follow_git(up: Up, tmp_path: Path) -> None:
    repo = GitRepo.create(tmp_path / "origin")
    lib = LIB
    first = repo.commit(
        {
            "vendor/cm.libsonnet": lib,
            "jsonnet/main.jsonnet": MAIN_JSONNET,
            "plugin/app.colour": "green\n",
        }
    )
    apps = {
        "jsonnet-app": application(
            "jsonnet-app", repo.url, "jsonnet", directory={"jsonnet": JSONNET}
        ),
        "plugin-app": application(
            "plugin-app", repo.url, "plugin",
            plugin={"env": [{"name": "GREETING", "value": "hello ${ARGOCD_APP_NAME}"}]},
        ),
    }  # fmt: skip
    for name, manifest in apps.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(manifest))
        code, out = await up.cli("app", "create", "-f", str(path))
        assert code == 0, out

    async def synced_at(name: str, commit: str) -> bool:
        status = (await up.app(name)).get("status") or {}
        sync, health = status.get("sync") or {}, status.get("health") or {}
        return (sync.get("status"), health.get("status"), sync.get("revision")) == (
            "Synced", "Healthy", commit,
        )  # fmt: skip

    for name in apps:
        code, out = await up.cli(
            "app", "wait", name, "--sync", "--health", "--timeout", str(SYNC_TIMEOUT)
        )
        failures = [line for line in up.log.read_text().splitlines() if "render.failed" in line]
        assert code == 0, (name, out, failures[-3:], (await up.app(name)).get("status"))
        assert await synced_at(name, first)
    assert await config_map(up, "jsonnet-app", "jsonnet-app-jsonnet") == {
        "colour": "blue", "replicas": "3", "env": "prod", "size": "S",
    }  # fmt: skip
    assert await config_map(up, "plugin-app", "plugin-app-colour") == {
        "colour": "green", "revision": first[:7], "greeting": "hello plugin-app",
    }  # fmt: skip

    second = repo.commit(
        {"vendor/cm.libsonnet": lib.replace("'S'", "'M'"), "plugin/app.colour": "red\n"}
    )
    repo.close()
    for name in apps:
        code, out = await up.cli("app", "refresh", name)
        assert code == 0, out
    for name in apps:
        await eventually(
            lambda name=name: synced_at(name, second),
            timeout=SYNC_TIMEOUT,
            what=f"{name} Synced + Healthy at the new commit",
        )
    assert (await config_map(up, "jsonnet-app", "jsonnet-app-jsonnet"))["size"] == "M"
    assert (await config_map(up, "plugin-app", "plugin-app-colour"))["colour"] == "red"
