"""Running git: the one place that builds its environment, credentials, deadlines and errors.

Every git process runs with a private HOME, no system or global config, no terminal
prompts, only the transports Sluice allows (`GIT_ALLOW_PROTOCOL`; `file` only when local
repositories are enabled), redirects off, fsck on fetched objects, and configuration passed
through `GIT_CONFIG_*` variables rather than argv (so `ps` never shows a header). HTTPS
credentials go in an `http.<repository URL>.extraHeader`, which git itself sends only to
that URL; an ssh key is written 0600 into a private temp dir for the one command and
removed after. Each process gets a deadline and an output cap and is killed with its
process group (ssh included) when it exceeds either or the caller is cancelled. Failures
become GitError with git's message redacted and, when the cause is recognisable, what to do.
"""

import asyncio
import contextlib
import os
import shlex
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from app import log
from app.repo.credentials import CredentialStore
from app.repo.errors import GitError, GitTimeout, LimitExceeded
from app.repo.process import run_process
from app.repo.redact import redact
from app.repo.settings import RepoSettings
from app.repo.urls import RepoURL, Transport

logger = log.get("repo.git")

_BASE_CONFIG: tuple[tuple[str, str], ...] = (
    ("protocol.version", "2"),
    ("http.followRedirects", "false"),
    ("transfer.fsckObjects", "true"),
    ("fetch.fsck.zeroPaddedFilemode", "ignore"),
    ("fetch.fsck.badTimezone", "ignore"),
    ("fetch.fsck.missingSpaceBeforeDate", "ignore"),
    ("transfer.unpackLimit", "1"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("fetch.writeCommitGraph", "false"),
    ("core.hooksPath", os.devnull),
    ("core.fsmonitor", "false"),
    ("core.symlinks", "true"),
    ("credential.helper", ""),
    ("core.askPass", ""),
    ("init.defaultBranch", "main"),
)

_BOILERPLATE = ("Please make sure you have the correct access rights", "and the repository exists")
_HINTS: tuple[tuple[str, str], ...] = (
    ("authentication failed", "check the credential configured for this repository"),
    ("could not read username", "the repository needs credentials; configure one for its URL"),
    ("permission denied (publickey", "the ssh key was refused; check the configured key"),
    ("host key verification failed", "add the server's host key to ssh_known_hosts"),
    ("could not resolve host", "check the host name and the network"),
    ("connection refused", "the server refused the connection; check host and port"),
    ("couldn't connect to server", "the server refused the connection; check host and port"),
    ("repository not found", "check the URL, and that the credential can read it"),
    ("does not appear to be a git repository", "check the URL or path"),
    ("not found", "check the URL, and that the credential can read it"),
)


def _hint(stderr: str) -> str:
    lowered = stderr.lower()
    for needle, hint in _HINTS:
        if needle in lowered:
            return f" ({hint})"
    return ""


@dataclass(frozen=True, slots=True)
class _Auth:
    env: dict[str, str]
    config: list[tuple[str, str]]


def _write_key(home: Path, key: str) -> str:
    """Write an ssh key 0600 into a fresh private dir under `home`; returns the dir."""
    key_dir = tempfile.mkdtemp(prefix="key-", dir=home)
    fd = os.open(os.path.join(key_dir, "id"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as key_file:
        key_file.write(key.strip() + "\n")
    return key_dir


class GitRunner:
    """Runs git commands for one process; shared by every repository cache."""

    def __init__(self, settings: RepoSettings, credentials: CredentialStore, home: Path) -> None:
        self._settings = settings
        self._credentials = credentials
        self._home = home
        self._known_hosts = home / "known_hosts"
        self._semaphore = asyncio.Semaphore(settings.git_parallelism)
        self._secrets = credentials.secrets()
        protocols = "https:http:ssh" + (":file" if settings.allow_local else "")
        self._env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "GIT_CEILING_DIRECTORIES": str(home.parent),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ALLOW_PROTOCOL": protocols,
            "GIT_LFS_SKIP_SMUDGE": "1",
            "LC_ALL": "C",
            "LANG": "C",
        }

    def prepare(self) -> None:
        """Create the private HOME and known_hosts file (idempotent)."""
        self._home.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._known_hosts.write_text(self._settings.ssh_known_hosts)

    def redact(self, text: str, remote: RepoURL | None = None) -> str:
        extra = [remote.password] if remote is not None and remote.password else []
        return redact(text, [*self._secrets, *extra])

    @contextlib.asynccontextmanager
    async def _auth(self, remote: RepoURL | None) -> AsyncIterator[_Auth]:
        config = list(_BASE_CONFIG)
        if remote is None or remote.is_local:
            yield _Auth({}, config)
            return
        credential = self._credentials.for_url(remote)
        if remote.transport is not Transport.SSH:
            if credential is not None:
                header = f"Authorization: {credential.authorization}"
                config.append((f"http.{remote.without_userinfo}.extraHeader", header))
            yield _Auth({}, config)
            return
        ssh = ["ssh", "-F", os.devnull, "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes"]
        if credential is not None and credential.insecure_ignore_host_key:
            ssh += ["-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={os.devnull}"]
        else:
            ssh += [
                "-o",
                "StrictHostKeyChecking=yes",
                "-o",
                f"UserKnownHostsFile={self._known_hosts}",
            ]
        key_dir: str | None = None
        try:
            if credential is not None:
                key_dir = await asyncio.to_thread(
                    _write_key, self._home, credential.ssh_private_key
                )
                ssh += ["-i", os.path.join(key_dir, "id")]
            yield _Auth({"GIT_SSH_COMMAND": shlex.join(ssh)}, config)
        finally:
            if key_dir is not None:
                await asyncio.to_thread(_remove_tree, key_dir)

    async def run(
        self,
        args: Sequence[str],
        *,
        what: str,
        git_dir: Path | None = None,
        remote: RepoURL | None = None,
        stdin: bytes | None = None,
        deadline: float | None = None,
        max_output: int = 16 * 1024 * 1024,
        extra_env: Mapping[str, str] | None = None,
        watch: Callable[[], str | None] | None = None,
    ) -> bytes:
        """Run `git <args>` and return stdout; GitError/GitTimeout/LimitExceeded on failure.

        `deadline` defaults to the settings' network or local timeout. `what` describes the
        operation for messages (already free of secrets). `watch`, if given, is called every
        0.1 s while git runs; a returned message kills git and raises LimitExceeded with it.
        """
        if deadline is None:
            deadline = self._settings.network_timeout if remote else self._settings.local_timeout
        async with self._auth(remote) as auth, self._semaphore:
            env = {**self._env, **auth.env, **(extra_env or {})}
            env["GIT_CONFIG_COUNT"] = str(len(auth.config))
            for i, (key, value) in enumerate(auth.config):
                env[f"GIT_CONFIG_KEY_{i}"] = key
                env[f"GIT_CONFIG_VALUE_{i}"] = value
            command = ["git", *(["--git-dir", str(git_dir)] if git_dir else []), *args]
            try:
                finished = await run_process(
                    command,
                    env=env,
                    cwd=self._home,
                    deadline=deadline,
                    max_output=max_output,
                    stdin=stdin,
                    watch=watch,
                )
            except TimeoutError:
                raise GitTimeout(
                    f"{what} did not finish within {deadline:g} s and was stopped; the server "
                    "may be unreachable or the repository too large"
                ) from None
        code = finished.code
        logger.debug(
            "git", command=args[0] if args else "", what=what, code=code, seconds=finished.seconds
        )
        if finished.violation is not None:
            raise LimitExceeded(f"{what} was stopped: {finished.violation}")
        if code != 0:
            message = self.redact(finished.stderr.decode("utf-8", "replace"), remote)
            lines = [
                line.strip()
                for line in message.splitlines()
                if line.strip() and not line.strip().startswith(_BOILERPLATE)
            ]
            tail = "; ".join(lines[:4])[:600] or f"exit status {code}"
            raise GitError(f"{what} failed: {tail}{_hint(message)}")
        return finished.stdout


def _remove_tree(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)
