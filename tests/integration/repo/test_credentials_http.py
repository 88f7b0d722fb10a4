"""HTTPS-style credentials reach only the host, port and path they were configured for.

A dumb-HTTP Git server (aiohttp serving a bare repository's files) records the
Authorization header of every request, so the tests see exactly what git sent where.
"""

import base64
import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import structlog
from aiohttp import web

from app.repo.credentials import RepoCredential
from app.repo.errors import GitError
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.origin import Origin, manifest

TOKEN = "tok-A-s3cret-value"
EXPECTED_HEADER = "Basic " + base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()


@dataclass
class GitHttpServer:
    root: Path
    url: str = ""
    seen: list[tuple[str, str | None]] = field(default_factory=list)
    redirects: dict[str, str] = field(default_factory=dict)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.path, request.headers.get("Authorization")))
        for prefix, target in self.redirects.items():
            if request.path.startswith(prefix):
                raise web.HTTPFound(target + request.path_qs[len(prefix) :])
        path = (self.root / request.path.lstrip("/")).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            raise web.HTTPNotFound()
        return web.Response(body=path.read_bytes(), content_type="text/plain")


@pytest.fixture
def served(tmp_path: Path, origin: Origin) -> Path:
    origin.commit("one", {"app/a.yaml": manifest("a")})
    root = tmp_path / "www"
    for name in ("org/repo.git", "other/repo.git"):
        subprocess.run(
            ["git", "clone", "--quiet", "--bare", str(origin.path), str(root / name)], check=True
        )
        subprocess.run(["git", "update-server-info"], cwd=root / name, check=True)
    return root


async def start(server: GitHttpServer) -> web.AppRunner:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    server.url = f"http://{host}:{port}"
    return runner


@pytest.fixture
async def servers(served: Path) -> AsyncIterator[tuple[GitHttpServer, GitHttpServer]]:
    first, second = GitHttpServer(served), GitHttpServer(served)
    runners = [await start(first), await start(second)]
    yield first, second
    for runner in runners:
        await runner.cleanup()


def repositories(tmp_path: Path, credential_url: str) -> Repositories:
    settings = RepoSettings(cache_dir=tmp_path / "cache", network_timeout=20)
    return Repositories(settings, [RepoCredential(url=credential_url, password=TOKEN)])


async def test_credential_is_sent_to_its_own_repository(
    tmp_path: Path, servers: tuple[GitHttpServer, GitHttpServer]
) -> None:
    server, _ = servers
    repos = repositories(tmp_path, f"{server.url}/org")
    await repos.resolve(f"{server.url}/org/repo.git", "HEAD")
    assert server.seen
    assert {header for _, header in server.seen} == {EXPECTED_HEADER}


async def test_credential_is_not_sent_to_another_port_or_path(
    tmp_path: Path, servers: tuple[GitHttpServer, GitHttpServer]
) -> None:
    server, other_port = servers
    repos = repositories(tmp_path, f"{server.url}/org")
    await repos.resolve(f"{other_port.url}/org/repo.git", "HEAD")
    await repos.resolve(f"{server.url}/other/repo.git", "HEAD")
    assert [h for _, h in other_port.seen] == [None] * len(other_port.seen)
    assert all(h is None for p, h in server.seen if p.startswith("/other/"))
    assert other_port.seen


async def test_redirects_are_not_followed(
    tmp_path: Path, servers: tuple[GitHttpServer, GitHttpServer]
) -> None:
    server, elsewhere = servers
    server.redirects["/org/moved.git"] = f"{elsewhere.url}/org/repo.git"
    repos = repositories(tmp_path, f"{server.url}/org")
    with pytest.raises(GitError):
        await repos.resolve(f"{server.url}/org/moved.git", "HEAD")
    assert elsewhere.seen == []


async def test_credentials_never_reach_errors_or_logs(
    tmp_path: Path, servers: tuple[GitHttpServer, GitHttpServer]
) -> None:
    server, _ = servers
    repos = repositories(tmp_path, f"{server.url}/org")
    with structlog.testing.capture_logs() as logs, pytest.raises(GitError) as info:
        await repos.resolve(f"http://alice:pw-in-url-123@{server.url[7:]}/org/missing.git", "HEAD")
    with pytest.raises(GitError) as configured:
        await repos.resolve(f"{server.url}/org/missing.git", "HEAD")
    for text in (str(info.value), str(configured.value), repr(logs)):
        assert "pw-in-url-123" not in text
        assert TOKEN not in text
        assert EXPECTED_HEADER.split()[1] not in text
    assert "/org/missing.git" in str(info.value)
