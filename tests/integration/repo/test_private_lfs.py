"""Git LFS (`enableLfs`): a real git-lfs client pushes to a batch-API server beside
`git http-backend`; Sluice renders the real contents with the repository's credentials,
and the pointer file without `enableLfs`, as Argo CD does."""

import asyncio
import hashlib
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.model.app_spec import ApplicationSource
from app.repo.errors import GitError, LimitExceeded
from app.repo.lfs_pointer import LfsPointer
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.private import sampled_processes, secret, store
from tests.support.fixtures_git_servers import HTTPS_PASSWORD, HTTPS_USER, configmap
from tests.support.git_http import GitHttpsServer, git_https_server
from tests.support.gitrepo import GitRepo, manifests
from tests.support.keys import HOST, CertificateAuthority
from tests.support.lfs_http import LfsObjects


@pytest.fixture(autouse=True)
def _git_lfs() -> None:
    if shutil.which("git-lfs") is not None:
        return
    missing = "git-lfs is not installed (apt-get install git-lfs; .ci/run installs it)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{missing}; CI must run the LFS tests")
    pytest.skip(missing)


BIG = manifests(configmap("from-lfs", "x" * 2000))
"""The LFS file: bigger than any pointer, so a pointer can never pass for it."""


def _git(work: Path, *args: str, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=work, env=env, check=True, capture_output=True)


async def push_lfs_files(repo: GitRepo, url: str, files: dict[str, str], ca_file: Path) -> str:
    """Commit `files` as LFS files with the real git-lfs client, upload their objects to
    the server at `url` and return the commit (the git objects stay in the served repo)."""
    return await asyncio.to_thread(_push_lfs_files, repo, url, files, ca_file)


def _push_lfs_files(repo: GitRepo, url: str, files: dict[str, str], ca_file: Path) -> str:
    credentials = repo.path.parent / "client-credentials"
    netloc = url.split("//", 1)[1].split("/", 1)[0]
    credentials.write_text(f"https://{HTTPS_USER}:{HTTPS_PASSWORD}@{netloc}\n")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(repo.path.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_SSL_CAINFO": str(ca_file),
        "GIT_TERMINAL_PROMPT": "0",
    }
    work = repo.path
    _git(work, "lfs", "install", "--local", env=env)
    _git(work, "config", "credential.helper", f"store --file={credentials}", env=env)
    _git(work, "config", "lfs.locksverify", "false", env=env)
    for name, text in files.items():
        _git(work, "lfs", "track", name, env=env)
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    _git(work, "add", ".gitattributes", *files, env=env)
    _git(work, "commit", "--quiet", "-m", "lfs files", env=env)
    _git(work, "lfs", "push", url, "main", env=env)
    return repo.head


@pytest.fixture
async def lfs_git(
    private_root: Path, test_ca: CertificateAuthority
) -> AsyncIterator[GitHttpsServer]:
    server = GitHttpsServer(
        private_root, test_ca, passwords={HTTPS_USER: HTTPS_PASSWORD}, lfs=LfsObjects()
    )
    async with git_https_server(server) as running:
        yield running


@pytest.fixture
def ca_file(tmp_path: Path, test_ca: CertificateAuthority) -> Path:
    path = tmp_path / "ca.pem"
    path.write_text(test_ca.cert_pem)
    return path


@pytest.fixture
async def lfs_repos(tmp_path: Path, test_ca: CertificateAuthority) -> Repositories:
    repos = Repositories(RepoSettings(cache_dir=tmp_path / "cache", network_timeout=60))
    await repos.update_trust("", {HOST: test_ca.cert_pem})
    return repos


def _use(repos: Repositories, url: str, *, lfs: bool) -> None:
    fields = {"url": url, "username": HTTPS_USER, "password": HTTPS_PASSWORD}
    if lfs:
        fields["enableLfs"] = "true"
    repos.update_credentials(store(secret("repo-lfs", **fields)))


def _source(url: str) -> ApplicationSource:
    return ApplicationSource(repo_url=url, path="app", target_revision="HEAD")


async def test_enable_lfs_renders_and_checks_out_the_real_contents(
    lfs_repos: Repositories, lfs_git: GitHttpsServer, private_repo: GitRepo, ca_file: Path
) -> None:
    assert lfs_git.lfs is not None
    url = lfs_git.url("org/app.git")
    commit = await push_lfs_files(private_repo, url, {"app/big.yaml": BIG}, ca_file)
    _use(lfs_repos, url, lfs=True)
    async with sampled_processes() as samples:
        render = await lfs_repos.render_directory(_source(url), commit)
        async with lfs_repos.checkout(url, commit) as work:
            checked_out = (work.root / "app/big.yaml").read_text()
    assert {f.path: f.text for f in render.files}["app/big.yaml"] == BIG
    assert checked_out == BIG
    assert lfs_git.lfs.downloads == 1, "the object is kept and read again from the cache"
    assert any("lfs" in s for s in samples)
    assert not [s for s in samples if HTTPS_PASSWORD in s]
    batch = [auth for path, auth in lfs_git.seen if path.endswith("/info/lfs/objects/batch")]
    assert batch[0] is None, "credentials go only to the server that asks for them"
    assert batch[-1] is not None


async def test_without_enable_lfs_the_pointer_renders(
    lfs_repos: Repositories, lfs_git: GitHttpsServer, private_repo: GitRepo, ca_file: Path
) -> None:
    url = lfs_git.url("org/app.git")
    commit = await push_lfs_files(private_repo, url, {"app/big.yaml": BIG}, ca_file)
    oid = hashlib.sha256(BIG.encode()).hexdigest()
    pointer = LfsPointer(oid, len(BIG.encode())).text.decode()
    _use(lfs_repos, url, lfs=False)
    render = await lfs_repos.render_directory(_source(url), commit)
    assert {f.path: f.text for f in render.files}["app/big.yaml"] == pointer
    async with lfs_repos.checkout(url, commit) as work:
        assert (work.root / "app/big.yaml").read_text() == pointer
    _use(lfs_repos, url, lfs=True)
    render = await lfs_repos.render_directory(_source(url), commit)
    assert {f.path: f.text for f in render.files}["app/big.yaml"] == BIG


async def test_an_object_over_the_limit_is_never_downloaded(
    tmp_path: Path,
    test_ca: CertificateAuthority,
    lfs_git: GitHttpsServer,
    private_repo: GitRepo,
    ca_file: Path,
) -> None:
    assert lfs_git.lfs is not None
    url = lfs_git.url("org/app.git")
    commit = await push_lfs_files(private_repo, url, {"app/big.yaml": BIG}, ca_file)
    repos = Repositories(
        RepoSettings(cache_dir=tmp_path / "small", network_timeout=60, max_lfs_object_bytes=1000)
    )
    await repos.update_trust("", {HOST: test_ca.cert_pem})
    _use(repos, url, lfs=True)
    with pytest.raises(LimitExceeded, match=r"'app/big.yaml' is \d+ bytes.*max_lfs_object_bytes"):
        await repos.render_directory(_source(url), commit)
    with pytest.raises(LimitExceeded, match="max_lfs_object_bytes"):
        async with repos.checkout(url, commit):
            pass
    assert lfs_git.lfs.downloads == 0


async def test_a_server_sending_more_than_the_pointer_says_is_stopped(
    lfs_repos: Repositories, lfs_git: GitHttpsServer, private_repo: GitRepo, ca_file: Path
) -> None:
    assert lfs_git.lfs is not None
    url = lfs_git.url("org/app.git")
    commit = await push_lfs_files(private_repo, url, {"app/big.yaml": BIG}, ca_file)
    lfs_git.lfs.inflate_to = 64 * 1024 * 1024
    _use(lfs_repos, url, lfs=True)
    stopped = r"'app/big\.yaml'.* stopped: the server sent more than the \d+ bytes"
    with pytest.raises(LimitExceeded, match=stopped) as failed:
        await lfs_repos.render_directory(_source(url), commit)
    assert HTTPS_PASSWORD not in str(failed.value)
    lfs_git.lfs.inflate_to = 0
    render = await lfs_repos.render_directory(_source(url), commit)
    assert {f.path: f.text for f in render.files}["app/big.yaml"] == BIG


async def test_a_missing_object_names_the_file_and_the_repository(
    lfs_repos: Repositories, lfs_git: GitHttpsServer, private_repo: GitRepo, ca_file: Path
) -> None:
    assert lfs_git.lfs is not None
    url = lfs_git.url("org/app.git")
    commit = await push_lfs_files(private_repo, url, {"app/big.yaml": BIG}, ca_file)
    lfs_git.lfs.objects.clear()
    _use(lfs_repos, url, lfs=True)
    with pytest.raises(GitError) as failed:
        await lfs_repos.render_directory(_source(url), commit)
    text = str(failed.value)
    assert "'app/big.yaml'" in text and f"{HOST}:{lfs_git.port}/org/app.git" in text
    assert "git lfs push" in text and "logs" not in text
    assert HTTPS_PASSWORD not in text


async def test_a_bearer_token_reaches_the_lfs_api_too(
    lfs_repos: Repositories, lfs_git: GitHttpsServer, private_repo: GitRepo, ca_file: Path
) -> None:
    url = lfs_git.url("org/app.git")
    commit = await push_lfs_files(private_repo, url, {"app/big.yaml": BIG}, ca_file)
    lfs_git.tokens.add("bearer-Lfs-5e1d")
    lfs_repos.update_credentials(
        store(secret("repo-lfs", url=url, bearerToken="bearer-Lfs-5e1d", enableLfs="true"))
    )
    async with lfs_repos.checkout(url, commit) as work:
        assert (work.root / "app/big.yaml").read_text() == BIG
    assert ("/org/app.git/info/lfs/objects/batch", "Bearer bearer-Lfs-5e1d") in lfs_git.seen
