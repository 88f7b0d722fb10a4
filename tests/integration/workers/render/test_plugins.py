"""Config Management Plugins the tests write, run by the render worker on real commits.

Each plugin is a `plugin.yaml` in the worker's plugins directory (Argo CD's sidecar
layout), its commands real programs (python3, sh). The tests check what Argo CD users
rely on: discovery by file name, selection by `<name>-<version>`, the environment (and
that nothing of the worker's own leaks into it), and every bound: the deadline with a
process-group kill while the worker goes on serving other apps, the output cap.
"""

import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import psutil
import pytest

from app.bus.messages import ManifestsReady
from app.runtime.manifests import ManifestsError, manifests_for
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.integration.workers.render.conftest import ask_render, config_map, register, source
from tests.support.gitrepo import GitRepo
from tests.support.waiting import eventually
from workers.render.worker import RenderWorker

EXEC_TIMEOUT = 5.0
DUMP = (
    "import json, os; print(json.dumps({'apiVersion': 'v1', 'kind': 'ConfigMap', "
    "'metadata': {'name': os.environ['ARGOCD_APP_NAME'] + '-env'}, "
    "'data': {'env': json.dumps(dict(os.environ)), 'init': open('init.txt').read()}}))"
)


def plugin_yaml(name: str, generate: list[str], *, version: str = "", **spec: Any) -> str:
    body: dict[str, Any] = {"generate": {"command": generate}, **spec}
    if version:
        body["version"] = version
    return json.dumps(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "ConfigManagementPlugin",
            "metadata": {"name": name},
            "spec": body,
        }
    )


@pytest.fixture
def plugins_dir(tmp_path: Path) -> Path:
    root = tmp_path / "plugins"
    plugins = {
        "dump": plugin_yaml(
            "dump",
            [sys.executable, "-c", DUMP],
            version="v1",
            init={"command": ["sh", "-c", "printf ran > init.txt"]},
            discover={"fileName": "*.dump"},
        ),
        "hang": plugin_yaml(
            "hang", ["sh", "-c", f"sleep 600 & echo $! > {tmp_path}/sleep.pid; wait"]
        ),
        "flood": plugin_yaml("flood", ["yes", "a: b"]),
        "fails": plugin_yaml("fails", ["sh", "-c", "echo 'values.yaml: no such file' >&2; exit 3"]),
        "broken": "kind: ConfigManagementPlugin\n",
    }
    for name, text in plugins.items():
        (root / name).mkdir(parents=True)
        (root / name / "plugin.yaml").write_text(text)
    return root


@pytest.fixture
def settings(settings: Settings, plugins_dir: Path) -> Settings:
    return replace(settings, plugins_dir=plugins_dir, exec_timeout=EXEC_TIMEOUT)


def env_of(objects: list[dict[str, Any]]) -> dict[str, str]:
    (obj,) = objects
    assert obj["data"]["init"] == "ran", "init ran first, in the same directory"
    env: dict[str, str] = json.loads(obj["data"]["env"])
    return env


async def test_a_plugin_discovered_by_file_name_gets_argo_cds_environment_only(
    runtime: Runtime, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLUICE_CACHE_SECRET", "worker-secret-4f1d")
    commit = git_repo.commit({"apps/web/app.dump": "", "apps/web/cm.yaml": config_map("x")})
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))

    result = await manifests_for(runtime, app)

    assert result.source_types == ("Plugin",)
    env = env_of(result.manifests)
    assert "worker-secret-4f1d" not in json.dumps(env)
    assert set(env) - {"LC_CTYPE"} == {
        "PATH", "HOME", "ARGOCD_APP_NAME", "ARGOCD_APP_NAMESPACE", "ARGOCD_APP_REVISION",
        "ARGOCD_APP_REVISION_SHORT", "ARGOCD_APP_REVISION_SHORT_8", "ARGOCD_APP_SOURCE_PATH",
        "ARGOCD_APP_SOURCE_REPO_URL", "ARGOCD_APP_SOURCE_TARGET_REVISION", "KUBE_VERSION",
        "KUBE_API_VERSIONS", "ARGOCD_APP_PARAMETERS",
    }  # fmt: skip
    assert env["ARGOCD_APP_NAME"] == "web"
    assert env["ARGOCD_APP_NAMESPACE"] == "default"
    assert (env["ARGOCD_APP_REVISION"], env["ARGOCD_APP_REVISION_SHORT"]) == (commit, commit[:7])
    assert env["ARGOCD_APP_SOURCE_PATH"] == "apps/web"
    assert env["ARGOCD_APP_SOURCE_REPO_URL"] == git_repo.url
    assert env["ARGOCD_APP_SOURCE_TARGET_REVISION"] == "main"
    assert env["KUBE_VERSION"].count(".") == 2
    assert "v1" in env["KUBE_API_VERSIONS"].split(",")
    assert env["ARGOCD_APP_PARAMETERS"] == "[]"


async def test_a_named_plugin_gets_env_and_parameters(runtime: Runtime, git_repo: GitRepo) -> None:
    git_repo.commit({"apps/web/app.dump": ""})
    plugin = {
        "name": "dump-v1",
        "env": [{"name": "COLOUR", "value": "blue-$ARGOCD_APP_NAME"}],
        "parameters": [{"name": "tag", "string": "v2"}, {"name": "files", "array": ["a"]}],
    }
    app = await register(runtime, "web", source(git_repo.url, "apps/web", plugin=plugin))

    env = env_of((await manifests_for(runtime, app)).manifests)

    assert env["ARGOCD_ENV_COLOUR"] == "blue-web"
    assert (env["PARAM_TAG"], env["PARAM_FILES_0"]) == ("v2", "a")
    assert json.loads(env["ARGOCD_APP_PARAMETERS"]) == [
        {"name": "tag", "string": "v2"},
        {"array": ["a"], "name": "files"},
    ]


@pytest.mark.parametrize(
    ("plugin", "expected"),
    [
        pytest.param(
            {"name": "helmfile"},
            "spec.source.plugin.name: no plugin 'helmfile' (plugins on this render host: "
            "dump-v1, fails, flood, hang; not registered: broken/plugin.yaml: must be",
            id="unknown-name-lists-the-registered",
        ),
        pytest.param(
            {"name": "fails"},
            "spec.source: plugin 'fails' generate (sh) failed: values.yaml: no such file",
            id="failure-shows-stderr",
        ),
        pytest.param(
            {"name": "flood"},
            "spec.source: plugin 'flood' generate (yes) was killed: its output exceeded",
            id="oversize-output",
        ),
        pytest.param(
            {"name": "dump-v1"},
            "spec.source.plugin.name: plugin 'dump-v1' does not support this source",
            id="named-plugin-must-match-its-discovery",
        ),
    ],
)
async def test_plugin_failures_say_what_to_fix(
    runtime: Runtime, git_repo: GitRepo, plugin: dict[str, str], expected: str
) -> None:
    git_repo.commit({"apps/web/cm.yaml": config_map("x")})
    app = await register(runtime, "web", source(git_repo.url, "apps/web", plugin=plugin))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert info.value.message.startswith(f"Application sluice/web: {expected}")


async def test_a_hanging_plugin_is_killed_and_the_worker_serves_other_apps(
    runtime: Runtime, git_repo: GitRepo, render_worker: RenderWorker, tmp_path: Path
) -> None:
    commit = git_repo.commit({"apps/web/app.dump": "", "apps/hang/cm.yaml": config_map("x")})
    hung = await register(
        runtime, "hung", source(git_repo.url, "apps/hang", plugin={"name": "hang"})
    )
    other = await register(runtime, "web", source(git_repo.url, "apps/web"))

    answers: list[ManifestsReady] = await asyncio.gather(
        ask_render(runtime, hung), ask_render(runtime, other)
    )

    assert answers[0].error.startswith(
        f"Application sluice/hung: spec.source: plugin 'hang' generate (sh) did not finish "
        f"within {EXEC_TIMEOUT:g} s and was killed"
    )
    assert answers[1].revisions == (commit,) and not answers[1].error
    sleeper = int((tmp_path / "sleep.pid").read_text())

    async def gone() -> bool:
        try:
            return psutil.Process(sleeper).status() == psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return True

    await eventually(gone, timeout=15, what="the plugin's own child killed with it")
