"""A repository Secret's `proxy` and `noProxy`: git over HTTPS goes through a real CONNECT
proxy (with its own credentials, never in argv or an error), and a `noProxy` host does not."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.model.app_spec import ApplicationSource
from app.repo.errors import GitError
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.private import sampled_processes, secret, store
from tests.support.connect_proxy import ConnectProxy, connect_proxy
from tests.support.fixtures_git_servers import HTTPS_PASSWORD, HTTPS_USER
from tests.support.git_http import GitHttpsServer
from tests.support.gitrepo import GitRepo
from tests.support.keys import HOST, CertificateAuthority

PROXY_PASSWORD = "proxy-Pw-5d0c"


@pytest.fixture
async def repos(tmp_path: Path, test_ca: CertificateAuthority) -> Repositories:
    repos = Repositories(RepoSettings(cache_dir=tmp_path / "cache", network_timeout=30))
    await repos.update_trust("", {HOST: test_ca.cert_pem})
    return repos


@pytest.fixture
async def proxy() -> AsyncIterator[ConnectProxy]:
    async with connect_proxy(ConnectProxy(credentials=f"corp:{PROXY_PASSWORD}")) as running:
        yield running


def _use(repos: Repositories, url: str, **fields: str) -> None:
    repos.update_credentials(
        store(secret("repo-1", url=url, username=HTTPS_USER, password=HTTPS_PASSWORD, **fields))
    )


async def test_git_goes_through_the_proxy_with_its_credentials(
    repos: Repositories, proxy: ConnectProxy, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    url = https_git.url("org/app.git")
    _use(repos, url, proxy=proxy.url(f"corp:{PROXY_PASSWORD}"))
    async with sampled_processes() as samples:
        commit = (await repos.resolve(url, "HEAD")).commit
        source = ApplicationSource(repo_url=url, path="app", target_revision="HEAD")
        render = await repos.render_directory(source, commit)
    assert [f.path for f in render.files] == ["app/cm.yaml"]
    assert proxy.tunnels and set(proxy.tunnels) == {f"{HOST}:{https_git.port}"}
    assert not [s for s in samples if PROXY_PASSWORD in s or HTTPS_PASSWORD in s]


async def test_wrong_proxy_credentials_are_refused_without_showing_them(
    repos: Repositories, proxy: ConnectProxy, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    url = https_git.url("org/app.git")
    _use(repos, url, proxy=proxy.url("corp:not-the-Pw-0b7a"))
    with pytest.raises(GitError) as failed:
        await repos.list_refs(url)
    assert "not-the-Pw-0b7a" not in str(failed.value)
    assert "the proxy refused its credentials; check data.proxy" in str(failed.value)
    assert proxy.refused and not proxy.tunnels
    assert https_git.seen == []


async def test_no_proxy_bypasses_it(
    repos: Repositories, proxy: ConnectProxy, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    url = https_git.url("org/app.git")
    _use(repos, url, proxy=proxy.url(f"corp:{PROXY_PASSWORD}"), noProxy=f"git.example,{HOST}")
    assert (await repos.list_refs(url)).head == private_repo.head
    assert proxy.tunnels == [] and proxy.refused == []
    assert https_git.seen, "git reached the server directly"
