"""Private repositories over HTTPS: a real `git http-backend` behind TLS with a test CA.

Every failure must name the repository and the cause, and no secret may appear in an
error or in any process's argv or environment while git runs.
"""

from pathlib import Path

import pytest
from git import BaseIndexEntry

from app.model.app_spec import ApplicationSource
from app.repo.errors import GitError
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.private import sampled_processes, secret, store
from tests.support.fixtures_git_servers import HTTPS_PASSWORD, HTTPS_USER
from tests.support.git_http import GitHttpsServer, git_https_server
from tests.support.gitrepo import GitRepo
from tests.support.keys import HOST, CertificateAuthority


@pytest.fixture
async def trusting(tmp_path: Path, test_ca: CertificateAuthority) -> Repositories:
    repos = Repositories(RepoSettings(cache_dir=tmp_path / "cache", network_timeout=30))
    await repos.update_trust("", {HOST: test_ca.cert_pem})
    return repos


def source(url: str) -> ApplicationSource:
    return ApplicationSource(repo_url=url, path="app", target_revision="HEAD")


async def test_basic_auth_lists_fetches_and_renders_without_leaking(
    trusting: Repositories, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    url = https_git.url("org/app.git")
    trusting.update_credentials(
        store(secret("repo-1", url=url, username=HTTPS_USER, password=HTTPS_PASSWORD))
    )
    async with sampled_processes() as samples:
        resolved = await trusting.resolve(url, "HEAD")
        render = await trusting.render_directory(source(url), resolved.commit)
    assert resolved.commit == private_repo.head
    assert [f.path for f in render.files] == ["app/cm.yaml"]
    assert any("git" in s for s in samples)
    assert not [s for s in samples if HTTPS_PASSWORD in s]
    # Basic auth is sent only after the server's challenge (git's credential helper).
    assert (https_git.seen[0][1]) is None


async def test_wrong_password_names_the_repository_and_the_secret(
    trusting: Repositories, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    url = https_git.url("org/app.git")
    wrong = "not-the-Password-9d1"
    trusting.update_credentials(
        store(secret("repo-1", url=url, username=HTTPS_USER, password=wrong))
    )
    with pytest.raises(GitError) as failed:
        await trusting.list_refs(url)
    text = str(failed.value)
    assert f"https://{HOST}:{https_git.port}/org/app.git" in text
    assert "refused the credentials" in text
    assert "repository Secret sluice/repo-1" in text
    assert wrong not in text


async def test_no_credentials_says_to_add_a_secret(
    trusting: Repositories, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    with pytest.raises(GitError, match="add a repository Secret or a repo-creds template"):
        await trusting.list_refs(https_git.url("org/app.git"))


async def test_untrusted_certificate_says_where_to_add_the_ca(
    tmp_path: Path, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    repos = Repositories(RepoSettings(cache_dir=tmp_path / "other", network_timeout=30))
    url = https_git.url("org/app.git")
    repos.update_credentials(
        store(secret("repo-1", url=url, username=HTTPS_USER, password=HTTPS_PASSWORD))
    )
    with pytest.raises(GitError, match="argocd-tls-certs-cm") as failed:
        await repos.list_refs(url)
    assert HTTPS_PASSWORD not in str(failed.value)
    repos.update_credentials(
        store(
            secret("repo-1", url=url, username=HTTPS_USER, password=HTTPS_PASSWORD, insecure="true")
        )
    )
    assert (await repos.list_refs(url)).head == private_repo.head


async def test_rotated_password_is_used_by_the_next_fetch(
    trusting: Repositories, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    url = https_git.url("org/app.git")
    trusting.update_credentials(
        store(secret("repo-1", url=url, username=HTTPS_USER, password=HTTPS_PASSWORD))
    )
    await trusting.list_refs(url)
    https_git.passwords[HTTPS_USER] = "rotated-Pw-44c1"
    with pytest.raises(GitError, match="refused the credentials"):
        await trusting.resolve(url, "HEAD")
    trusting.update_credentials(
        store(secret("repo-1", url=url, username=HTTPS_USER, password="rotated-Pw-44c1"))
    )
    commit = private_repo.commit({"app/more.yaml": "{}\n"}, "second")
    assert (await trusting.resolve(url, "HEAD")).commit == commit


async def test_bearer_token(
    trusting: Repositories, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    url = https_git.url("org/app.git")
    https_git.tokens.add("bearer-Tok-0c9e")
    trusting.update_credentials(store(secret("repo-1", url=url, bearerToken="bearer-Tok-0c9e")))
    assert (await trusting.list_refs(url)).head == private_repo.head
    assert ("/org/app.git/info/refs", "Bearer bearer-Tok-0c9e") in https_git.seen


async def test_template_gives_credentials_by_longest_prefix(
    trusting: Repositories, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    trusting.update_credentials(
        store(
            secret("creds-host", "repo-creds", url=https_git.base, password="wrong-Pw-0000"),
            secret(
                "creds-org",
                "repo-creds",
                url=https_git.url("org"),
                username=HTTPS_USER,
                password=HTTPS_PASSWORD,
            ),
        )
    )
    assert (await trusting.list_refs(https_git.url("org/app.git"))).head == private_repo.head


async def test_credentials_never_follow_a_redirect(
    trusting: Repositories,
    https_git: GitHttpsServer,
    private_repo: GitRepo,
    private_root: Path,
    test_ca: CertificateAuthority,
) -> None:
    redirecting = GitHttpsServer(private_root, test_ca, redirect_to=https_git.base)
    async with git_https_server(redirecting):
        url = redirecting.url("org/app.git")
        trusting.update_credentials(
            store(
                secret(
                    "repo-1",
                    url=url,
                    username=HTTPS_USER,
                    password=HTTPS_PASSWORD,
                    forceHttpBasicAuth="true",
                )
            )
        )
        with pytest.raises(GitError, match="redirect"):
            await trusting.list_refs(url)
    assert https_git.seen == []


async def test_project_scoped_repository_is_not_shared_with_other_projects(
    trusting: Repositories, https_git: GitHttpsServer, private_repo: GitRepo
) -> None:
    url = https_git.url("org/app.git")
    trusting.update_credentials(
        store(
            secret(
                "repo-a", url=url, username=HTTPS_USER, password=HTTPS_PASSWORD, project="team-a"
            )
        )
    )
    commit = (await trusting.resolve(url, "HEAD", project="team-a")).commit
    await trusting.render_directory(source(url), commit, project="team-a")
    with pytest.raises(GitError, match="asks for credentials"):
        await trusting.render_directory(source(url), commit, project="team-b")
    with pytest.raises(GitError, match="asks for credentials"):
        await trusting.list_refs(url, project="team-b")


async def test_client_certificate(
    trusting: Repositories,
    private_root: Path,
    private_repo: GitRepo,
    test_ca: CertificateAuthority,
) -> None:
    client = test_ca.issue("sluice", server=False)
    server = GitHttpsServer(private_root, test_ca, require_client_cert=True)
    async with git_https_server(server):
        url = server.url("org/app.git")
        with pytest.raises(GitError):
            await trusting.list_refs(url)
        trusting.update_credentials(
            store(
                secret(
                    "repo-1",
                    url=url,
                    tlsClientCertData=client.cert_pem,
                    tlsClientCertKey=client.key_pem,
                )
            )
        )
        assert (await trusting.list_refs(url)).head == private_repo.head


async def test_a_submodule_pointing_elsewhere_is_never_fetched(
    trusting: Repositories,
    https_git: GitHttpsServer,
    private_repo: GitRepo,
    private_root: Path,
    test_ca: CertificateAuthority,
) -> None:
    elsewhere = GitHttpsServer(private_root, test_ca, passwords={HTTPS_USER: HTTPS_PASSWORD})
    async with git_https_server(elsewhere):
        gitmodules = f'[submodule "sub"]\n\tpath = sub\n\turl = {elsewhere.url("org/app.git")}\n'
        private_repo.commit({".gitmodules": gitmodules}, "add a submodule file")
        gitlink = BaseIndexEntry((0o160000, bytes.fromhex(private_repo.head), 0, "sub"))
        private_repo.repo.index.add([gitlink])
        private_repo.repo.index.commit("submodule")
        private_repo.close()
        url = https_git.url("org/app.git")
        trusting.update_credentials(
            store(
                secret("creds", "repo-creds", url=https_git.base, username=HTTPS_USER,
                       password=HTTPS_PASSWORD),
                secret("creds-2", "repo-creds", url=elsewhere.base, username=HTTPS_USER,
                       password=HTTPS_PASSWORD),
            )
        )  # fmt: skip
        commit = (await trusting.resolve(url, "HEAD")).commit
        async with trusting.checkout(url, commit) as work:
            assert (work.root / ".gitmodules").is_file()
            assert work.tree.kind("sub") is not None, "the commit holds the submodule"
        assert elsewhere.seen == []
