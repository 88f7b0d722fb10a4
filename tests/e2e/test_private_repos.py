"""Private repositories end to end, through `sluice up` and the `sluice` CLI as users run them.

A real sshd and a real `git http-backend` behind TLS (a CA the test makes) serve private
repositories. Argo CD's ConfigMaps give the host key and the CA; `sluice repo add` and
`sluice repocreds add` register the credentials (Secrets written by the API, followed by
every worker); Applications on the ssh repository, the HTTPS repository and one whose
credentials come only from a template reach Synced + Healthy. An app whose Secret has a
wrong password says so in its condition, naming the repository; fixing the Secret makes
it sync without a restart. Every CLI answer, API answer, condition and event, and the
argv and environment of every process sampled while git ran are scanned for the test's
secrets; the log of `sluice up` is scanned with every other log of the run
(`tests.support.logscan`).
"""

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from app.cluster import Cluster, load_kubeconfig
from app.embedded.process import free_port
from tests.e2e.processes import REPO, SLUICE
from tests.integration.repo.private import sampled_processes
from tests.support.fixtures_git_servers import HTTPS_PASSWORD, HTTPS_USER, configmap
from tests.support.git_http import GitHttpsServer
from tests.support.gitrepo import GitRepo, manifests
from tests.support.keys import HOST, CertificateAuthority
from tests.support.logscan import known_secret, leaks
from tests.support.sshd import SshServer
from tests.support.waiting import eventually

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

TEMPLATE_USER = "tmpl-user"
TEMPLATE_PASSWORD = known_secret("tmpl-Pw-2b8e61", "the repo-creds password")
WRONG_PASSWORD = known_secret("wrong-Pw-7d0c33", "a wrong repository password")
SYNC_TIMEOUT = 120.0


@dataclass
class Done:
    code: int
    out: str
    err: str


@dataclass
class Up:
    """A running `sluice up` and what the test needs to talk to it."""

    state: Path
    url: str
    log: Path
    answers: list[str]

    @property
    def token(self) -> str:
        return (self.state / "api-token").read_text().strip()

    async def cli(self, *args: str, stdin: str = "") -> Done:
        env = os.environ | {
            "SLUICE_SERVER": self.url,
            "SLUICE_TOKEN": self.token,
            "SLUICE_LOG_LEVEL": "warning",
        }
        process = await asyncio.create_subprocess_exec(
            str(SLUICE), *args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env, cwd=REPO,
        )  # fmt: skip
        try:
            async with asyncio.timeout(SYNC_TIMEOUT + 30):
                out, err = await process.communicate(stdin.encode())
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        done = Done(process.returncode or 0, out.decode(), err.decode())
        self.answers += [done.out, done.err]
        return done

    async def get(self, path: str) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with (
            aiohttp.ClientSession() as session,
            session.get(self.url + path, headers=headers) as answer,
        ):
            text = await answer.text()
        self.answers.append(text)
        return json.loads(text)


@pytest.fixture
async def up(tmp_path: Path) -> AsyncIterator[Up]:
    state = tmp_path / "state"
    port = free_port(HOST)
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
            str(SLUICE), "up", "--state-dir", str(state), "--api-port", str(port),
            cwd=REPO, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=out,
        )  # fmt: skip
    finally:
        os.close(out)
    running = Up(state, f"http://127.0.0.1:{port}", log, [])
    try:

        async def written() -> bool:
            return (state / "api-token").is_file() and (state / "kubeconfig").is_file()

        await eventually(written, timeout=60, what="sluice up wrote its token and kubeconfig")
        await eventually(_answers(running), timeout=60, what="the API answers")
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


def _answers(up: Up) -> Any:
    async def check() -> bool:
        with contextlib.suppress(aiohttp.ClientError, OSError, ValueError):
            await up.get("/api/v1/repositories")
            return True
        return False

    return check


def application(name: str, url: str) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": "sluice"},
        "spec": {
            "project": "default",
            "source": {"repoURL": url, "path": "app", "targetRevision": "HEAD"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": name},
            "syncPolicy": {"automated": {}, "syncOptions": ["CreateNamespace=true"]},
        },
    }


async def _trust(up: Up, known_hosts: str, ca: CertificateAuthority) -> None:
    config = await load_kubeconfig(str(up.state / "kubeconfig"), None, allow_exec=False)
    async with Cluster(config) as cluster:
        for name, data in (
            ("argocd-ssh-known-hosts-cm", {"ssh_known_hosts": known_hosts}),
            ("argocd-tls-certs-cm", {HOST: ca.cert_pem}),
        ):
            await cluster.apply(
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": name, "namespace": "sluice"},
                    "data": data,
                }
            )


async def _create(up: Up, tmp_path: Path, name: str, url: str) -> None:
    manifest = tmp_path / f"{name}.yaml"
    manifest.write_text(yaml.safe_dump(application(name, url)))
    created = await up.cli("app", "create", "-f", str(manifest))
    assert created.code == 0, created.err


async def _synced(up: Up, name: str) -> None:
    waited = await up.cli("app", "wait", name, "--sync", "--health", "--timeout", str(SYNC_TIMEOUT))
    assert waited.code == 0, (name, waited.out, waited.err, up.log.read_text()[-4000:])


async def test_private_apps_sync_and_no_secret_leaks(
    up: Up,
    *,
    tmp_path: Path,
    https_git: GitHttpsServer,
    sshd_server: SshServer,
    private_repo: GitRepo,
    private_root: Path,
    test_ca: CertificateAuthority,
) -> None:
    template_repo = GitRepo.create(private_root / "org" / "tmpl.git")
    template_repo.commit({"app/cm.yaml": manifests(configmap("from-template"))}, "first")
    template_repo.close()
    https_git.passwords[TEMPLATE_USER] = TEMPLATE_PASSWORD
    ssh_url = sshd_server.url(f"{private_root.name}/org/app.git")
    https_url = https_git.url("org/app.git")
    key_file = tmp_path / "id_ed25519"
    key_file.write_text(sshd_server.client.private_openssh)
    key_file.chmod(0o600)

    async with sampled_processes() as samples:
        await _trust(up, sshd_server.known_hosts_line, test_ca)
        added = [
            await up.cli("repo", "add", ssh_url, "--ssh-private-key-path", str(key_file)),
            await up.cli(
                "repo", "add", https_url, "--username", HTTPS_USER, "--password-stdin",
                stdin=HTTPS_PASSWORD + "\n",
            ),
            await up.cli(
                "repocreds", "add", https_git.url("org"), "--username", TEMPLATE_USER,
                "--password-stdin", stdin=TEMPLATE_PASSWORD + "\n",
            ),
            await up.cli(
                "repo", "add", https_git.url("org/wrong.git"), "--username", HTTPS_USER,
                "--password-stdin", stdin=WRONG_PASSWORD + "\n",
            ),
        ]  # fmt: skip
        assert [a.code for a in added] == [0, 0, 0, 0], [a.err for a in added]
        assert "connection: Successful" in added[0].out
        assert "connection: Successful" in added[1].out
        wrong_repo = GitRepo.create(private_root / "org" / "wrong.git")
        wrong_repo.commit({"app/cm.yaml": manifests(configmap("fixed"))}, "first")
        wrong_repo.close()

        apps = {
            "private-ssh": ssh_url,
            "private-https": https_url,
            "private-template": https_git.url("org/tmpl.git"),
            "private-wrong": https_git.url("org/wrong.git"),
        }
        for name, url in apps.items():
            await _create(up, tmp_path, name, url)
        for name in ("private-ssh", "private-https", "private-template"):
            await _synced(up, name)

        async def refused() -> bool:
            app = await up.get("/api/v1/applications/private-wrong")
            text = json.dumps((app.get("status") or {}).get("conditions") or [])
            return "refused the credentials" in text and "org/wrong.git" in text

        await eventually(refused, timeout=SYNC_TIMEOUT, what="the wrong password is reported")

        listed = await up.cli("repo", "list", "-o", "json")
        states = {r["repo"]: r["connectionState"]["status"] for r in json.loads(listed.out)}
        assert states[ssh_url] == states[https_url] == "Successful"
        assert states[https_git.url("org/wrong.git")] == "Failed"

        fixed = await up.cli(
            "repo", "add", https_git.url("org/wrong.git"), "--username", HTTPS_USER,
            "--password-stdin", "--upsert", stdin=HTTPS_PASSWORD + "\n",
        )  # fmt: skip
        assert fixed.code == 0, fixed.err
        await _synced(up, "private-wrong")

        for name in apps:
            await up.get(f"/api/v1/applications/{name}")
            await up.get(f"/api/v1/applications/{name}/events")
        await up.get("/api/v1/repositories")
        await up.get("/api/v1/repocreds")
        await up.cli("repo", "get", https_url, "-o", "json")
        await up.cli("repocreds", "list")

    assert "repository.registered" in up.log.read_text()
    assert any("git" in s for s in samples)
    for where, text in {"answers": up.answers, "processes": samples}.items():
        found = leaks("\n".join(text))
        assert not found, f"{', '.join(found)} in the {where}"
