"""The one credential path: "repository URL X, for an app of project P" → how to reach it.

`Access.for_url(repo, project)` (one `Access` per process, owned by `Repositories`) looks
the URL up in the credential store (credentials.py), fetches a GitHub App installation
token when the Secret names an App (githubapp.py), and returns a `RepoAccess`. Everything
that talks to a repository server goes through a `RepoAccess`:

- git (ls-remote, fetch, every checkout): `async with access.git(home) as env` gives the
  environment variables for one git process. Secrets go into files in a fresh 0700 directory,
  each 0600, removed when the block ends; nothing secret is in argv, in the environment,
  or in a URL:
  - username/password (and a GitHub App token): a credential helper scoped by git to the
    repository's `scheme://host:port` that prints a 0600 file, so git sends them only
    after that server asks (HTTP 401), as Argo CD's askpass does; `forceHttpBasicAuth`
    sends Basic auth up front, and a `bearerToken` is an `Authorization: Bearer` header,
    both scoped by git to the repository URL (`http.<url>.extraHeader`);
  - client certificate and key (`http.<url>.sslCert`/`sslKey`), the server's CA bundle
    from argocd-tls-certs-cm (`sslCAInfo`), `insecure` (`sslVerify=false`) only when
    set, `proxy` (`http.<url>.proxy`) and `noProxy` (`NO_PROXY`);
  - ssh: `GIT_SSH_COMMAND` with the 0600 key file, `IdentitiesOnly=yes`, no ssh config,
    `StrictHostKeyChecking=yes` against the known_hosts of argocd-ssh-known-hosts-cm (the
    system's files never), or no host-key check only with `insecureIgnoreHostKey`.
  The secret-bearing config is the process's "global" git config file
  (`GIT_CONFIG_GLOBAL`), so `ps` and `/proc/*/environ` show only its path. With
  `enableLfs` the same settings are also written where git-lfs looks them up (TLS by
  server, headers and proxy by its API URL), so LFS downloads use the same credentials.
- HTTP clients (the token exchange; later Helm and OCI): `headers()`, `ssl_context()`,
  `proxy`.

Redirects are never followed by git (`http.followRedirects=false`) and submodules are never
fetched, so credentials reach only the server configured for them. `secrets()` lists every
value the redactor must mask, tokens included.
"""

import asyncio
import contextlib
import os
import shlex
import shutil
import ssl
import tempfile
from base64 import b64encode
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

from app.model.repository_secret import RepoCreds
from app.repo.credentials import DEFAULT_HTTPS_USERNAME, CredentialStore, Resolved
from app.repo.githubapp import GitHubApps, api_base
from app.repo.lfs_pointer import lfs_endpoint
from app.repo.trust import RepoTrust
from app.repo.urls import RepoURL, Transport


def _quote(value: str) -> str:
    """A git config value, quoted (values never hold line breaks: the model refuses them)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _private_file(directory: str, name: str, text: str) -> str:
    path = os.path.join(directory, name)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    return path


@dataclass(frozen=True, slots=True)
class RepoAccess:
    """The credentials and trust one repository URL gets for one project."""

    repo: RepoURL
    creds: RepoCreds = field(repr=False)
    source: str
    """The Secrets the credentials came from ("" for none)."""
    scope: str
    """"" when every project may share what this access reads, else the scoping project."""
    trust: RepoTrust = field(repr=False)

    def secrets(self) -> list[str]:
        found = self.creds.secrets()
        if self.creds.password:
            found.append(b64encode(f"{self._http_user}:{self.creds.password}".encode()).decode())
        return found

    @property
    def _http_user(self) -> str:
        return self.creds.username or self.repo.user or DEFAULT_HTTPS_USERNAME

    def headers(self) -> dict[str, str]:
        """The Authorization header for HTTP clients (bearer, else basic), if any."""
        if self.creds.bearer_token:
            return {"Authorization": f"Bearer {self.creds.bearer_token}"}
        if self.creds.password:
            pair = f"{self._http_user}:{self.creds.password}".encode()
            return {"Authorization": "Basic " + b64encode(pair).decode()}
        return {}

    def ssl_context(self) -> ssl.SSLContext:
        """TLS for HTTP clients: the host's CA bundle, the client certificate, `insecure`."""
        context = self.trust.ssl_context(self.repo.host, insecure=self.creds.insecure)
        if self.creds.tls_client_cert_data:
            with tempfile.TemporaryDirectory() as directory:
                cert = _private_file(directory, "client.crt", self.creds.tls_client_cert_data)
                key = _private_file(directory, "client.key", self.creds.tls_client_cert_key)
                context.load_cert_chain(cert, key)
        return context

    @property
    def proxy(self) -> str:
        return self.creds.proxy

    @contextlib.asynccontextmanager
    async def git(self, home: Path) -> AsyncIterator[dict[str, str]]:
        """The environment variables one git process needs for this repository (the files
        they name are removed when the block ends)."""
        if self.repo.is_local:
            yield {}
            return
        directory = await asyncio.to_thread(tempfile.mkdtemp, prefix="auth-", dir=home)
        try:
            if self.repo.transport is Transport.SSH:
                env = await asyncio.to_thread(self._ssh, directory)
            else:
                env = await asyncio.to_thread(self._https, directory)
            yield env
        finally:
            await asyncio.shield(asyncio.to_thread(shutil.rmtree, directory, True))

    def _ssh(self, directory: str) -> dict[str, str]:
        ssh = [
            "ssh", "-F", os.devnull,
            "-o", "BatchMode=yes",
            "-o", "IdentitiesOnly=yes",
            "-o", f"GlobalKnownHostsFile={os.devnull}",
            "-o", "UpdateHostKeys=no",
        ]  # fmt: skip
        if self.creds.insecure_ignore_host_key:
            ssh += ["-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={os.devnull}"]
        else:
            ssh += [
                "-o", "StrictHostKeyChecking=yes",
                "-o", f"UserKnownHostsFile={self.trust.known_hosts}",
            ]  # fmt: skip
        if self.creds.ssh_private_key:
            key = self.creds.ssh_private_key.strip() + "\n"
            ssh += ["-i", _private_file(directory, "id", key)]
        return {"GIT_SSH_COMMAND": shlex.join(ssh)}

    def _https(self, directory: str) -> dict[str, str]:
        creds = self.creds
        server = f"{self.repo.transport.value}://{self.repo.host_port}"
        lines: list[str] = []
        request: list[tuple[str, str]] = []
        tls: list[tuple[str, str]] = []
        if creds.bearer_token:
            request.append(("extraHeader", f"Authorization: Bearer {creds.bearer_token}"))
        elif creds.password and creds.force_http_basic_auth:
            request.append(("extraHeader", f"Authorization: {self.headers()['Authorization']}"))
        elif creds.password:
            answer = f"username={self._http_user}\npassword={creds.password}\n"
            path = _private_file(directory, "credential", answer)
            helper = f'!f() {{ test "$1" = get && cat {shlex.quote(path)}; }}; f'
            lines += [f"[credential {_quote(server)}]", f"\thelper = {_quote(helper)}"]
        if creds.tls_client_cert_data:
            tls.append(
                ("sslCert", _private_file(directory, "client.crt", creds.tls_client_cert_data))
            )
            tls.append(
                ("sslKey", _private_file(directory, "client.key", creds.tls_client_cert_key))
            )
        ca_file = self.trust.ca_file(self.repo.host)
        if ca_file is not None:
            tls.append(("sslCAInfo", str(ca_file)))
        if creds.insecure:
            tls.append(("sslVerify", "false"))
        if creds.proxy:
            request.append(("proxy", creds.proxy))
        sections = [(self.repo.without_userinfo, [*request, *tls])]
        if creds.enable_lfs:
            # git-lfs matches TLS settings by server and the rest by its own API URL.
            sections += [(f"{server}/", tls), (lfs_endpoint(self.repo), request)]
        for url, items in sections:
            if items:
                lines.append(f"[http {_quote(url)}]")
                lines += [f"\t{key} = {_quote(value)}" for key, value in items]
        env = {"GIT_CONFIG_GLOBAL": _private_file(directory, "config", "\n".join(lines) + "\n")}
        if creds.no_proxy:
            env["NO_PROXY"] = env["no_proxy"] = creds.no_proxy
        return env


class Access:
    """The credential store, trust and App tokens of one process: builds `RepoAccess`es."""

    def __init__(self, trust: RepoTrust, store: CredentialStore, apps: GitHubApps) -> None:
        self.store = store
        self.trust = trust
        self.apps = apps

    async def for_url(self, repo: RepoURL, project: str = "", *, who: str = "") -> RepoAccess:
        """How `repo` is reached for an app of `project` (CredentialError if it cannot be)."""
        resolved = self.store.for_url(repo, project)
        if resolved is None:
            return RepoAccess(repo, RepoCreds(), "", "", self.trust)
        creds = await self._with_app_token(repo, resolved, who or repo.display)
        return RepoAccess(repo, creds, resolved.source, resolved.scope, self.trust)

    def scope(self, repo: RepoURL, project: str = "") -> str:
        """Which cache `repo` shares for `project` (no network: App tokens are not fetched)."""
        resolved = self.store.for_url(repo, project)
        return resolved.scope if resolved is not None else ""

    async def _with_app_token(self, repo: RepoURL, resolved: Resolved, who: str) -> RepoCreds:
        creds = resolved.creds
        if not creds.github_app_private_key or repo.transport is Transport.SSH:
            return creds
        api_host = urlsplit(api_base(creds)).hostname or ""
        token = await self.apps.token(
            creds,
            who=f"{who} ({resolved.source})",
            ssl_context=self.trust.ssl_context(api_host, insecure=creds.insecure),
            proxy=creds.proxy,
        )
        return replace(
            creds, username=DEFAULT_HTTPS_USERNAME, password=token, force_http_basic_auth=True
        )

    def secrets(self) -> list[str]:
        return [*self.store.secrets(), *self.apps.known_tokens()]
