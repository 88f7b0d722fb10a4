"""What git hands to ssh: the configured key (0600, only for its host), strict host keys.

No ssh server runs in the test suite, so `ssh` on PATH is a recorder that writes down its
arguments and the key file it was given, then fails the way an unreachable server does.
"""

import json
import os
import stat
from pathlib import Path

import pytest

from app.repo.credentials import RepoCredential
from app.repo.errors import GitError
from app.repo.service import Repositories
from app.repo.settings import RepoSettings

KEY = "\n".join(
    ["-----BEGIN OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXk", "-----END OPENSSH PRIVATE KEY-----"]
)
RECORDER = """#!/usr/bin/env python3
import json, os, stat, sys
args = sys.argv[1:]
key = args[args.index("-i") + 1] if "-i" in args else None
record = {"args": args}
if key:
    record["mode"] = stat.S_IMODE(os.stat(key).st_mode)
    record["key"] = open(key).read()
    record["key_path"] = key
with open(RECORD, "a") as out:
    out.write(json.dumps(record) + "\\n")
sys.stderr.write("ssh: connect to host example port 22: Connection refused\\n")
sys.exit(255)
"""


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ssh = bin_dir / "ssh"
    record = tmp_path / "ssh-record.jsonl"
    ssh.write_text(RECORDER.replace("RECORD", repr(str(record))))
    ssh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return record


def gone(path: str) -> bool:
    return not os.path.exists(path)


def calls(record: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in record.read_text().splitlines()]


async def test_key_goes_only_to_its_host_and_is_removed(tmp_path: Path, record: Path) -> None:
    settings = RepoSettings(
        cache_dir=tmp_path / "cache", ssh_known_hosts="git.example ssh-ed25519 AAAA"
    )
    repos = Repositories(settings, [RepoCredential(url="git@git.example:org", ssh_private_key=KEY)])
    with pytest.raises(GitError, match=r"Connection refused.*refused the connection"):
        await repos.resolve("git@git.example:org/app.git", "HEAD")
    with pytest.raises(GitError):
        await repos.resolve("git@other.example:org/app.git", "HEAD")
    with_key, without_key = calls(record)
    assert with_key["mode"] == 0o600
    assert with_key["key"] == KEY + "\n"
    assert gone(str(with_key["key_path"]))
    args = with_key["args"]
    assert isinstance(args, list)
    assert "StrictHostKeyChecking=yes" in args
    assert f"UserKnownHostsFile={tmp_path / 'cache' / 'home' / 'known_hosts'}" in args
    assert (tmp_path / "cache" / "home" / "known_hosts").read_text() == settings.ssh_known_hosts
    assert "-i" not in without_key["args"]  # type: ignore[operator]
    assert stat.S_IMODE((tmp_path / "cache" / "home").stat().st_mode) == 0o700


async def test_insecure_host_key_is_explicit(tmp_path: Path, record: Path) -> None:
    credential = RepoCredential(
        url="ssh://git@lab.example/org", ssh_private_key=KEY, insecure_ignore_host_key=True
    )
    repos = Repositories(RepoSettings(cache_dir=tmp_path / "cache"), [credential])
    with pytest.raises(GitError):
        await repos.resolve("ssh://git@lab.example/org/app", "HEAD")
    [call] = calls(record)
    assert "StrictHostKeyChecking=no" in call["args"]  # type: ignore[operator]
