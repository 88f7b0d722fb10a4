"""`sluice login`, `context`, `account` and `proj role`, `cluster`: the real CLI as a
subprocess against the live API, with argocd-rbac-cm and local accounts in the cluster."""

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from app.api.server import ApiServer
from app.api.settings import ApiSettings
from app.api.tokens import Principal, Token, TokenSet, digest
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import application, project, seed_app, seed_project

ADMIN = "cli-admin-token-0123456789abcdef"
NAMESPACE = "sluice"


@dataclass
class Done:
    code: int
    out: str
    err: str


@dataclass
class Sluice:
    url: str
    config: Path

    async def run(
        self,
        *args: str,
        token: str = "",
        server: bool = False,
        stdin: str = "",
        env: dict[str, str] | None = None,
    ) -> Done:
        """The CLI with only the config file (and the token/server, `env`) to go on."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")} | (env or {})
        env |= {
            "SLUICE_CONFIG": str(self.config),
            "SLUICE_LOG_LEVEL": "warning",
            "SLUICE_STATE_DIR": str(self.config.parent / "state"),
        }
        if token:
            env["SLUICE_TOKEN"] = token
        if server:
            env["SLUICE_SERVER"] = self.url
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "app.cli.main",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        async with asyncio.timeout(60):
            out, err = await process.communicate(stdin.encode())
        assert process.returncode is not None
        return Done(process.returncode, out.decode(), err.decode())

    async def admin(self, *args: str) -> Done:
        return await self.run(*args, token=ADMIN, server=True)


@pytest.fixture
async def sluice(runtime: Runtime, tmp_path: Path) -> AsyncIterator[Sluice]:
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    )
    for name, data in (
        ("argocd-cm", {"accounts.alice": "apiKey"}),
        (
            "argocd-rbac-cm",
            {
                "policy.csv": "p, alice, applications, sync, team-a/*, allow\n"
                "p, alice, applications, get, team-a/*, allow\n"
            },
        ),
    ):
        await runtime.control_plane.replace(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": NAMESPACE},
                "data": data,
            }
        )
    await seed_project(runtime, project("team-a"))
    await seed_app(runtime, application("web", project="team-a"))
    await seed_app(runtime, application("shop"))
    tokens = TokenSet([Token(Principal("root"), digest(ADMIN))])
    server = ApiServer(runtime, ApiSettings(port=0, tokens=tokens))
    await server.start()
    try:
        yield Sluice(server.url, tmp_path / "config" / "sluice")
    finally:
        await server.stop()


async def test_login_stores_the_context_and_commands_use_it(sluice: Sluice) -> None:
    done = await sluice.run("login", sluice.url, "--name", "test", "--token-stdin", stdin=ADMIN)
    assert done.code == 0, done.err
    assert "'root' logged in successfully" in done.out
    assert stat.S_IMODE(sluice.config.stat().st_mode) == 0o600
    stored = yaml.safe_load(sluice.config.read_text())
    assert stored["current-context"] == "test"
    assert stored["contexts"] == [{"name": "test", "server": sluice.url, "token": ADMIN}]
    listed = await sluice.run("app", "list", "-o", "json")
    assert listed.code == 0, listed.err
    assert sorted(a["metadata"]["name"] for a in yaml.safe_load(listed.out)) == ["shop", "web"]
    contexts = await sluice.run("context")
    assert "* " in contexts.out.splitlines()[1] and "test" in contexts.out
    assert (await sluice.run("logout", "test")).code == 0
    assert (await sluice.run("app", "list")).code == 2


async def test_login_refuses_a_bad_token_and_stores_nothing(sluice: Sluice) -> None:
    done = await sluice.run("login", sluice.url, "--token-stdin", stdin="x" * 32)
    assert done.code == 2
    assert "HTTP 401" in done.err
    assert not sluice.config.exists()


async def test_accounts_tokens_and_can_i(sluice: Sluice) -> None:
    listed = await sluice.admin("account", "list")
    assert listed.code == 0 and "alice" in listed.out and "apiKey" in listed.out
    generated = await sluice.admin("account", "generate-token", "-a", "alice", "-e", "1h")
    assert generated.code == 0, generated.err
    alice = generated.out.strip()
    yes = await sluice.run(
        "account", "can-i", "sync", "applications", "team-a/web", token=alice, server=True
    )
    no = await sluice.run(
        "account", "can-i", "delete", "applications", "team-a/web", token=alice, server=True
    )
    assert (yes.code, yes.out.strip(), no.code, no.out.strip()) == (0, "yes", 1, "no")
    apps = await sluice.run("app", "list", "-o", "json", token=alice, server=True)
    assert [a["metadata"]["name"] for a in yaml.safe_load(apps.out)] == ["web"]
    who = await sluice.run("account", "get-user-info", token=alice, server=True)
    assert "Username: alice" in who.out
    info = await sluice.admin("account", "get", "-a", "alice", "-o", "json")
    token_id = yaml.safe_load(info.out)["tokens"][0]["id"]
    assert (await sluice.admin("account", "delete-token", "-a", "alice", token_id)).code == 0
    refused = await sluice.run("app", "list", token=alice, server=True)
    assert refused.code == 2 and "revoked" in refused.err


async def test_project_roles_and_their_tokens(sluice: Sluice) -> None:
    assert (await sluice.admin("proj", "role", "create", "team-a", "ci")).code == 0
    added = await sluice.admin(
        "proj", "role", "add-policy", "team-a", "ci", "-a", "sync", "-o", "*"
    )
    assert added.code == 0, added.err
    await sluice.admin("proj", "role", "add-policy", "team-a", "ci", "-a", "get", "-o", "*")
    roles = await sluice.admin("proj", "role", "list", "team-a")
    assert "ci" in roles.out
    created = await sluice.admin("proj", "role", "create-token", "team-a", "ci", "-t")
    assert created.code == 0, created.err
    ci = created.out.strip()
    apps = await sluice.run("app", "list", "-o", "json", token=ci, server=True)
    assert [a["metadata"]["name"] for a in yaml.safe_load(apps.out)] == ["web"]
    can = await sluice.run(
        "account", "can-i", "sync", "applications", "team-a/web", token=ci, server=True
    )
    assert can.out.strip() == "yes"
    tokens = await sluice.admin("proj", "role", "list-tokens", "team-a", "ci", "-o", "json")
    issued_at = str(yaml.safe_load(tokens.out)[0]["iat"])
    deleted = await sluice.admin("proj", "role", "delete-token", "team-a", "ci", issued_at)
    assert deleted.code == 0, deleted.err
    refused = await sluice.run("app", "list", token=ci, server=True)
    assert refused.code == 2 and "revoked" in refused.err


async def test_cluster_list_and_get(sluice: Sluice) -> None:
    servers = await sluice.admin("cluster", "list", "-o", "server")
    assert servers.out.split() == ["https://kubernetes.default.svc"]
    got = await sluice.admin("cluster", "get", "in-cluster", "-o", "json")
    assert yaml.safe_load(got.out)["server"] == "https://kubernetes.default.svc"
    alice = (await sluice.admin("account", "generate-token", "-a", "alice")).out.strip()
    hidden = await sluice.run("cluster", "list", "-o", "server", token=alice, server=True)
    assert hidden.code == 0 and hidden.out.split() == []
