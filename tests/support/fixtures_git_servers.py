"""Private Git servers for the tests: HTTPS (`git http-backend` behind TLS) and ssh (sshd).

- `test_ca`: a CA generated for the session; the servers' certificates are signed by it.
- `private_repo`: a Git repository with one ConfigMap manifest under `app/`, in a served
  root (`private_root`), at `org/app.git` (a work tree: servers find its `.git`).
- `https_git`: the HTTPS server for this test, requiring user `bot` / `HTTPS_PASSWORD`.
- `sshd_server`: one real sshd for the session (registered with the leak guard) serving the
  same root to the key in `sshd_server.client`; skipped where openssh-server is missing.
"""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.support import procs, sshd
from tests.support.git_http import GitHttpsServer, git_https_server
from tests.support.gitrepo import GitRepo, manifests
from tests.support.keys import CertificateAuthority
from tests.support.logscan import known_secret

HTTPS_USER = "bot"
HTTPS_PASSWORD = known_secret("pw-Https-s3cret-7f3a", "the HTTPS git password")


def configmap(name: str, value: str = "one") -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name},
        "data": {"value": value},
    }


@pytest.fixture(scope="session")
def test_ca() -> CertificateAuthority:
    return CertificateAuthority()


@pytest.fixture(scope="session")
def served_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the session sshd serves from; each test's repositories go in a subdirectory."""
    return tmp_path_factory.mktemp("served")


@pytest.fixture
def private_root(served_root: Path, tmp_path: Path) -> Path:
    root = served_root / tmp_path.name
    root.mkdir()
    return root


@pytest.fixture
def private_repo(private_root: Path) -> Iterator[GitRepo]:
    repo = GitRepo.create(private_root / "org" / "app.git")
    repo.commit({"app/cm.yaml": manifests(configmap("private"))}, "first")
    yield repo
    repo.close()


@pytest.fixture
async def https_git(
    private_root: Path, test_ca: CertificateAuthority
) -> AsyncIterator[GitHttpsServer]:
    server = GitHttpsServer(private_root, test_ca, passwords={HTTPS_USER: HTTPS_PASSWORD})
    async with git_https_server(server) as running:
        yield running


@pytest.fixture(scope="session")
def sshd_server(
    tmp_path_factory: pytest.TempPathFactory, served_root: Path
) -> Iterator[sshd.SshServer]:
    if not sshd.available():
        pytest.skip("openssh-server is not installed (.ci/run installs it)")
    server = sshd.start_sshd(tmp_path_factory.mktemp("sshd"), served_root)
    procs.allow(server.process.pid)
    yield server
    server.stop()
