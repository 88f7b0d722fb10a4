"""GitHub App credentials against a local stand-in of the installation-token endpoint.

The token exchange is the only part that talks to GitHub; the token then authenticates
git over HTTPS to a real `git http-backend`, as it would to github.com.
"""

import datetime
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.repo.credentials import CredentialError
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.private import secret, store
from tests.support.git_http import GitHttpsServer
from tests.support.github_app import GitHubAppStandIn, github_app_stand_in
from tests.support.gitrepo import GitRepo
from tests.support.keys import HOST, CertificateAuthority, rsa_pem

APP_ID, INSTALLATION = 4242, 777
APP_KEY, APP_PUBLIC = rsa_pem()


@pytest.fixture
async def github(test_ca: CertificateAuthority) -> AsyncIterator[GitHubAppStandIn]:
    stand_in = GitHubAppStandIn(test_ca, APP_ID, INSTALLATION, APP_PUBLIC)
    async with github_app_stand_in(stand_in) as running:
        yield running


@pytest.fixture
async def repos(tmp_path: Path, test_ca: CertificateAuthority) -> Repositories:
    repos = Repositories(RepoSettings(cache_dir=tmp_path / "cache", network_timeout=30))
    await repos.update_trust("", {HOST: test_ca.cert_pem})
    return repos


def app_secret(url: str, github: GitHubAppStandIn, key: str = APP_KEY) -> dict[str, object]:
    return secret(
        "repo-app",
        url=url,
        githubAppID=str(APP_ID),
        githubAppInstallationID=str(INSTALLATION),
        githubAppPrivateKey=key,
        githubAppEnterpriseBaseUrl=f"https://{HOST}:{github.port}",
    )


async def test_installation_token_is_exchanged_once_and_reused(
    repos: Repositories, github: GitHubAppStandIn, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    https_git.app_tokens = github.issued
    url = https_git.url("org/app.git")
    repos.update_credentials(store(app_secret(url, github)))
    assert (await repos.list_refs(url)).head == private_repo.head
    await repos.resolve(url, "HEAD")
    assert github.requests == 1
    assert repos.access.apps.exchanges == 1


async def test_token_close_to_expiry_is_replaced(
    repos: Repositories, github: GitHubAppStandIn, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    github.lifetime = datetime.timedelta(minutes=2)
    https_git.app_tokens = github.issued
    url = https_git.url("org/app.git")
    repos.update_credentials(store(app_secret(url, github)))
    await repos.list_refs(url)
    await repos.resolve(url, "HEAD")
    assert github.requests == 2


async def test_expired_app_key_names_the_repository_and_the_app(
    repos: Repositories, github: GitHubAppStandIn, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    retired, _ = rsa_pem()
    url = https_git.url("org/app.git")
    repos.update_credentials(store(app_secret(url, github, key=retired)))
    with pytest.raises(CredentialError) as failed:
        await repos.list_refs(url)
    text = str(failed.value)
    assert f"GitHub App {APP_ID} (installation {INSTALLATION})" in text
    assert "repository Secret sluice/repo-app" in text
    assert "refused (401: A JSON web token could not be decoded)" in text
    assert retired.splitlines()[1] not in text
