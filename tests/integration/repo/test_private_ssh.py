"""Private repositories over ssh: a real sshd with a generated host key and authorized key.

Strict host-key checking against argocd-ssh-known-hosts-cm, the key only in a 0600 file
that is gone afterwards, and a clear error naming the repository for each failure.
"""

from pathlib import Path

import pytest

from app.repo.errors import GitError
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.private import sampled_processes, secret, store
from tests.support.gitrepo import GitRepo
from tests.support.keys import ssh_key_pair
from tests.support.sshd import SshServer


@pytest.fixture
def repos(tmp_path: Path) -> Repositories:
    return Repositories(RepoSettings(cache_dir=tmp_path / "cache", network_timeout=30))


def ssh_url(server: SshServer, private_root: Path) -> str:
    return server.url(f"{private_root.name}/org/app.git")


async def test_key_and_known_host_fetch_and_leave_nothing(
    repos: Repositories, sshd_server: SshServer, private_repo: GitRepo, private_root: Path
) -> None:
    url = ssh_url(sshd_server, private_root)
    key = sshd_server.client.private_openssh
    await repos.update_trust(sshd_server.known_hosts_line, {})
    repos.update_credentials(store(secret("repo-ssh", url=url, sshPrivateKey=key)))
    async with sampled_processes() as samples:
        resolved = await repos.resolve(url, "HEAD")
        await repos.fetch(url, resolved.commit)
    assert resolved.commit == private_repo.head
    assert any("ssh" in s for s in samples)
    body = key.splitlines()[1]
    assert not [s for s in samples if body in s]
    home = repos.settings.cache_dir / "home"
    assert not list(home.glob("auth-*")), "the key's directory is removed after each command"


async def test_unknown_host_key_is_refused_naming_the_configmap(
    repos: Repositories, sshd_server: SshServer, private_repo: GitRepo, private_root: Path
) -> None:
    url = ssh_url(sshd_server, private_root)
    key = sshd_server.client.private_openssh
    repos.update_credentials(store(secret("repo-ssh", url=url, sshPrivateKey=key)))
    with pytest.raises(GitError, match="argocd-ssh-known-hosts-cm") as failed:
        await repos.list_refs(url)
    assert url.split("@")[1].split("/")[0] in str(failed.value)
    repos.update_credentials(
        store(secret("repo-ssh", url=url, sshPrivateKey=key, insecureIgnoreHostKey="true"))
    )
    assert (await repos.list_refs(url)).head == private_repo.head


async def test_wrong_key_is_refused_without_showing_it(
    repos: Repositories, sshd_server: SshServer, private_repo: GitRepo, private_root: Path
) -> None:
    url = ssh_url(sshd_server, private_root)
    other = ssh_key_pair().private_openssh
    await repos.update_trust(sshd_server.known_hosts_line, {})
    repos.update_credentials(store(secret("repo-ssh", url=url, sshPrivateKey=other)))
    with pytest.raises(GitError, match=r"data\.sshPrivateKey") as failed:
        await repos.list_refs(url)
    assert "repository Secret sluice/repo-ssh" in str(failed.value)
    assert other.splitlines()[1] not in str(failed.value)


async def test_rotated_key_is_used_by_the_next_fetch(
    repos: Repositories, sshd_server: SshServer, private_repo: GitRepo, private_root: Path
) -> None:
    url = ssh_url(sshd_server, private_root)
    await repos.update_trust(sshd_server.known_hosts_line, {})
    other = ssh_key_pair().private_openssh
    repos.update_credentials(store(secret("repo-ssh", url=url, sshPrivateKey=other)))
    with pytest.raises(GitError):
        await repos.list_refs(url)
    key = sshd_server.client.private_openssh
    repos.update_credentials(store(secret("repo-ssh", url=url, sshPrivateKey=key)))
    assert (await repos.list_refs(url)).head == private_repo.head
