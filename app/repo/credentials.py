"""Repository credentials from configuration, and which repository URL may use which.

A credential names the URL it is for: a repository (`https://github.com/org/repo.git`) or
a prefix (`https://github.com/org`), like Argo CD's repository and repo-creds secrets. It
applies to a repository URL only when transport, host and port are equal and the
credential's path is a whole-segment prefix of the repository's path (so
`https://github.com/org` covers `https://github.com/org/app` but never
`https://github.com/organisation/app` or `https://github.com.evil.example/org/app`); the
longest match wins. A URL that carries its own password uses it and nothing else.
Secrets never appear in `repr`, and `secrets()` feeds the redactor.
"""

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from app.repo.errors import RepoURLError
from app.repo.urls import RepoURL, Transport, parse_repo_url

DEFAULT_HTTPS_USERNAME = "x-access-token"


@dataclass(frozen=True, slots=True)
class RepoCredential:
    """Credentials for one repository or URL prefix. Exactly one kind: https or ssh."""

    url: str
    """Repository URL or URL prefix the credential is for."""
    username: str = ""
    """HTTPS user; empty means `x-access-token` (what GitHub and Argo CD use for tokens)."""
    password: str = field(default="", repr=False)
    """HTTPS password or access token, sent as HTTP Basic auth."""
    bearer_token: str = field(default="", repr=False)
    """HTTPS bearer token (`Authorization: Bearer`), e.g. Bitbucket Server access tokens."""
    ssh_private_key: str = field(default="", repr=False)
    """PEM/OpenSSH private key for ssh URLs."""
    insecure_ignore_host_key: bool = False
    """ssh: connect even if the host key is not in `ssh_known_hosts` (tests, labs)."""

    def __post_init__(self) -> None:
        parsed = parse_repo_url(self.url, field="credential url")
        if parsed.is_local:
            raise RepoURLError(f"credential for {parsed.display}: local repositories need none")
        if parsed.password:
            raise RepoURLError(
                f"credential for {parsed.display}: put the password in the credential, not the URL"
            )
        if parsed.transport is Transport.SSH:
            if not self.ssh_private_key or self.password or self.bearer_token:
                raise RepoURLError(
                    f"credential for {parsed.display}: an ssh URL needs ssh_private_key only"
                )
        elif self.ssh_private_key or not (self.password or self.bearer_token):
            raise RepoURLError(
                f"credential for {parsed.display}: an https URL needs a password or bearer_token"
            )

    @property
    def parsed(self) -> RepoURL:
        return parse_repo_url(self.url, field="credential url")

    @property
    def authorization(self) -> str:
        """The HTTP Authorization header value (https credentials only)."""
        if self.bearer_token:
            return f"Bearer {self.bearer_token}"
        pair = f"{self.username or DEFAULT_HTTPS_USERNAME}:{self.password}".encode()
        return "Basic " + base64.b64encode(pair).decode()

    def secrets(self) -> list[str]:
        found = [self.password, self.bearer_token, self.ssh_private_key]
        if self.password or self.bearer_token:
            found.append(self.authorization.split(" ", 1)[1])
        return [s for s in found if s]


def _segments(path: str) -> list[str]:
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    return [s for s in path.split("/") if s]


def covers(credential: RepoURL, repo: RepoURL) -> bool:
    """True when a credential for `credential` may be sent for repository `repo`."""
    if (
        credential.transport is not repo.transport
        or credential.host != repo.host
        or credential.effective_port != repo.effective_port
    ):
        return False
    prefix, path = _segments(credential.path), _segments(repo.path)
    return path[: len(prefix)] == prefix


class CredentialStore:
    """The configured credentials, looked up by repository URL."""

    def __init__(self, credentials: Iterable[RepoCredential] = ()) -> None:
        self._entries: Sequence[tuple[RepoURL, RepoCredential]] = sorted(
            ((c.parsed, c) for c in credentials),
            key=lambda pair: len(_segments(pair[0].path)),
            reverse=True,
        )

    def for_url(self, repo: RepoURL) -> RepoCredential | None:
        """The most specific credential covering `repo`; None if local or the URL has a password."""
        if repo.is_local or repo.password:
            return None
        for parsed, credential in self._entries:
            if covers(parsed, repo):
                return credential
        return None

    def secrets(self) -> list[str]:
        return [s for _, c in self._entries for s in c.secrets()]
