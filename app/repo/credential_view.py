"""What reaching a repository depends on, as one comparable value per (URL, project).

A process's repository Secrets, templates and trust ConfigMaps change one at a time;
what matters to an app is whether the way *its* repository is reached changed: the
credentials `CredentialStore.for_url` gives it (or the refusal it raises), the Secrets
they come from and their scope, and the trust that applies to its server (the ssh
known_hosts for ssh URLs, the server's CA bundle for HTTPS ones). `fingerprint` digests
exactly that, so two views of the configuration can be compared per repository. The
digests are compared in memory only, never logged or stored (an unkeyed hash of a weak
password could be guessed). `version` names the Kubernetes objects the view was built
from (their resourceVersions): equal across processes following the same objects, and
free of secrets.
"""

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.repo.credentials import CredentialError, CredentialStore
from app.repo.errors import RepoURLError
from app.repo.urls import RepoURL, Transport, parse_repo_url


@dataclass(frozen=True, slots=True)
class CredentialView:
    """The credentials and trust one process had in force at one moment."""

    store: CredentialStore = field(default_factory=CredentialStore)
    known_hosts: str = ""
    tls_certs: Mapping[str, str] = field(default_factory=dict)
    version: str = ""
    """The Secrets' and ConfigMaps' names and resourceVersions, sorted."""

    def fingerprint(self, url: str, project: str = "") -> str:
        """A digest of how `url` is reached for an app of `project` (equal digests: the
        same credentials, Secrets, scope and trust)."""
        try:
            repo = parse_repo_url(url)
        except RepoURLError as e:
            return _digest("invalid", str(e))
        return _digest(self._credentials(repo, project), self._trust(repo))

    def _credentials(self, repo: RepoURL, project: str) -> str:
        try:
            resolved = self.store.for_url(repo, project)
        except CredentialError as e:
            return f"refused\0{e}"
        if resolved is None:
            return "none"
        values = dataclasses.astuple(resolved.creds)
        return "\0".join([resolved.source, resolved.scope, *map(repr, values)])

    def _trust(self, repo: RepoURL) -> str:
        if repo.transport is Transport.SSH:
            return self.known_hosts
        if repo.transport in (Transport.HTTPS, Transport.HTTP):
            return self.tls_certs.get(repo.host, "")
        return ""


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0\0".join(parts).encode()).hexdigest()
