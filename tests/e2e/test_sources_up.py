"""A Helm, a Jsonnet, a plugin and a multi-source app through one `sluice up`.

One `sluice up` process serves the whole module (it starts once; the four apps sync side
by side), with a plugins directory holding a small plugin the test writes, found by
discovery (a `*.colour` file in the app directory). Every app has repositories of its
own, so each test changes only its app: it waits for Synced + Healthy at the first
commit, reads what landed in the cluster, commits a change, asks for a hard refresh (a
pushed commit, as a webhook reports it) and waits for the app to reach the new revision.

- Helm: a chart in Git (`shop_chart`: helpers, a subchart, hooks, a CRD, a schema).
- Jsonnet: TLAs (a string and code), ext vars (one from the build environment), `libs`.
- Plugin: `ARGOCD_APP_*` and `ARGOCD_ENV_*` reach the plugin's command.
- Multi-source: the same chart with a `$values/…` value file from a `ref` source.
"""

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from app.cluster import Cluster, load_kubeconfig
from tests.e2e.pipeline import operation_done
from tests.e2e.processes import REPO, SLUICE
from tests.support import procs
from tests.support.gitrepo import GitRepo
from tests.support.helm_charts import shop_chart
from tests.support.waiting import eventually, until

pytestmark = [pytest.mark.slow, pytest.mark.kubectl, pytest.mark.timeout(300)]

START_TIMEOUT = 90.0
"""Seconds `sluice up` may take to start its servers and workers."""
SYNC_TIMEOUT = 90.0
"""Seconds an app may take to reach Synced + Healthy at a revision."""
STOP_TIMEOUT = 30.0

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
JSONNET = {
    "tlas": [
        {"name": "colour", "value": "blue"},
        {"name": "replicas", "value": "1 + 2", "code": True},
    ],
    "extVars": [{"name": "app", "value": "${ARGOCD_APP_NAME}"}, {"name": "env", "value": "prod"}],
    "libs": ["vendor"],
}
PLUGIN_FILES = {"plugin/app.colour": "green"}
VALUES_FILES = {"prod/values.yaml": "colour: gold\n"}


@dataclass(frozen=True)
class Up:
    """The running `sluice up`: its API, its state directory and its log."""

    url: str
    token: str
    state: Path
    log: Path

    async def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with (
            aiohttp.ClientSession() as session,
            session.request(method, f"{self.url}{path}", headers=headers, **kwargs) as answer,
        ):
            text = await answer.text()
            assert answer.status < 300, (method, path, answer.status, text)
            found: dict[str, Any] = json.loads(text)
            return found

    async def status(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = (await self._call("GET", f"/api/v1/applications/{name}")).get(
            "status"
        ) or {}
        return found

    async def hard_refresh(self, name: str) -> None:
        """What a webhook does for a push: compare again at the branch's new commit."""
        await self._call(
            "POST", f"/api/v1/applications/{name}/refresh", params={"hard": "true"}, json={}
        )

    async def wait_synced(self, name: str, revisions: list[str]) -> dict[str, Any]:
        """The app's status once it is Synced + Healthy at `revisions`, its operation done."""

        async def synced() -> dict[str, Any] | None:
            status = await self.status(name)
            sync, health = status.get("sync") or {}, status.get("health") or {}
            found = sync.get("revisions") if len(revisions) > 1 else [sync.get("revision")]
            done = (sync.get("status"), health.get("status"), found) == (
                "Synced", "Healthy", revisions,
            ) and operation_done(status)  # fmt: skip
            return status if done else None

        try:
            return await eventually(
                synced, timeout=SYNC_TIMEOUT, interval=0.2, what=f"{name} Synced + Healthy"
            )
        except AssertionError as e:
            failures = [line for line in self.log.read_text().splitlines() if "failed" in line]
            raise AssertionError(f"{e}\n{failures[-3:]}\n{await self.status(name)}") from None

    async def config_map(self, namespace: str, name: str) -> dict[str, str]:
        config = await load_kubeconfig(str(self.state / "kubeconfig"), None, allow_exec=False)
        async with Cluster(config) as cluster:
            found = await cluster.get("v1", "ConfigMap", name, namespace)
        data: dict[str, str] = found["data"]
        return data


@pytest.fixture(scope="module")
def plugins_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
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
    root = tmp_path_factory.mktemp("plugins")
    (root / "colour").mkdir()
    (root / "colour" / "plugin.yaml").write_text(yaml.safe_dump(plugin))
    return root


@pytest.fixture(scope="module")
def up(tmp_path_factory: pytest.TempPathFactory, plugins_dir: Path) -> Iterator[Up]:
    root = tmp_path_factory.mktemp("sources-up")
    state = root / "state"
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SLUICE_", "REDIS_", "NATS_")) and key != "KUBECONFIG"
    }
    env |= {"HOME": str(root), "SLUICE_LOG_LEVEL": "info", "SLUICE_LOG_FORMAT": "json"}
    log = root / "up.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [str(SLUICE), "up", "--state-dir", str(state), "--api-port", "0", "--no-examples",
             "--plugins-dir", str(plugins_dir)],
            cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
        )  # fmt: skip
    procs.allow(process.pid)

    def ready() -> str | None:
        if process.poll() is not None:
            raise AssertionError(f"sluice up exited {process.returncode}:\n{log.read_text()}")
        text = log.read_text(errors="replace")
        # The "try" line comes once the control-plane namespace exists.
        return text if re.search(r"^try\s+KUBECONFIG=", text, re.MULTILINE) else None

    try:
        text = until(ready, timeout=START_TIMEOUT, what="sluice up started")
        found = re.search(r"^API\s+(http://\S+)", text, re.MULTILINE)
        assert found is not None, text
        token = (state / "api-token").read_text().strip()
        yield Up(found.group(1), token, state, log)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass(frozen=True)
class Source:
    """The repositories of one app and the revisions its first sync must reach."""

    repos: tuple[GitRepo, ...]
    first: list[str]


def application(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": "sluice"},
        "spec": {
            "project": "default",
            "destination": {"server": "https://kubernetes.default.svc", "namespace": name},
            "syncPolicy": {"automated": {}, "syncOptions": ["CreateNamespace=true"]},
            **spec,
        },
    }


def git_source(repo: GitRepo, path: str, **fields: Any) -> dict[str, Any]:
    return {"repoURL": repo.url, "path": path, "targetRevision": "main", **fields}


@pytest.fixture(scope="module")
def sources(up: Up, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Source]]:
    """Every app's repositories, committed, and the four apps applied with kubectl at once."""
    root = tmp_path_factory.mktemp("sources")
    names = ("helm", "jsonnet", "plugin", "chart", "values")
    repos = {name: GitRepo.create(root / name) for name in names}
    chart = shop_chart("charts/shop")
    plugin_env = [{"name": "GREETING", "value": "hello ${ARGOCD_APP_NAME}"}]
    helm = {"valueFiles": ["$values/prod/values.yaml"], "releaseName": "multi", "skipCrds": True}
    jsonnet_files = {"vendor/cm.libsonnet": LIB, "jsonnet/main.jsonnet": MAIN_JSONNET}
    made = {
        "helm-app": Source((repos["helm"],), [repos["helm"].commit(chart)]),
        "jsonnet-app": Source((repos["jsonnet"],), [repos["jsonnet"].commit(jsonnet_files)]),
        "plugin-app": Source((repos["plugin"],), [repos["plugin"].commit(PLUGIN_FILES)]),
        "multi-app": Source(
            (repos["chart"], repos["values"]),
            [repos["chart"].commit(chart), repos["values"].commit(VALUES_FILES)],
        ),
    }
    apps = [
        application("helm-app", source=git_source(repos["helm"], "charts/shop")),
        application(
            "jsonnet-app",
            source=git_source(repos["jsonnet"], "jsonnet", directory={"jsonnet": JSONNET}),
        ),
        application(
            "plugin-app",
            source=git_source(repos["plugin"], "plugin", plugin={"env": plugin_env}),
        ),
        application(
            "multi-app",
            sources=[
                git_source(repos["chart"], "charts/shop", helm=helm),
                {"repoURL": repos["values"].url, "targetRevision": "main", "ref": "values"},
            ],
        ),
    ]
    manifest = root / "apps.yaml"
    manifest.write_text(yaml.safe_dump_all(apps, sort_keys=False))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(root),
        "KUBECONFIG": str(up.state / "kubeconfig"),
    }
    applied = subprocess.run(
        ["kubectl", "apply", "-f", str(manifest)],
        env=env, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    try:
        yield made
    finally:
        for repo in repos.values():
            repo.close()


async def test_a_helm_chart_in_git_syncs_and_follows_a_changed_value(
    up: Up, sources: dict[str, Source]
) -> None:
    (repo,), first = sources["helm-app"].repos, sources["helm-app"].first
    status = await up.wait_synced("helm-app", first)
    assert status["sourceType"] == "Helm"
    hooks = [
        (r["hookType"], r["name"], r["hookPhase"])
        for r in status["operationState"]["syncResult"]["resources"]
        if r.get("hookType")
    ]
    assert hooks == [
        ("PreSync", "helm-app-shop-migrate", "Succeeded"),
        ("PostSync", "helm-app-shop-smoke", "Succeeded"),
    ]
    live = await up.config_map("helm-app", "helm-app-shop")
    assert (live["colour"], live["greeting"]) == ("blue", "hello")
    assert (await up.config_map("helm-app", "helm-app-sub"))["size"] == "small"

    second = repo.commit({"charts/shop/values.yaml": "replicas: 1\ncolour: green\n"})
    await up.hard_refresh("helm-app")
    await up.wait_synced("helm-app", [second])
    assert (await up.config_map("helm-app", "helm-app-shop"))["colour"] == "green"


async def test_a_jsonnet_app_with_tlas_and_ext_vars_syncs_and_follows_git(
    up: Up, sources: dict[str, Source]
) -> None:
    (repo,), first = sources["jsonnet-app"].repos, sources["jsonnet-app"].first
    status = await up.wait_synced("jsonnet-app", first)
    assert status["sourceType"] == "Directory"
    assert await up.config_map("jsonnet-app", "jsonnet-app-jsonnet") == {
        "colour": "blue", "replicas": "3", "env": "prod", "size": "S",
    }  # fmt: skip

    second = repo.commit({"vendor/cm.libsonnet": LIB.replace("'S'", "'M'")})
    await up.hard_refresh("jsonnet-app")
    await up.wait_synced("jsonnet-app", [second])
    assert (await up.config_map("jsonnet-app", "jsonnet-app-jsonnet"))["size"] == "M"


async def test_a_plugin_app_found_by_file_name_syncs_and_follows_git(
    up: Up, sources: dict[str, Source]
) -> None:
    (repo,), first = sources["plugin-app"].repos, sources["plugin-app"].first
    status = await up.wait_synced("plugin-app", first)
    assert status["sourceType"] == "Plugin"
    assert await up.config_map("plugin-app", "plugin-app-colour") == {
        "colour": "green", "revision": first[0][:7], "greeting": "hello plugin-app",
    }  # fmt: skip

    second = repo.commit({"plugin/app.colour": "red"})
    await up.hard_refresh("plugin-app")
    await up.wait_synced("plugin-app", [second])
    assert await up.config_map("plugin-app", "plugin-app-colour") == {
        "colour": "red", "revision": second[:7], "greeting": "hello plugin-app",
    }  # fmt: skip


async def test_a_multi_source_app_syncs_and_follows_its_ref_source(
    up: Up, sources: dict[str, Source]
) -> None:
    (_chart, values), first = sources["multi-app"].repos, sources["multi-app"].first
    status = await up.wait_synced("multi-app", first)
    assert status["sourceTypes"] == ["Helm", ""]
    assert (await up.config_map("multi-app", "multi-shop"))["colour"] == "gold"

    second = values.commit({"prod/values.yaml": "colour: silver\n"})
    await up.hard_refresh("multi-app")
    status = await up.wait_synced("multi-app", [first[0], second])
    assert (await up.config_map("multi-app", "multi-shop"))["colour"] == "silver"
    assert status["history"][-1]["revisions"] == [first[0], second]
