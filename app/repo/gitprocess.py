"""Running git: the one place that builds its environment, credentials, deadlines and errors.

Every git process runs with a private HOME, no system or global config, no terminal
prompts, only the transports Sluice allows (`GIT_ALLOW_PROTOCOL`; `file` only when local
repositories are enabled), redirects off, fsck on fetched objects, and configuration passed
through `GIT_CONFIG_*` variables rather than argv. How a command reaches its repository
(credentials, host keys, CA bundles, proxy) is the `RepoAccess` it is given (access.py:
secrets only in 0600 files removed after the command). Each process gets a deadline and
an output cap and is killed with its process group (ssh included) when it exceeds either
or the caller is cancelled. Failures become GitError with git's message redacted and,
when the cause is recognisable, what to do.
"""

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path

from app import log
from app.repo.access import Access, RepoAccess
from app.repo.errors import GitError, GitTimeout, LimitExceeded
from app.repo.process import run_process
from app.repo.redact import redact
from app.repo.settings import RepoSettings

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
    ("submodule.recurse", "false"),
    ("core.askPass", ""),
    ("init.defaultBranch", "main"),
)

_BOILERPLATE = (
    "Please make sure you have the correct access rights",
    "and the repository exists",
    "Downloading ",
    "Errors logged to ",
    "Use `git lfs logs last`",
)
_HINTS: tuple[tuple[str, str], ...] = (
    ("response 407", "the proxy refused its credentials; check data.proxy in the Secret"),
    ("proxy connect aborted", "the proxy closed the connection; check data.proxy"),
    ("authentication failed", "the server refused the credentials; check them in the Secret"),
    (
        "could not read username",
        "the repository asks for credentials: add a repository Secret or a repo-creds "
        "template for its URL",
    ),
    ("could not read password", "the repository asks for a password the Secret does not give"),
    ("permission denied (publickey", "the ssh key was refused; check data.sshPrivateKey"),
    (
        "host key verification failed",
        "the server's host key is not in argocd-ssh-known-hosts-cm; add it there",
    ),
    (
        "certificate",
        "the server's TLS certificate is not trusted; add its CA to argocd-tls-certs-cm "
        "under the host name",
    ),
    (
        "returned error: 30",
        "the server redirects elsewhere; Sluice does not follow redirects, use the final URL",
    ),
    ("could not resolve host", "check the host name and the network"),
    ("connection refused", "the server refused the connection; check host and port"),
    ("couldn't connect to server", "the server refused the connection; check host and port"),
    ("repository not found", "check the URL, and that the credential can read it"),
    (
        "object does not exist",
        "the LFS server does not hold this file's object; push it with git lfs push --all",
    ),
    ("does not appear to be a git repository", "check the URL or path"),
    ("not found", "check the URL, and that the credential can read it"),
)


def _hint(stderr: str) -> str:
    lowered = stderr.lower()
    for needle, hint in _HINTS:
        if needle in lowered:
            return f" ({hint})"
    return ""


class GitRunner:
    """Runs git commands for one process; shared by every repository cache."""

    def __init__(self, settings: RepoSettings, access: Access, home: Path) -> None:
        self._settings = settings
        self._access = access
        self._home = home
        self._semaphore = asyncio.Semaphore(settings.git_parallelism)
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
        """Create the private HOME, known_hosts and CA files (idempotent)."""
        self._home.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._access.trust.prepare()

    def redact(self, text: str, remote: RepoAccess | None = None) -> str:
        extra = remote.secrets() if remote is not None else []
        if remote is not None and remote.repo.password:
            extra.append(remote.repo.password)
        return redact(text, [*self._access.secrets(), *extra])

    async def run(
        self,
        args: Sequence[str],
        *,
        what: str,
        git_dir: Path | None = None,
        remote: RepoAccess | None = None,
        stdin: bytes | None = None,
        deadline: float | None = None,
        max_output: int = 16 * 1024 * 1024,
        extra_env: Mapping[str, str] | None = None,
        config: Sequence[tuple[str, str]] = (),
        watch: Callable[[], str | None] | None = None,
    ) -> bytes:
        """Run `git <args>` and return stdout; GitError/GitTimeout/LimitExceeded on failure.

        `deadline` defaults to the settings' network or local timeout. `what` describes the
        operation for messages (already free of secrets). `config` adds git settings after
        the fixed ones (never secrets: they travel in the environment). `watch`, if given,
        is called every 0.1 s while git runs; a returned message kills git and raises
        LimitExceeded with it.
        """
        if deadline is None:
            deadline = self._settings.network_timeout if remote else self._settings.local_timeout
        async with self._git_env(remote) as auth, self._semaphore:
            env = {**self._env, **auth, **(extra_env or {})}
            settings = [*_BASE_CONFIG, *config]
            env["GIT_CONFIG_COUNT"] = str(len(settings))
            for i, (key, value) in enumerate(settings):
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
            used = (
                f"; credentials from {remote.source}"
                if remote is not None and remote.source
                else ""
            )
            raise GitError(f"{what} failed: {tail}{_hint(message)}{used}")
        return finished.stdout

    @contextlib.asynccontextmanager
    async def _git_env(self, remote: RepoAccess | None) -> AsyncIterator[dict[str, str]]:
        if remote is None:
            yield {}
            return
        async with remote.git(self._home) as env:
            yield env
