"""The `sluice` CLI drives a whole cycle against the API and the whole pipeline.

Every worker runs on the test's runtime, the API listens on a free port, and the CLI runs
as a real subprocess: create from an Argo CD Application YAML, sync with live progress,
wait, diff after a drift (exit 1), a second sync at a new commit, history, rollback to
the first deployment, wait.
"""

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
import yaml

from app.api.server import ApiServer
from app.api.settings import ApiSettings
from app.api.tokens import Principal, Token, TokenSet, digest
from app.cli import client
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.support.gitrepo import GitRepo
from tests.support.logscan import known_secret
from tests.support.waiting import eventually
from workers import registry

TOKEN = known_secret("cli-test-token-0123456789abcdef", "the API token")
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: guestbook-ui
spec:
  replicas: 1
  selector:
    matchLabels: {app: guestbook-ui}
  template:
    metadata:
      labels: {app: guestbook-ui}
    spec:
      containers:
        - name: guestbook-ui
          image: gcr.io/heptio-images/ks-guestbook-demo:0.2
"""


def config(colour: str) -> str:
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: guestbook-config\n"
        f"data:\n  colour: {colour}\n"
    )


@dataclass
class Done:
    code: int
    out: str
    err: str


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return replace(settings, timing=replace(settings.timing, health_wait_fallback=0.2))


@pytest.fixture
async def sluice(runtime: Runtime) -> AsyncIterator[str]:
    """Every worker and the API on `runtime`; the API's URL."""
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "sluice"}}
    )
    started = []
    for name in registry.WORKERS:
        worker = registry.build(name, runtime)
        await worker.start()
        started.append(worker)
    tokens = TokenSet([Token(Principal("ci"), digest(TOKEN))])
    api = ApiServer(runtime, ApiSettings(port=0, tokens=tokens, heartbeat=1.0))
    await api.start()
    started.append(api)
    try:
        yield api.url
    finally:
        for worker in reversed(started):
            await worker.stop()


async def sluice_cli(url: str, *args: str, timeout: float = 90.0) -> Done:
    env = os.environ | {"SLUICE_SERVER": url, "SLUICE_TOKEN": TOKEN, "SLUICE_LOG_LEVEL": "warning"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli.main",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    try:
        async with asyncio.timeout(timeout):
            out, err = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode is not None
    return Done(process.returncode, out.decode(), err.decode())


@pytest.mark.slow
async def test_cli_cycle(sluice: str, runtime: Runtime, git_repo: GitRepo, tmp_path: Path) -> None:
    first = git_repo.commit({"app/deployment.yaml": DEPLOYMENT, "app/config.yaml": config("blue")})
    manifest = tmp_path / "guestbook.yaml"
    manifest.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "Application",
                "metadata": {"name": "guestbook", "namespace": "sluice"},
                "spec": {
                    "project": "default",
                    "source": {"repoURL": git_repo.url, "path": "app", "targetRevision": "main"},
                    "destination": {
                        "server": "https://kubernetes.default.svc",
                        "namespace": "guestbook",
                    },
                    "syncPolicy": {"syncOptions": ["CreateNamespace=true"]},
                },
            }
        )
    )

    created = await sluice_cli(sluice, "app", "create", "-f", str(manifest))
    assert created.code == client.OK, created.err
    assert "guestbook" in created.out

    synced = await sluice_cli(sluice, "app", "sync", "guestbook", "--timeout", "60")
    assert synced.code == client.OK, (synced.out, synced.err)
    assert "Deployment/guestbook-ui" in synced.out and "ConfigMap/guestbook-config" in synced.out
    assert "Succeeded" in synced.out and "event    operation-started" in synced.out

    waited = await sluice_cli(
        sluice, "app", "wait", "guestbook", "--sync", "--health", "--timeout", "60"
    )
    assert waited.code == client.OK, (waited.out, waited.err)

    clean = await sluice_cli(sluice, "app", "diff", "guestbook")
    assert clean.code == client.OK, (clean.out, clean.err)

    await runtime.control_plane.patch(
        "v1", "ConfigMap", "guestbook-config", {"data": {"colour": "red"}}, namespace="guestbook"
    )

    async def drift_shown() -> Done | None:
        found = await sluice_cli(sluice, "app", "diff", "guestbook")
        return found if found.code == client.NO else None

    drift = await eventually(drift_shown, timeout=30, what="the drift in `sluice app diff`")
    assert "-  colour: red" in drift.out and "+  colour: blue" in drift.out

    second = git_repo.commit({"app/config.yaml": config("green")})
    resynced = await sluice_cli(sluice, "app", "sync", "guestbook", "--timeout", "60")
    assert resynced.code == client.OK, (resynced.out, resynced.err)

    history = await sluice_cli(sluice, "app", "history", "guestbook", "-o", "json")
    entries = yaml.safe_load(history.out)
    assert [(e.get("id", 0), e["revision"]) for e in entries] == [(0, first), (1, second)]

    rolled = await sluice_cli(sluice, "app", "rollback", "guestbook", "0", "--timeout", "60")
    assert rolled.code == client.OK, (rolled.out, rolled.err)
    live = await runtime.control_plane.get(
        "v1", "ConfigMap", "guestbook-config", namespace="guestbook"
    )
    assert live["data"]["colour"] == "blue"

    done = await sluice_cli(
        sluice, "app", "wait", "guestbook", "--operation", "--health", "--timeout", "60"
    )
    assert done.code == client.OK, (done.out, done.err)
    shown = await sluice_cli(sluice, "app", "get", "guestbook", "-o", "json")
    assert yaml.safe_load(shown.out)["status"]["operationState"]["phase"] == "Succeeded"
